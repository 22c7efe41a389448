//! The multi-core engine: frames are sharded by (station, replay class — the TID for QoS
//! data) across persistent workers, each of which protects (or opens) its shard in order
//! with the multi-buffer engine.
//!
//! Frames live in a [`FrameBatch`], whose buffers are kept and reused from call to call:
//! a call moves each buffer to its shard and back (no copy, no allocation per frame), and
//! the engine works on it in place. Each MPDU sits behind headroom of a PN header's
//! length, so framing moves its MAC header rather than its data, both ways. The calling thread works the first shard itself, so
//! one thread means no hand-off at all; the other workers are threads pinned to cores
//! where the OS allows it.
//!
//! Transmit: PNs are assigned before sharding, in submission order, from each station's
//! single transmit counter (the PN belongs to the key, not the TID), and a shard never
//! reorders its frames, so every TID leaves in PN order, as the receiver's per-TID replay
//! counters require.
//!
//! Receive: a (station, replay class) always lands on the same shard, so that shard owns
//! its replay counters; it opens a chunk of its frames in one engine batch and then checks
//! and commits PNs in arrival order, so replays and reordering inside a TID are caught
//! exactly as by one sequential `suite::Receiver` per station.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use foldhash::HashMap;

use crate::error::{Error, Result};
use crate::suite::mpdu::{Pn, ReplayClass, PN_HEADER_LEN};
use crate::suite::{Peeked, PnCounter, ReplayCounters};
use crate::wire::{Frame, Rules};

use super::batch::{Engine, Job};
use super::enhanced::{MAX_PAYLOAD, MIC_LEN};
use super::framing::{self, Prepared};
use super::key::{Key, Mode};

/// Identifies a station (its pairwise key) within the engine.
pub type StationId = u32;

/// Room in front of each MPDU: protecting moves the MAC header into it, over the gap for
/// the PN header (see `mpdu::insert_security_header_in_headroom`).
const HEADROOM: usize = PN_HEADER_LEN;

/// Frames per multi-buffer batch inside a shard.
const BATCH: usize = 64;

/// Frames for one call of the engine, each for (or from) a station, in buffers that stay
/// allocated across calls: `clear` keeps them for the next `push`es. After a call each
/// frame holds its protected (or opened) MPDU, or why it was refused.
#[derive(Default)]
pub struct FrameBatch {
    /// The frames in use are `slots[..len]`; the rest are spare buffers.
    slots: Vec<Slot>,
    len: usize,
}

struct Slot {
    station: StationId,
    /// The MPDU is `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    outcome: Result<()>,
}

impl Slot {
    /// Put the MPDU back behind `HEADROOM` octets, where the engine's framing wants it: a
    /// frame the engine already worked on starts elsewhere (a batch given again unfilled).
    fn rebase(&mut self) {
        if self.start != HEADROOM {
            let len = self.buf.len() - self.start;
            self.buf.resize(self.buf.len().max(HEADROOM + len), 0);
            self.buf.copy_within(self.start..self.start + len, HEADROOM);
            self.buf.truncate(HEADROOM + len);
            self.start = HEADROOM;
        }
    }
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
        if self.len == self.slots.len() {
            self.slots.push(Slot { station, buf: Vec::new(), start: HEADROOM, outcome: Ok(()) });
        }
        let slot = &mut self.slots[self.len];
        slot.station = station;
        slot.outcome = Ok(());
        slot.start = HEADROOM;
        slot.buf.clear();
        slot.buf.reserve(HEADROOM + mpdu.len() + MIC_LEN);
        slot.buf.resize(HEADROOM, 0);
        slot.buf.extend_from_slice(mpdu);
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
        self.slots[..self.len]
            .iter()
            .map(|slot| (slot.station, slot.outcome.as_ref().map(|()| &slot.buf[slot.start..])))
    }
}

/// A station's installed key. `generation` changes with every (re)install, so shards know
/// to restart the station's replay counters.
struct Installed {
    key: Key,
    key_id: u8,
    generation: u64,
}

/// The key table the shards read, indexed by the engine's station number: copied on write
/// when a key changes, shared (one reference count per shard and call, not per frame)
/// otherwise.
type Keys = Arc<Vec<Arc<Installed>>>;

/// One frame on its way through a shard: where it came from in the batch, its station's
/// number in the key table, its PN (transmit only), its buffer (the MPDU at `start`) and
/// what became of it.
struct Item {
    index: usize,
    station: usize,
    pn: Pn,
    buf: Vec<u8>,
    start: usize,
    outcome: Result<()>,
}

/// A chunk of work for a shard; the same value comes back, `items` done, their vector
/// kept for the next call.
struct Work {
    shard: usize,
    protect: bool,
    keys: Keys,
    items: Vec<Item>,
}

struct Worker {
    work: Sender<Work>,
    thread: JoinHandle<()>,
}

pub struct ShardedEngine {
    engine: Engine,
    rules: Rules,
    /// Shards 1.. (shard 0 is worked by the calling thread, with `local`).
    workers: Vec<Worker>,
    done: Receiver<Work>,
    local: Shard,
    /// Each shard's items, kept between calls.
    queues: Vec<Vec<Item>>,
    /// Station number (index into `keys` and `pn`) of every station with a key.
    stations: HashMap<StationId, usize>,
    keys: Keys,
    pn: Vec<PnCounter>,
    generations: u64,
    /// Per call: the station number of every frame of the batch.
    numbers: Vec<usize>,
}

impl ShardedEngine {
    /// An engine on `threads` threads (at least one): the calling thread, and `threads - 1`
    /// workers started now (each pinned to a core of its own where the OS allows it) and
    /// kept until the engine is dropped.
    pub fn new(threads: usize, engine: Engine) -> Self {
        let rules = Rules::default();
        let threads = threads.max(1);
        let cores = core_affinity::get_core_ids().unwrap_or_default();
        let (reply, done) = mpsc::channel();
        let workers = (1..threads)
            .map(|shard| {
                let (work, inbox) = mpsc::channel();
                let reply = reply.clone();
                let core = (!cores.is_empty()).then(|| cores[shard % cores.len()]);
                let thread = std::thread::spawn(move || {
                    // Pinning is best effort: where it is refused the worker floats.
                    if let Some(core) = core {
                        core_affinity::set_for_current(core);
                    }
                    serve(engine, rules, inbox, reply)
                });
                Worker { work, thread }
            })
            .collect();
        ShardedEngine {
            engine,
            rules,
            workers,
            done,
            local: Shard::default(),
            queues: (0..threads).map(|_| Vec::new()).collect(),
            stations: HashMap::default(),
            keys: Arc::new(Vec::new()),
            pn: Vec::new(),
            generations: 0,
            numbers: Vec::new(),
        }
    }

    pub fn threads(&self) -> usize {
        self.queues.len()
    }

    /// Install (or replace) a station's pairwise key; its transmit PN restarts at 1 and its
    /// receive replay counters at 0.
    pub fn add_station(&mut self, station: StationId, tk: &[u8], mode: Mode) -> Result<()> {
        let key = Key::new(tk, mode)?;
        self.generations += 1;
        let installed = Arc::new(Installed { key, key_id: 0, generation: self.generations });
        let keys = Arc::make_mut(&mut self.keys);
        match self.stations.get(&station) {
            Some(&number) => {
                keys[number] = installed;
                self.pn[number] = PnCounter::default();
            }
            None => {
                self.stations.insert(station, keys.len());
                keys.push(installed);
                self.pn.push(PnCounter::default());
            }
        }
        Ok(())
    }

    /// Protect the batch's plaintext MPDUs in place, each for its station, taking PNs in
    /// submission order. Fails as a whole (before any PN is used) if a frame names a
    /// station without a key; otherwise each frame holds its protected MPDU or its error.
    pub fn protect(&mut self, batch: &mut FrameBatch) -> Result<()> {
        self.run(batch, true)
    }

    /// Verify, replay-check and decrypt the batch's protected MPDUs in place, each from its
    /// station; each frame then holds its plaintext MPDU or why it was refused. Replay
    /// counters persist across calls, per station and replay class, as a station's
    /// receiver keeps them. Fails as a whole if a frame names a station without a key.
    pub fn unprotect(&mut self, batch: &mut FrameBatch) -> Result<()> {
        self.run(batch, false)
    }

    fn run(&mut self, batch: &mut FrameBatch, protect: bool) -> Result<()> {
        self.number_stations(batch)?;
        self.shard(batch, protect);
        let mut outstanding = 0;
        for (worker, shard) in self.workers.iter().zip(1..) {
            if self.queues[shard].is_empty() {
                continue;
            }
            let items = std::mem::take(&mut self.queues[shard]);
            let work = Work { shard, protect, keys: Arc::clone(&self.keys), items };
            worker.work.send(work).expect("workers run until the engine is dropped");
            outstanding += 1;
        }
        let mut local = std::mem::take(&mut self.queues[0]);
        self.local.work(self.engine, self.rules, protect, &self.keys, &mut local);
        self.queues[0] = settle(batch, local);
        for work in self.done.iter().take(outstanding) {
            self.queues[work.shard] = settle(batch, work.items);
        }
        Ok(())
    }

    /// Look up every frame's station once, refusing the whole batch if one has no key.
    fn number_stations(&mut self, batch: &FrameBatch) -> Result<()> {
        self.numbers.clear();
        for slot in &batch.slots[..batch.len] {
            let Some(&number) = self.stations.get(&slot.station) else {
                return Err(Error::Unsupported("frame for a station without a key"));
            };
            self.numbers.push(number);
        }
        Ok(())
    }

    /// Move every frame's buffer to its shard by (station, replay class), taking the next
    /// PN of each transmitted frame; a frame that can't be queued gets its error at once.
    fn shard(&mut self, batch: &mut FrameBatch, transmit: bool) {
        let shards = self.queues.len();
        for (index, (slot, &station)) in batch.slots[..batch.len].iter_mut().zip(&self.numbers).enumerate() {
            slot.rebase();
            let queued = Frame::new_checked(&slot.buf[HEADROOM..], self.rules)
                .map(|frame| ReplayClass::of(&frame))
                .and_then(|class| {
                    let pn = match transmit {
                        true => self.pn[station].next_pn()?,
                        false => Pn::default(),
                    };
                    Ok((class, pn))
                });
            match queued {
                Ok((class, pn)) => {
                    let buf = std::mem::take(&mut slot.buf);
                    let item = Item { index, station, pn, buf, start: HEADROOM, outcome: Ok(()) };
                    self.queues[shard_of(slot.station, class, shards)].push(item);
                }
                Err(e) => slot.outcome = Err(e),
            }
        }
    }
}

/// Put a shard's buffers and outcomes back in the batch; returns the emptied queue.
fn settle(batch: &mut FrameBatch, mut items: Vec<Item>) -> Vec<Item> {
    for item in items.drain(..) {
        let slot = &mut batch.slots[item.index];
        slot.buf = item.buf;
        slot.start = item.start;
        slot.outcome = item.outcome;
    }
    items
}

impl Drop for ShardedEngine {
    fn drop(&mut self) {
        for Worker { work, thread } in self.workers.drain(..) {
            // Closing the channel ends the worker's loop.
            drop(work);
            let _ = thread.join();
        }
    }
}

fn shard_of(station: StationId, class: ReplayClass, shards: usize) -> usize {
    // Multiplicative hash so consecutive stations and TIDs spread over the shards.
    let key = (u64::from(station) << 5) | class.index() as u64;
    ((key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % shards as u64) as usize
}

/// A worker: work its shard until the engine closes the channel.
fn serve(engine: Engine, rules: Rules, inbox: Receiver<Work>, reply: Sender<Work>) {
    let mut shard = Shard::default();
    for mut work in inbox {
        shard.work(engine, rules, work.protect, &work.keys, &mut work.items);
        // The engine waits for every reply; if it is gone, there is nobody to tell.
        let _ = reply.send(work);
    }
}

/// A shard's state: the replay counters of its (station, replay class) pairs, by station
/// number, with the key generation they belong to; and scratch kept between chunks.
#[derive(Default)]
struct Shard {
    replay: Vec<(u64, ReplayCounters)>,
    sealing: Vec<Result<(Prepared, usize)>>,
    mics: Vec<[u8; MIC_LEN]>,
    checked: Vec<Result<(Prepared, Peeked)>>,
    verified: Vec<bool>,
}

impl Shard {
    fn work(&mut self, engine: Engine, rules: Rules, protect: bool, keys: &Keys, items: &mut [Item]) {
        for chunk in items.chunks_mut(BATCH) {
            match protect {
                true => self.protect(engine, rules, keys, chunk),
                false => self.open(engine, rules, keys, chunk),
            }
        }
    }

    /// Frame every MPDU of the chunk (its MAC header moving into the headroom), seal the
    /// ones that framed in one engine batch, and put their MICs behind them.
    fn protect(&mut self, engine: Engine, rules: Rules, keys: &Keys, chunk: &mut [Item]) {
        self.sealing.clear();
        for item in chunk.iter_mut() {
            let installed = &keys[item.station];
            let len = item.buf.len() - HEADROOM;
            // Within the capacity `FrameBatch::push` reserved: no reallocation.
            item.buf.resize(HEADROOM + len + MIC_LEN, 0);
            let framed = framing::prepare_encapsulate(&mut item.buf, len, item.pn, installed.key_id, rules, true);
            self.sealing.push(framed.and_then(|(prepared, out_len)| match prepared.data.len() > MAX_PAYLOAD {
                true => Err(Error::Unsupported("payload too long for the CCMP length field")),
                false => Ok((prepared, out_len)),
            }));
        }
        let mut jobs = Vec::with_capacity(chunk.len());
        for (item, sealing) in chunk.iter_mut().zip(&self.sealing) {
            let Ok((prepared, _)) = sealing else { continue };
            let data = &mut item.buf[prepared.data.clone()];
            jobs.push(Job::new(&keys[item.station].key, prepared.nonce, prepared.aad.as_slice(), data));
        }
        engine.seal_batch(&mut jobs).expect("every job was checked when its MPDU was framed");
        self.mics.clear();
        self.mics.extend(jobs.iter().map(|job| job.mic));
        drop(jobs);
        let mut mics = self.mics.iter();
        for (item, sealing) in chunk.iter_mut().zip(self.sealing.drain(..)) {
            match sealing {
                Ok((prepared, out_len)) => {
                    let mic = mics.next().expect("one MIC per sealed frame");
                    item.buf[prepared.data.end..out_len].copy_from_slice(mic);
                    item.buf.truncate(out_len);
                    item.start = 0;
                }
                Err(e) => item.outcome = Err(e),
            }
        }
    }

    /// Parse and replay-check every frame of the chunk, open the survivors in one engine
    /// batch, then check and commit PNs in arrival order (a frame replayed within the
    /// chunk passes the first check but not the second).
    fn open(&mut self, engine: Engine, rules: Rules, keys: &Keys, chunk: &mut [Item]) {
        self.checked.clear();
        for item in chunk.iter() {
            let installed = &keys[item.station];
            let counters = counter_slot(&mut self.replay, item.station, installed.generation);
            self.checked.push(framing::prepare_decapsulate(&item.buf[item.start..], rules).and_then(
                |(prepared, peeked)| {
                    if peeked.key_id != installed.key_id {
                        return Err(Error::KeyId { expected: installed.key_id, got: peeked.key_id });
                    }
                    counters.check(peeked.class, peeked.pn)?;
                    Ok((prepared, peeked))
                },
            ));
        }
        let mut jobs = Vec::with_capacity(chunk.len());
        for (item, checked) in chunk.iter_mut().zip(&self.checked) {
            let Ok((prepared, _)) = checked else { continue };
            let (data, mic) = item.buf[item.start + prepared.data.start..].split_at_mut(prepared.data.len());
            let mut job = Job::new(&keys[item.station].key, prepared.nonce, prepared.aad.as_slice(), data);
            job.mic.copy_from_slice(&mic[..MIC_LEN]);
            jobs.push(job);
        }
        self.verified.clear();
        match engine.open_batch(&mut jobs) {
            Ok(()) => self.verified.extend(jobs.iter().map(|j| j.verified)),
            Err(_) => self.verified.resize(jobs.len(), false),
        }
        drop(jobs);
        let mut verified = self.verified.iter();
        for (item, checked) in chunk.iter_mut().zip(self.checked.drain(..)) {
            let generation = keys[item.station].generation;
            let counters = counter_slot(&mut self.replay, item.station, generation);
            let opened = checked.and_then(|(prepared, peeked)| {
                if !verified.next().copied().unwrap_or(false) {
                    return Err(Error::MicFailure);
                }
                let buf = &mut item.buf[item.start..];
                counters.receive(peeked, || {
                    framing::finish_decapsulate(buf, rules, &prepared, peeked, framing::Gap::HeaderForward)
                })
            });
            match opened {
                Ok(done) => {
                    item.start += PN_HEADER_LEN;
                    item.buf.truncate(item.start + done.mpdu_len);
                }
                Err(e) => item.outcome = Err(e),
            }
        }
    }
}

/// A station's replay counters, restarted when its key was replaced.
fn counter_slot(replay: &mut Vec<(u64, ReplayCounters)>, station: usize, generation: u64) -> &mut ReplayCounters {
    if replay.len() <= station {
        replay.resize_with(station + 1, || (0, ReplayCounters::default()));
    }
    let entry = &mut replay[station];
    if entry.0 != generation {
        *entry = (generation, ReplayCounters::default());
    }
    &mut entry.1
}
