//! The multi-core engine as whole calls: a [`FrameBatch`] goes through the per-core engine
//! (`percore`) and comes back worked, each frame in its place. The per-core engine does the
//! work and keeps its rules (see its module documentation): each station's frames on one
//! worker, which owns its key, PN counter and replay counters; PNs taken in submission
//! order per station, so every TID leaves in PN order; replays and reordering within a
//! replay class caught as by one sequential `suite::Receiver` per station.
//!
//! A batch's frames are `percore::Packet`s whose buffers are kept and reused from call to
//! call (the pool): a call moves them to the workers and back whole (no copy of the data),
//! so in steady state it allocates nothing. Each MPDU sits behind headroom of a PN header's
//! length, so framing moves its MAC header rather than its data, both ways.

use core::time::Duration;

use crate::error::{Error, Result};

use super::batch::Engine;
use super::key::Mode;
use super::percore::{Direction, Packet, PerCoreEngine, DEFAULT_RING_CAPACITY, WORKER_STOPPED};

pub use super::percore::StationId;

/// How long a call waits for completions before it checks that no worker has stopped: only
/// a worker that stopped could make it wait that long.
const WAIT: Duration = Duration::from_millis(100);

/// Frames for one call of the engine, each for (or from) a station, in buffers that stay
/// allocated across calls: `clear` keeps them for the next `push`es. After a call each
/// frame holds its protected (or opened) MPDU, or why it was refused.
#[derive(Default)]
pub struct FrameBatch {
    /// The frames in use are `packets[..len]` (each tagged with its index); the rest are
    /// spare. Boxed: they travel through the per-core engine's rings as boxes.
    #[allow(clippy::vec_box)]
    packets: Vec<Box<Packet>>,
    len: usize,
}

impl FrameBatch {
    pub fn new() -> Self {
        FrameBatch::default()
    }

    /// Empty the batch, keeping its buffers.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Add an MPDU for (or from) `station`, copied into a kept buffer with room for the
    /// protection overhead, so protecting it never reallocates.
    pub fn push(&mut self, station: StationId, mpdu: &[u8]) {
        if self.len == self.packets.len() {
            self.packets.push(Box::default());
        }
        self.packets[self.len].set(station, self.len as u64, mpdu);
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each frame in submission order: its station, and its MPDU or why it was refused.
    pub fn iter(&self) -> impl Iterator<Item = (StationId, core::result::Result<&[u8], &Error>)> + '_ {
        self.packets[..self.len].iter().map(|packet| (packet.station(), packet.result()))
    }
}

pub struct ShardedEngine {
    cores: PerCoreEngine,
    /// A call's frames not yet submitted (empty, with its allocation, between calls).
    #[allow(clippy::vec_box)]
    outgoing: Vec<Box<Packet>>,
}

impl ShardedEngine {
    /// An engine on `cores` workers (at least one), each pinned to a core of its own where
    /// the OS allows it, kept until the engine is dropped.
    pub fn new(cores: usize, engine: Engine) -> Self {
        ShardedEngine { cores: PerCoreEngine::new(cores, engine), outgoing: Vec::new() }
    }

    /// An engine of one core whose worker is the calling thread
    /// ([`PerCoreEngine::inline`]): a call works its frames without leaving this thread.
    pub fn inline(engine: Engine) -> Self {
        ShardedEngine { cores: PerCoreEngine::inline(engine, DEFAULT_RING_CAPACITY), outgoing: Vec::new() }
    }

    /// The number of workers.
    pub fn cores(&self) -> usize {
        self.cores.cores()
    }

    /// Install (or replace) a station's pairwise key; its transmit PN restarts at 1 and its
    /// receive replay counters at 0.
    pub fn add_station(&mut self, station: StationId, tk: &[u8], mode: Mode) -> Result<()> {
        self.cores.add_station(station, tk, mode)
    }

    /// Protect the batch's plaintext MPDUs in place, each for its station, taking PNs in
    /// submission order, one per frame. Fails as a whole (before any PN is used) if a frame
    /// names a station without a key, and (the batch emptied) if a worker has stopped;
    /// otherwise each frame holds its protected MPDU or its error.
    pub fn protect(&mut self, batch: &mut FrameBatch) -> Result<()> {
        self.run(batch, Direction::Protect)
    }

    /// Verify, replay-check and decrypt the batch's protected MPDUs in place, each from its
    /// station; each frame then holds its plaintext MPDU or why it was refused. Replay
    /// counters persist across calls, per station and replay class, as a station's
    /// receiver keeps them. Fails as a whole if a frame names a station without a key, and
    /// (the batch emptied) if a worker has stopped.
    pub fn unprotect(&mut self, batch: &mut FrameBatch) -> Result<()> {
        self.run(batch, Direction::Unprotect)
    }

    /// Stream the batch's frames through the workers, as many at a time as their rings
    /// take, and put each back in its place (by its tag).
    fn run(&mut self, batch: &mut FrameBatch, direction: Direction) -> Result<()> {
        let len = batch.len;
        if batch.packets[..len].iter().any(|packet| !self.cores.has_station(packet.station())) {
            return Err(Error::Unsupported("frame for a station without a key"));
        }
        self.outgoing.extend(batch.packets.drain(..len));
        // The spare packets stay at the front of `batch.packets`, the completions go behind
        // them, until the rotation below.
        let spare = batch.packets.len();
        batch.packets.reserve(len);
        while !self.outgoing.is_empty() || self.cores.in_flight() > 0 {
            if !self.outgoing.is_empty() {
                // A full ring takes nothing now: the completions below make room.
                let _ = self.cores.submit(direction, &mut self.outgoing);
            }
            if self.cores.poll(&mut batch.packets, usize::MAX) == 0 {
                // Everything submitted: wait for all of it; rings full: for half of it, then
                // refill them.
                let count = match self.outgoing.is_empty() {
                    true => self.cores.in_flight(),
                    false => self.cores.in_flight().div_ceil(2),
                };
                if !self.cores.wait_for(count, WAIT) && self.cores.worker_stopped() {
                    // Its packets will never come back: the batch fails and keeps what did
                    // (as spares; it allocates new buffers for the lost ones).
                    batch.packets.append(&mut self.outgoing);
                    batch.len = 0;
                    return Err(WORKER_STOPPED);
                }
            }
        }
        batch.packets.rotate_left(spare);
        batch.packets[..len].sort_unstable_by_key(|packet| packet.tag());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// A worker that ended (as on a panic) holds packets that never come back: the call
    /// says so instead of waiting for them for ever, the batch can be used again, and every
    /// later call fails too.
    #[test]
    fn a_call_fails_rather_than_waits_for_ever_when_a_worker_has_stopped() {
        let (done, result) = mpsc::channel();
        std::thread::spawn(move || {
            let mut engine = ShardedEngine::new(2, Engine::new());
            for station in 0..2 {
                engine.add_station(station, &[7; 16], Mode::CCMP128).expect("16-octet key");
            }
            let mut batch = FrameBatch::new();
            let frame = [0x08, 0x01, 0, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x10, 0, 0xaa, 0xbb];
            for i in 0..16 {
                batch.push(i % 2, &frame);
            }
            engine.protect(&mut batch).expect("both workers answer");
            engine.cores.stop_worker(1);
            let failed = engine.protect(&mut batch);
            let emptied = batch.is_empty();
            batch.push(0, &frame);
            let reused = batch.len();
            // A later call fails the same way: the lost packets still count as in flight.
            let again = engine.protect(&mut batch);
            let _ = done.send((failed, emptied, reused, again, batch.len()));
        });
        let (failed, emptied, reused, again, kept) =
            result.recv_timeout(Duration::from_secs(20)).expect("the call returned");
        assert_eq!(failed, Err(WORKER_STOPPED));
        assert!(emptied);
        assert_eq!(reused, 1);
        assert_eq!(again, Err(WORKER_STOPPED));
        assert_eq!(kept, 0);
    }
}
