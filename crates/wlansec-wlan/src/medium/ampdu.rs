//! A-MPDU (HT/VHT): which queued frames join the head frame in one PPDU, their transmission
//! under one compressed BlockAck, and the receiver's reorder buffer that hands each flow's
//! MPDUs up in order.

use super::{Medium, Sent, Transmission};
use crate::airtime::{ampdu_bytes, block_ack_time, max_ampdu_bytes, txtime, FCS_BYTES, PPDU_MAX_TIME};

/// What an A-MPDU and the BlockAck agreement behind it are for: receiver address and TID.
pub(super) type Flow = ([u8; 6], u8);

/// An MPDU received behind a missing one of its flow, waiting in the receiver's reorder buffer.
pub(super) struct Held {
    order: u64,
    flow: Flow,
    transmission: Transmission,
}

impl Medium {
    /// The queue positions sender `i` sends at `start`: its head frame, and when that is
    /// aggregatable the ready frames of the same flow behind it that fit one A-MPDU.
    pub(super) fn burst(&self, i: usize, start: u64) -> Vec<usize> {
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

    /// The frames at `burst` (queue positions, head first) in one A-MPDU, answered by one
    /// compressed BlockAck when any of them arrived.
    pub(super) fn transmit_ampdu(
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

    /// The receiver's reorder buffer for sender `i`'s `flow`: hand up, in queue order, the
    /// MPDUs just `delivered` and those held before, up to the first one still queued (sent
    /// and missed); hold the rest. Each is released no earlier than the one before it and
    /// than `floor` (the end of a PPDU whose missing MPDU was given up).
    pub(super) fn release(
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
