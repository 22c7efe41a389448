//! The per-core engine: one worker thread per core, each fed through a submission ring and
//! answering through a completion ring, so the caller streams frames in bursts and never
//! waits for a whole batch (the burst API of packet pipelines: submit N, poll completions).
//!
//! * Ownership: a frame travels as a [`Packet`] in a `Box`. [`PerCoreEngine::submit`] takes
//!   the box; from then until [`PerCoreEngine::poll`] hands the same box back (same
//!   allocation, same data buffer, protected or opened in place, or with its error) the
//!   engine owns it and the caller cannot reach it. Dropping the engine drops the packets
//!   still in flight.
//! * Routing: every station is given one worker when its key is installed (the worker with
//!   the fewest stations), and all its frames go to that worker, which owns the station's key,
//!   its transmit PN counter and its receive replay counters. A worker works its frames in
//!   submission order, so each station's completions come back in submission order; across
//!   stations (and so across workers) they may interleave.
//! * Transmit: a frame takes its station's next PN as the worker reaches it, one per frame,
//!   as a `suite::Transmitter` takes them (a frame refused later, e.g. too short, still used
//!   its PN); the PN belongs to the key, not the TID, and since a station's frames are
//!   worked in order every TID leaves in PN order, as the receiver's replay counters require.
//! * Receive: a worker opens a chunk of a station's frames in one engine batch, then checks
//!   and commits PNs in arrival order, per station and replay class (the TID for QoS data),
//!   so replays and reordering are caught exactly as by one sequential `suite::Receiver` per
//!   station.
//! * Keys travel through the submission ring too: a key installed (or replaced) applies to
//!   the frames submitted after it, and restarts the station's PN at 1 and its replay
//!   counters at 0.
//! * Bounded: each worker takes at most [`PerCoreEngine::ring_capacity`] packets in flight
//!   (submitted and not yet polled); a submission that finds its worker full stops there and
//!   says how many it took, and nothing ever blocks on a full ring. The rings are allocated
//!   once; in steady state no call allocates.
//! * Threads: workers are pinned to a core each where the OS allows it. An idle worker polls
//!   its ring briefly, then parks until a submission wakes it; [`PerCoreEngine::wait_for`]
//!   parks the caller likewise until enough completions are ready. The engine is `Send` but not shared:
//!   one thread at a time submits and polls (every method takes `&mut self`); a packet,
//!   once completed, may go to any thread.
//! * Inline: [`PerCoreEngine::inline`] has no worker thread: the calling thread is the worker
//!   of its own core, as a packet pipeline runs one engine per core. Its rings, order, bounds
//!   and errors are the threaded engine's; `submit` works every whole chunk of
//!   `batch::TASK_CHUNK` packets queued, `poll` and `wait_for` work the rest first. No frame
//!   leaves the caller's core, so none crosses between cores' caches.

mod worker;

use core::time::Duration;
use std::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{JoinHandle, Thread};
use std::time::Instant;

use foldhash::HashMap;

use crate::error::{Error, Result};
use crate::suite::mpdu::PN_HEADER_LEN;

use super::batch::Engine;
use super::enhanced::MIC_LEN;
use super::key::{Key, Mode};
use worker::{Request, Worker};

/// What a call that needs a worker whose thread has ended returns.
pub(crate) const WORKER_STOPPED: Error = Error::Unsupported("the core's worker has stopped");

/// Identifies a station (its pairwise key) within the engine.
pub type StationId = u32;

/// Packets each worker holds in flight unless told otherwise: enough for the caller to keep
/// every worker busy across a few of its bursts.
pub const DEFAULT_RING_CAPACITY: usize = 1024;

/// Room in front of each MPDU: protecting moves the MAC header into it, over the gap for
/// the PN header (see `mpdu::prepare_encapsulate` with `headroom`).
const HEADROOM: usize = PN_HEADER_LEN;

/// Submission ring slots beyond the packet capacity, for key installs.
const KEY_SLOTS: usize = 16;

/// How long an idle worker polls its ring before it parks: waking a parked thread costs tens
/// of microseconds on a virtual machine, and a stream's next burst usually comes sooner. It
/// yields while it polls, so threads sharing a core still take turns.
const SPIN: Duration = Duration::from_micros(200);

/// How long a waiting caller polls before it parks: shortly, since it usually waits for
/// many completions and, on a machine with as many workers as cores, polls on one of
/// their cores.
const CALLER_SPIN: Duration = Duration::from_micros(20);

/// What the engine does to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Protect a plaintext MPDU for its station (transmit).
    Protect,
    /// Verify, replay-check and decrypt a protected MPDU from its station (receive).
    Unprotect,
}

/// One frame on its way through the engine: an MPDU for (or from) a station, in a buffer
/// with room for the protection overhead, and a tag the caller chooses to match the
/// completion to its submission. After its completion it holds the protected (or opened)
/// MPDU, or why it was refused. Reuse a completed packet by filling it again: its buffer
/// keeps its allocation.
pub struct Packet {
    /// The MPDU is `buf[start..]`, with `HEADROOM` octets in front when it is filled.
    buf: Vec<u8>,
    start: usize,
    station: StationId,
    tag: u64,
    outcome: Result<()>,
    /// Set by `submit`: what to do, the station's worker and its index in that worker's
    /// table.
    direction: Direction,
    core: usize,
    number: u32,
}

impl Default for Packet {
    fn default() -> Self {
        Packet {
            buf: Vec::new(),
            start: HEADROOM,
            station: 0,
            tag: 0,
            outcome: Ok(()),
            direction: Direction::Protect,
            core: 0,
            number: worker::NO_STATION,
        }
    }
}

impl Packet {
    pub fn new() -> Self {
        Packet::default()
    }

    /// A packet whose buffer holds an MPDU of `mpdu_len` octets, protected, without growing.
    pub fn with_capacity(mpdu_len: usize) -> Self {
        Packet { buf: Vec::with_capacity(HEADROOM + mpdu_len + MIC_LEN), ..Packet::default() }
    }

    /// Fill the packet with a copy of `mpdu`, for (or from) `station`, tagged `tag`.
    pub fn set(&mut self, station: StationId, tag: u64, mpdu: &[u8]) {
        self.write_mpdu(station, tag, mpdu.len()).copy_from_slice(mpdu);
    }

    /// Make the packet hold an MPDU of `len` octets for (or from) `station`, tagged `tag`,
    /// and give its octets to write in place (zeroed if the buffer grew): a receive path
    /// can copy the frame from its NIC straight into the buffer.
    pub fn write_mpdu(&mut self, station: StationId, tag: u64, len: usize) -> &mut [u8] {
        self.station = station;
        self.tag = tag;
        self.outcome = Ok(());
        self.start = HEADROOM;
        self.buf.clear();
        self.buf.reserve(HEADROOM + len + MIC_LEN);
        self.buf.resize(HEADROOM + len, 0);
        &mut self.buf[HEADROOM..]
    }

    pub fn station(&self) -> StationId {
        self.station
    }

    /// The caller's tag, as given when the packet was filled.
    pub fn tag(&self) -> u64 {
        self.tag
    }

    /// The MPDU (before submission: as filled; after completion: protected or opened), or
    /// why the engine refused the frame.
    pub fn result(&self) -> core::result::Result<&[u8], &Error> {
        self.outcome.as_ref().map(|()| &self.buf[self.start..])
    }

    /// Put the MPDU back behind `HEADROOM` octets, where the engine's framing wants it: a
    /// packet the engine already worked on starts elsewhere (a packet submitted again
    /// without being filled).
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

/// A submission took no packet: the worker of the first one has
/// [`PerCoreEngine::ring_capacity`] packets in flight. Poll completions, then submit again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingFull {
    /// The worker whose ring is full.
    pub core: usize,
}

impl core::fmt::Display for RingFull {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "the ring of core {} is full: poll completions first", self.core)
    }
}

impl std::error::Error for RingFull {}

/// Where a station's frames go: its worker, and its index in that worker's table.
#[derive(Clone, Copy)]
struct Route {
    core: usize,
    number: u32,
}

/// The caller's end of one worker.
struct Core {
    requests: rtrb::Producer<Request>,
    completions: rtrb::Consumer<Box<Packet>>,
    shared: Arc<worker::Shared>,
    /// The worker's own thread (`None` once joined, or inline).
    thread: Option<JoinHandle<()>>,
    /// The worker itself when the caller's thread runs it (an inline engine).
    inline: Option<Box<Worker>>,
    /// Packets submitted and not yet polled.
    in_flight: usize,
    stations: u32,
}

/// The completions ready over all workers, and what a worker uses to wake a caller parked
/// in [`PerCoreEngine::wait_for`] once enough are.
#[derive(Default)]
struct CallerWake {
    /// Completions pushed and not yet polled. A worker adds a chunk's after pushing them, so
    /// the caller may poll them first: the count then dips below zero for a moment.
    ready: AtomicIsize,
    /// The caller is parked, or about to park, until `ready` reaches `want`.
    waiting: AtomicBool,
    want: AtomicUsize,
    thread: Mutex<Option<Thread>>,
}

impl CallerWake {
    /// Count `pushed` completions just pushed, and wake the caller if it waits for them.
    fn completed(&self, pushed: usize) {
        let ready = self.ready.fetch_add(pushed as isize, Ordering::AcqRel) + pushed as isize;
        // Pairs with the caller's fence between raising `waiting` and its last look at
        // `ready`: either it sees these completions, or this sees it waiting.
        fence(Ordering::SeqCst);
        if self.waiting.load(Ordering::Relaxed)
            && ready >= self.want.load(Ordering::Relaxed) as isize
            && self.waiting.swap(false, Ordering::AcqRel)
        {
            if let Some(thread) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                thread.unpark();
            }
        }
    }
}

/// The per-core engine: see the module documentation.
pub struct PerCoreEngine {
    cores: Vec<Core>,
    routes: HashMap<StationId, Route>,
    capacity: usize,
    caller: Arc<CallerWake>,
    /// Scratch for `submit`: packets each core can still take in this burst.
    room: Vec<usize>,
    /// The core `poll` starts with, turning so no worker's completions wait behind another's.
    next_poll: usize,
}

impl PerCoreEngine {
    /// An engine on `cores` workers (at least one), each pinned to a core of its own where
    /// the OS allows it, with rings of [`DEFAULT_RING_CAPACITY`] packets.
    pub fn new(cores: usize, engine: Engine) -> Self {
        PerCoreEngine::with_ring_capacity(cores, engine, DEFAULT_RING_CAPACITY)
    }

    /// An engine on `cores` workers (at least one) each holding at most `capacity` packets
    /// (at least one) in flight.
    pub fn with_ring_capacity(cores: usize, engine: Engine, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let ids = core_affinity::get_core_ids().unwrap_or_default();
        let caller = Arc::new(CallerWake::default());
        let cores = (0..cores.max(1))
            .map(|index| {
                let (requests, inbox, outbox, completions, shared) = rings(capacity);
                let pin = (!ids.is_empty()).then(|| ids[index % ids.len()]);
                let (worker_shared, caller) = (Arc::clone(&shared), Arc::clone(&caller));
                let thread = std::thread::Builder::new()
                    .name(format!("wlansec-core-{index}"))
                    .spawn(move || {
                        // Pinning is best effort: where it is refused the worker floats.
                        if let Some(pin) = pin {
                            core_affinity::set_for_current(pin);
                        }
                        Worker::new(engine, inbox, outbox, worker_shared, caller).run()
                    })
                    .expect("the OS starts a thread");
                Core { requests, completions, shared, thread: Some(thread), inline: None, in_flight: 0, stations: 0 }
            })
            .collect::<Vec<_>>();
        PerCoreEngine { room: vec![0; cores.len()], cores, routes: HashMap::default(), capacity, caller, next_poll: 0 }
    }

    /// An engine of one core whose worker is the calling thread (see the module
    /// documentation), holding at most `capacity` packets (at least one) in flight. The
    /// engine does not pin the thread: a pipeline pins its own per-core threads.
    pub fn inline(engine: Engine, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let caller = Arc::new(CallerWake::default());
        let (requests, inbox, outbox, completions, shared) = rings(capacity);
        let worker = Worker::new(engine, inbox, outbox, Arc::clone(&shared), Arc::clone(&caller));
        let core = Core {
            requests,
            completions,
            shared,
            thread: None,
            inline: Some(Box::new(worker)),
            in_flight: 0,
            stations: 0,
        };
        PerCoreEngine { room: vec![0], cores: vec![core], routes: HashMap::default(), capacity, caller, next_poll: 0 }
    }

    /// Whether the calling thread is the engine's worker ([`inline`](Self::inline)).
    pub fn is_inline(&self) -> bool {
        self.cores[0].inline.is_some()
    }

    /// Inline: work what the rings hold (`whole_chunks`: only while a whole chunk is
    /// queued, so a burst's tail waits to join the next one's frames).
    fn work_inline(&mut self, whole_chunks: bool) {
        for core in &mut self.cores {
            if let Some(worker) = &mut core.inline {
                worker.work_queued(whole_chunks);
            }
        }
    }

    /// The cores this process may run on (its CPU affinity), at least one: as many workers
    /// as the machine can run at once.
    pub fn available_cores() -> usize {
        core_affinity::get_core_ids().map_or(1, |ids| ids.len().max(1))
    }

    /// The number of workers.
    pub fn cores(&self) -> usize {
        self.cores.len()
    }

    /// Packets each worker holds in flight at most.
    pub fn ring_capacity(&self) -> usize {
        self.capacity
    }

    /// Packets submitted and not yet polled, over all workers.
    pub fn in_flight(&self) -> usize {
        self.cores.iter().map(|core| core.in_flight).sum()
    }

    /// Whether a worker thread has ended while the engine lives (it panicked): the packets
    /// it held are lost, and waiting for them would never end.
    pub fn worker_stopped(&self) -> bool {
        self.cores.iter().any(|core| core.thread.as_ref().is_some_and(JoinHandle::is_finished))
    }

    /// Stop `core`'s worker as a panic would, leaving its packets in flight.
    #[cfg(test)]
    pub(crate) fn stop_worker(&mut self, core: usize) {
        let core = &mut self.cores[core];
        core.shared.stop.store(true, Ordering::Release);
        core.shared.wake_worker(core.thread.as_ref());
        while core.thread.as_ref().is_some_and(|thread| !thread.is_finished()) {
            std::thread::yield_now();
        }
    }

    /// Whether `station` has a key installed.
    pub fn has_station(&self, station: StationId) -> bool {
        self.routes.contains_key(&station)
    }

    /// Install (or replace) a station's pairwise key, for the frames submitted after this
    /// call; its transmit PN restarts at 1 and its receive replay counters at 0. A new
    /// station goes to the worker with the fewest stations.
    pub fn add_station(&mut self, station: StationId, tk: &[u8], mode: Mode) -> Result<()> {
        let key = Box::new(Key::new(tk, mode)?);
        let route = match self.routes.get(&station) {
            Some(&route) => route,
            None => {
                let (core, least) =
                    self.cores.iter().enumerate().min_by_key(|(_, core)| core.stations).expect("at least one core");
                let route = Route { core, number: least.stations };
                self.cores[core].stations += 1;
                self.routes.insert(station, route);
                route
            }
        };
        let core = &mut self.cores[route.core];
        let mut request = Request::Key { number: route.number, key };
        if let Some(worker) = &mut core.inline {
            // Inline, the worker takes each key as it comes (after the packets queued before
            // it), so the ring's key slots are free.
            if core.requests.push(request).is_err() {
                unreachable!("an inline worker leaves no key queued");
            }
            worker.work_queued(false);
            return Ok(());
        }
        // Key slots are kept beyond the packets' capacity, and a worker always drains its
        // ring (its completion ring has room for all it holds): this waits only while more
        // than `KEY_SLOTS` installs are queued, and only until the worker takes one.
        loop {
            match core.requests.push(request) {
                Ok(()) => break,
                Err(rtrb::PushError::Full(back)) => request = back,
            }
            if core.thread.as_ref().is_none_or(JoinHandle::is_finished) {
                return Err(WORKER_STOPPED);
            }
            core.shared.wake_worker(core.thread.as_ref());
            std::thread::yield_now();
        }
        core.shared.wake_worker(core.thread.as_ref());
        Ok(())
    }

    /// Submit packets from the front of `packets` for `direction`, in order, until one finds
    /// its worker full; the engine takes those (they leave the vector, which keeps the rest
    /// in order) and returns how many. Each comes back through [`poll`](Self::poll), in
    /// submission order among its station's packets. A packet for a station without a key is
    /// taken and comes back refused (`Error::NoKey`). `Err(RingFull)` when `packets` is not
    /// empty and the first one's worker is full: nothing was taken.
    pub fn submit(
        &mut self,
        direction: Direction,
        packets: &mut Vec<Box<Packet>>,
    ) -> core::result::Result<usize, RingFull> {
        for (room, core) in self.room.iter_mut().zip(&self.cores) {
            // The submission ring may also hold key installs not yet taken.
            *room = (self.capacity - core.in_flight).min(core.requests.slots());
        }
        let cores = self.cores.len();
        let mut taken = 0;
        for packet in packets.iter_mut() {
            let route = self
                .routes
                .get(&packet.station)
                .copied()
                .unwrap_or(Route { core: packet.station as usize % cores, number: worker::NO_STATION });
            if self.room[route.core] == 0 {
                if taken == 0 {
                    return Err(RingFull { core: route.core });
                }
                break;
            }
            self.room[route.core] -= 1;
            packet.direction = direction;
            packet.core = route.core;
            packet.number = route.number;
            taken += 1;
        }
        let mut drained = packets.drain(..taken);
        // Inline, with nothing queued before them: whole chunks are worked straight from the
        // burst, without passing through the submission ring.
        if let Core { inline: Some(worker), requests, in_flight, .. } = &mut self.cores[0] {
            if requests.slots() == requests.buffer().capacity() {
                while drained.len() >= worker::BATCH {
                    *in_flight += worker::BATCH;
                    worker.work_chunk(drained.by_ref().take(worker::BATCH));
                }
            }
        }
        // Each run of packets for one worker goes into its ring as one chunk: the ring's
        // tail moves once a run, not once a packet.
        while let Some(core) = drained.as_slice().first().map(|packet| packet.core) {
            let run = drained.as_slice().iter().take_while(|packet| packet.core == core).count();
            let core = &mut self.cores[core];
            core.in_flight += run;
            let Ok(slots) = core.requests.write_chunk_uninit(run) else { unreachable!("room was counted above") };
            slots.fill_from_iter(drained.by_ref().take(run).map(Request::Packet));
        }
        drop(drained);
        for core in &self.cores {
            core.shared.wake_worker(core.thread.as_ref());
        }
        self.work_inline(true);
        Ok(taken)
    }

    /// Move up to `max` completed packets into `completed` (reserve its capacity to keep
    /// this call from allocating); returns how many.
    pub fn poll(&mut self, completed: &mut Vec<Box<Packet>>, max: usize) -> usize {
        self.work_inline(false);
        let cores = self.cores.len();
        let mut moved = 0;
        for offset in 0..cores {
            let core = &mut self.cores[(self.next_poll + offset) % cores];
            let ready = core.completions.slots().min(max - moved);
            // One chunk of the ring: its head moves once, not once a packet.
            let Ok(packets) = core.completions.read_chunk(ready) else { unreachable!("as many as are ready") };
            completed.extend(packets);
            core.in_flight -= ready;
            moved += ready;
        }
        self.caller.ready.fetch_sub(moved as isize, Ordering::AcqRel);
        self.next_poll = (self.next_poll + 1) % cores;
        moved
    }

    /// Wait until a completion is ready to poll (true), nothing is in flight (false, at
    /// once) or `timeout` has passed (false): `wait_for(1, timeout)`.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        self.wait_for(1, timeout)
    }

    /// Wait until `count` completions (or all those in flight, if fewer) are ready to poll
    /// (true), or `timeout` has passed (false). Waiting for many at a time keeps the caller
    /// off the cores while the workers run: the workers wake it once, when enough are
    /// ready, rather than for every chunk.
    pub fn wait_for(&mut self, count: usize, timeout: Duration) -> bool {
        self.work_inline(false);
        let count = count.min(self.in_flight());
        let ready = |caller: &CallerWake| caller.ready.load(Ordering::Acquire) >= count as isize;
        if count == 0 || ready(&self.caller) {
            return true;
        }
        let start = Instant::now();
        while start.elapsed() < CALLER_SPIN {
            std::thread::yield_now();
            if ready(&self.caller) {
                return true;
            }
        }
        let mut thread = self.caller.thread.lock().unwrap_or_else(|e| e.into_inner());
        if thread.as_ref().is_none_or(|t| t.id() != std::thread::current().id()) {
            *thread = Some(std::thread::current());
        }
        drop(thread);
        self.caller.want.store(count, Ordering::Relaxed);
        loop {
            self.caller.waiting.store(true, Ordering::Relaxed);
            // Pairs with `CallerWake::completed`: completions counted before this fence
            // are seen below, those counted after it find `waiting` raised and unpark
            // this thread.
            fence(Ordering::SeqCst);
            if ready(&self.caller) {
                self.caller.waiting.store(false, Ordering::Relaxed);
                return true;
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                self.caller.waiting.store(false, Ordering::Relaxed);
                return false;
            }
            std::thread::park_timeout(left);
        }
    }
}

/// A worker's two rings (requests: packets and key installs; completions) and the flags
/// it shares with its caller.
#[allow(clippy::type_complexity)]
fn rings(
    capacity: usize,
) -> (
    rtrb::Producer<Request>,
    rtrb::Consumer<Request>,
    rtrb::Producer<Box<Packet>>,
    rtrb::Consumer<Box<Packet>>,
    Arc<worker::Shared>,
) {
    let (requests, inbox) = rtrb::RingBuffer::new(capacity + KEY_SLOTS);
    let (outbox, completions) = rtrb::RingBuffer::new(capacity);
    (requests, inbox, outbox, completions, Arc::new(worker::Shared::default()))
}

impl Drop for PerCoreEngine {
    /// Stop every worker, leaving what it has not worked yet: the packets still in the rings
    /// are dropped with them.
    fn drop(&mut self) {
        for core in &self.cores {
            core.shared.stop.store(true, Ordering::Release);
            core.shared.wake_worker(core.thread.as_ref());
        }
        for core in &mut self.cores {
            if let Some(thread) = core.thread.take() {
                // A worker that panicked has nothing more to give back.
                let _ = thread.join();
            }
        }
    }
}
