//! The bookkeeping both bounded tables share, the access point's association table
//! ([`crate::bss`]) and the IBSS station's peer table ([`crate::ibss`]): each admits entries
//! anyone can create with one forged frame, so each keeps the unproven ones in arrival order
//! (to evict the oldest), the ones with a handshake message in flight (so the clock visits
//! only those), and a bounded few failure reasons for status. What proves an entry, the
//! limits, and what an eviction does stay with each table.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use wlansec_core::wire::MacAddr;

use crate::node::AssociationStatus;

/// Failure reasons kept for status, and for how long (in ms of the table's clock).
const FAILURE_RECORDS: usize = 16;
pub(crate) const FAILURE_RECORD_MS: u64 = 10_000;

/// Unproven entries in the order they came, so a flood of forged ones evicts its own oldest
/// rather than an entry that proved itself. An entry keeps the sequence number it was given
/// to leave the queue in O(log n) once proven or removed.
#[derive(Default)]
pub(crate) struct UnprovenQueue {
    entries: BTreeMap<u64, MacAddr>,
    next_seq: u64,
}

impl UnprovenQueue {
    /// Queue `mac` as the newest; its place, to remove it by.
    pub(crate) fn enqueue(&mut self, mac: MacAddr) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.entries.insert(seq, mac);
        seq
    }

    /// Take the entry at `seq` out of the queue (proven, or removed).
    pub(crate) fn remove(&mut self, seq: u64) {
        self.entries.remove(&seq);
    }

    /// Take out the oldest entry, the one to evict.
    pub(crate) fn pop_oldest(&mut self) -> Option<MacAddr> {
        self.entries.pop_first().map(|(_, mac)| mac)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Entries whose handshake waits for an answer: the clock visits only these (to retransmit
/// or time out), not the whole table.
#[derive(Default)]
pub(crate) struct InFlight(BTreeSet<MacAddr>);

impl InFlight {
    pub(crate) fn sent(&mut self, mac: MacAddr) {
        self.0.insert(mac);
    }

    pub(crate) fn done(&mut self, mac: MacAddr) {
        self.0.remove(&mac);
    }

    /// The entries to visit, copied so the caller may change the set while visiting them.
    pub(crate) fn list(&self) -> Vec<MacAddr> {
        self.0.iter().copied().collect()
    }
}

/// Why an entry could not stay, kept a while after it is gone.
struct FailureRecord {
    mac: MacAddr,
    why: String,
    until_ms: u64,
}

/// Failure reasons kept for status after their entries are gone: a failed entry leaves the
/// table at once, so its reason is kept here instead, at most [`FAILURE_RECORDS`] (the
/// oldest dropped) for [`FAILURE_RECORD_MS`] each, so failures cannot fill memory.
#[derive(Default)]
pub(crate) struct FailureRecords(VecDeque<FailureRecord>);

impl FailureRecords {
    /// Keep `why` for `mac` (replacing its earlier record) until `now_ms` plus
    /// [`FAILURE_RECORD_MS`].
    pub(crate) fn record(&mut self, mac: MacAddr, why: String, now_ms: u64) {
        self.0.retain(|f| f.mac != mac);
        if self.0.len() >= FAILURE_RECORDS {
            self.0.pop_front();
        }
        self.0.push_back(FailureRecord { mac, why, until_ms: now_ms + FAILURE_RECORD_MS });
    }

    /// Drop the records whose time is up at `now_ms`.
    pub(crate) fn expire(&mut self, now_ms: u64) {
        while self.0.front().is_some_and(|f| f.until_ms <= now_ms) {
            self.0.pop_front();
        }
    }

    /// Whether `mac`'s failure is still on record.
    pub(crate) fn contains(&self, mac: MacAddr) -> bool {
        self.0.iter().any(|f| f.mac == mac)
    }

    /// The records as status entries (no AID, port closed).
    pub(crate) fn statuses(&self) -> impl Iterator<Item = AssociationStatus> + '_ {
        self.0.iter().map(|f| AssociationStatus {
            mac: f.mac.to_string(),
            aid: 0,
            port_open: false,
            failure: Some(f.why.clone()),
        })
    }
}
