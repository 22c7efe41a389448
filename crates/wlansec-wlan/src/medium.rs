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
//!
//! A-MPDU (HT/VHT, [`Medium::with_ampdu`]): a sender that wins the medium sends its head
//! QoS data frame together with the frames queued behind it for the same receiver and TID
//! (up to the configured count, the PHY's A-MPDU length and aPPDUMaxTime), each only once
//! its crypto is done, in one PPDU answered by one compressed BlockAck. The frame error
//! rate applies per MPDU; only the MPDUs the BlockAck misses stay queued (in their place, so
//! ahead of the rest of their flow) and are retried, each with its own retry count. The
//! receiver's reorder buffer hands MPDUs up in order: one received behind a missing one is
//! released when that one arrives or is given up (both in `ampdu`).

mod ampdu;

use std::collections::VecDeque;

use ampdu::{Flow, Held};
use wlansec_core::gen::{ChaCha8Rng, Rng, SeedableRng};
use wlansec_core::wire::{Frame, Rules};

use crate::airtime::{
    max_ampdu_bytes, preamble, txtime, AccessCategory, Backoff, LinkProfile, ACK_BYTES, FCS_BYTES, MAX_AMPDU_MPDUS,
    RETRY_LIMIT,
};

/// Frame Control octet 1: the Retry bit.
const RETRY_BIT: u8 = 0x08;

/// A frame waiting in a sender's queue.
struct Queued {
    mpdu: Vec<u8>,
    ready_ns: u64,
    group: bool,
    /// Unicast QoS data may be aggregated with frames of the same flow.
    flow: Option<Flow>,
    /// Failed attempts so far.
    attempts: u32,
    /// Position in the sender's queue order (the receiver's reorder buffer keeps it).
    order: u64,
}

struct Sender {
    queue: VecDeque<Queued>,
    backoff: Backoff,
    /// Backoff slots still to count for the head frame, once drawn.
    slots: Option<u32>,
    held: Vec<Held>,
    enqueued: u64,
}

/// One transmission on the air.
#[derive(Clone, Debug)]
pub struct Transmission {
    pub from: usize,
    pub mpdu: Vec<u8>,
    pub start_ns: u64,
    /// When the receiver gets it: the end of its PPDU (for an MPDU of an A-MPDU the end of
    /// its subframe, or later when the reorder buffer held it behind a missing one).
    pub end_ns: u64,
    /// False for a collided or errored attempt (nobody receives it).
    pub delivered: bool,
}

/// Medium counters. Transmissions, collisions, errors, retries and drops count MPDUs.
#[derive(Clone, Copy, Default, Debug, serde::Serialize)]
pub struct MediumCounters {
    pub transmissions: u64,
    pub collisions: u64,
    pub frame_errors: u64,
    pub retries: u64,
    pub dropped_retry_limit: u64,
    pub dropped_queue_full: u64,
    /// PPDUs that carried an A-MPDU of two or more MPDUs, and the MPDUs they carried.
    pub ampdus: u64,
    pub ampdu_mpdus: u64,
    /// Virtual time the medium was busy.
    pub busy_ns: u64,
}

pub struct Medium {
    profile: LinkProfile,
    access: AccessCategory,
    senders: Vec<Sender>,
    busy_until: u64,
    queue_limit: usize,
    max_ampdu: usize,
    rng: ChaCha8Rng,
    pub counters: MediumCounters,
}

/// One sender's outcome in a PPDU.
struct Sent {
    /// Air time until the response ends (or the data ends, with no response).
    busy_ns: u64,
    /// A unicast PPDU that nobody acknowledged: the ACK/BlockAck timeout follows.
    unanswered: bool,
}

impl Medium {
    /// A medium for `senders` senders, each seeded from `seed` and its index; no A-MPDU.
    pub fn new(profile: LinkProfile, senders: usize, queue_limit: usize, seed: u64) -> Self {
        let access = AccessCategory::BestEffort;
        let senders = (0..senders)
            .map(|i| Sender {
                queue: VecDeque::new(),
                backoff: Backoff::new(profile.phy, access, seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                slots: None,
                held: Vec::new(),
                enqueued: 0,
            })
            .collect();
        Medium {
            profile,
            access,
            senders,
            busy_until: 0,
            queue_limit,
            max_ampdu: 1,
            rng: ChaCha8Rng::seed_from_u64(seed),
            counters: MediumCounters::default(),
        }
    }

    /// Aggregate up to `max_mpdus` MPDUs per A-MPDU (1 = none; at most the BlockAck's 64).
    /// PHYs without A-MPDU (non-HT) always send one frame per exchange.
    pub fn with_ampdu(mut self, max_mpdus: usize) -> Self {
        let possible = max_ampdu_bytes(self.profile.phy).is_some() && self.access.is_qos();
        self.max_ampdu = if possible { max_mpdus.clamp(1, MAX_AMPDU_MPDUS) } else { 1 };
        self
    }

    /// The most MPDUs one A-MPDU carries (1: no aggregation).
    pub fn max_ampdu(&self) -> usize {
        self.max_ampdu
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
        let flow = Frame::new_checked(&mpdu[..], Rules::default()).ok().and_then(|frame| {
            let tid = frame.qos_control()?.tid();
            let receiver = frame.addr1();
            (!receiver.is_group()).then_some((receiver.0, tid))
        });
        sender.enqueued += 1;
        let order = sender.enqueued;
        sender.queue.push_back(Queued { mpdu, ready_ns, group, flow, attempts: 0, order });
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
        let (mut longest, mut unanswered) = (0, false);
        for &i in winners {
            let burst = self.burst(i, start);
            let sent = if burst.len() == 1 {
                self.transmit_single(i, start, collided, out)
            } else {
                self.transmit_ampdu(i, &burst, start, collided, out)
            };
            longest = longest.max(sent.busy_ns);
            unanswered |= sent.unanswered;
        }
        if unanswered {
            // The ACK timeout: SIFS + slot + the response preamble before contending again.
            longest += (phy.sifs() + phy.slot() + preamble(phy.control_response())).as_nanos() as u64;
        }
        self.busy_until = start + longest;
        self.counters.busy_ns += longest;
    }

    /// Whether an MPDU sent alone (not collided) is lost to the link's frame error rate.
    fn errored(&mut self) -> bool {
        self.profile.frame_error_rate > 0.0
            && (self.rng.next_u64() as f64 / u64::MAX as f64) < self.profile.frame_error_rate
    }

    /// The head frame alone, answered by an ACK.
    fn transmit_single(&mut self, i: usize, start: u64, collided: bool, out: &mut Vec<Transmission>) -> Sent {
        let phy = self.profile.phy;
        let (len, group, flow) = {
            let head = &self.senders[i].queue[0];
            (head.mpdu.len(), head.group, head.flow)
        };
        let data = self.data_ns(len);
        let errored = !collided && !group && self.errored();
        let ok = !collided && !errored;
        self.counters.transmissions += 1;
        if collided {
            self.counters.collisions += 1;
        } else if errored {
            self.counters.frame_errors += 1;
        }
        let sender = &mut self.senders[i];
        sender.slots = None;
        let transmission = Transmission {
            from: i,
            mpdu: sender.queue[0].mpdu.clone(),
            start_ns: start,
            end_ns: start + data,
            delivered: ok,
        };
        let (mut busy_ns, mut floor) = (data, 0);
        let mut delivered = Vec::new();
        if ok || group {
            let head = sender.queue.pop_front().unwrap_or_else(|| unreachable!("a winner has a head frame"));
            sender.backoff.on_success();
            if ok && !group {
                busy_ns += (phy.sifs() + txtime(phy.control_response(), ACK_BYTES)).as_nanos() as u64;
            }
            if ok {
                delivered.push((head.order, transmission));
            } else {
                out.push(transmission);
            }
        } else {
            out.push(transmission);
            if !self.fail(i, &[0], false).is_empty() {
                self.senders[i].queue.pop_front();
                floor = start + data;
            }
        }
        if let Some(flow) = flow {
            self.release(i, flow, delivered, floor, out);
        } else {
            out.extend(delivered.into_iter().map(|(_, t)| t));
        }
        Sent { busy_ns, unanswered: !ok }
    }

    /// Sender `i`'s frames at queue positions `failed` were not acknowledged (`answered`: a
    /// BlockAck came for the others). Each counts an attempt and is retried with the Retry
    /// bit, or dropped at the retry limit; returns the positions dropped (still queued).
    /// Without an answer the window widens (and resets when the sender gives a frame up).
    fn fail(&mut self, i: usize, failed: &[usize], answered: bool) -> Vec<usize> {
        let sender = &mut self.senders[i];
        if !answered {
            // The window's count of failures in a row never runs ahead of the head frame's
            // attempts (the head is in every PPDU), so the head's retry limit decides.
            sender.backoff.on_failure();
        }
        let mut dropped = Vec::new();
        for &k in failed {
            let q = &mut sender.queue[k];
            q.attempts += 1;
            if q.attempts < RETRY_LIMIT {
                self.counters.retries += 1;
                if let Some(fc1) = q.mpdu.get_mut(1) {
                    *fc1 |= RETRY_BIT;
                }
            } else {
                self.counters.dropped_retry_limit += 1;
                dropped.push(k);
            }
        }
        if !dropped.is_empty() {
            sender.backoff.on_success();
        }
        dropped
    }
}

#[cfg(test)]
mod tests;
