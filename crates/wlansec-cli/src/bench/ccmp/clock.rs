//! Timing and statistics: the time-stamp counter, the clock that turns its ticks into core
//! cycles (the TSC-to-core-clock ratio measured beside every sample), medians of repeats, and
//! the row a timed call becomes.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use serde::Serialize;

/// One timed setting: an implementation and mode on frames of `frame_bytes` octets.
#[derive(Serialize, Clone)]
pub struct Measured {
    #[serde(rename = "impl")]
    pub implementation: &'static str,
    pub mode: &'static str,
    pub lanes: usize,
    pub frame_bytes: usize,
    pub cycles_per_byte: f64,
    pub gb_per_s: f64,
    pub us_per_frame: f64,
}

/// The run's clock. Only `calibrate` makes one, and only on a CPU with AES-NI and AVX: the
/// bound's AESENC loops rely on that.
pub struct Clock {
    pub tsc_hz: f64,
    pub tsc_per_core_cycle: f64,
    pub repeats: usize,
    /// TSC ticks one sample spans (as many calls as fit).
    repeat_ticks: u64,
}

impl Clock {
    /// Median TSC ticks and median core cycles per call of `op` over the repeats. Each
    /// sample is preceded by a short chain of dependent ADDs that gives the TSC-to-core
    /// ratio at that moment, so frequency changes during the run (turbo, AVX-512 licences,
    /// neighbours) do not skew the cycle counts.
    pub fn measure(&self, mut op: impl FnMut()) -> Sample {
        op();
        let start = tsc();
        op();
        let once = (tsc() - start).max(1);
        let calls = (self.repeat_ticks / once).max(1);
        let mut ticks = Vec::with_capacity(self.repeats);
        let mut cycles = Vec::with_capacity(self.repeats);
        for _ in 0..self.repeats {
            let start = tsc();
            add_chain(RATIO_ITERATIONS);
            let ratio = (tsc() - start) as f64 / (16.0 * RATIO_ITERATIONS as f64);
            let start = tsc();
            for _ in 0..calls {
                op();
            }
            let t = (tsc() - start) as f64 / calls as f64;
            ticks.push(t);
            cycles.push(t / ratio);
        }
        Sample { ticks: median(&mut ticks), cycles: median(&mut cycles) }
    }

    /// The row of a call over `frames` frames of `octets` in all, `bytes` each (their mean,
    /// rounded, where their lengths differ).
    #[allow(clippy::too_many_arguments)]
    pub fn result(
        &self,
        implementation: &'static str,
        mode: &'static str,
        lanes: usize,
        bytes: usize,
        sample: Sample,
        frames: usize,
        octets: usize,
    ) -> Measured {
        let seconds = sample.ticks / self.tsc_hz;
        Measured {
            implementation,
            mode,
            lanes,
            frame_bytes: bytes,
            cycles_per_byte: sample.cycles / octets as f64,
            gb_per_s: octets as f64 / seconds / 1e9,
            us_per_frame: seconds / frames as f64 * 1e6,
        }
    }
}

/// Iterations of the ADD chain before each sample (16 core cycles each).
const RATIO_ITERATIONS: u64 = 256;

/// Medians over the repeats of one call's time.
#[derive(Clone, Copy)]
pub struct Sample {
    pub ticks: f64,
    pub cycles: f64,
}

/// The median of `samples` (sorted in place).
pub fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The time-stamp counter, with LFENCE on both sides.
#[cfg(target_arch = "x86_64")]
pub fn tsc() -> u64 {
    // SAFETY: RDTSC and LFENCE (SSE2) exist on every x86_64 CPU and touch no memory. (The
    // fences keep the measured work inside the two readings.)
    unsafe {
        core::arch::x86_64::_mm_lfence();
        let t = core::arch::x86_64::_rdtsc();
        core::arch::x86_64::_mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub fn tsc() -> u64 {
    0
}

/// 16 dependent one-cycle register ADDs per iteration: exactly 16 core cycles (register
/// operands, because some cores fold chains of immediate ADDs at rename).
#[cfg(target_arch = "x86_64")]
fn add_chain(iterations: u64) {
    // SAFETY: ADD, DEC and JNZ on the two registers the asm declares: no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            "add {x}, {x}", "add {x}, {x}", "add {x}, {x}", "add {x}, {x}",
            "add {x}, {x}", "add {x}, {x}", "add {x}, {x}", "add {x}, {x}",
            "add {x}, {x}", "add {x}, {x}", "add {x}, {x}", "add {x}, {x}",
            "add {x}, {x}", "add {x}, {x}", "add {x}, {x}", "add {x}, {x}",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) 0u64 => _,
            n = inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
}

/// The TSC's rate against the wall clock and its ticks per core cycle; `quick`: a shorter
/// wait and fewer repeats.
pub fn calibrate(quick: bool) -> Result<Clock> {
    if !cfg!(target_arch = "x86_64")
        || !std::arch::is_x86_feature_detected!("aes")
        || !std::arch::is_x86_feature_detected!("avx")
    {
        bail!("wlansec bench ccmp needs an x86_64 CPU with AES-NI and AVX (TSC timing, AES-NI bound)");
    }
    let start_tsc = tsc();
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(if quick { 100 } else { 300 }));
    let tsc_hz = (tsc() - start_tsc) as f64 / start.elapsed().as_secs_f64();
    // Many short samples: on a shared machine a sample that spans a preemption is an
    // outlier the median ignores.
    let mut clock = Clock { tsc_hz, tsc_per_core_cycle: 1.0, repeats: if quick { 41 } else { 201 }, repeat_ticks: 0 };
    clock.repeat_ticks = (tsc_hz * 50e-6) as u64;
    let iterations = 2_000;
    clock.tsc_per_core_cycle = clock.measure(|| add_chain(iterations)).ticks / (16.0 * iterations as f64);
    Ok(clock)
}
