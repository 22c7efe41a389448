//! The multi-core engine: frames are spread across persistent workers, each of which
//! protects (or opens) its share in order with the multi-buffer engine.
//!
//! Frames live in a [`FrameBatch`], whose buffers are kept and reused from call to call
//! (the pool): the engine works on them in place, and on one thread never moves them at
//! all. A worker's frames move to it and back whole (buffer and all, no copy of the data);
//! the engine's own scratch (layouts, job lists) is kept between calls too, so a call
//! allocates nothing of its own. Each MPDU sits behind headroom of a PN header's length,
//! so framing moves its MAC header rather than its data, both ways. The calling thread
//! works the first share itself; the other workers are threads pinned to cores where the
//! OS allows it, which spin briefly for the next call before they park.
//!
//! Transmit: PNs are assigned first, in submission order, from each station's single
//! transmit counter (the PN belongs to the key, not the TID), one per frame as a
//! `suite::Transmitter` takes them; then the batch is cut into one contiguous run of frames
//! per thread. Each frame's output depends only on its key, PN and MPDU, and every frame
//! goes back to its place in the batch, so every TID leaves in PN order, as the receiver's
//! per-TID replay counters require.
//!
//! Receive: frames are sharded by (station, replay class — the TID for QoS data), so a
//! shard owns its replay counters; it opens a chunk of its frames in one engine batch and
//! then checks and commits PNs in arrival order, so replays and reordering inside a TID
//! are caught exactly as by one sequential `suite::Receiver` per station.

use core::mem::MaybeUninit;
use core::ops::Range;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use foldhash::HashMap;

use crate::error::{Error, Result};
use crate::suite::mpdu::{Aad, Pn, ReplayClass, PN_HEADER_LEN};
use crate::suite::{Peeked, PnCounter, ReplayCounters};
use crate::wire::{Frame, Rules};

use super::batch::{self, Engine};
use super::enhanced::MIC_LEN;
use super::framing;
use super::kernel::FrameTask;
use super::key::{Key, Mode};

/// Identifies a station (its pairwise key) within the engine.
pub type StationId = u32;

/// Room in front of each MPDU: protecting moves the MAC header into it, over the gap for
/// the PN header (see `mpdu::prepare_encapsulate` with `headroom`).
const HEADROOM: usize = PN_HEADER_LEN;

/// Frames per multi-buffer batch inside a shard: as many as the engine runs in one pass.
const BATCH: usize = super::batch::TASK_CHUNK;

/// How long an idle worker (or the caller waiting for its workers) polls before it parks:
/// waking a parked thread costs tens of microseconds on a virtual machine, as long as a
/// whole call of a few hundred frames, and calls usually follow each other closely. It
/// yields while it polls, so threads sharing a core (a process confined to one CPU) still
/// take turns.
const SPIN: Duration = Duration::from_micros(200);

/// Frames for one call of the engine, each for (or from) a station, in buffers that stay
/// allocated across calls: `clear` keeps them for the next `push`es. After a call each
/// frame holds its protected (or opened) MPDU, or why it was refused.
#[derive(Default)]
pub struct FrameBatch {
    /// The frames in use are `slots[..len]`; the rest are spare buffers.
    slots: Vec<Slot>,
    len: usize,
}

/// A frame of a batch: the caller's part (station, buffer, outcome) and what the engine
/// notes about it during a call (station number, PN, shard).
struct Slot {
    station: StationId,
    /// The MPDU is `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    outcome: Result<()>,
    /// Index of the station in the engine's key table.
    number: usize,
    /// Transmit only: the PN the frame was given.
    pn: Pn,
    shard: usize,
}

impl Slot {
    /// A slot without a buffer: a new one, or one standing in the batch for a frame that is
    /// at a worker.
    fn empty() -> Self {
        Slot { station: 0, buf: Vec::new(), start: HEADROOM, outcome: Ok(()), number: 0, pn: Pn::default(), shard: 0 }
    }

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
            self.slots.push(Slot::empty());
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

/// A worker's share of a call; the same value comes back, its frames done, their vector
/// kept for the next call.
struct Work {
    shard: usize,
    protect: bool,
    keys: Keys,
    slots: Vec<Slot>,
}

struct Worker {
    work: Sender<Work>,
    thread: JoinHandle<()>,
    /// Its frames' vector between calls.
    slots: Vec<Slot>,
}

pub struct ShardedEngine {
    engine: Engine,
    rules: Rules,
    /// Shards 1.. (shard 0 is worked by the calling thread, with `local`).
    workers: Vec<Worker>,
    done: Receiver<Work>,
    local: Shard,
    /// Station number (index into `keys` and `pn`) of every station with a key.
    stations: HashMap<StationId, usize>,
    keys: Keys,
    pn: Vec<PnCounter>,
    generations: u64,
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
                Worker { work, thread, slots: Vec::new() }
            })
            .collect();
        ShardedEngine {
            engine,
            rules,
            workers,
            done,
            local: Shard::default(),
            stations: HashMap::default(),
            keys: Arc::new(Vec::new()),
            pn: Vec::new(),
            generations: 0,
        }
    }

    pub fn threads(&self) -> usize {
        self.workers.len() + 1
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
    /// submission order, one per frame. Fails as a whole (before any PN is used) if a frame
    /// names a station without a key; otherwise each frame holds its protected MPDU or its
    /// error.
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
        let slots = &mut batch.slots[..batch.len];
        self.number_stations(slots)?;
        self.assign(slots, protect);
        let mut outstanding = 0;
        for (worker, shard) in self.workers.iter_mut().zip(1..) {
            let mut away = std::mem::take(&mut worker.slots);
            away.extend(
                slots
                    .iter_mut()
                    .filter(|slot| slot.shard == shard)
                    .map(|slot| std::mem::replace(slot, Slot { shard, ..Slot::empty() })),
            );
            if away.is_empty() {
                worker.slots = away;
                continue;
            }
            let work = Work { shard, protect, keys: Arc::clone(&self.keys), slots: away };
            worker.work.send(work).expect("workers run until the engine is dropped");
            outstanding += 1;
        }
        self.local.work(self.engine, self.rules, protect, &self.keys, slots, 0);
        for _ in 0..outstanding {
            let mut work = receive(&self.done).expect("workers run until the engine is dropped");
            let mut back = work.slots.drain(..);
            for slot in slots.iter_mut().filter(|slot| slot.shard == work.shard) {
                *slot = back.next().expect("a worker gives back every frame");
            }
            drop(back);
            self.workers[work.shard - 1].slots = work.slots;
        }
        Ok(())
    }

    /// Look up every frame's station once, refusing the whole batch if one has no key.
    fn number_stations(&self, slots: &mut [Slot]) -> Result<()> {
        for slot in slots {
            let Some(&number) = self.stations.get(&slot.station) else {
                return Err(Error::Unsupported("frame for a station without a key"));
            };
            slot.number = number;
        }
        Ok(())
    }

    /// Give every frame its shard (and, transmitting, its PN): a contiguous run of the
    /// batch per thread to transmit; by (station, replay class) to receive. A frame whose
    /// class can't be read goes to the caller's shard, whose framing refuses it.
    fn assign(&mut self, slots: &mut [Slot], transmit: bool) {
        let (shards, len) = (self.threads(), slots.len());
        for (index, slot) in slots.iter_mut().enumerate() {
            slot.rebase();
            slot.outcome = Ok(());
            slot.shard = match (transmit, shards) {
                (_, 1) => 0,
                (true, _) => index * shards / len,
                (false, _) => Frame::new_checked(&slot.buf[HEADROOM..], self.rules)
                    .map_or(0, |frame| shard_of(slot.station, ReplayClass::of(&frame), shards)),
            };
            if transmit {
                match self.pn[slot.number].next_pn() {
                    Ok(pn) => slot.pn = pn,
                    Err(e) => slot.outcome = Err(e),
                }
            }
        }
    }
}

impl Drop for ShardedEngine {
    fn drop(&mut self) {
        for Worker { work, thread, .. } in self.workers.drain(..) {
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

/// The next message, polling (and yielding) for `SPIN` before parking; `None` once the
/// senders are gone.
fn receive<T>(inbox: &Receiver<T>) -> Option<T> {
    let since = Instant::now();
    loop {
        match inbox.try_recv() {
            Ok(message) => return Some(message),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if since.elapsed() > SPIN => return inbox.recv().ok(),
            Err(TryRecvError::Empty) => std::thread::yield_now(),
        }
    }
}

/// A worker: work its shard until the engine closes the channel.
fn serve(engine: Engine, rules: Rules, inbox: Receiver<Work>, reply: Sender<Work>) {
    let mut shard = Shard::default();
    while let Some(mut work) = receive(&inbox) {
        shard.work(engine, rules, work.protect, &work.keys, &mut work.slots, work.shard);
        // The engine waits for every reply; if it is gone, there is nobody to tell.
        let _ = reply.send(work);
    }
}

/// A shard's state: the replay counters of its (station, replay class) pairs, by station
/// number, with the key generation they belong to; and scratch kept between chunks and
/// calls (the lists keep their allocation, empty, between uses).
#[derive(Default)]
struct Shard {
    replay: Vec<(u64, ReplayCounters)>,
    tasks: Vec<FrameTask<'static>>,
    /// Protecting: where each task's MIC goes.
    mic_slots: Vec<&'static mut [u8; MIC_LEN]>,
    /// Opening: each task's received MIC, and its frame.
    mics: Vec<[u8; MIC_LEN]>,
    opening: Vec<Opening>,
}

/// A frame of a chunk being opened: where it is in the chunk, where its data is in its
/// MPDU, and its security header.
struct Opening {
    at: usize,
    data: Range<usize>,
    peeked: Peeked,
}

impl Shard {
    /// Work the frames of `slots` that belong to `shard`, `BATCH` of them at a time, each
    /// chunk's framing octets fetched while the chunk before it is worked.
    fn work(&mut self, engine: Engine, rules: Rules, protect: bool, keys: &Keys, slots: &mut [Slot], shard: usize) {
        let mut rest = slots;
        let mut end = chunk_end(rest, shard);
        prefetch(&rest[..end], shard, protect);
        while !rest.is_empty() {
            let (chunk, tail) = rest.split_at_mut(end);
            end = chunk_end(tail, shard);
            prefetch(&tail[..end], shard, protect);
            match protect {
                true => self.protect(engine, rules, keys, chunk, shard),
                false => self.open(engine, rules, keys, chunk, shard),
            }
            rest = tail;
        }
    }

    /// Frame every MPDU of the chunk (its MAC header moving into the headroom) and make its
    /// task in the same pass; seal the tasks in one engine batch, their MICs behind them.
    fn protect(&mut self, engine: Engine, rules: Rules, keys: &Keys, chunk: &mut [Slot], shard: usize) {
        // Each task's AAD, where the task can borrow it while the next ones are written.
        let mut aads = [const { MaybeUninit::<Aad>::uninit() }; BATCH];
        let mut tasks = reuse(&mut self.tasks);
        let mut mic_slots = reuse(&mut self.mic_slots);
        for (slot, aad) in mine(chunk, shard).zip(&mut aads) {
            let installed = &keys[slot.number];
            let len = slot.buf.len() - HEADROOM;
            // Within the capacity `FrameBatch::push` reserved: no reallocation.
            slot.buf.extend_from_slice(&[0; MIC_LEN]);
            let prepared =
                match framing::prepare_encapsulate(&mut slot.buf, len, slot.pn, installed.key_id, rules, true) {
                    Ok((prepared, _)) => prepared,
                    Err(e) => {
                        slot.buf.truncate(HEADROOM + len);
                        slot.outcome = Err(e);
                        continue;
                    }
                };
            let Slot { buf, start, outcome, .. } = slot;
            *start = 0;
            let aad = aad.write(prepared.aad);
            let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
            match batch::task(&installed.key, prepared.nonce, aad.as_slice(), data, false) {
                Ok(task) => {
                    tasks.push(task);
                    mic_slots.push(mic.first_chunk_mut().expect("room for the MIC, by framing"));
                }
                Err(e) => *outcome = Err(e),
            }
        }
        engine.seal_tasks(&mut tasks, &mut mic_slots);
        self.tasks = reuse(&mut tasks);
        self.mic_slots = reuse(&mut mic_slots);
    }

    /// Parse, check (Key ID, replay, length: each refuses its own frame) and make the task
    /// of every frame of the chunk in one pass, open the tasks in one engine batch, then
    /// check and commit PNs in arrival order (a frame replayed within the chunk passes the
    /// first check but not the second).
    fn open(&mut self, engine: Engine, rules: Rules, keys: &Keys, chunk: &mut [Slot], shard: usize) {
        let mut aads = [const { MaybeUninit::<Aad>::uninit() }; BATCH];
        let mut tasks = reuse(&mut self.tasks);
        let mut mics = reuse(&mut self.mics);
        let mut opening = reuse(&mut self.opening);
        let frames = chunk.iter_mut().enumerate().filter(|(_, slot)| slot.shard == shard && slot.outcome.is_ok());
        for ((at, slot), aad) in frames.zip(&mut aads) {
            let installed = &keys[slot.number];
            let counters = counter_slot(&mut self.replay, slot.number, installed.generation);
            let Slot { buf, start, outcome, .. } = slot;
            let mpdu = &mut buf[*start..];
            let checked = framing::prepare_decapsulate(mpdu, rules).and_then(|(prepared, peeked)| {
                if peeked.key_id != installed.key_id {
                    return Err(Error::KeyId { expected: installed.key_id, got: peeked.key_id });
                }
                counters.check(peeked.class, peeked.pn)?;
                Ok((prepared, peeked))
            });
            let (prepared, peeked) = match checked {
                Ok(checked) => checked,
                Err(e) => {
                    *outcome = Err(e);
                    continue;
                }
            };
            let aad = aad.write(prepared.aad);
            let (data, mic) = mpdu[prepared.data.start..].split_at_mut(prepared.data.len());
            // The engine's own checks (here: a payload too long for CCM) refuse this frame only.
            match batch::task(&installed.key, prepared.nonce, aad.as_slice(), data, true) {
                Ok(task) => {
                    tasks.push(task);
                    mics.push(*mic.first_chunk().expect("the MIC, by framing"));
                    opening.push(Opening { at, data: prepared.data, peeked });
                }
                Err(e) => *outcome = Err(e),
            }
        }
        let verdicts = engine.open_tasks(&mut tasks, &mics);
        self.tasks = reuse(&mut tasks);
        self.mics = mics;
        for (Opening { at, data, peeked }, index) in opening.drain(..).zip(0..) {
            let slot = &mut chunk[at];
            // The first pass made the station's counters those of its current key.
            let counters = &mut self.replay[slot.number].1;
            let buf = &mut slot.buf[slot.start..];
            let opened = match verdicts & (1 << index) != 0 {
                false => Err(Error::MicFailure),
                true => counters
                    .receive(peeked, || framing::finish_decapsulate(buf, data, peeked, framing::Gap::HeaderForward)),
            };
            match opened {
                Ok(done) => {
                    slot.start += PN_HEADER_LEN;
                    slot.buf.truncate(slot.start + done.mpdu_len);
                }
                Err(e) => slot.outcome = Err(e),
            }
        }
        self.opening = opening;
    }
}

/// Where the chunk that starts `slots` ends: after its `BATCH`th frame of `shard`.
fn chunk_end(slots: &[Slot], shard: usize) -> usize {
    let mut end = 0;
    let mut mine = 0;
    while end < slots.len() && mine < BATCH {
        mine += usize::from(slots[end].shard == shard);
        end += 1;
    }
    end
}

/// Start loading the octets of the chunk's frames that the framing reads before the
/// kernels stream through them: each MAC header and, to open, the MIC. The buffers are
/// scattered over the heap, so the hardware prefetchers do not see them coming, and each
/// frame's first read missed the cache (a quarter of the engine's own time opening).
fn prefetch(chunk: &[Slot], shard: usize, protect: bool) {
    #[cfg(target_arch = "x86_64")]
    for slot in chunk.iter().filter(|slot| slot.shard == shard) {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let mpdu = slot.buf.as_ptr_range();
        // SAFETY: prefetching has no effect on memory, and these point into the buffer.
        unsafe {
            // Head room, MAC and PN headers: up to 52 octets, which may cross a line.
            _mm_prefetch::<_MM_HINT_T0>(mpdu.start.cast());
            _mm_prefetch::<_MM_HINT_T0>(mpdu.start.wrapping_add(HEADROOM + 43).cast());
            if !protect {
                _mm_prefetch::<_MM_HINT_T0>(mpdu.end.wrapping_sub(MIC_LEN).cast());
            }
        }
    }
}

/// The chunk's frames of `shard` still in play (not refused yet), in order.
fn mine(chunk: &mut [Slot], shard: usize) -> impl Iterator<Item = &mut Slot> {
    chunk.iter_mut().filter(move |slot| slot.shard == shard && slot.outcome.is_ok())
}

/// `spare`'s allocation as an empty vector of another lifetime (the job lists borrow one
/// chunk's frames): collecting a vector's own iterator in place keeps its allocation.
fn reuse<T, U>(spare: &mut Vec<T>) -> Vec<U> {
    spare.clear();
    std::mem::take(spare).into_iter().map(|_| unreachable!("the vector is empty")).collect()
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
