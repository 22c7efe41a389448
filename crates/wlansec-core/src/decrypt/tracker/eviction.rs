//! The tracker's bounds: at most so many entries of each kind, the least recently used
//! evicted first (those without keys before those with), and counted.

use super::{KeyTracker, Link, Stats};

/// Of entries ranked by `(priority, last used)` (all distinct), the smallest rank kept so
/// that `keep` remain; `None` when there are no more than that.
fn eviction_cutoff(mut ranks: Vec<(bool, u64)>, keep: usize) -> Option<(bool, u64)> {
    let evict = ranks.len().checked_sub(keep).filter(|&n| n > 0)?;
    let (_, cutoff, _) = ranks.select_nth_unstable(evict);
    Some(*cutoff)
}

/// How many entries of a kind remain after an eviction: three quarters of the limit, so an
/// eviction's pass over the entries is paid for by a quarter of the limit's insertions
/// (O(1) per frame, amortized).
fn after_eviction(max: usize) -> usize {
    max - max / 4
}

impl KeyTracker {
    /// Keep at most `max` entries of each kind (at least 4).
    pub(in crate::decrypt) fn set_max(&mut self, max: usize) {
        self.max = max.max(4);
    }

    /// Whether more entries of some kind are kept than the limit allows (a comparison per
    /// kind: the decryptor asks between frames).
    pub(in crate::decrypt) fn over_limit(&self) -> bool {
        let max = self.max;
        self.links.len() > max
            || self.handshakes.len() > max
            || self.networks.len() > max
            || self.groups.len() > max
            || self.pmf_links.len() > max
    }

    /// Evict the least recently used entries of each kind over the limit (those without
    /// keys first), counting them. Moves links: only between frames, when no [`KeySlot`](super::KeySlot)
    /// is held.
    pub(in crate::decrypt) fn evict(&mut self, stats: &mut Stats) {
        let keep = after_eviction(self.max);
        if self.links.len() > self.max {
            // Links that had keys (whose TKs are remembered) go after those that never had.
            let rank = |l: &Link| (l.has_key() || l.installed[0] != 0, l.used);
            let ranks = self.links.values().map(rank).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.links.len();
                self.links.retain(|_, l| rank(l) >= cutoff);
                stats.evicted.links += (before - self.links.len()) as u64;
            }
        }
        if self.handshakes.len() > self.max {
            let ranks = self.handshakes.values().map(|h| (h.ptk.is_some(), h.used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.handshakes.len();
                self.handshakes.retain(|_, h| (h.ptk.is_some(), h.used) >= cutoff);
                stats.evicted.handshakes += (before - self.handshakes.len()) as u64;
            }
        }
        if self.networks.len() > self.max {
            let ranks = self.networks.values().map(|n| (n.proven, n.used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.networks.len();
                self.networks.retain(|_, n| (n.proven, n.used) >= cutoff);
                stats.evicted.networks += (before - self.networks.len()) as u64;
            }
        }
        if self.groups.len() > self.max {
            let ranks = self.groups.values().map(|g| (true, g.used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.groups.len();
                self.groups.retain(|_, g| (true, g.used) >= cutoff);
                stats.evicted.groups += (before - self.groups.len()) as u64;
            }
        }
        if self.pmf_links.len() > self.max {
            let ranks = self.pmf_links.values().map(|&used| (true, used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.pmf_links.len();
                self.pmf_links.retain(|_, &mut used| (true, used) >= cutoff);
                stats.evicted.pmf_links += (before - self.pmf_links.len()) as u64;
            }
        }
    }

    /// How many entries of each kind are kept now: (links, handshakes, networks, groups,
    /// 802.11w links), and the messages 2 waiting.
    pub(in crate::decrypt) fn state_size(&self) -> (usize, usize, usize, usize, usize, usize) {
        let pending = self.handshakes.values().map(|h| h.pending_m2.len()).sum();
        (self.links.len(), self.handshakes.len(), self.networks.len(), self.groups.len(), self.pmf_links.len(), pending)
    }
}
