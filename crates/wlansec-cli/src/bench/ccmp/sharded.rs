//! The per-core engine (one pinned worker per core behind its rings) on 1 to N cores, N the
//! cores this process may run on, and inline on 1 to N cores (a pinned thread a core, each
//! the worker of its own engine):
//! a stream of frames submitted in bursts and polled as they complete, protecting and
//! unprotecting, at 1500 octets and on mixed lengths, against the multi-buffer kernel alone
//! on one thread.

#![allow(clippy::vec_box)] // packets are handled boxed, as the engine's rings move them

use std::sync::Barrier;
use std::time::Duration;

use anyhow::{bail, Result};
use serde::Serialize;
use wlansec_core::engine::percore::{Direction, Packet, PerCoreEngine, DEFAULT_RING_CAPACITY};
use wlansec_core::engine::{Engine, Job, Key, Mode};
use wlansec_core::gen::{self, ChaCha8Rng, Shapes};

use super::clock::{median, tsc, Clock};
use super::frames::{random_bytes, AAD_LEN, MIXED, MIXED_LENGTHS, STREAM_STATIONS};
use super::machine::load_average;

/// Frames of each timed stream: long enough that waking the workers at its start is a small
/// part of it (a few milliseconds at 1500 octets).
const FRAMES: usize = 8192;
/// Packets the caller hands the engine per submission, as a packet pipeline's burst.
const BURST: usize = 64;
/// Only a stopped worker makes the caller wait this long for a completion.
const PATIENCE: Duration = Duration::from_secs(5);

/// One direction and setting on one number of cores.
#[derive(Serialize)]
pub struct Scaling {
    /// `protect` (transmit) or `unprotect` (receive, replay-checked).
    pub direction: &'static str,
    /// `multibuffer` (every frame `frame_bytes` octets) or `mixed` (lengths drawn from
    /// 28 to 1500 octets; `frame_bytes` is their mean): the kernel row of the same name is
    /// the one `of_kernel` compares with.
    pub mode: &'static str,
    /// Cores: workers, one per core (fed), or threads each with an inline engine.
    pub threads: usize,
    pub frame_bytes: usize,
    pub frames: usize,
    pub frames_per_s: f64,
    pub gb_per_s: f64,
    /// Against one core fed from another, same direction and mode.
    pub speedup: f64,
    /// Against the multi-buffer kernel's row of the same mode and frame size in this run
    /// (one thread, batches in the nearest caches, without framing, PNs or rings).
    pub of_kernel: f64,
    /// Against the multi-buffer kernel on one thread sealing (opening) this row's stream,
    /// as many frames of the same lengths under the same station keys in one call, refilled
    /// first as the packets are: the engine's own costs without the caches' share.
    pub of_kernel_same_frames: f64,
    /// /proc/loadavg (1, 5, 15 minutes) just before this row was measured.
    pub load_average: [f64; 3],
}

/// The cores this process may run on.
pub fn cores() -> usize {
    PerCoreEngine::available_cores()
}

/// Who works a row's frames.
#[derive(Clone, Copy, PartialEq)]
enum Workers {
    /// Worker threads, one per core, fed by the caller on a core of its own (with one
    /// worker) or on one of theirs.
    Threads(usize),
    /// Threads, one per core, each the worker of its own inline engine.
    Inline(usize),
}

/// The per-core engine fed from another core (1 to N workers) and inline.
pub struct Rows {
    pub threads: Vec<Scaling>,
    pub inline: Vec<Scaling>,
}

/// `kernel_gb_per_s(mode, bytes)`: the multi-buffer kernel's row of that mode and size.
pub fn measure(
    clock: &Clock,
    engine: Engine,
    rng: &mut ChaCha8Rng,
    kernel_gb_per_s: impl Fn(&str, usize) -> f64,
) -> Result<Rows> {
    let frames = FRAMES;
    let tks: Vec<[u8; 16]> =
        (0..STREAM_STATIONS).map(|_| random_bytes(rng, 16).try_into().expect("16 octets")).collect();
    let mut rows: Vec<Scaling> = Vec::new();
    let mut inline: Vec<Scaling> = Vec::new();
    for mode in ["multibuffer", MIXED] {
        let lengths: Vec<usize> = (0..frames)
            .map(|_| match mode {
                MIXED => {
                    let (shortest, longest) = (*MIXED_LENGTHS.start(), *MIXED_LENGTHS.end());
                    shortest + gen::below(rng, (longest - shortest + 1) as u64) as usize
                }
                _ => 1500,
            })
            .collect();
        let octets: usize = lengths.iter().sum();
        let frame_bytes = octets.div_ceil(frames);
        let plaintext: Vec<(u32, Vec<u8>)> = lengths
            .iter()
            .enumerate()
            .map(|(i, &len)| {
                let mut mpdu = Vec::new();
                gen::random_mpdu(rng, Shapes { management: false }, len, &mut mpdu);
                ((i % STREAM_STATIONS) as u32, mpdu)
            })
            .collect();
        let mut same_frames = SameFrames::new(rng, engine, &tks, &lengths)?;
        let settings = (1..=cores()).map(Workers::Threads).chain((1..=cores()).map(Workers::Inline));
        for workers in settings {
            let load_average = load_average();
            let row = Row { clock, engine, tks: &tks, plaintext: &plaintext };
            let timed = match workers {
                Workers::Threads(cores) => row.time_fed(cores, &mut same_frames)?,
                Workers::Inline(cores) => row.time_inline(cores, &mut same_frames)?,
            };
            if same_frames.refused > 0 {
                bail!("the multi-buffer kernel refused {} of its own frames", same_frames.refused);
            }
            for (direction, ticks, of_same) in
                [("protect", timed.tx_ticks, timed.tx_of_same), ("unprotect", timed.rx_ticks, timed.rx_of_same)]
            {
                let seconds = median(&mut ticks.clone()) / clock.tsc_hz;
                let gb_per_s = octets as f64 / seconds / 1e9;
                let speedup = rows
                    .iter()
                    .find(|r| (r.direction, r.mode, r.threads) == (direction, mode, 1))
                    .map_or(1.0, |one| gb_per_s / one.gb_per_s);
                let (to, threads) = match workers {
                    Workers::Threads(cores) => (&mut rows, cores),
                    Workers::Inline(cores) => (&mut inline, cores),
                };
                to.push(Scaling {
                    direction,
                    mode,
                    threads,
                    frame_bytes,
                    frames,
                    frames_per_s: frames as f64 / seconds,
                    gb_per_s,
                    speedup,
                    of_kernel: gb_per_s / kernel_gb_per_s(mode, frame_bytes),
                    of_kernel_same_frames: median(&mut of_same.clone()),
                    load_average,
                });
            }
        }
    }
    Ok(Rows { threads: rows, inline })
}

/// A setting's TSC ticks per repeat, and the kernel's time on the same frames over them.
#[derive(Default)]
struct Timed {
    tx_ticks: Vec<f64>,
    rx_ticks: Vec<f64>,
    tx_of_same: Vec<f64>,
    rx_of_same: Vec<f64>,
}

/// What every setting of a row runs: the stream's frames (each with its station) under the
/// stations' keys.
#[derive(Clone, Copy)]
struct Row<'a> {
    clock: &'a Clock,
    engine: Engine,
    tks: &'a [[u8; 16]],
    plaintext: &'a [(u32, Vec<u8>)],
}

impl Row<'_> {
    /// The stream through `cores` pinned workers fed by the calling thread.
    fn time_fed(&self, cores: usize, same_frames: &mut SameFrames) -> Result<Timed> {
        let Row { clock, engine, tks, plaintext } = *self;
        let mut stream = PerCore::new(Workers::Threads(cores), engine, tks, plaintext.len())?;
        // After the engine is made: it pins its workers by the caller's affinity.
        let _caller = CallerPinned::off_the_first(cores);
        // The stream protected once, untimed: what the receive side opens.
        stream.fill(plaintext);
        stream.run(Direction::Protect);
        let protected = stream.outputs()?;
        let mut timed = Timed::default();
        for _ in 0..clock.repeats {
            // The kernel just before the engine, so that the two share the moment's
            // disturbance; their ratio is taken repeat by repeat.
            let kernel = same_frames.time(false);
            stream.fill(plaintext);
            let ticks = stream.run(Direction::Protect);
            timed.tx_of_same.push(kernel / ticks);
            timed.tx_ticks.push(ticks);

            let kernel = same_frames.time(true);
            // Re-installed keys restart the replay counters: the same frames open again.
            stream.add_stations()?;
            stream.fill(&protected);
            let ticks = stream.run(Direction::Unprotect);
            if stream.refused() > 0 {
                bail!("the per-core engine refused {} of its own frames", stream.refused());
            }
            timed.rx_of_same.push(kernel / ticks);
            timed.rx_ticks.push(ticks);
        }
        Ok(timed)
    }

    /// The stream split by station over `cores` threads, each pinned to a core of its own and
    /// working its share through an inline engine of its own (as a packet pipeline with a thread
    /// per core runs it), started together: a repeat lasts from the first thread's start to the
    /// last one's end. The calling thread times the kernel while they wait.
    fn time_inline(&self, cores: usize, same_frames: &mut SameFrames) -> Result<Timed> {
        let Row { clock, engine, tks, plaintext } = *self;
        let cpus = allowed_cpus();
        // Two waits a timed run: all ready to start, and all done (the kernel is timed outside).
        let gate = Barrier::new(cores + 1);
        let spans = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..cores)
                .map(|index| {
                    let (gate, cpus) = (&gate, &cpus);
                    scope.spawn(move || {
                        if let Some(&cpu) = cpus.get(index) {
                            set_affinity(&[cpu]);
                        }
                        let share: Vec<(u32, Vec<u8>)> = plaintext
                            .iter()
                            .filter(|(station, _)| *station as usize % cores == index)
                            .cloned()
                            .collect();
                        let mut spans = Vec::new();
                        let mut setup =
                            PerCore::new(Workers::Inline(1), engine, tks, share.len()).and_then(|mut stream| {
                                stream.fill(&share);
                                stream.run(Direction::Protect);
                                let protected = stream.outputs()?;
                                Ok((stream, protected))
                            });
                        // Every thread keeps to the gate's rhythm, even one that failed, so that
                        // none waits for ever.
                        let mut failure = None;
                        for _ in 0..clock.repeats {
                            for direction in [Direction::Protect, Direction::Unprotect] {
                                let ready = match &mut setup {
                                    Ok((stream, protected)) if failure.is_none() => {
                                        // Re-installed keys restart the replay counters.
                                        let keys = if direction == Direction::Unprotect {
                                            stream.add_stations()
                                        } else {
                                            Ok(())
                                        };
                                        match keys {
                                            Ok(()) => {
                                                let frames =
                                                    if direction == Direction::Protect { &share } else { &*protected };
                                                stream.fill(frames);
                                                true
                                            }
                                            Err(why) => {
                                                failure = Some(why);
                                                false
                                            }
                                        }
                                    }
                                    _ => false,
                                };
                                gate.wait();
                                if let (true, Ok((stream, _))) = (ready, &mut setup) {
                                    let start = tsc();
                                    stream.run(direction);
                                    spans.push((start, tsc()));
                                }
                                gate.wait();
                            }
                        }
                        if let Some(why) = failure {
                            return Err(why);
                        }
                        let (stream, _) = setup?;
                        if stream.refused() > 0 {
                            bail!("the per-core engine refused {} of its own frames", stream.refused());
                        }
                        Ok(spans)
                    })
                })
                .collect();
            let mut kernel = Vec::new();
            for _ in 0..clock.repeats {
                for open in [false, true] {
                    kernel.push(same_frames.time(open));
                    gate.wait();
                    gate.wait();
                }
            }
            let spans = threads
                .into_iter()
                .map(|thread| thread.join().unwrap_or_else(|_| bail!("a bench thread panicked")))
                .collect::<Result<Vec<Vec<(u64, u64)>>>>();
            spans.map(|spans| (spans, kernel))
        });
        let (spans, kernel) = spans?;
        let mut timed = Timed::default();
        for (run, kernel) in kernel.iter().enumerate() {
            let start = spans.iter().map(|s| s[run].0).min().unwrap_or(0);
            let end = spans.iter().map(|s| s[run].1).max().unwrap_or(0);
            let ticks = (end - start) as f64;
            let (all, of_same) = if run % 2 == 0 {
                (&mut timed.tx_ticks, &mut timed.tx_of_same)
            } else {
                (&mut timed.rx_ticks, &mut timed.rx_of_same)
            };
            all.push(ticks);
            of_same.push(kernel / ticks);
        }
        Ok(timed)
    }
}

/// The calling thread pinned to the cores after the first `used` of its affinity (the engine
/// pins its workers to the first ones), its affinity restored on drop: "one core fed from
/// another" then means that, run after run (on the worker's core a caller's round trip costs
/// more: `make bench-c`, docs/results/2026-11-29-closing-set).
struct CallerPinned {
    saved: Vec<usize>,
}

impl CallerPinned {
    /// `None` where no core is left over (every core has a worker) or the OS refuses.
    fn off_the_first(used: usize) -> Option<Self> {
        let saved = allowed_cpus();
        (saved.len() > used && set_affinity(&saved[used..])).then_some(CallerPinned { saved })
    }
}

impl Drop for CallerPinned {
    fn drop(&mut self) {
        set_affinity(&self.saved);
    }
}

/// The CPUs the calling thread may run on, in ascending order (as the engine numbers its
/// workers' cores).
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `cpu_set_t` is plain bits, valid all zero; the call fills the set of the size
    // given with the calling thread's (pid 0) affinity.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&cpu| libc::CPU_ISSET(cpu, &set)).collect()
    }
}

/// Pin the calling thread to `cpus`; false where the OS refuses.
fn set_affinity(cpus: &[usize]) -> bool {
    // SAFETY: as in `allowed_cpus`; `CPU_SET` ignores CPUs beyond the set's size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// A per-core engine with the stream's stations, and the stream's packets, kept across
/// runs.
struct PerCore<'a> {
    engine: PerCoreEngine,
    tks: &'a [[u8; 16]],
    /// The packets to submit, last first (a run pops them).
    source: Vec<Box<Packet>>,
    burst: Vec<Box<Packet>>,
    /// The packets a run completed, in completion order.
    done: Vec<Box<Packet>>,
}

impl<'a> PerCore<'a> {
    fn new(workers: Workers, engine: Engine, tks: &'a [[u8; 16]], frames: usize) -> Result<Self> {
        let mut per_core = PerCore {
            engine: match workers {
                Workers::Threads(cores) => PerCoreEngine::new(cores, engine),
                Workers::Inline(_) => PerCoreEngine::inline(engine, DEFAULT_RING_CAPACITY),
            },
            tks,
            source: (0..frames).map(|_| Box::new(Packet::with_capacity(1600))).collect(),
            burst: Vec::with_capacity(BURST),
            done: Vec::with_capacity(frames),
        };
        per_core.add_stations()?;
        Ok(per_core)
    }

    fn add_stations(&mut self) -> Result<()> {
        for (station, tk) in self.tks.iter().enumerate() {
            self.engine.add_station(station as u32, tk, Mode::CCMP128)?;
        }
        Ok(())
    }

    /// Fill the packets with `frames`, tagged in order, ready to be submitted first to last
    /// (as a NIC fills its ring: outside the timed run).
    fn fill(&mut self, frames: &[(u32, Vec<u8>)]) {
        self.source.append(&mut self.done);
        for (packet, (tag, (station, mpdu))) in self.source.iter_mut().zip(frames.iter().enumerate().rev()) {
            packet.set(*station, tag as u64, mpdu);
        }
    }

    /// TSC ticks from the first submission to the last completion: bursts of `BURST`
    /// packets submitted as the rings take them, completions polled as they come.
    fn run(&mut self, direction: Direction) -> f64 {
        let total = self.source.len();
        let start = tsc();
        while self.done.len() < total {
            while self.burst.len() < BURST {
                let Some(packet) = self.source.pop() else { break };
                self.burst.push(packet);
            }
            if !self.burst.is_empty() {
                // A full ring takes nothing: the completions below make room.
                let _ = self.engine.submit(direction, &mut self.burst);
            }
            self.engine.poll(&mut self.done, usize::MAX);
            // Rings full: wait for half of what they hold, then refill them; everything
            // submitted: wait for the rest. The caller stays off the workers' cores meanwhile
            // (inline, waiting works what is queued).
            if !self.burst.is_empty() {
                self.engine.wait_for(self.engine.in_flight().div_ceil(2), PATIENCE);
            } else if self.source.is_empty() {
                self.engine.wait_for(self.engine.in_flight(), PATIENCE);
            }
        }
        (tsc() - start) as f64
    }

    /// The last run's outputs by tag, each as its station's frame.
    fn outputs(&mut self) -> Result<Vec<(u32, Vec<u8>)>> {
        self.done.sort_unstable_by_key(|packet| packet.tag());
        self.done.iter().map(|packet| Ok((packet.station(), packet.result().map_err(Clone::clone)?.to_vec()))).collect()
    }

    /// Frames the last run refused.
    fn refused(&self) -> usize {
        self.done.iter().filter(|packet| packet.result().is_err()).count()
    }
}

/// The multi-buffer kernel on a row's stream: as many frames of the same lengths under the
/// same station keys, refilled before each call as the packets are.
struct SameFrames {
    engine: Engine,
    keys: Vec<Key>,
    nonce: [u8; 13],
    aad: Vec<u8>,
    plaintexts: Vec<Vec<u8>>,
    /// The plaintexts sealed once, with their MICs: what an opening call starts from.
    sealed: Vec<(Vec<u8>, [u8; 8])>,
    buffers: Vec<Vec<u8>>,
    /// Frames an opening call refused (none, unless the kernel is broken).
    refused: usize,
}

impl SameFrames {
    fn new(rng: &mut ChaCha8Rng, engine: Engine, tks: &[[u8; 16]], lengths: &[usize]) -> Result<Self> {
        let keys = tks.iter().map(|tk| Key::new(tk, Mode::CCMP128)).collect::<wlansec_core::Result<Vec<_>>>()?;
        let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
        let aad = random_bytes(rng, AAD_LEN);
        let plaintexts: Vec<Vec<u8>> = lengths.iter().map(|&len| random_bytes(rng, len)).collect();
        let mut buffers = plaintexts.clone();
        let mut jobs: Vec<Job> =
            buffers.iter_mut().zip(keys.iter().cycle()).map(|(b, key)| Job::new(key, nonce, &aad, b)).collect();
        engine.seal_batch(&mut jobs)?;
        let mics: Vec<[u8; 8]> = jobs.iter().map(|job| job.mic).collect();
        let sealed = buffers.iter().cloned().zip(mics).collect();
        Ok(SameFrames { engine, keys, nonce, aad, plaintexts, sealed, buffers, refused: 0 })
    }

    /// TSC ticks of one sealing (or opening) call over every frame, refilled first.
    fn time(&mut self, open: bool) -> f64 {
        for (i, buffer) in self.buffers.iter_mut().enumerate() {
            buffer.copy_from_slice(if open { &self.sealed[i].0 } else { &self.plaintexts[i] });
        }
        let start = tsc();
        let mut jobs: Vec<Job> = self
            .buffers
            .iter_mut()
            .zip(self.keys.iter().cycle())
            .map(|(buffer, key)| Job::new(key, self.nonce, &self.aad, buffer))
            .collect();
        if open {
            for (job, (_, mic)) in jobs.iter_mut().zip(&self.sealed) {
                job.mic = *mic;
            }
            self.engine.open_batch(&mut jobs).expect("engine on checked parameters");
        } else {
            self.engine.seal_batch(&mut jobs).expect("engine on checked parameters");
        }
        let ticks = (tsc() - start) as f64;
        self.refused += jobs.iter().filter(|job| open && !job.verified).count();
        ticks
    }
}
