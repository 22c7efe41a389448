//! The shared channel in virtual time: every sender (access point and stations, both hops
//! of a relayed frame) contends for one medium with DCF/EDCA backoff from the airtime model.
//! Sans-IO: the owner enqueues frames with the time they are ready and asks which
//! transmissions have started by a given time; each comes back with the virtual time at
//! which its receiver must get it (the end of its PPDU).
//!
//! Contention: after the medium goes idle a sender waits AIFS, then its backoff slots; the
//! earliest start wins and the others freeze their remaining slots. Senders starting within
//! one slot of the winner cannot hear it (CCA) and collide. A collided or errored (frame
//! error rate of the link profile) unicast frame is retried with a doubled window up to the
//! retry limit; group frames are neither acknowledged nor retried.

use std::collections::VecDeque;

use wlansec_core::gen::{ChaCha8Rng, Rng, SeedableRng};

use crate::airtime::{preamble, txtime, AccessCategory, AfterFailure, Backoff, LinkProfile, ACK_BYTES, FCS_BYTES};

/// Frame Control octet 1: the Retry bit.
const RETRY_BIT: u8 = 0x08;

/// A frame waiting in a sender's queue.
struct Queued {
    mpdu: Vec<u8>,
    ready_ns: u64,
    group: bool,
}

struct Sender {
    queue: VecDeque<Queued>,
    backoff: Backoff,
    /// Backoff slots still to count for the head frame, once drawn.
    slots: Option<u32>,
}

/// One transmission on the air.
#[derive(Clone, Debug)]
pub struct Transmission {
    pub from: usize,
    pub mpdu: Vec<u8>,
    pub start_ns: u64,
    /// When the last bit is on the air: the receiver's release deadline.
    pub end_ns: u64,
    /// False for a collided or errored attempt (nobody receives it).
    pub delivered: bool,
}

/// Medium counters.
#[derive(Clone, Copy, Default, Debug, serde::Serialize)]
pub struct MediumCounters {
    pub transmissions: u64,
    pub collisions: u64,
    pub frame_errors: u64,
    pub retries: u64,
    pub dropped_retry_limit: u64,
    pub dropped_queue_full: u64,
    /// Virtual time the medium was busy.
    pub busy_ns: u64,
}

pub struct Medium {
    profile: LinkProfile,
    access: AccessCategory,
    senders: Vec<Sender>,
    busy_until: u64,
    queue_limit: usize,
    rng: ChaCha8Rng,
    pub counters: MediumCounters,
}

impl Medium {
    /// A medium for `senders` senders, each seeded from `seed` and its index.
    pub fn new(profile: LinkProfile, senders: usize, queue_limit: usize, seed: u64) -> Self {
        let access = AccessCategory::BestEffort;
        let senders = (0..senders)
            .map(|i| Sender {
                queue: VecDeque::new(),
                backoff: Backoff::new(profile.phy, access, seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                slots: None,
            })
            .collect();
        Medium {
            profile,
            access,
            senders,
            busy_until: 0,
            queue_limit,
            rng: ChaCha8Rng::seed_from_u64(seed),
            counters: MediumCounters::default(),
        }
    }

    pub fn profile(&self) -> LinkProfile {
        self.profile
    }

    /// Queue a frame of sender `from` that is ready at `ready_ns`; false (and counted) when
    /// the queue is full.
    pub fn enqueue(&mut self, from: usize, mpdu: Vec<u8>, ready_ns: u64) -> bool {
        if self.is_full(from) {
            self.counters.dropped_queue_full += 1;
            return false;
        }
        let sender = &mut self.senders[from];
        let group = mpdu.get(4).is_some_and(|b| b & 1 == 1);
        sender.queue.push_back(Queued { mpdu, ready_ns, group });
        true
    }

    pub fn queued(&self, from: usize) -> usize {
        self.senders[from].queue.len()
    }

    /// Whether sender `from`'s queue would drop a frame enqueued now.
    pub fn is_full(&self, from: usize) -> bool {
        self.senders[from].queue.len() >= self.queue_limit
    }

    fn slot_ns(&self) -> u64 {
        self.profile.phy.slot().as_nanos() as u64
    }

    fn data_ns(&self, mpdu_len: usize) -> u64 {
        txtime(self.profile.phy, mpdu_len + FCS_BYTES).as_nanos() as u64
    }

    /// When counting of the head frame's backoff can begin: AIFS after it is ready or the
    /// medium went idle, whichever is later.
    fn count_from(&self, ready_ns: u64) -> u64 {
        ready_ns.max(self.busy_until) + self.profile.phy.aifs(self.access).as_nanos() as u64
    }

    /// The start time of each sender with a frame, drawing backoffs as needed.
    fn starts(&mut self) -> Vec<(usize, u64)> {
        let slot = self.slot_ns();
        let mut starts = Vec::new();
        for i in 0..self.senders.len() {
            let Some(ready) = self.senders[i].queue.front().map(|q| q.ready_ns) else { continue };
            let from = self.count_from(ready);
            let s = &mut self.senders[i];
            let slots = *s.slots.get_or_insert_with(|| s.backoff.draw());
            starts.push((i, from + u64::from(slots) * slot));
        }
        starts
    }

    /// The next time something happens on the medium (a transmission starts), if any.
    pub fn next_start(&mut self) -> Option<u64> {
        self.starts().into_iter().map(|(_, t)| t).min()
    }

    /// Every transmission that starts at or before `now`, in order.
    pub fn advance(&mut self, now: u64) -> Vec<Transmission> {
        let mut out = Vec::new();
        loop {
            let starts = self.starts();
            let Some(first) = starts.iter().map(|&(_, t)| t).min() else { break };
            if first > now {
                break;
            }
            let slot = self.slot_ns();
            let winners: Vec<usize> = starts.iter().filter(|&&(_, t)| t < first + slot).map(|&(i, _)| i).collect();
            // Everyone else froze: subtract the slots they counted before the medium went busy.
            for &(i, _) in starts.iter().filter(|(i, _)| !winners.contains(i)) {
                let from = self.count_from(self.senders[i].queue[0].ready_ns);
                let counted = first.saturating_sub(from) / slot;
                if let Some(s) = self.senders[i].slots.as_mut() {
                    *s -= (counted as u32).min(*s);
                }
            }
            self.transmit(&winners, first, &mut out);
        }
        out
    }

    fn transmit(&mut self, winners: &[usize], start: u64, out: &mut Vec<Transmission>) {
        let phy = self.profile.phy;
        let collided = winners.len() > 1;
        let mut longest = 0;
        for &i in winners {
            let (len, group) = {
                let head = &self.senders[i].queue[0];
                (head.mpdu.len(), head.group)
            };
            let data = self.data_ns(len);
            longest = longest.max(data);
            let errored = !collided
                && !group
                && self.profile.frame_error_rate > 0.0
                && (self.rng.next_u64() as f64 / u64::MAX as f64) < self.profile.frame_error_rate;
            let ok = !collided && !errored;
            self.counters.transmissions += 1;
            if collided {
                self.counters.collisions += 1;
            } else if errored {
                self.counters.frame_errors += 1;
            }
            let sender = &mut self.senders[i];
            sender.slots = None;
            let head_mpdu = sender.queue[0].mpdu.clone();
            out.push(Transmission { from: i, mpdu: head_mpdu, start_ns: start, end_ns: start + data, delivered: ok });
            if ok || group {
                sender.queue.pop_front();
                sender.backoff.on_success();
                if ok && !group {
                    let busy = data + (phy.sifs() + txtime(phy.control_response(), ACK_BYTES)).as_nanos() as u64;
                    longest = longest.max(busy);
                }
            } else if sender.backoff.on_failure() == AfterFailure::Retry {
                self.counters.retries += 1;
                if let Some(fc1) = sender.queue[0].mpdu.get_mut(1) {
                    *fc1 |= RETRY_BIT;
                }
            } else {
                sender.queue.pop_front();
                self.counters.dropped_retry_limit += 1;
            }
        }
        let any_failed = out.iter().rev().take(winners.len()).any(|t| !t.delivered);
        if any_failed {
            // The ACK timeout: SIFS + slot + the response preamble before contending again.
            longest += (phy.sifs() + phy.slot() + preamble(phy.control_response())).as_nanos() as u64;
        }
        self.busy_until = start + longest;
        self.counters.busy_ns += longest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::airtime::{saturation, Exchange, Phy};

    fn mpdu(len: usize, group: bool) -> Vec<u8> {
        let mut m = vec![0u8; len];
        m[0] = 0x88;
        m[4] = if group { 0xff } else { 0x02 };
        m
    }

    /// Saturated senders: throughput of the emulated channel against the analytical model.
    fn saturated_throughput(phy: Phy, stations: usize, seconds: f64) -> (f64, MediumCounters) {
        let ip = 1500;
        let len = crate::airtime::mpdu_bytes(ip, 0, true) - FCS_BYTES;
        let mut m = Medium::new(LinkProfile::clear(phy), stations, 4, 7);
        let end = (seconds * 1e9) as u64;
        let mut now = 0;
        let mut delivered = 0u64;
        while now < end {
            for i in 0..stations {
                while m.queued(i) < 2 {
                    m.enqueue(i, mpdu(len, false), now);
                }
            }
            let Some(next) = m.next_start() else { break };
            now = next;
            delivered += m.advance(now).iter().filter(|t| t.delivered).count() as u64;
        }
        (delivered as f64 * ip as f64 * 8.0 / seconds, m.counters)
    }

    #[test]
    fn saturation_throughput_follows_the_analytical_model() {
        for phy in ["g54", "n-mcs7-40"] {
            let phy: Phy = phy.parse().unwrap();
            let exchange = Exchange::new(phy, AccessCategory::BestEffort, 0, 1500).unwrap();
            for stations in [1, 2, 5] {
                let (measured, counters) = saturated_throughput(phy, stations, 4.0);
                let model = saturation(&exchange, stations).throughput_bps;
                let ratio = measured / model;
                assert!((0.95..1.05).contains(&ratio), "{phy} {stations}: {measured} vs {model}");
                assert_eq!(counters.collisions > 0, stations > 1, "{phy} {stations}");
            }
        }
    }

    #[test]
    fn a_lone_frame_waits_aifs_and_its_backoff_then_takes_txtime() {
        let phy: Phy = "g54".parse().unwrap();
        let mut m = Medium::new(LinkProfile::clear(phy), 2, 4, 1);
        assert!(m.next_start().is_none());
        m.enqueue(1, mpdu(100, true), 1_000_000);
        let start = m.next_start().unwrap();
        let aifs = phy.aifs(AccessCategory::BestEffort).as_nanos() as u64;
        let slot = phy.slot().as_nanos() as u64;
        assert!(start >= 1_000_000 + aifs && (start - 1_000_000 - aifs).is_multiple_of(slot));
        assert!(m.advance(start - 1).is_empty());
        let t = m.advance(start);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].end_ns - t[0].start_ns, txtime(phy, 104).as_nanos() as u64);
        assert!(t[0].delivered);
    }

    #[test]
    fn full_queues_and_poor_signal_are_counted() {
        let phy: Phy = "g54".parse().unwrap();
        let mut m = Medium::new(LinkProfile::poor_signal(phy), 1, 2, 3);
        assert!(m.enqueue(0, mpdu(500, false), 0));
        assert!(m.enqueue(0, mpdu(500, false), 0));
        assert!(!m.enqueue(0, mpdu(500, false), 0));
        assert_eq!(m.counters.dropped_queue_full, 1);
        let mut delivered = 0;
        for _ in 0..2000 {
            while m.queued(0) < 2 {
                m.enqueue(0, mpdu(500, false), 0);
            }
            let t = m.next_start().unwrap();
            delivered += m.advance(t).iter().filter(|t| t.delivered).count();
        }
        let errors = m.counters.frame_errors as f64 / m.counters.transmissions as f64;
        assert!((0.07..0.13).contains(&errors), "{errors}");
        assert_eq!(m.counters.retries, m.counters.frame_errors - m.counters.dropped_retry_limit);
        assert!(delivered > 1500);
    }
}
