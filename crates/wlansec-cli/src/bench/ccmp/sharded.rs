//! The sharded engine (the calling thread plus pinned workers) on 1 and 2 threads, protecting
//! and unprotecting whole batches, against the multi-buffer kernel on the same working set.

use anyhow::{bail, Result};
use serde::Serialize;
use wlansec_core::engine::sharded::{FrameBatch, ShardedEngine};
use wlansec_core::engine::{Engine, Job, Key, Mode};
use wlansec_core::gen::{self, ChaCha8Rng, Shapes};

use super::clock::{median, tsc, Clock};
use super::frames::{random_bytes, AAD_LEN};
use super::machine::load_average;

/// One direction on one number of threads.
#[derive(Serialize)]
pub struct Scaling {
    /// `protect` (transmit) or `unprotect` (receive, replay-checked).
    pub direction: &'static str,
    pub threads: usize,
    pub frame_bytes: usize,
    pub frames: usize,
    pub gb_per_s: f64,
    pub speedup: f64,
    /// Against the multi-buffer kernel's row at the same frame size in this run (the
    /// engine's speed on the same kind of frames, without framing, PNs or threads).
    pub of_kernel: f64,
    /// Against the multi-buffer kernel on this row's own working set: as many frames, with
    /// the same station keys, refilled before each call as the batch is (the kernel's row
    /// reuses 4 x lanes frames that stay in the nearest caches).
    pub of_kernel_same_frames: f64,
    /// /proc/loadavg (1, 5, 15 minutes) just before this row was measured.
    pub load_average: [f64; 3],
}

/// `kernel_gb_per_s`: the multi-buffer kernel's row at a frame size.
pub fn measure(
    clock: &Clock,
    engine: Engine,
    rng: &mut ChaCha8Rng,
    kernel_gb_per_s: impl Fn(usize) -> f64,
) -> Result<Vec<Scaling>> {
    let bytes = 1500;
    let frames = 512;
    let stations = 32;
    let keys: Vec<[u8; 16]> = (0..stations).map(|_| random_bytes(rng, 16).try_into().expect("16 octets")).collect();
    let shapes = Shapes { management: false };
    let frames_in: Vec<(u32, Vec<u8>)> = (0..frames)
        .map(|i| {
            let mut mpdu = Vec::new();
            gen::random_mpdu(rng, shapes, bytes, &mut mpdu);
            ((i % stations) as u32, mpdu)
        })
        .collect();
    let mut rows: Vec<Scaling> = Vec::new();
    let median_of_repeats = |mut run: Box<dyn FnMut() -> f64 + '_>| {
        let mut samples: Vec<f64> = (0..clock.repeats).map(|_| run()).collect();
        median(&mut samples)
    };
    let mut same_frames = SameFrames::new(rng, engine, &keys, frames, bytes)?;
    for threads in [1usize, 2] {
        let load_average = load_average();
        let mut engine = ShardedEngine::new(threads, engine);
        let add_stations = |engine: &mut ShardedEngine| -> Result<()> {
            for (station, tk) in keys.iter().enumerate() {
                engine.add_station(station as u32, tk, Mode::CCMP128)?;
            }
            Ok(())
        };
        add_stations(&mut engine)?;
        // One batch, its buffers kept across calls: each repeat refills it (as a NIC fills
        // its ring) outside the timed call.
        let mut batch = FrameBatch::new();
        let fill = |batch: &mut FrameBatch, frames: &[(u32, Vec<u8>)]| {
            batch.clear();
            for (station, mpdu) in frames {
                batch.push(*station, mpdu);
            }
        };
        fill(&mut batch, &frames_in);
        engine.protect(&mut batch)?;
        let protected: Vec<(u32, Vec<u8>)> =
            batch.iter().map(|(station, r)| Ok((station, r.map_err(Clone::clone)?.to_vec()))).collect::<Result<_>>()?;
        // Each repeat times the kernel on as many frames just before the sharded call, so
        // the two share the moment's disturbance; their ratio is taken repeat by repeat.
        let (mut tx_of_same, mut rx_of_same) = (Vec::new(), Vec::new());
        let tx_ticks = median_of_repeats(Box::new(|| {
            let kernel_ticks = same_frames.time(false);
            fill(&mut batch, &frames_in);
            let start = tsc();
            engine.protect(&mut batch).expect("stations installed");
            let ticks = (tsc() - start) as f64;
            tx_of_same.push(kernel_ticks / ticks);
            ticks
        }));
        let mut rx_failures = 0;
        let rx_ticks = median_of_repeats(Box::new(|| {
            let kernel_ticks = same_frames.time(true);
            // Re-installing the keys restarts the replay counters, so the same frames
            // open again.
            add_stations(&mut engine).expect("keys installed once already");
            fill(&mut batch, &protected);
            let start = tsc();
            engine.unprotect(&mut batch).expect("stations installed");
            let ticks = (tsc() - start) as f64;
            rx_failures += batch.iter().filter(|(_, r)| r.is_err()).count();
            rx_of_same.push(kernel_ticks / ticks);
            ticks
        }));
        if rx_failures > 0 {
            bail!("sharded engine refused {rx_failures} of its own frames");
        }
        if same_frames.refused > 0 {
            bail!("the multi-buffer kernel refused {} of its own frames", same_frames.refused);
        }
        for (direction, ticks, of_same) in [("protect", tx_ticks, tx_of_same), ("unprotect", rx_ticks, rx_of_same)] {
            let gb_per_s = (frames * bytes) as f64 / (ticks / clock.tsc_hz) / 1e9;
            let speedup = rows
                .iter()
                .find(|r| r.direction == direction && r.threads == 1)
                .map_or(1.0, |one| gb_per_s / one.gb_per_s);
            let of_kernel = gb_per_s / kernel_gb_per_s(bytes);
            let of_kernel_same_frames = median(&mut of_same.clone());
            rows.push(Scaling {
                direction,
                threads,
                frame_bytes: bytes,
                frames,
                gb_per_s,
                speedup,
                of_kernel,
                of_kernel_same_frames,
                load_average,
            });
        }
    }
    Ok(rows)
}

/// The multi-buffer kernel on the sharded rows' working set: as many frames of the same
/// size under the same station keys, refilled before each call as the batch is.
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
    fn new(rng: &mut ChaCha8Rng, engine: Engine, tks: &[[u8; 16]], frames: usize, bytes: usize) -> Result<Self> {
        let keys = tks.iter().map(|tk| Key::new(tk, Mode::CCMP128)).collect::<wlansec_core::Result<Vec<_>>>()?;
        let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
        let aad = random_bytes(rng, AAD_LEN);
        let plaintexts: Vec<Vec<u8>> = (0..frames).map(|_| random_bytes(rng, bytes)).collect();
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
