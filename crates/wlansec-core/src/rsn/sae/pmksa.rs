//! The PMKSA cache (IEEE 802.11-2020 12.6.10.2, 12.4.1): the PMK each SAE exchange ends
//! with, named by its PMKID, so a station that associates again with that PMKID in its RSN
//! element skips SAE and goes straight to the 4-way handshake.

use std::collections::HashMap;

use subtle::ConstantTimeEq;

use super::group::Group;
use crate::rsn::kdf::Pmk;
use crate::wire::MacAddr;

/// One cached security association (the PMK's Debug is redacted).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PmksaEntry {
    pub peer: MacAddr,
    pub group: Group,
    pub pmk: Pmk,
    pub pmkid: [u8; 16],
    /// Seconds on the owner's clock after which the entry is gone.
    pub expires_at: u64,
}

/// At most one entry per peer: a new exchange replaces the old association.
#[derive(Clone, Debug, Default)]
pub struct PmksaCache {
    entries: HashMap<MacAddr, PmksaEntry>,
}

impl PmksaCache {
    /// dot11RSNAConfigPMKLifetime's default: 43200 seconds.
    pub const DEFAULT_LIFETIME: u64 = 43_200;

    pub fn insert(&mut self, entry: PmksaEntry) {
        self.entries.insert(entry.peer, entry);
    }

    /// Insert `entry` into a cache of at most `max` entries: when full, the expired ones go,
    /// then the one that expires first (where anyone may add entries, as OWE's, a flood
    /// holds no more than `max` and evicts only PMKSAs that cost a Diffie-Hellman again).
    pub fn insert_bounded(&mut self, entry: PmksaEntry, max: usize, now: u64) {
        if !self.entries.contains_key(&entry.peer) && self.entries.len() >= max {
            self.expire(now);
            while self.entries.len() >= max.max(1) {
                let Some(first) = self.entries.values().min_by_key(|e| e.expires_at).map(|e| e.peer) else { break };
                self.entries.remove(&first);
            }
        }
        self.insert(entry);
    }

    /// The entry of `peer` named `pmkid` (compared in constant time), if alive at `now`.
    pub fn get(&self, peer: MacAddr, pmkid: &[u8; 16], now: u64) -> Option<&PmksaEntry> {
        self.entries.get(&peer).filter(|e| bool::from(e.pmkid.ct_eq(pmkid)) && now < e.expires_at)
    }

    pub fn remove(&mut self, peer: MacAddr) -> Option<PmksaEntry> {
        self.entries.remove(&peer)
    }

    /// Drop the entries expired at `now`.
    pub fn expire(&mut self, now: u64) {
        self.entries.retain(|_, e| now < e.expires_at);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
