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
//! released when that one arrives or is given up.

use std::collections::VecDeque;

use wlansec_core::gen::{ChaCha8Rng, Rng, SeedableRng};
use wlansec_core::wire::{Frame, Rules};

use crate::airtime::{
    ampdu_bytes, block_ack_time, max_ampdu_bytes, preamble, txtime, AccessCategory, Backoff, LinkProfile, ACK_BYTES,
    FCS_BYTES, MAX_AMPDU_MPDUS, PPDU_MAX_TIME, RETRY_LIMIT,
};

/// Frame Control octet 1: the Retry bit.
const RETRY_BIT: u8 = 0x08;

/// What an A-MPDU and the BlockAck agreement behind it are for: receiver address and TID.
type Flow = ([u8; 6], u8);

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

/// An MPDU received behind a missing one of its flow, waiting in the receiver's reorder buffer.
struct Held {
    order: u64,
    flow: Flow,
    transmission: Transmission,
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

    /// The queue positions sender `i` sends at `start`: its head frame, and when that is
    /// aggregatable the ready frames of the same flow behind it that fit one A-MPDU.
    fn burst(&self, i: usize, start: u64) -> Vec<usize> {
        let queue = &self.senders[i].queue;
        let Some(flow) = queue[0].flow.filter(|_| self.max_ampdu > 1) else { return vec![0] };
        let (phy, max_bytes) = (self.profile.phy, max_ampdu_bytes(self.profile.phy).unwrap_or(0));
        let mut picked = vec![0];
        let mut lengths = vec![queue[0].mpdu.len() + FCS_BYTES];
        for (k, q) in queue.iter().enumerate().skip(1) {
            if picked.len() == self.max_ampdu {
                break;
            }
            if q.flow != Some(flow) {
                // Frames for other receivers wait in their own queues; one for this receiver
                // that cannot join (management, another TID) keeps its place in the order.
                if q.mpdu.get(4..10) == Some(&flow.0[..]) {
                    break;
                }
                continue;
            }
            // Still in the card's crypto engine: it and the rest of its flow wait.
            if q.ready_ns > start {
                break;
            }
            lengths.push(q.mpdu.len() + FCS_BYTES);
            let bytes = ampdu_bytes(lengths.iter().copied());
            if bytes > max_bytes || txtime(phy, bytes) > PPDU_MAX_TIME {
                break;
            }
            picked.push(k);
        }
        picked
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

    /// The frames at `burst` (queue positions, head first) in one A-MPDU, answered by one
    /// compressed BlockAck when any of them arrived.
    fn transmit_ampdu(
        &mut self,
        i: usize,
        burst: &[usize],
        start: u64,
        collided: bool,
        out: &mut Vec<Transmission>,
    ) -> Sent {
        let phy = self.profile.phy;
        let flow = self.senders[i].queue[0].flow.unwrap_or_else(|| unreachable!("only QoS data is aggregated"));
        // Each subframe reaches the receiver when the symbol holding its last bit ends.
        let mut lengths = Vec::with_capacity(burst.len());
        let mut ends = Vec::with_capacity(burst.len());
        for &k in burst {
            lengths.push(self.senders[i].queue[k].mpdu.len() + FCS_BYTES);
            ends.push(start + txtime(phy, ampdu_bytes(lengths.iter().copied())).as_nanos() as u64);
        }
        let data = ends[ends.len() - 1] - start;
        self.counters.ampdus += 1;
        self.counters.ampdu_mpdus += burst.len() as u64;
        self.counters.transmissions += burst.len() as u64;
        let mut delivered = Vec::new();
        let mut failed = Vec::new();
        for (&k, &end_ns) in burst.iter().zip(&ends) {
            let errored = !collided && self.errored();
            if collided {
                self.counters.collisions += 1;
            } else if errored {
                self.counters.frame_errors += 1;
            }
            let q = &self.senders[i].queue[k];
            let transmission = Transmission {
                from: i,
                mpdu: q.mpdu.clone(),
                start_ns: start,
                end_ns,
                delivered: !collided && !errored,
            };
            if transmission.delivered {
                delivered.push((q.order, transmission));
            } else {
                failed.push(k);
                out.push(transmission);
            }
        }
        let answered = !delivered.is_empty();
        let sender = &mut self.senders[i];
        sender.slots = None;
        if answered {
            sender.backoff.on_success();
        }
        let dropped = self.fail(i, &failed, answered);
        let floor = if dropped.is_empty() { 0 } else { start + data };
        // Remove what the BlockAck acknowledged or the retry limit dropped, back to front.
        let sender = &mut self.senders[i];
        let mut gone: Vec<usize> = burst.iter().copied().filter(|k| !failed.contains(k)).chain(dropped).collect();
        gone.sort_unstable();
        for k in gone.into_iter().rev() {
            sender.queue.remove(k);
        }
        self.release(i, flow, delivered, floor, out);
        let busy_ns = if answered { data + (phy.sifs() + block_ack_time(phy)).as_nanos() as u64 } else { data };
        Sent { busy_ns, unanswered: !answered }
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

    /// The receiver's reorder buffer for sender `i`'s `flow`: hand up, in queue order, the
    /// MPDUs just `delivered` and those held before, up to the first one still queued (sent
    /// and missed); hold the rest. Each is released no earlier than the one before it and
    /// than `floor` (the end of a PPDU whose missing MPDU was given up).
    fn release(
        &mut self,
        i: usize,
        flow: Flow,
        mut delivered: Vec<(u64, Transmission)>,
        mut floor: u64,
        out: &mut Vec<Transmission>,
    ) {
        let sender = &mut self.senders[i];
        let missing = sender.queue.iter().filter(|q| q.flow == Some(flow)).map(|q| q.order).min().unwrap_or(u64::MAX);
        let (waiting, others): (Vec<Held>, Vec<Held>) = sender.held.drain(..).partition(|h| h.flow == flow);
        sender.held = others;
        delivered.extend(waiting.into_iter().map(|h| (h.order, h.transmission)));
        delivered.sort_by_key(|&(order, _)| order);
        for (order, mut transmission) in delivered {
            if order > missing {
                sender.held.push(Held { order, flow, transmission });
                continue;
            }
            transmission.end_ns = transmission.end_ns.max(floor);
            floor = transmission.end_ns;
            out.push(transmission);
        }
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

    /// A QoS data frame of `len` bytes (no FCS) to `receiver` with `tid`, carrying `id`.
    fn qos(len: usize, receiver: u8, tid: u8, id: u32) -> Vec<u8> {
        let mut m = mpdu(len, false);
        m[9] = receiver;
        m[24] = tid;
        m[40..44].copy_from_slice(&id.to_le_bytes());
        m
    }

    fn id(t: &Transmission) -> (u8, u8, u32) {
        (t.mpdu[9], t.mpdu[24], u32::from_le_bytes(t.mpdu[40..44].try_into().unwrap()))
    }

    const IP_1500: usize = 1538 - FCS_BYTES;

    /// The next PPDU's transmissions (everything starting at the next start time).
    fn next_ppdu(m: &mut Medium) -> Vec<Transmission> {
        let start = m.next_start().expect("a frame is queued");
        let out = m.advance(start);
        assert!(out.iter().all(|t| t.start_ns == start));
        out
    }

    /// Saturated senders: throughput of the emulated channel against the analytical model.
    fn saturated_throughput(phy: Phy, stations: usize, seconds: f64) -> (f64, MediumCounters) {
        saturated_ampdu_throughput(phy, stations, 1, seconds)
    }

    /// Saturated senders sending A-MPDUs of up to `ampdu` MPDUs.
    fn saturated_ampdu_throughput(phy: Phy, stations: usize, ampdu: usize, seconds: f64) -> (f64, MediumCounters) {
        let ip = 1500;
        let len = crate::airtime::mpdu_bytes(ip, 0, true) - FCS_BYTES;
        let mut m = Medium::new(LinkProfile::clear(phy), stations, 2 * ampdu + 2, 7).with_ampdu(ampdu);
        let end = (seconds * 1e9) as u64;
        let mut now = 0;
        let mut delivered = 0u64;
        while now < end {
            for i in 0..stations {
                while m.queued(i) < ampdu + 1 {
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
    fn aggregated_saturation_follows_the_analytical_model() {
        let phy: Phy = "n-mcs7-40".parse().unwrap();
        let exchange = Exchange::aggregated(phy, AccessCategory::BestEffort, 0, 1500, 32).unwrap();
        for stations in [1, 2, 5] {
            let (measured, counters) = saturated_ampdu_throughput(phy, stations, 32, 2.0);
            let model = saturation(&exchange, stations).throughput_bps;
            assert!((0.95..1.05).contains(&(measured / model)), "{stations}: {measured} vs {model}");
            assert_eq!(counters.ampdu_mpdus, 32 * counters.ampdus, "{stations}: every A-MPDU is full");
        }
    }

    #[test]
    fn an_ampdu_takes_the_airtime_of_exchange_aggregated() {
        for phy in ["n-mcs7-40", "n-mcs7-40-sgi", "ac-mcs9-80"] {
            let phy: Phy = phy.parse().unwrap();
            let mut m = Medium::new(LinkProfile::clear(phy), 1, 64, 2).with_ampdu(32);
            for n in 0..40 {
                m.enqueue(0, qos(IP_1500, 1, 0, n), 0);
            }
            let ppdu = next_ppdu(&mut m);
            assert_eq!(ppdu.len(), 32, "{phy}");
            assert!(ppdu.iter().all(|t| t.delivered));
            assert_eq!(ppdu.iter().map(|t| id(t).2).collect::<Vec<_>>(), (0..32).collect::<Vec<_>>());
            let exchange = Exchange::aggregated(phy, AccessCategory::BestEffort, 0, 1500, 32).unwrap();
            let start = ppdu[0].start_ns;
            // The last subframe ends with the PPDU; the medium is then busy for SIFS + BlockAck.
            assert_eq!(ppdu[31].end_ns - start, exchange.data_time().as_nanos() as u64, "{phy}");
            assert!(ppdu.windows(2).all(|w| w[0].end_ns <= w[1].end_ns));
            assert_eq!(m.counters.busy_ns, exchange.success_time().as_nanos() as u64, "{phy}");
            assert_eq!((m.counters.ampdus, m.counters.ampdu_mpdus), (1, 32));
            let next = m.next_start().unwrap();
            assert!(next >= start + (exchange.success_time() + phy.aifs(AccessCategory::BestEffort)).as_nanos() as u64);
            assert_eq!(next_ppdu(&mut m).len(), 8, "{phy}: the rest");
        }
    }

    #[test]
    fn only_frames_for_the_same_receiver_and_tid_are_aggregated() {
        let phy: Phy = "n-mcs7-40".parse().unwrap();
        let mut m = Medium::new(LinkProfile::clear(phy), 1, 64, 2).with_ampdu(32);
        // Receiver 1 TID 0 (a), receiver 3 (b), then receiver 1 TID 5 and group frames.
        let queue = [(1, 0), (1, 0), (3, 0), (1, 0), (3, 0), (1, 0), (1, 5), (1, 0), (3, 0)];
        for (n, &(receiver, tid)) in queue.iter().enumerate() {
            m.enqueue(0, qos(IP_1500, receiver, tid, n as u32), 0);
        }
        m.enqueue(0, mpdu(IP_1500, true), 0);
        m.enqueue(0, mpdu(IP_1500, true), 0);
        let ppdus: Vec<Vec<u32>> = (0..6).map(|_| next_ppdu(&mut m).iter().map(|t| id(t).2).collect()).collect();
        // Receiver 1's TID 0 frames up to its TID 5 frame, which keeps its place in that
        // receiver's order; receiver 3's frames after; group frames one by one.
        assert_eq!(ppdus, [vec![0, 1, 3, 5], vec![2, 4, 8], vec![6], vec![7], vec![0], vec![0]]);
        assert_eq!(m.queued(0), 0);
    }

    #[test]
    fn count_byte_and_airtime_limits_hold() {
        let count = |phy: &str, ampdu: usize, len: usize, frames: u32| {
            let profile = LinkProfile::clear(phy.parse().unwrap());
            let mut m = Medium::new(profile, 1, 128, 4).with_ampdu(ampdu);
            (0..frames).for_each(|n| assert!(m.enqueue(0, qos(len, 1, 0, n), 0)));
            (0..3).map(|_| next_ppdu(&mut m).len()).collect::<Vec<_>>()
        };
        assert_eq!(count("n-mcs7-40", 8, IP_1500, 20), [8, 8, 4]);
        // 2290-byte MPDUs: subframes of 2298 bytes padded to 2300; 28 fit 65 535 bytes.
        assert_eq!(crate::airtime::ampdu_bytes([2294; 28]), 27 * 2300 + 2298);
        assert!(crate::airtime::ampdu_bytes([2294; 29]) > 65_535);
        assert_eq!(count("n-mcs7-40", 64, 2290, 64), [28, 28, 8]);
        // MCS 1 (40 MHz, 108 data bits per symbol): 11 subframes of 1544 bytes take 5072 µs,
        // 12 would take 5528 µs, past aPPDUMaxTime (5484 µs).
        let mcs1: Phy = "n-mcs1-40".parse().unwrap();
        assert_eq!(txtime(mcs1, crate::airtime::ampdu_bytes([1538; 11])).as_micros(), 5072);
        assert_eq!(txtime(mcs1, crate::airtime::ampdu_bytes([1538; 12])).as_micros(), 5528);
        assert_eq!(count("n-mcs1-40", 32, IP_1500, 30), [11, 11, 8]);
    }

    #[test]
    fn a_frame_joins_an_ampdu_only_once_its_crypto_is_done() {
        let phy: Phy = "n-mcs7-40".parse().unwrap();
        let mut m = Medium::new(LinkProfile::clear(phy), 1, 64, 2).with_ampdu(32);
        let ready = [0, 0, 10_000_000, 0];
        for (n, &ready_ns) in ready.iter().enumerate() {
            m.enqueue(0, qos(IP_1500, 1, 0, n as u32), ready_ns);
        }
        let first = next_ppdu(&mut m);
        assert_eq!(first.iter().map(|t| id(t).2).collect::<Vec<_>>(), [0, 1]);
        let second = next_ppdu(&mut m);
        assert!(second[0].start_ns > 10_000_000);
        assert_eq!(second.iter().map(|t| id(t).2).collect::<Vec<_>>(), [2, 3]);
    }

    #[test]
    fn per_mpdu_loss_resends_only_the_lost_ones_and_keeps_each_flows_order() {
        let phy: Phy = "n-mcs7-40".parse().unwrap();
        let mut m = Medium::new(LinkProfile { phy, frame_error_rate: 0.3 }, 1, 512, 9).with_ampdu(16);
        let frames = 400u32;
        for n in 0..frames {
            m.enqueue(0, qos(IP_1500, 1 + (n % 3 == 0) as u8 * 2, 0, n), 0);
        }
        let (mut released, mut failed) = (Vec::new(), std::collections::HashSet::new());
        while let Some(start) = m.next_start() {
            for t in m.advance(start) {
                if t.delivered {
                    released.push(t);
                } else {
                    failed.insert(id(&t));
                }
            }
        }
        let c = m.counters;
        assert!(c.ampdus > 20 && c.frame_errors > 100, "{c:?}");
        // Every MPDU is sent once, and again only after it was lost.
        assert_eq!(c.transmissions, released.len() as u64 + c.frame_errors);
        assert_eq!(c.retries, c.frame_errors - c.dropped_retry_limit);
        assert_eq!(released.len() as u64 + c.dropped_retry_limit, u64::from(frames));
        for t in &released {
            let retried = t.mpdu[1] & RETRY_BIT != 0;
            assert_eq!(retried, failed.contains(&id(t)), "{:?}", id(t));
        }
        // The receiver gets each receiver's frames once, in order (released by end time, the
        // emulator's order; ties keep the medium's order).
        let mut by_release: Vec<&Transmission> = released.iter().collect();
        by_release.sort_by_key(|t| t.end_ns);
        for receiver in [1, 3] {
            let ids: Vec<u32> = by_release.iter().map(|t| id(t)).filter(|i| i.0 == receiver).map(|i| i.2).collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "receiver {receiver}: {ids:?}");
        }
        assert!(released.iter().any(|t| t.end_ns > t.start_ns + 2_000_000), "some waited for a retry");
    }

    #[test]
    fn one_frame_per_exchange_without_ampdu_or_ht() {
        for (phy, ampdu) in [("n-mcs7-40", 1), ("g54", 32), ("a54", 64)] {
            let phy: Phy = phy.parse().unwrap();
            let run = |medium: Medium| {
                let mut m = medium;
                for n in 0..50 {
                    m.enqueue(n as usize % 2, qos(IP_1500, 1, 0, n), 0);
                }
                let mut out = Vec::new();
                while let Some(start) = m.next_start() {
                    out.extend(
                        m.advance(start).into_iter().map(|t| (t.from, t.start_ns, t.end_ns, t.delivered, id(&t))),
                    );
                }
                (out, m.counters.ampdus, m.max_ampdu())
            };
            let profile = LinkProfile::poor_signal(phy);
            let (plain, _, _) = run(Medium::new(profile, 2, 64, 5));
            let (out, ampdus, max) = run(Medium::new(profile, 2, 64, 5).with_ampdu(ampdu));
            assert_eq!((ampdus, max), (0, 1), "{phy}");
            assert_eq!(out, plain, "{phy}");
            let single = txtime(profile.phy, IP_1500 + FCS_BYTES).as_nanos() as u64;
            assert!(out.iter().all(|t| t.2 - t.1 == single), "{phy}");
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
