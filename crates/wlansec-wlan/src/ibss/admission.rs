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

use wlansec_core::wire::MacAddr;

use super::{IbssStation, Peer};
use crate::admission::{FailureRecords, InFlight, UnprovenQueue};
use crate::bss::{Admission, TICK_MS};

/// Unproven peers at most: an IBSS is small, and a peer answering message 1 at once is
/// proven long before 64 newer ones push it out.
pub(crate) const MAX_UNPROVEN: usize = 64;
/// Peers at most, proven or not.
pub(crate) const MAX_PEERS: usize = 256;
/// For how many ticks a failure reason is kept (10 s; the tests wait it out).
#[cfg(test)]
pub(crate) const FAILURE_RECORD_TICKS: u32 = (crate::admission::FAILURE_RECORD_MS / TICK_MS) as u32;

/// The indices beside the station's peers that keep its work and memory bounded.
#[derive(Default)]
pub(super) struct Table {
    /// Unproven peers in the order they came (the oldest is evicted first).
    pub(super) unproven: UnprovenQueue,
    /// Peers whose handshake (ours as authenticator) waits for an answer.
    pub(super) in_flight: InFlight,
    /// Why peers' handshakes failed (the clock is [`IbssStation::now_ms`]); while a peer's
    /// is kept, it is not learned again.
    pub(super) failures: FailureRecords,
    /// Peers the last tick visited.
    pub(super) ticked: usize,
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
            if let Some(oldest) = self.table.unproven.pop_oldest() {
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

    /// The table's clock: the ticks so far in ms.
    pub(super) fn now_ms(&self) -> u64 {
        u64::from(self.ticks) * TICK_MS
    }

    /// A handshake with `peer` verified a MIC under a key from the PMK: it holds the PMK,
    /// and unproven peers no longer evict it.
    pub(super) fn prove(&mut self, peer: MacAddr) {
        if let Some(seq) = self.peers.get_mut(&peer).and_then(|p| p.unproven.take()) {
            self.table.unproven.remove(seq);
        }
    }

    /// Forget `peer` and its place in every index.
    pub(super) fn remove_peer(&mut self, peer: MacAddr) -> Option<Peer> {
        let p = self.peers.remove(&peer)?;
        if let Some(seq) = p.unproven {
            self.table.unproven.remove(seq);
        }
        self.table.in_flight.done(peer);
        self.pipeline.forget(peer);
        Some(p)
    }
}
