//! The access point's association table, bounded as hostapd bounds its own: AIDs come
//! from a free set (1 to the configured maximum, at most 2007), are released when a station
//! leaves and never repeat while in use. An association whose 4-way handshake has not yet
//! verified a message 2 is unproven: anyone can create one with a forged request, so at most
//! [`MAX_UNPROVEN`] exist and a new one evicts the oldest; a station that proved its PMK is
//! never evicted for them, and when every AID is held by proven stations a request is
//! refused with status 17. An unproven association expires with its handshake (its
//! retransmissions end in a timeout), a failed one is gone at once (its reason kept a while
//! for status, a bounded few), so the clock only visits stations with a handshake message in
//! flight or an SA Query pending.

use std::collections::BTreeSet;

use wlansec_core::wire::MacAddr;

use super::{AccessPoint, Association};
use crate::admission::{FailureRecords, InFlight, UnprovenQueue};
use crate::node::{Output, PeerEvent};
use crate::Result;

/// Unproven associations at most: a flood of forged requests holds this many, each for the
/// second its handshake retransmits, while a station answering message 1 at once gets in.
pub(crate) const MAX_UNPROVEN: usize = 256;

/// The indices beside the access point's stations that keep its work and memory bounded.
pub(super) struct Table {
    free_aids: BTreeSet<u16>,
    /// Unproven associations in the order they came (the oldest is evicted first).
    pub(super) unproven: UnprovenQueue,
    /// Stations whose authenticator waits for an answer (retransmits on the clock).
    pub(super) in_flight: InFlight,
    /// Stations asked with an SA Query whether they are still there.
    pub(super) sa_queries: BTreeSet<MacAddr>,
    /// Why stations could not stay (the clock is `now_ms`).
    pub(super) failures: FailureRecords,
}

impl Table {
    pub(super) fn new(max_stations: u16) -> Self {
        let max = max_stations.clamp(1, crate::node::MAX_AID);
        Table {
            free_aids: (1..=max).collect(),
            unproven: UnprovenQueue::default(),
            in_flight: InFlight::default(),
            sa_queries: BTreeSet::new(),
            failures: FailureRecords::default(),
        }
    }
}

/// How full the access point's table is (for tests and status).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Admission {
    /// Stations in the table (each holds an AID).
    pub stations: usize,
    /// Of which unproven (no message 2 verified yet).
    pub unproven: usize,
    /// Stations the last tick visited (a handshake message in flight, an SA Query pending).
    pub ticked: usize,
}

impl AccessPoint {
    /// How full the table is.
    pub fn admission(&self) -> Admission {
        Admission { stations: self.stations.len(), unproven: self.table.unproven.len(), ticked: self.ticked }
    }

    /// Make room for one more unproven association: evict the oldest if there are as many
    /// as allowed.
    pub(super) fn room_for_unproven(&mut self, out: &mut Vec<Output>) -> Result<()> {
        if self.table.unproven.len() >= MAX_UNPROVEN {
            self.evict_oldest_unproven(out)?;
        }
        Ok(())
    }

    /// An AID for a new association: the lowest free one, after evicting the oldest
    /// unproven association if none is free; none when proven stations hold every AID.
    pub(super) fn allocate_aid(&mut self, out: &mut Vec<Output>) -> Result<Option<u16>> {
        if self.table.free_aids.is_empty() {
            self.evict_oldest_unproven(out)?;
        }
        Ok(self.table.free_aids.pop_first())
    }

    /// Take back `aid` (free since its station was just removed) for the same station.
    pub(super) fn reclaim_aid(&mut self, aid: u16) -> bool {
        self.table.free_aids.remove(&aid)
    }

    fn evict_oldest_unproven(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let Some(sta) = self.table.unproven.pop_oldest() else { return Ok(()) };
        self.counters.evicted_unproven += 1;
        // Silently: a Deauthentication would count as a failed handshake at a station that
        // really was joining; it starts again on its own timer.
        let confirmed = self.remove_station(sta, out).and_then(|a| a.gtk_confirmed);
        self.departed(confirmed, out)
    }

    /// Forget `sta` and its place in every index; its AID is free again.
    pub(super) fn remove_station(&mut self, sta: MacAddr, out: &mut Vec<Output>) -> Option<Association> {
        let a = self.stations.remove(&sta)?;
        self.table.free_aids.insert(a.aid);
        if let Some(seq) = a.unproven {
            self.table.unproven.remove(seq);
        }
        self.table.in_flight.done(sta);
        self.table.sa_queries.remove(&sta);
        self.pipeline.forget(sta);
        out.push(Output::Peer(PeerEvent::Gone(sta)));
        Some(a)
    }

    /// Forget every station (TKIP countermeasures).
    pub(super) fn remove_all(&mut self, out: &mut Vec<Output>) -> Vec<MacAddr> {
        let macs: Vec<MacAddr> = self.stations.keys().copied().collect();
        for &sta in &macs {
            self.remove_station(sta, out);
        }
        macs
    }
}
