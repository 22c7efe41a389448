//! A worker: the thread behind one core's rings. It owns its stations' keys, transmit PN
//! counters and replay counters, takes requests in order from its submission ring, works
//! each run of packets of one direction in chunks of one engine batch and hands every
//! packet back through its completion ring.

use core::mem::MaybeUninit;
use core::ops::Range;
use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::error::Error;
use crate::suite::mpdu::{Aad, PN_HEADER_LEN};
use crate::suite::{Peeked, PnCounter, ReplayCounters};
use crate::wire::Rules;

use super::super::batch::{self, Engine};
use super::super::enhanced::MIC_LEN;
use super::super::framing;
use super::super::kernel::FrameTask;
use super::super::key::Key;
use super::{CallerWake, Direction, Packet, HEADROOM, SPIN};

/// A packet's station number when its station has no key.
pub(super) const NO_STATION: u32 = u32::MAX;

/// Packets per multi-buffer batch: as many as the engine runs in one pass.
pub(super) const BATCH: usize = batch::TASK_CHUNK;

/// What the caller puts in a worker's submission ring.
pub(super) enum Request {
    Packet(Box<Packet>),
    /// Install (or replace) the key of the worker's station `number`.
    Key {
        number: u32,
        key: Box<Key>,
    },
}

/// Flags a worker and its caller share.
#[derive(Default)]
pub(super) struct Shared {
    /// The worker is parked, or about to park, until a submission wakes it.
    sleeping: AtomicBool,
    /// The engine is being dropped: leave now.
    pub(super) stop: AtomicBool,
}

impl Shared {
    /// Wake the worker if it sleeps; called after pushing requests (or raising `stop`).
    pub(super) fn wake_worker(&self, thread: Option<&JoinHandle<()>>) {
        // Pairs with the worker's fence between raising `sleeping` and its last look at
        // the ring: either it sees the requests, or this sees it sleeping.
        fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::Relaxed) {
            if let Some(thread) = thread {
                thread.thread().unpark();
            }
        }
    }
}

/// A station's counters, beside its key (kept apart so that the tasks of a chunk can borrow
/// the keys while the counters move on).
#[derive(Default)]
struct Counters {
    transmit: PnCounter,
    replay: ReplayCounters,
}

/// The Key ID every pairwise key is installed under.
const KEY_ID: u8 = 0;

pub(super) struct Worker {
    engine: Engine,
    rules: Rules,
    requests: rtrb::Consumer<Request>,
    completions: rtrb::Producer<Box<Packet>>,
    shared: Arc<Shared>,
    caller: Arc<CallerWake>,
    /// By station number: `None` for a number not installed yet.
    keys: Vec<Option<Box<Key>>>,
    counters: Vec<Counters>,
    /// The packets being worked (at most `BATCH`), kept allocated; boxed as they travel.
    #[allow(clippy::vec_box)]
    chunk: Vec<Box<Packet>>,
    scratch: Scratch,
}

/// Lists kept between chunks (empty, with their allocation, between uses).
#[derive(Default)]
struct Scratch {
    tasks: Vec<FrameTask<'static>>,
    /// Protecting: where each task's MIC goes.
    mic_slots: Vec<&'static mut [u8; MIC_LEN]>,
    /// Opening: each task's received MIC, and the frames past the first checks.
    mics: Vec<[u8; MIC_LEN]>,
    opening: Vec<Opening>,
}

// SAFETY: the lists hold tasks (raw pointers into one chunk's frames) only while `protect`
// or `open` works that chunk, within one call on one thread; between calls they are empty
// and own nothing but their allocations, which any thread may free or reuse. So a worker
// can move with an inline engine to another thread.
unsafe impl Send for Scratch {}

/// A frame of a chunk being opened: where it is in the chunk, its security header, and
/// where its data is in its MPDU (its task is the next one), or why the replay check refused
/// it before the chunk's PNs were committed.
struct Opening {
    at: usize,
    peeked: Peeked,
    data: Result<Range<usize>, Error>,
}

impl Worker {
    pub(super) fn new(
        engine: Engine,
        requests: rtrb::Consumer<Request>,
        completions: rtrb::Producer<Box<Packet>>,
        shared: Arc<Shared>,
        caller: Arc<CallerWake>,
    ) -> Self {
        Worker {
            engine,
            rules: Rules::default(),
            requests,
            completions,
            shared,
            caller,
            keys: Vec::new(),
            counters: Vec::new(),
            chunk: Vec::with_capacity(BATCH),
            scratch: Scratch::default(),
        }
    }

    /// Work requests until the engine is dropped.
    pub(super) fn run(mut self) {
        while !self.shared.stop.load(Ordering::Acquire) {
            self.gather();
            if self.chunk.is_empty() {
                self.idle();
                continue;
            }
            self.work();
            self.complete();
        }
    }

    /// Work the requests queued now, on the caller's thread (an inline engine): all of them,
    /// or (`whole_chunks`) only while a whole chunk's worth is queued.
    pub(super) fn work_queued(&mut self, whole_chunks: bool) {
        while !(whole_chunks && self.requests.slots() < BATCH) {
            self.gather();
            if self.chunk.is_empty() {
                return;
            }
            self.work();
            self.complete();
        }
    }

    /// Work `packets` (one direction, at most `BATCH`) straight from an inline caller's
    /// burst, as if gathered from the ring.
    pub(super) fn work_chunk(&mut self, packets: impl Iterator<Item = Box<Packet>>) {
        self.chunk.extend(packets.inspect(|packet| prefetch(packet)));
        self.work();
        self.complete();
    }

    /// Take requests until the chunk holds `BATCH` packets or the next request is a key or
    /// a packet of the other direction (installing keys met before the first packet).
    fn gather(&mut self) {
        self.prefetch_ahead();
        loop {
            let room = BATCH - self.chunk.len();
            let Ok(ahead) = self.requests.read_chunk(self.requests.slots().min(room)) else { return };
            // The run of packets at the front of the ring that can join the chunk.
            let (first, second) = ahead.as_slices();
            let mut direction = self.chunk.first().map(|packet| packet.direction);
            let run = first
                .iter()
                .chain(second)
                .take_while(|request| match request {
                    Request::Packet(packet) => *direction.get_or_insert(packet.direction) == packet.direction,
                    Request::Key { .. } => false,
                })
                .count();
            if run > 0 {
                // Taken as one chunk of the ring: its head moves once, not once a packet.
                let Ok(taken) = self.requests.read_chunk(run) else { unreachable!("the run was read above") };
                for request in taken {
                    if let Request::Packet(packet) = request {
                        prefetch(&packet);
                        self.chunk.push(packet);
                    }
                }
                return;
            }
            // Nothing joins the chunk: the ring is empty, the chunk full, or a key (installed
            // only before the chunk's first packet) or the other direction comes next.
            if !self.chunk.is_empty() || room == 0 {
                return;
            }
            match self.requests.peek() {
                Ok(Request::Key { .. }) => {}
                // Pushed since the look above: it starts the chunk on the next turn.
                Ok(Request::Packet(_)) => continue,
                Err(_) => return,
            }
            let Ok(Request::Key { number, key }) = self.requests.pop() else { unreachable!("the key peeked above") };
            self.install(number, key);
        }
    }

    /// Start loading the packets (their own fields, not yet their frames) of this chunk and
    /// the next: the caller's core wrote them last, and each would otherwise miss the cache
    /// in turn as `gather` reads it.
    fn prefetch_ahead(&mut self) {
        let ahead = self.requests.slots().min(2 * BATCH);
        let Ok(requests) = self.requests.read_chunk(ahead) else { return };
        let (first, second) = requests.as_slices();
        for request in first.iter().chain(second) {
            if let Request::Packet(packet) = request {
                prefetch_packet(packet);
            }
        }
        // Dropped without a commit: nothing is taken from the ring.
    }

    fn install(&mut self, number: u32, key: Box<Key>) {
        let number = number as usize;
        if self.keys.len() <= number {
            self.keys.resize_with(number + 1, || None);
            self.counters.resize_with(number + 1, Counters::default);
        }
        self.keys[number] = Some(key);
        self.counters[number] = Counters::default();
    }

    /// Poll the ring (yielding) for `SPIN`, then park until a submission or the engine's
    /// drop wakes this thread.
    fn idle(&self) {
        let start = Instant::now();
        while start.elapsed() < SPIN {
            if !self.requests.is_empty() || self.shared.stop.load(Ordering::Acquire) {
                return;
            }
            std::thread::yield_now();
        }
        self.shared.sleeping.store(true, Ordering::Relaxed);
        // Pairs with `Shared::wake_worker`: a request pushed before this fence is seen
        // below, one pushed after it finds `sleeping` raised and unparks this thread.
        fence(Ordering::SeqCst);
        if self.requests.is_empty() && !self.shared.stop.load(Ordering::Acquire) {
            std::thread::park();
        }
        self.shared.sleeping.store(false, Ordering::Relaxed);
    }

    /// Hand the chunk's packets back, in order, and wake the caller if it waits for them.
    fn complete(&mut self) {
        let pushed = self.chunk.len();
        // One chunk of the ring: its tail moves once, not once a packet.
        if let Ok(slots) = self.completions.write_chunk_uninit(pushed) {
            slots.fill_from_iter(self.chunk.drain(..));
            self.caller.completed(pushed);
            return;
        }
        for mut packet in self.chunk.drain(..) {
            // The caller holds at most the completion ring's capacity in flight, so there is
            // room; should there not be, wait for the caller to poll (or drop the engine).
            loop {
                match self.completions.push(packet) {
                    Ok(()) => break,
                    Err(rtrb::PushError::Full(back)) => packet = back,
                }
                if self.shared.stop.load(Ordering::Acquire) {
                    return;
                }
                std::thread::yield_now();
            }
        }
        self.caller.completed(pushed);
    }

    /// Work the chunk: its packets all go one direction.
    fn work(&mut self) {
        let mut chunk = std::mem::take(&mut self.chunk);
        for packet in chunk.iter_mut() {
            packet.rebase();
            packet.outcome = match self.keys.get(packet.number as usize) {
                Some(Some(_)) => Ok(()),
                _ => Err(Error::NoKey { group: false }),
            };
        }
        match chunk[0].direction {
            Direction::Protect => self.protect(&mut chunk),
            Direction::Unprotect => self.open(&mut chunk),
        }
        self.chunk = chunk;
    }

    /// Give every frame its station's next PN, frame it (its MAC header moving into the
    /// headroom) and make its task in the same pass; seal the tasks in one engine batch,
    /// their MICs behind them.
    fn protect(&mut self, chunk: &mut [Box<Packet>]) {
        let Worker { engine, rules, keys, counters, scratch, .. } = self;
        // Each task's AAD, where the task can borrow it while the next ones are written.
        let mut aads = [const { MaybeUninit::<Aad>::uninit() }; BATCH];
        let mut tasks = reuse(&mut scratch.tasks);
        let mut mic_slots = reuse(&mut scratch.mic_slots);
        for (packet, aad) in chunk.iter_mut().filter(|packet| packet.outcome.is_ok()).zip(&mut aads) {
            let number = packet.number as usize;
            // The PN is taken first, as `suite::Transmitter::protect` takes it: a frame
            // refused below has used its PN.
            let pn = match counters[number].transmit.next_pn() {
                Ok(pn) => pn,
                Err(e) => {
                    packet.outcome = Err(e);
                    continue;
                }
            };
            let len = packet.buf.len() - HEADROOM;
            // Within the capacity `Packet::write_mpdu` reserved: no reallocation.
            packet.buf.extend_from_slice(&[0; MIC_LEN]);
            let prepared = match framing::prepare_encapsulate(&mut packet.buf, len, pn, KEY_ID, *rules, true) {
                Ok((prepared, _)) => prepared,
                Err(e) => {
                    packet.buf.truncate(HEADROOM + len);
                    packet.outcome = Err(e);
                    continue;
                }
            };
            let Packet { buf, start, outcome, .. } = &mut **packet;
            *start = 0;
            let aad = aad.write(prepared.aad);
            let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
            let key = keys[number].as_deref().expect("checked by `work`");
            match batch::task(key, prepared.nonce, aad.as_slice(), data, false) {
                Ok(task) => {
                    tasks.push(task);
                    mic_slots.push(mic.first_chunk_mut().expect("room for the MIC, by framing"));
                }
                Err(e) => *outcome = Err(e),
            }
        }
        engine.seal_tasks(&mut tasks, &mut mic_slots);
        scratch.tasks = reuse(&mut tasks);
        scratch.mic_slots = reuse(&mut mic_slots);
    }

    /// Parse, check (Key ID, replay, length: each refuses its own frame) and make the task
    /// of every frame of the chunk in one pass, open the tasks in one engine batch, then
    /// check and commit PNs in arrival order: a frame replayed within the chunk passes the
    /// first check but not the second, and a frame the first check refused is refused
    /// against the counters as they stand at its turn (the error names the last PN
    /// accepted before it, as a sequential receiver's does).
    fn open(&mut self, chunk: &mut [Box<Packet>]) {
        let Worker { engine, rules, keys, counters, scratch, .. } = self;
        let mut aads = [const { MaybeUninit::<Aad>::uninit() }; BATCH];
        let mut tasks = reuse(&mut scratch.tasks);
        let mut mics = reuse(&mut scratch.mics);
        let mut opening = reuse(&mut scratch.opening);
        let frames = chunk.iter_mut().enumerate().filter(|(_, packet)| packet.outcome.is_ok());
        for ((at, packet), aad) in frames.zip(&mut aads) {
            let number = packet.number as usize;
            let Packet { buf, start, outcome, .. } = &mut **packet;
            let mpdu = &mut buf[*start..];
            let checked = framing::prepare_decapsulate(mpdu, *rules).and_then(|(prepared, peeked)| {
                if peeked.key_id != KEY_ID {
                    return Err(Error::KeyId { expected: KEY_ID, got: peeked.key_id });
                }
                Ok((prepared, peeked))
            });
            let (prepared, peeked) = match checked {
                Ok(checked) => checked,
                Err(e) => {
                    *outcome = Err(e);
                    continue;
                }
            };
            if let Err(e) = counters[number].replay.check(peeked.class, peeked.pn) {
                opening.push(Opening { at, peeked, data: Err(e) });
                continue;
            }
            let aad = aad.write(prepared.aad);
            let (data, mic) = mpdu[prepared.data.start..].split_at_mut(prepared.data.len());
            let key = keys[number].as_deref().expect("checked by `work`");
            // The engine's own checks (here: a payload too long for CCM) refuse this frame only.
            match batch::task(key, prepared.nonce, aad.as_slice(), data, true) {
                Ok(task) => {
                    tasks.push(task);
                    mics.push(*mic.first_chunk().expect("the MIC, by framing"));
                    opening.push(Opening { at, peeked, data: Ok(prepared.data) });
                }
                Err(e) => *outcome = Err(e),
            }
        }
        let verdicts = engine.open_tasks(&mut tasks, &mics);
        scratch.tasks = reuse(&mut tasks);
        scratch.mics = mics;
        let mut task = 0;
        for Opening { at, peeked, data } in opening.drain(..) {
            let packet = &mut chunk[at];
            let replay = &mut counters[packet.number as usize].replay;
            let opened = match data {
                // Counters only rise: a PN refused before the chunk's commits still is.
                Err(first) => Err(replay.check(peeked.class, peeked.pn).err().unwrap_or(first)),
                Ok(data) => {
                    task += 1;
                    match verdicts & (1 << (task - 1)) != 0 {
                        false => Err(Error::MicFailure),
                        true => {
                            let buf = &mut packet.buf[packet.start..];
                            replay.receive(peeked, || {
                                framing::finish_decapsulate(buf, data, peeked, framing::Gap::HeaderForward)
                            })
                        }
                    }
                }
            };
            match opened {
                Ok(done) => {
                    packet.start += PN_HEADER_LEN;
                    let end = packet.start + done.mpdu_len;
                    packet.buf.truncate(end);
                }
                Err(e) => packet.outcome = Err(e),
            }
        }
        scratch.opening = opening;
    }
}

/// Start loading the octets of a packet that the framing touches before the kernels stream
/// through it: its MAC header, and the end of its MPDU (the MIC, read to open, written
/// behind it to protect). The buffers are scattered over the heap
/// (and were last written by the caller's core), so the hardware prefetchers do not see them
/// coming; the chunk is gathered before it is worked, which gives the loads time.
fn prefetch(packet: &Packet) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let mpdu = packet.buf.as_ptr_range();
        // SAFETY: prefetching has no effect on memory, and these point into the buffer.
        unsafe {
            // Head room, MAC and PN headers: up to 52 octets, which may cross a line.
            _mm_prefetch::<_MM_HINT_T0>(mpdu.start.cast());
            _mm_prefetch::<_MM_HINT_T0>(mpdu.start.wrapping_add(HEADROOM + 43).cast());
            // Opening reads the MIC there; protecting writes it just behind.
            _mm_prefetch::<_MM_HINT_T0>(mpdu.end.wrapping_sub(MIC_LEN).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = packet;
}

/// Start loading a packet's own fields (it spans two cache lines at most).
fn prefetch_packet(packet: &Packet) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let fields: *const Packet = packet;
        // SAFETY: prefetching has no effect on memory, and these point into the packet.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(fields.cast());
            _mm_prefetch::<_MM_HINT_T0>(fields.cast::<i8>().wrapping_add(size_of::<Packet>() - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = packet;
}

/// `spare`'s allocation as an empty vector of another lifetime (the job lists borrow one
/// chunk's frames): collecting a vector's own iterator in place keeps its allocation.
fn reuse<T, U>(spare: &mut Vec<T>) -> Vec<U> {
    spare.clear();
    std::mem::take(spare).into_iter().map(|_| unreachable!("the vector is empty")).collect()
}
