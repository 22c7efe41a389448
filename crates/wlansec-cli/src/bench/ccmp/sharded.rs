//! The per-core engine (one pinned worker per core behind its rings) on 1 to N cores, N the
//! cores this process may run on, and inline (the calling thread the worker of its own core):
//! a stream of frames submitted in bursts and polled as they complete, protecting and
//! unprotecting, at 1500 octets and on mixed lengths, against the multi-buffer kernel alone
//! on one thread.

#![allow(clippy::vec_box)] // packets are handled boxed, as the engine's rings move them

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
    /// Workers, one per core (inline: 1, the calling thread).
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
    /// The calling thread, the worker of its own core.
    Inline,
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
        for workers in (1..=cores()).map(Workers::Threads).chain([Workers::Inline]) {
            let load_average = load_average();
            let mut stream = PerCore::new(workers, engine, &tks, frames)?;
            // After the engine is made: it pins its workers by the caller's affinity.
            let _caller = match workers {
                Workers::Threads(used) => CallerPinned::off_the_first(used),
                Workers::Inline => None,
            };
            // The stream protected once, untimed: what the receive side opens.
            stream.fill(&plaintext);
            stream.run(Direction::Protect);
            let protected = stream.outputs()?;
            let (mut tx_of_same, mut rx_of_same) = (Vec::new(), Vec::new());
            let (mut tx_ticks, mut rx_ticks) = (Vec::new(), Vec::new());
            for _ in 0..clock.repeats {
                // The kernel just before the engine, so that the two share the moment's
                // disturbance; their ratio is taken repeat by repeat.
                let kernel = same_frames.time(false);
                stream.fill(&plaintext);
                let ticks = stream.run(Direction::Protect);
                tx_of_same.push(kernel / ticks);
                tx_ticks.push(ticks);

                let kernel = same_frames.time(true);
                // Re-installed keys restart the replay counters: the same frames open again.
                stream.add_stations()?;
                stream.fill(&protected);
                let ticks = stream.run(Direction::Unprotect);
                if stream.refused() > 0 {
                    bail!("the per-core engine refused {} of its own frames", stream.refused());
                }
                rx_of_same.push(kernel / ticks);
                rx_ticks.push(ticks);
            }
            if same_frames.refused > 0 {
                bail!("the multi-buffer kernel refused {} of its own frames", same_frames.refused);
            }
            for (direction, ticks, of_same) in [("protect", tx_ticks, tx_of_same), ("unprotect", rx_ticks, rx_of_same)]
            {
                let seconds = median(&mut ticks.clone()) / clock.tsc_hz;
                let gb_per_s = octets as f64 / seconds / 1e9;
                let speedup = rows
                    .iter()
                    .find(|r| (r.direction, r.mode, r.threads) == (direction, mode, 1))
                    .map_or(1.0, |one| gb_per_s / one.gb_per_s);
                let (to, threads) = match workers {
                    Workers::Threads(cores) => (&mut rows, cores),
                    Workers::Inline => (&mut inline, 1),
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

/// The calling thread pinned to the cores after the first `used` of its affinity (the engine
/// pins its workers to the first ones), its affinity restored on drop. Left unpinned, the
/// scheduler now and then ran the feeding caller on the one worker's core: in 2 of 6 runs
/// "one core fed from another" fell from 8-9 to 6.0 GB/s, which inflated the 2-core ratio.
struct CallerPinned {
    saved: libc::cpu_set_t,
}

impl CallerPinned {
    /// `None` where no core is left over (every core has a worker) or the OS refuses.
    fn off_the_first(used: usize) -> Option<Self> {
        // SAFETY: `cpu_set_t` is plain bits, valid all zero; the calls get and set the calling
        // thread's (pid 0) affinity from and into sets of the size given.
        unsafe {
            let mut saved: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut saved) != 0 {
                return None;
            }
            let allowed = (0..libc::CPU_SETSIZE as usize).filter(|&cpu| libc::CPU_ISSET(cpu, &saved));
            let mut caller: libc::cpu_set_t = std::mem::zeroed();
            let mut any = false;
            for cpu in allowed.skip(used) {
                libc::CPU_SET(cpu, &mut caller);
                any = true;
            }
            (any && libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &caller) == 0)
                .then_some(CallerPinned { saved })
        }
    }
}

impl Drop for CallerPinned {
    fn drop(&mut self) {
        // SAFETY: as in `off_the_first`, with the set read there.
        unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &self.saved) };
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
                Workers::Inline => PerCoreEngine::inline(engine, DEFAULT_RING_CAPACITY),
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
