//! The IBSS station's peer table, bounded as the access point's association table: anyone
//! can make a station learn a peer with one forged frame (a beacon) from a made-up address,
//! so a peer is unproven until a handshake with it verified a MIC (our authenticator
//! accepted its message 2 or 4, or our supplicant its message 3 or group message 1). At most
//! [`MAX_UNPROVEN`] unproven peers exist and a new one evicts the oldest; a proven peer is
//! never evicted for them; beyond [`MAX_PEERS`] in all a new peer is not learned (counted in
//! `refused_table_full`). On an open or WEP network nothing proves a peer and nothing is
//! lost by learning it again, so every peer stays unproven. A peer whose handshake timed
//! out is removed at once, its reason kept a while for status (a bounded few); while kept,
//! the peer is not learned again (its retry waits, as wpa_supplicant's does). The clock only
//! visits peers with a handshake message in flight.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use wlansec_core::wire::MacAddr;

use super::{IbssStation, Peer};
use crate::bss::{Admission, AssociationStatus};

/// Unproven peers at most: an IBSS is small, and a peer answering message 1 at once is
/// proven long before 64 newer ones push it out.
pub(crate) const MAX_UNPROVEN: usize = 64;
/// Peers at most, proven or not.
pub(crate) const MAX_PEERS: usize = 256;
/// Failure reasons kept for status, and for how many ticks (10 s).
const FAILURE_RECORDS: usize = 16;
pub(crate) const FAILURE_RECORD_TICKS: u32 = (10_000 / crate::bss::TICK_MS) as u32;

/// Why a peer's handshake failed, kept a while after the peer is gone.
struct FailureRecord {
    mac: MacAddr,
    why: String,
    until_tick: u32,
}

/// The indices beside the station's peers that keep its work and memory bounded.
#[derive(Default)]
pub(super) struct Table {
    /// Unproven peers in the order they came (the oldest is evicted first).
    unproven: BTreeMap<u64, MacAddr>,
    next_seq: u64,
    /// Peers whose handshake (ours as authenticator) waits for an answer.
    in_flight: BTreeSet<MacAddr>,
    failures: VecDeque<FailureRecord>,
    /// Peers the last tick visited.
    pub(super) ticked: usize,
}

impl Table {
    pub(super) fn handshake_sent(&mut self, peer: MacAddr) {
        self.in_flight.insert(peer);
    }

    pub(super) fn handshake_done(&mut self, peer: MacAddr) {
        self.in_flight.remove(&peer);
    }

    pub(super) fn in_flight(&self) -> Vec<MacAddr> {
        self.in_flight.iter().copied().collect()
    }

    pub(super) fn record_failure(&mut self, mac: MacAddr, why: String, now: u32) {
        self.failures.retain(|f| f.mac != mac);
        if self.failures.len() >= FAILURE_RECORDS {
            self.failures.pop_front();
        }
        self.failures.push_back(FailureRecord { mac, why, until_tick: now + FAILURE_RECORD_TICKS });
    }

    pub(super) fn expire_failures(&mut self, now: u32) {
        while self.failures.front().is_some_and(|f| f.until_tick <= now) {
            self.failures.pop_front();
        }
    }

    /// Whether `mac`'s failure is still on record (it waits to be learned again).
    pub(super) fn failed_recently(&self, mac: MacAddr) -> bool {
        self.failures.iter().any(|f| f.mac == mac)
    }

    pub(super) fn failures(&self) -> impl Iterator<Item = AssociationStatus> + '_ {
        self.failures.iter().map(|f| AssociationStatus {
            mac: f.mac.to_string(),
            aid: 0,
            port_open: false,
            failure: Some(f.why.clone()),
        })
    }
}

impl IbssStation {
    /// How full the peer table is: `stations` are the peers, `unproven` those no handshake
    /// has verified, `ticked` those the last tick visited.
    pub fn admission(&self) -> Admission {
        Admission { stations: self.peers.len(), unproven: self.table.unproven.len(), ticked: self.table.ticked }
    }

    /// Make room for a new unproven peer: evict the oldest if there are as many as allowed
    /// (or the table is full); false when proven peers fill it (the new one is refused).
    pub(super) fn room_for_unproven(&mut self) -> bool {
        if self.table.unproven.len() >= MAX_UNPROVEN || self.peers.len() >= MAX_PEERS {
            if let Some((_, oldest)) = self.table.unproven.pop_first() {
                self.counters.evicted_unproven += 1;
                // Silently: a real peer starts again with its next frame.
                self.remove_peer(oldest);
            }
        }
        if self.peers.len() >= MAX_PEERS {
            self.counters.refused_table_full += 1;
            return false;
        }
        true
    }

    /// A new peer's place in the unproven queue.
    pub(super) fn enqueue_unproven(&mut self, peer: MacAddr) -> u64 {
        let seq = self.table.next_seq;
        self.table.next_seq += 1;
        self.table.unproven.insert(seq, peer);
        seq
    }

    /// A handshake with `peer` verified a MIC under a key from the PMK: it holds the PMK,
    /// and unproven peers no longer evict it.
    pub(super) fn prove(&mut self, peer: MacAddr) {
        if let Some(seq) = self.peers.get_mut(&peer).and_then(|p| p.unproven.take()) {
            self.table.unproven.remove(&seq);
        }
    }

    /// Forget `peer` and its place in every index.
    pub(super) fn remove_peer(&mut self, peer: MacAddr) -> Option<Peer> {
        let p = self.peers.remove(&peer)?;
        if let Some(seq) = p.unproven {
            self.table.unproven.remove(&seq);
        }
        self.table.in_flight.remove(&peer);
        self.pipeline.forget(peer);
        Some(p)
    }
}
