//! The multi-core engine: frames are sharded by (station, replay class — the TID for QoS
//! data) across persistent worker threads fed by channels, each of which protects (or
//! opens) its shard in order with the multi-buffer engine.
//!
//! Transmit: PNs are assigned before sharding, in submission order, from each station's
//! single transmit counter (the PN belongs to the key, not the TID), and a shard never
//! reorders its frames, so every TID leaves in PN order, as the receiver's per-TID replay
//! counters require.
//!
//! Receive: a (station, replay class) always lands on the same worker, so that worker owns
//! its replay counters; it opens a chunk of its shard in one engine batch and then checks
//! and commits PNs in arrival order, so replays and reordering inside a TID are caught
//! exactly as by one sequential `suite::Receiver` per station.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::error::{Error, Result};
use crate::suite::mpdu::{Pn, ReplayClass, PN_HEADER_LEN};
use crate::suite::{PnCounter, ReplayCounters};
use crate::wire::{Frame, Rules};

use super::batch::{Engine, Job, MpduJob};
use super::enhanced::MIC_LEN;
use super::framing;
use super::key::{Key, Mode};

/// Identifies a station (its pairwise key) within the engine.
pub type StationId = u32;

/// A station's installed key. `generation` changes with every (re)install, so workers know
/// to restart the station's replay counters.
struct Installed {
    key: Key,
    key_id: u8,
    generation: u64,
}

/// The key table the workers read: copied on write when a key changes, shared (one
/// reference count per chunk of work, not per frame) otherwise.
type Keys = Arc<HashMap<StationId, Arc<Installed>>>;

/// Frames per multi-buffer batch inside a worker.
const BATCH: usize = 64;

/// Work per worker, and the result slot of every submitted frame.
type Shards = (Vec<Vec<Item>>, Vec<Result<Vec<u8>>>);

/// One frame of a shard: its index in the caller's list, station, PN (transmit only) and
/// MPDU.
struct Item {
    index: usize,
    station: StationId,
    pn: Pn,
    mpdu: Vec<u8>,
}

type Done = Vec<(usize, Result<Vec<u8>>)>;

struct Work {
    protect: bool,
    keys: Keys,
    items: Vec<Item>,
    reply: Sender<Done>,
}

struct Worker {
    work: Sender<Work>,
    thread: JoinHandle<()>,
}

pub struct ShardedEngine {
    workers: Vec<Worker>,
    rules: Rules,
    keys: Keys,
    pn: HashMap<StationId, PnCounter>,
    generations: u64,
}

impl ShardedEngine {
    /// An engine on `threads` worker threads (at least one), started now and kept until the
    /// engine is dropped.
    pub fn new(threads: usize, engine: Engine) -> Self {
        let rules = Rules::default();
        let workers = (0..threads.max(1))
            .map(|_| {
                let (work, inbox) = mpsc::channel();
                let thread = std::thread::spawn(move || serve(engine, rules, inbox));
                Worker { work, thread }
            })
            .collect();
        ShardedEngine { workers, rules, keys: Arc::new(HashMap::new()), pn: HashMap::new(), generations: 0 }
    }

    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Install (or replace) a station's pairwise key; its transmit PN restarts at 1 and its
    /// receive replay counters at 0.
    pub fn add_station(&mut self, station: StationId, tk: &[u8], mode: Mode) -> Result<()> {
        let key = Key::new(tk, mode)?;
        self.generations += 1;
        let installed = Installed { key, key_id: 0, generation: self.generations };
        Arc::make_mut(&mut self.keys).insert(station, Arc::new(installed));
        self.pn.insert(station, PnCounter::default());
        Ok(())
    }

    /// Protect plaintext MPDUs, each for a station; results come back in submission order.
    /// Fails as a whole (before any PN is used) if a frame names a station without a key.
    pub fn protect_all(&mut self, frames: Vec<(StationId, Vec<u8>)>) -> Result<Vec<Result<Vec<u8>>>> {
        let (shards, mut results) = self.shard(frames, true)?;
        self.dispatch(true, shards, &mut results);
        Ok(results)
    }

    /// Verify, replay-check and decrypt protected MPDUs, each from a station; results (the
    /// plaintext MPDU, or why the frame was refused) come back in submission order. Replay
    /// counters persist across calls, per station and replay class, as a station's receiver
    /// keeps them. Fails as a whole if a frame names a station without a key.
    pub fn unprotect_all(&mut self, frames: Vec<(StationId, Vec<u8>)>) -> Result<Vec<Result<Vec<u8>>>> {
        let (shards, mut results) = self.shard(frames, false)?;
        self.dispatch(false, shards, &mut results);
        Ok(results)
    }

    /// Split frames among the workers by (station, replay class), taking the next PN of each
    /// transmitted frame; a frame that can't be queued gets its error in `results` at once.
    fn shard(&mut self, frames: Vec<(StationId, Vec<u8>)>, transmit: bool) -> Result<Shards> {
        self.check_stations(&frames)?;
        let mut shards: Vec<Vec<Item>> = self.workers.iter().map(|_| Vec::new()).collect();
        let mut results: Vec<Result<Vec<u8>>> = Vec::with_capacity(frames.len());
        for (index, (station, mpdu)) in frames.into_iter().enumerate() {
            let queued =
                Frame::new_checked(&mpdu[..], self.rules).map(|frame| ReplayClass::of(&frame)).and_then(|class| {
                    let pn = match transmit {
                        true => self.pn.get_mut(&station).expect("stations checked above").next_pn()?,
                        false => Pn::default(),
                    };
                    Ok((class, pn))
                });
            match queued {
                Ok((class, pn)) => {
                    shards[shard_of(station, class, self.workers.len())].push(Item { index, station, pn, mpdu });
                    results.push(Ok(Vec::new()));
                }
                Err(e) => results.push(Err(e)),
            }
        }
        Ok((shards, results))
    }

    fn check_stations(&self, frames: &[(StationId, Vec<u8>)]) -> Result<()> {
        if frames.iter().any(|(s, _)| !self.keys.contains_key(s)) {
            return Err(Error::Unsupported("frame for a station without a key"));
        }
        Ok(())
    }

    /// Hand every non-empty shard to its worker and wait for all of them.
    fn dispatch(&self, protect: bool, shards: Vec<Vec<Item>>, results: &mut [Result<Vec<u8>>]) {
        let (reply, replies) = mpsc::channel();
        let mut outstanding = 0;
        for (worker, items) in self.workers.iter().zip(shards) {
            if items.is_empty() {
                continue;
            }
            let work = Work { protect, keys: Arc::clone(&self.keys), items, reply: reply.clone() };
            worker.work.send(work).expect("workers run until the engine is dropped");
            outstanding += 1;
        }
        for done in replies.iter().take(outstanding) {
            for (index, result) in done {
                results[index] = result;
            }
        }
    }
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

fn shard_of(station: StationId, class: ReplayClass, threads: usize) -> usize {
    // Multiplicative hash so consecutive stations and TIDs spread over the workers.
    let key = (u64::from(station) << 5) | class.index() as u64;
    ((key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % threads as u64) as usize
}

/// A worker: serve chunks of work until the engine closes the channel. The replay counters
/// of the (station, class) pairs sharded here live here, with the key generation they
/// belong to.
fn serve(engine: Engine, rules: Rules, inbox: Receiver<Work>) {
    let mut replay: HashMap<StationId, (u64, ReplayCounters)> = HashMap::new();
    for work in inbox {
        let done = if work.protect {
            protect_shard(engine, rules, &work.keys, work.items)
        } else {
            open_shard(engine, rules, &work.keys, &mut replay, work.items)
        };
        // The engine waits for every reply; if it is gone, there is nobody to tell.
        let _ = work.reply.send(done);
    }
}

fn protect_shard(engine: Engine, rules: Rules, keys: &Keys, items: Vec<Item>) -> Done {
    let mut out = Vec::with_capacity(items.len());
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        let mut chunk: Vec<(Item, usize)> = items
            .by_ref()
            .take(BATCH)
            .map(|mut item| {
                // A new buffer from this thread's allocator rather than growing the caller's
                // in place: a realloc of another thread's block takes that arena's lock,
                // which the workers would contend for.
                let len = item.mpdu.len();
                let mut buf = Vec::with_capacity(len + PN_HEADER_LEN + MIC_LEN);
                buf.extend_from_slice(&item.mpdu);
                buf.resize(len + PN_HEADER_LEN + MIC_LEN, 0);
                item.mpdu = buf;
                (item, len)
            })
            .collect();
        let mut jobs: Vec<MpduJob> = chunk
            .iter_mut()
            .map(|(item, len)| {
                let installed = &keys[&item.station];
                MpduJob::new(&installed.key, &mut item.mpdu, *len, item.pn, installed.key_id)
            })
            .collect();
        engine.protect_mpdus(&mut jobs, rules);
        let lens: Vec<Result<usize>> = jobs.into_iter().map(|j| j.result).collect();
        for ((mut item, _), len) in chunk.into_iter().zip(lens) {
            out.push((
                item.index,
                len.map(|len| {
                    item.mpdu.truncate(len);
                    item.mpdu
                }),
            ));
        }
    }
    out
}

/// Open a shard in chunks: parse and replay-check every frame, open the survivors in one
/// engine batch, then check and commit PNs in arrival order (a frame replayed within the
/// chunk passes the first check but not the second).
fn open_shard(
    engine: Engine,
    rules: Rules,
    keys: &Keys,
    replay: &mut HashMap<StationId, (u64, ReplayCounters)>,
    items: Vec<Item>,
) -> Done {
    let mut out = Vec::with_capacity(items.len());
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        let mut chunk: Vec<Item> = items.by_ref().take(BATCH).collect();
        let mut checked = Vec::with_capacity(chunk.len());
        for item in &chunk {
            let installed = &keys[&item.station];
            let counters = counters_of(replay, item.station, installed.generation);
            checked.push(framing::prepare_decapsulate(&item.mpdu, rules).and_then(|(prepared, peeked)| {
                if peeked.key_id != installed.key_id {
                    return Err(Error::KeyId { expected: installed.key_id, got: peeked.key_id });
                }
                counters.check(peeked.class, peeked.pn)?;
                Ok((prepared, peeked))
            }));
        }
        let verified: Vec<bool> = {
            let mut jobs = Vec::with_capacity(chunk.len());
            for (item, checked) in chunk.iter_mut().zip(&checked) {
                let Ok((prepared, _)) = checked else { continue };
                let (data, mic) = item.mpdu[prepared.data.start..].split_at_mut(prepared.data.len());
                let mut job = Job::new(&keys[&item.station].key, prepared.nonce, prepared.aad.as_slice(), data);
                job.mic.copy_from_slice(&mic[..MIC_LEN]);
                jobs.push(job);
            }
            match engine.open_batch(&mut jobs) {
                Ok(()) => jobs.iter().map(|j| j.verified).collect(),
                Err(_) => vec![false; jobs.len()],
            }
        };
        let mut verified = verified.into_iter();
        for (mut item, checked) in chunk.into_iter().zip(checked) {
            let result = checked.and_then(|(prepared, peeked)| {
                if !verified.next().unwrap_or(false) {
                    return Err(Error::MicFailure);
                }
                let generation = keys[&item.station].generation;
                let mpdu = &mut item.mpdu;
                let done = counters_of(replay, item.station, generation)
                    .receive(peeked, || framing::finish_decapsulate(mpdu, rules, &prepared, peeked))?;
                item.mpdu.truncate(done.mpdu_len);
                Ok(item.mpdu)
            });
            out.push((item.index, result));
        }
    }
    out
}

/// A station's replay counters, restarted when its key was replaced.
fn counters_of(
    replay: &mut HashMap<StationId, (u64, ReplayCounters)>,
    station: StationId,
    generation: u64,
) -> &mut ReplayCounters {
    let entry = replay.entry(station).or_insert_with(|| (generation, ReplayCounters::default()));
    if entry.0 != generation {
        *entry = (generation, ReplayCounters::default());
    }
    &mut entry.1
}
