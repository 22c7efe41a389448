//! `wlansec bench ccmp`: CCMP-128 throughput and latency of OpenSSL, RustCrypto `ccm` and
//! the wlansec engine (single frame, multi-buffer, Enhanced N = 2/4/8) side by side in one
//! run, in core cycles per byte (TSC, with the TSC-to-core-clock ratio measured in the run),
//! GB/s and µs per frame; the AES-NI bound from AESENC latency/throughput measured in the
//! same run; the published layout's MIC (CBC-MAC) and CTR times for 1-, 2-, 4-, 8-way
//! settings; one frame's latency alone (LFENCE around each call) beside its time back to
//! back; and 1- vs 2-thread scaling of the sharded engine. Medians of repeats.
//! Where intel-ipsec-mb is installed, its AES-CCM-128 (job API and burst API) on the
//! multi-buffer row's frames and keys, checked octet for octet against the engine first.
//!
//! Frames are payloads of `frame_bytes` octets with a 22-octet AAD and an 8-octet MIC, as in
//! the published figures.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use aes::cipher::consts::{U13, U8};
use aes::cipher::{Array, BlockCipherEncrypt, KeyInit};
use aes::Aes128;
use anyhow::{bail, Context, Result};
use ccm::aead::AeadInOut;
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;
use serde::Serialize;
use wlansec_core::engine::sharded::{FrameBatch, ShardedEngine};
use wlansec_core::engine::{Backend, Engine, Job, Key, Mode, Ways};
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes};

use super::ipsec_mb::{self, Api, Arch, CcmInput, IpsecMb, KeySchedule};

const SIZES: [usize; 6] = [64, 256, 512, 1024, 1500, 2304];
/// The mixed-lengths rows' mode, frames per call and payload lengths (a TCP ACK's to a
/// full Ethernet frame's).
const MIXED: &str = "mixed";
const MIXED_FRAMES: usize = 64;
const MIXED_LENGTHS: std::ops::RangeInclusive<usize> = 28..=1500;
const AAD_LEN: usize = 22;
/// The `alone` rows' frame sizes: where Enhanced N = 8 and 4 are the same number of AES steps
/// deep (64) and a full frame.
const ALONE_SIZES: [usize; 2] = [64, 1500];
const AES_ROUNDS: f64 = 10.0;

#[derive(clap::Args)]
pub struct Args {
    /// Fewer, shorter repeats: the whole run takes well under a minute.
    #[arg(long)]
    quick: bool,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Engine backend (default: the fastest this CPU runs).
    #[arg(long, value_parser = ["portable", "aes-ni", "avx512-vaes", "avx2-vaes"])]
    backend: Option<String>,
}

#[derive(Serialize)]
struct Report {
    machine: Machine,
    results: Vec<Measured>,
    bound: Bound,
    /// The published tables' layout: CBC-MAC and CTR time per frame for 1-, 2-, 4-, 8-way.
    mic_ctr_split: Vec<MicCtr>,
    /// One frame's latency: the single and Enhanced rows' frames each alone.
    alone: Vec<Alone>,
    /// The sharded engine on 1 and 2 worker threads.
    threads: Vec<Scaling>,
    /// Per frame size: wlansec's multi-buffer row against intel-ipsec-mb's fastest row.
    versus_ipsec_mb: Vec<Versus>,
    /// How the settings are defined (what is inside the timed loop).
    notes: Vec<String>,
}

const NOTES: [&str; 6] = [
    "multibuffer: batches of 4 x lanes frames, each under its own station key; every \
     station's AES round keys are expanded once (engine::Key, as an AP caches each \
     station's schedule), outside the timed loop; per frame the loop builds the job \
     (nonce, AAD, B0/A0) and seals it",
    "single, enhanced: one frame per call, key expanded once outside the timed loop; \
     openssl: key set once, nonce and lengths per frame",
    "mixed: multi-buffer on one call of 64 frames whose payload lengths are drawn uniformly \
     from 28 to 1500 octets (seeded: the same frames every run), each under its own station \
     key expanded outside the timed loop, wlansec and intel-ipsec-mb on the same frames; \
     bytes is their mean length, cycles/byte and GB/s are over all their octets, the bound \
     that of a frame of the mean length",
    "alone: one frame per call (CCMP-128 and Enhanced N = 2, 4, 8, key expanded once), core \
     cycles per frame with LFENCE before and after every call, so that nothing of the calls \
     around it runs beside it (its dependency chain's latency), and back to back as the \
     single and enhanced rows time it (consecutive frames overlap: their AES throughput)",
    "threads: the sharded engine (the calling thread plus persistent pinned workers), 32 \
     stations, whole calls of 512 frames in a batch whose buffers are reused across calls \
     (sharding, PN assignment and hand-off included; refilling the batch is outside the \
     timed call), median over the repeats, each row with the load average just before it \
     and its speed as a fraction of the multi-buffer kernel's row at the same frame size \
     (of_kernel) and of the kernel sealing the same number of frames under the same \
     station keys, refilled before each call as the batch is (of_kernel_same_frames: \
     the sharded engine's own costs without the caches' share); calls are short (about a tenth of a \
     millisecond) so that on a shared machine both threads are likely to be running \
     during one",
    "ipsec-mb ARCH job, ipsec-mb ARCH burst: intel-ipsec-mb's AES-CCM-128 (13-octet nonce, \
     the AAD and 8-octet MIC of the multibuffer row) on the multibuffer row's frames under \
     the same station keys, expanded once by IMB_AES_KEYEXP_128 outside the timed loop; per \
     call all frames are submitted (job: IMB_SUBMIT_JOB per frame; burst: IMB_SUBMIT_BURST) \
     and then flushed, every job's status checked, as wlansec's batch checks its jobs (the \
     _NOCHECK variants skip that); lanes = frames per call (the library picks its lanes). \
     ARCH: the manager init_mb_mgr_auto sets up, and the AVX2 one too where auto picks \
     AVX-512 (1.3's AVX-512 CCM is the slower on short frames). The generic burst API is \
     the one that takes CCM jobs: 1.3's cipher-only and hash-only bursts \
     (IMB_SUBMIT_CIPHER_BURST, IMB_SUBMIT_HASH_BURST) take no AEAD. Before timing, at every \
     size, each manager's and API's ciphertext and MIC are checked equal to the engine's on \
     those frames and on 16 frames behind random 802.11 headers (AAD 22 to 30 octets); a \
     difference stops the bench",
];

/// CCMP frames behind random 802.11 headers added to the agreement check at each size.
const CHECK_FRAMES: usize = 16;

#[derive(Serialize)]
struct Machine {
    /// The commit the binary was built from (`-dirty`: with changed sources).
    commit: &'static str,
    cpu: String,
    /// The CPU features the engines' choices turn on.
    cpu_flags: CpuFlags,
    /// The engine backend of this run: runtime dispatch's choice unless `--backend` forced one.
    backend: &'static str,
    backend_forced: bool,
    tsc_hz: f64,
    /// TSC ticks per core clock cycle, measured with a chain of dependent ADDs.
    tsc_per_core_cycle: f64,
    core_hz: f64,
    repeats: usize,
    openssl: String,
    /// /proc/loadavg (1, 5, 15 minutes) when the run started: the machine is shared.
    load_average: [f64; 3],
    intel_ipsec_mb: IpsecMbInfo,
}

#[derive(Serialize)]
struct CpuFlags {
    aes: bool,
    vaes: bool,
    vpclmulqdq: bool,
    avx2: bool,
    avx512f: bool,
    avx512vl: bool,
}

impl CpuFlags {
    fn detect() -> Self {
        CpuFlags {
            aes: std::arch::is_x86_feature_detected!("aes"),
            vaes: std::arch::is_x86_feature_detected!("vaes"),
            vpclmulqdq: std::arch::is_x86_feature_detected!("vpclmulqdq"),
            avx2: std::arch::is_x86_feature_detected!("avx2"),
            avx512f: std::arch::is_x86_feature_detected!("avx512f"),
            avx512vl: std::arch::is_x86_feature_detected!("avx512vl"),
        }
    }
}

#[derive(Serialize)]
struct IpsecMbInfo {
    /// The library's version at run time, and the architecture init_mb_mgr_auto chose.
    version: Option<String>,
    arch: Option<&'static str>,
    /// The architectures whose managers were timed.
    archs_timed: Vec<&'static str>,
    /// Why its rows are missing, when they are.
    not_run: Option<String>,
}

#[derive(Serialize)]
struct Versus {
    /// `multibuffer` (frames of `frame_bytes` octets) or `mixed` (their mean).
    mode: &'static str,
    frame_bytes: usize,
    wlansec_multibuffer_cycles_per_byte: f64,
    /// intel-ipsec-mb's fastest row at this size (architecture and API).
    ipsec_mb_best: &'static str,
    ipsec_mb_cycles_per_byte: f64,
    /// intel-ipsec-mb's cycles/byte over wlansec's: above 1, wlansec is faster.
    wlansec_speedup: f64,
}

#[derive(Serialize, Clone)]
struct Measured {
    #[serde(rename = "impl")]
    implementation: &'static str,
    mode: &'static str,
    lanes: usize,
    frame_bytes: usize,
    cycles_per_byte: f64,
    gb_per_s: f64,
    us_per_frame: f64,
}

#[derive(Serialize)]
struct Bound {
    aesenc_latency_cycles: f64,
    /// Core cycles per AESENC (128-bit) when enough independent blocks are in flight.
    aesenc_throughput_cycles: f64,
    /// Core cycles per 512-bit VAESENC (four blocks), where the CPU has VAES.
    vaesenc_zmm_throughput_cycles: Option<f64>,
    /// The multi-buffer kernel's step on registers alone (`lane_step_ceilings`).
    lane_steps: Vec<LaneStep>,
    /// Per result: the AES-NI bound for that setting and the fraction of it achieved
    /// (bound cycles/byte divided by measured cycles/byte).
    per_result: Vec<BoundOf>,
}

/// One step of the multi-buffer kernel's structure (per lane one MAC block, its input XORed
/// with data and round key 0, and one counter block, through 10 rounds) with nothing else:
/// no loads of data, no stores, no shuffles, the round keys from the L1 cache. What the
/// kernel's design could reach on this core at best; the step's AES throughput bound is
/// `2 * lanes / blocks_per_register` VAESENCs a round.
#[derive(Serialize)]
struct LaneStep {
    registers: &'static str,
    lanes: usize,
    cycles_per_step: f64,
    /// A 1500-octet frame's 3 + 94 steps over the lanes.
    cycles_per_byte_1500: f64,
}

#[derive(Serialize)]
struct BoundOf {
    #[serde(rename = "impl")]
    implementation: &'static str,
    mode: &'static str,
    lanes: usize,
    frame_bytes: usize,
    bound_cycles_per_byte: f64,
    fraction_of_bound: f64,
}

/// One frame sealed with nothing before or after it in flight (LFENCE on each side), beside
/// the same frames back to back as the single and Enhanced rows time them: the latency of
/// one frame's dependency chain against the throughput of many.
#[derive(Serialize)]
struct Alone {
    mode: &'static str,
    lanes: usize,
    frame_bytes: usize,
    cycles_per_frame_alone: f64,
    cycles_per_frame_back_to_back: f64,
}

#[derive(Serialize)]
struct MicCtr {
    ways: usize,
    frame_bytes: usize,
    mic_us_per_frame: f64,
    ctr_us_per_frame: f64,
}

#[derive(Serialize)]
struct Scaling {
    /// `protect` (transmit) or `unprotect` (receive, replay-checked).
    direction: &'static str,
    threads: usize,
    frame_bytes: usize,
    frames: usize,
    gb_per_s: f64,
    speedup: f64,
    /// Against the multi-buffer kernel's row at the same frame size in this run (the
    /// engine's speed on the same kind of frames, without framing, PNs or threads).
    of_kernel: f64,
    /// Against the multi-buffer kernel on this row's own working set: as many frames, with
    /// the same station keys, refilled before each call as the batch is (the kernel's row
    /// reuses 4 x lanes frames that stay in the nearest caches).
    of_kernel_same_frames: f64,
    /// /proc/loadavg (1, 5, 15 minutes) just before this row was measured.
    load_average: [f64; 3],
}

struct Clock {
    tsc_hz: f64,
    tsc_per_core_cycle: f64,
    repeats: usize,
    repeat_ticks: u64,
}

impl Clock {
    /// Median TSC ticks and median core cycles per call of `op` over the repeats. Each
    /// sample is preceded by a short chain of dependent ADDs that gives the TSC-to-core
    /// ratio at that moment, so frequency changes during the run (turbo, AVX-512 licences,
    /// neighbours) do not skew the cycle counts.
    fn measure(&self, mut op: impl FnMut()) -> Sample {
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
    fn result(
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

#[derive(Clone, Copy)]
struct Sample {
    ticks: f64,
    cycles: f64,
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

#[cfg(target_arch = "x86_64")]
fn tsc() -> u64 {
    // SAFETY: RDTSC exists on every x86_64; the fences keep the measured work inside.
    unsafe {
        core::arch::x86_64::_mm_lfence();
        let t = core::arch::x86_64::_rdtsc();
        core::arch::x86_64::_mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn tsc() -> u64 {
    0
}

/// 16 dependent one-cycle register ADDs per iteration: exactly 16 core cycles (register
/// operands, because some cores fold chains of immediate ADDs at rename).
#[cfg(target_arch = "x86_64")]
fn add_chain(iterations: u64) {
    // SAFETY: register-only arithmetic.
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

/// 8 dependent AESENCs per iteration. VEX encoding, as the engine's kernels are compiled:
/// legacy-SSE AESENC after 256/512-bit code pays a false dependency on the upper register
/// half (one more cycle of latency on this class of CPU).
#[cfg(target_arch = "x86_64")]
fn aesenc_latency(iterations: u64) {
    // SAFETY: only run when the CPU has AES-NI; register-only.
    unsafe {
        core::arch::asm!(
            "2:",
            "vaesenc xmm0, xmm0, xmm1", "vaesenc xmm0, xmm0, xmm1", "vaesenc xmm0, xmm0, xmm1",
            "vaesenc xmm0, xmm0, xmm1", "vaesenc xmm0, xmm0, xmm1", "vaesenc xmm0, xmm0, xmm1",
            "vaesenc xmm0, xmm0, xmm1", "vaesenc xmm0, xmm0, xmm1",
            "dec {n}",
            "jnz 2b",
            n = inout(reg) iterations => _,
            out("xmm0") _, out("xmm1") _,
            options(nomem, nostack),
        );
    }
}

/// 12 independent AESENCs per iteration.
#[cfg(target_arch = "x86_64")]
fn aesenc_throughput(iterations: u64) {
    // SAFETY: only run when the CPU has AES-NI; register-only.
    unsafe {
        core::arch::asm!(
            "2:",
            "vaesenc xmm0, xmm0, xmm15", "vaesenc xmm1, xmm1, xmm15", "vaesenc xmm2, xmm2, xmm15",
            "vaesenc xmm3, xmm3, xmm15", "vaesenc xmm4, xmm4, xmm15", "vaesenc xmm5, xmm5, xmm15",
            "vaesenc xmm6, xmm6, xmm15", "vaesenc xmm7, xmm7, xmm15", "vaesenc xmm8, xmm8, xmm15",
            "vaesenc xmm9, xmm9, xmm15", "vaesenc xmm10, xmm10, xmm15", "vaesenc xmm11, xmm11, xmm15",
            "dec {n}",
            "jnz 2b",
            n = inout(reg) iterations => _,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _, out("xmm5") _,
            out("xmm6") _, out("xmm7") _, out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
            out("xmm15") _,
            options(nomem, nostack),
        );
    }
}

/// 12 independent 512-bit VAESENCs per iteration.
#[cfg(target_arch = "x86_64")]
fn vaesenc_throughput(iterations: u64) {
    // SAFETY: only run when the CPU has AVX-512F and VAES; register-only.
    unsafe {
        core::arch::asm!(
            "2:",
            "vaesenc zmm0, zmm0, zmm15", "vaesenc zmm1, zmm1, zmm15", "vaesenc zmm2, zmm2, zmm15",
            "vaesenc zmm3, zmm3, zmm15", "vaesenc zmm4, zmm4, zmm15", "vaesenc zmm5, zmm5, zmm15",
            "vaesenc zmm6, zmm6, zmm15", "vaesenc zmm7, zmm7, zmm15", "vaesenc zmm8, zmm8, zmm15",
            "vaesenc zmm9, zmm9, zmm15", "vaesenc zmm10, zmm10, zmm15", "vaesenc zmm11, zmm11, zmm15",
            "dec {n}",
            "jnz 2b",
            n = inout(reg) iterations => _,
            out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _, out("zmm4") _, out("zmm5") _,
            out("zmm6") _, out("zmm7") _, out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
            out("zmm15") _,
            options(nomem, nostack),
        );
    }
}

/// Round keys as the step loops read them: one key a register wide (64 octets) per round.
#[repr(C, align(64))]
struct RoundKeyRegisters([u8; 11 * 64]);
/// A multi-buffer step loop, one step per iteration (see `lane_step_ceilings`): the lines
/// that form each lane's MAC and counter inputs, then 10 rounds over the lanes in `order`,
/// round key r at `keys + r * width` (the assembler's `.irp` writes the rounds out).
macro_rules! lane_steps {
    ($(#[$doc:meta])* $name:ident, $register:literal, $width:literal, order $order:literal, inputs [$($input:literal),+]) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        fn $name(iterations: u64, keys: &RoundKeyRegisters) {
            // SAFETY: only run when the CPU has the instructions; reads only `keys`.
            unsafe {
                core::arch::asm!(
                    "2:",
                    $($input,)+
                    ".irp round, 1, 2, 3, 4, 5, 6, 7, 8, 9",
                    concat!(".irp lane, ", $order),
                    concat!("vaesenc ", $register, "\\lane, ", $register, "\\lane, [rdx + \\round * ", $width, "]"),
                    ".endr",
                    ".endr",
                    concat!(".irp lane, ", $order),
                    concat!("vaesenclast ", $register, "\\lane, ", $register, "\\lane, [rdx + 10 * ", $width, "]"),
                    ".endr",
                    "dec rcx",
                    "jnz 2b",
                    inout("rcx") iterations => _,
                    in("rdx") keys.0.as_ptr(),
                    clobber_abi("C"),
                    options(nostack, readonly),
                );
            }
        }
    };
}

lane_steps!(
    /// 8 lanes on 512-bit registers: MAC blocks in zmm0-1 (input = state ^ data ^ round key 0,
    /// one VPTERNLOG), counter blocks in zmm2-3.
    lane_steps_zmm8, "zmm", 64, order "0, 2, 1, 3",
    inputs ["vpternlogq zmm0, zmm14, [rdx], 0x96", "vpternlogq zmm1, zmm14, [rdx], 0x96",
            "vpxorq zmm2, zmm15, [rdx]", "vpxorq zmm3, zmm15, [rdx]"]
);

lane_steps!(
    /// As `lane_steps_zmm8`, 16 lanes.
    lane_steps_zmm16, "zmm", 64, order "0, 4, 1, 5, 2, 6, 3, 7",
    inputs ["vpternlogq zmm0, zmm14, [rdx], 0x96", "vpternlogq zmm1, zmm14, [rdx], 0x96",
            "vpternlogq zmm2, zmm14, [rdx], 0x96", "vpternlogq zmm3, zmm14, [rdx], 0x96",
            "vpxorq zmm4, zmm15, [rdx]", "vpxorq zmm5, zmm15, [rdx]",
            "vpxorq zmm6, zmm15, [rdx]", "vpxorq zmm7, zmm15, [rdx]"]
);

lane_steps!(
    /// 8 lanes on 256-bit registers (AVX2 + VAES, 16 registers: keys from memory, two XORs for
    /// the MAC input).
    lane_steps_ymm8, "ymm", 32, order "0, 4, 1, 5, 2, 6, 3, 7",
    inputs ["vpxor ymm0, ymm0, ymm14", "vpxor ymm0, ymm0, [rdx]", "vpxor ymm1, ymm1, ymm14", "vpxor ymm1, ymm1, [rdx]",
            "vpxor ymm2, ymm2, ymm14", "vpxor ymm2, ymm2, [rdx]", "vpxor ymm3, ymm3, ymm14", "vpxor ymm3, ymm3, [rdx]",
            "vpxor ymm4, ymm15, [rdx]", "vpxor ymm5, ymm15, [rdx]", "vpxor ymm6, ymm15, [rdx]", "vpxor ymm7, ymm15, [rdx]"]
);

fn calibrate(quick: bool) -> Result<Clock> {
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

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The AES bound of a setting in core cycles per byte: the larger of the latency of its
/// longest CBC-MAC chain and the throughput of all its AES blocks — AESENC throughput, or
/// a quarter of the 512-bit VAESENC's where the setting runs four blocks per VAESENC.
fn bound_cpb(bound: &Bound, mode: &str, lanes: usize, bytes: usize, vaes: bool) -> f64 {
    let m = bytes.div_ceil(16) as f64;
    let ways = if mode == "enhanced" { lanes as f64 } else { 1.0 };
    let chain = 3.0 + (m / ways).ceil();
    let blocks = 3.0 * ways + m + (m + 1.0);
    let latency = chain * AES_ROUNDS * bound.aesenc_latency_cycles;
    let block_cycles = match bound.vaesenc_zmm_throughput_cycles {
        Some(zmm) if vaes => bound.aesenc_throughput_cycles.min(zmm / 4.0),
        _ => bound.aesenc_throughput_cycles,
    };
    let throughput = blocks * AES_ROUNDS * block_cycles;
    // Mixed lengths: the throughput bound of a frame of their mean length.
    let per_frame = if mode == "multibuffer" || mode == MIXED { throughput } else { latency.max(throughput) };
    per_frame / bytes as f64
}

fn load_average() -> [f64; 3] {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut fields = text.split_whitespace().map(|f| f.parse().unwrap_or(f64::NAN));
    [(); 3].map(|_| fields.next().unwrap_or(f64::NAN))
}

pub fn run(args: Args) -> Result<ExitCode> {
    let load_average = load_average();
    let clock = calibrate(args.quick)?;
    let engine = match args.backend.as_deref() {
        None => Engine::new(),
        Some(name) => {
            Engine::with_backend(Backend::ALL.into_iter().find(|b| b.name() == name).context("backend name")?)?
        }
    };
    eprintln!(
        "bench ccmp: TSC {:.3} GHz, {:.3} TSC ticks per core cycle, backend {}, {} repeats",
        clock.tsc_hz / 1e9,
        clock.tsc_per_core_cycle,
        engine.backend().name(),
        clock.repeats
    );
    let ipsec_mb = open_ipsec_mb();
    match &ipsec_mb {
        Ok(libs) => eprintln!(
            "bench ccmp: intel-ipsec-mb {} (init_mb_mgr_auto: {}; timed: {})",
            libs[0].version(),
            libs[0].arch().name(),
            libs.iter().map(|l| l.arch().name()).collect::<Vec<_>>().join(", ")
        ),
        Err(why) => eprintln!("bench ccmp: no intel-ipsec-mb rows: {why:#}"),
    }
    let mut bound = measure_bound(&clock);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut results = Vec::new();
    for &bytes in &SIZES {
        eprintln!("bench ccmp: {bytes}-byte frames");
        results.extend(measure_size(&clock, engine, ipsec_mb.as_deref().unwrap_or_default(), bytes, &mut rng)?);
    }
    eprintln!("bench ccmp: frames of mixed lengths");
    results.extend(measure_mixed(&clock, engine, ipsec_mb.as_deref().unwrap_or_default(), &mut rng)?);
    bound.per_result = results
        .iter()
        .map(|r| {
            // The engine's VAES kernels take settings of four lanes or more; intel-ipsec-mb is
            // held to the best this CPU has.
            let vaes = (matches!(engine.backend(), Backend::Avx512Vaes | Backend::Avx2Vaes)
                && r.implementation == "wlansec"
                && r.lanes >= 4)
                || r.implementation.starts_with("ipsec-mb");
            let b = bound_cpb(&bound, r.mode, r.lanes, r.frame_bytes, vaes);
            BoundOf {
                implementation: r.implementation,
                mode: r.mode,
                lanes: r.lanes,
                frame_bytes: r.frame_bytes,
                bound_cycles_per_byte: b,
                fraction_of_bound: b / r.cycles_per_byte,
            }
        })
        .collect();
    eprintln!("bench ccmp: MIC/CTR split");
    let mic_ctr_split = measure_mic_ctr(&clock, &mut rng);
    eprintln!("bench ccmp: one frame alone");
    let alone = measure_alone(&clock, engine, &mut rng)?;
    eprintln!("bench ccmp: sharded engine, 1 and 2 threads");
    let kernel_gb_per_s = |bytes: usize| {
        results
            .iter()
            .find(|r| r.implementation == "wlansec" && r.mode == "multibuffer" && r.frame_bytes == bytes)
            .map_or(f64::NAN, |r| r.gb_per_s)
    };
    let threads = measure_threads(&clock, engine, &mut rng, kernel_gb_per_s)?;
    let versus_ipsec_mb = versus_ipsec_mb(&results);
    let mut notes: Vec<String> = NOTES.iter().map(|n| n.to_string()).collect();
    if let Err(why) = &ipsec_mb {
        notes.push(format!("no intel-ipsec-mb rows: {why:#}"));
    }
    let report = Report {
        machine: Machine {
            commit: env!("WLANSEC_COMMIT"),
            cpu: cpu_name(),
            cpu_flags: CpuFlags::detect(),
            backend: engine.backend().name(),
            backend_forced: args.backend.is_some(),
            tsc_hz: clock.tsc_hz,
            tsc_per_core_cycle: clock.tsc_per_core_cycle,
            core_hz: clock.tsc_hz / clock.tsc_per_core_cycle,
            repeats: clock.repeats,
            openssl: openssl::version::version().to_string(),
            load_average,
            intel_ipsec_mb: IpsecMbInfo {
                version: ipsec_mb.as_ref().ok().map(|libs| libs[0].version()),
                arch: ipsec_mb.as_ref().ok().map(|libs| libs[0].arch().name()),
                archs_timed: ipsec_mb.iter().flatten().map(|l| l.arch().name()).collect(),
                not_run: ipsec_mb.as_ref().err().map(|why| format!("{why:#}")),
            },
        },
        results,
        bound,
        mic_ctr_split,
        alone,
        threads,
        versus_ipsec_mb,
        notes,
    };
    print_report(&report);
    if let Some(path) = &args.json {
        let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut out = BufWriter::new(file);
        serde_json::to_writer_pretty(&mut out, &report)?;
        out.write_all(b"\n")?;
        out.flush()?;
        eprintln!("bench ccmp: wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn measure_bound(clock: &Clock) -> Bound {
    let iterations = 2_000;
    let latency = clock.measure(|| aesenc_latency(iterations)).cycles / (8.0 * iterations as f64);
    let throughput = clock.measure(|| aesenc_throughput(iterations)).cycles / (12.0 * iterations as f64);
    let vaes = (std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("vaes"))
        .then(|| clock.measure(|| vaesenc_throughput(iterations)).cycles / (12.0 * iterations as f64));
    Bound {
        aesenc_latency_cycles: latency,
        aesenc_throughput_cycles: throughput,
        vaesenc_zmm_throughput_cycles: vaes,
        lane_steps: lane_step_ceilings(clock),
        per_result: Vec::new(),
    }
}

/// One of the `lane_steps_*` loops: iterations, round keys.
type StepLoop = fn(u64, &RoundKeyRegisters);

/// `LaneStep` of every VAES register width this CPU has.
fn lane_step_ceilings(clock: &Clock) -> Vec<LaneStep> {
    let iterations = 500;
    let keys = RoundKeyRegisters([0x5a; 11 * 64]);
    let has = |feature: &str| match feature {
        "zmm" => std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("vaes"),
        _ => std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("vaes"),
    };
    let loops: [(&'static str, usize, StepLoop); 3] =
        [("zmm", 8, lane_steps_zmm8), ("zmm", 16, lane_steps_zmm16), ("ymm", 8, lane_steps_ymm8)];
    loops
        .into_iter()
        .filter(|(registers, _, _)| has(registers))
        .map(|(registers, lanes, steps)| {
            let cycles_per_step = clock.measure(|| steps(iterations, &keys)).cycles / iterations as f64;
            let cycles_per_byte_1500 = (3.0 + (1500.0f64 / 16.0).ceil()) * cycles_per_step / lanes as f64 / 1500.0;
            LaneStep { registers, lanes, cycles_per_step, cycles_per_byte_1500 }
        })
        .collect()
}

fn random_bytes(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

fn measure_size(
    clock: &Clock,
    engine: Engine,
    ipsec_mb: &[IpsecMb],
    bytes: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Measured>> {
    let tk: [u8; 16] = random_bytes(rng, 16).try_into().expect("16 octets");
    let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
    let aad = random_bytes(rng, AAD_LEN);
    let mut data = random_bytes(rng, bytes);
    let mut out = Vec::new();

    // OpenSSL EVP aes-128-ccm: key set once, nonce and lengths per frame.
    let mut ctx = CipherCtx::new()?;
    ctx.encrypt_init(Some(Cipher::aes_128_ccm()), None, None)?;
    ctx.set_iv_length(13)?;
    ctx.set_tag_length(8)?;
    ctx.encrypt_init(None, Some(&tk), None)?;
    let mut tag = [0u8; 8];
    let mut openssl_frame = |data: &mut [u8]| -> Result<()> {
        ctx.encrypt_init(None, None, Some(&nonce))?;
        ctx.set_data_len(data.len())?;
        ctx.cipher_update(&aad, None)?;
        ctx.cipher_update_inplace(data, data.len())?;
        ctx.cipher_final(&mut [])?;
        ctx.tag(&mut tag)?;
        Ok(())
    };
    openssl_frame(&mut data)?;
    let sample = clock.measure(|| openssl_frame(&mut data).expect("OpenSSL CCM on checked parameters"));
    out.push(clock.result("openssl", "single", 1, bytes, sample, 1, bytes));

    let rustcrypto = ccm::Ccm::<Aes128, U8, U13>::new(&tk.into());
    let sample = clock.measure(|| {
        rustcrypto
            .encrypt_inout_detached(&nonce.into(), &aad, data.as_mut_slice().into())
            .expect("RustCrypto CCM on checked parameters");
    });
    out.push(clock.result("rustcrypto-ccm", "single", 1, bytes, sample, 1, bytes));

    let key = Key::new(&tk, Mode::CCMP128)?;
    let sample = clock.measure(|| {
        engine.seal(&key, &nonce, &aad, &mut data).expect("engine on checked parameters");
    });
    out.push(clock.result("wlansec", "single", 1, bytes, sample, 1, bytes));

    // Multi-buffer: four lane-fulls of frames, every frame with its own key.
    let lanes = engine.backend().lanes();
    let frames = 4 * lanes;
    let tks: Vec<[u8; 16]> = (0..frames).map(|_| random_bytes(rng, 16).try_into().expect("16 octets")).collect();
    let keys: Vec<Key> = tks.iter().map(|tk| Key::new(tk, Mode::CCMP128)).collect::<wlansec_core::Result<_>>()?;
    let mut buffers: Vec<Vec<u8>> = (0..frames).map(|_| random_bytes(rng, bytes)).collect();
    let sample = clock.measure(|| {
        let mut jobs: Vec<Job> = buffers.iter_mut().zip(&keys).map(|(b, k)| Job::new(k, nonce, &aad, b)).collect();
        engine.seal_batch(&mut jobs).expect("engine on checked parameters");
    });
    out.push(clock.result("wlansec", "multibuffer", lanes, bytes, sample, frames, frames * bytes));
    for lib in ipsec_mb {
        out.extend(measure_ipsec_mb(clock, engine, lib, "multibuffer", &tks, nonce, &aad, &mut buffers)?);
    }

    for ways in [Ways::N2, Ways::N4, Ways::N8] {
        let key = Key::new(&tk, Mode::enhanced(ways))?;
        let sample = clock.measure(|| {
            engine.seal(&key, &nonce, &aad, &mut data).expect("engine on checked parameters");
        });
        out.push(clock.result("wlansec", "enhanced", ways.count(), bytes, sample, 1, bytes));
    }
    Ok(out)
}

/// Multi-buffer on frames of mixed lengths, as a receiver's ring or a capture holds them:
/// `MIXED_FRAMES` frames of lengths drawn uniformly from `MIXED_LENGTHS`, each under its own
/// key; wlansec and intel-ipsec-mb on the same frames.
fn measure_mixed(clock: &Clock, engine: Engine, ipsec_mb: &[IpsecMb], rng: &mut ChaCha8Rng) -> Result<Vec<Measured>> {
    let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
    let aad = random_bytes(rng, AAD_LEN);
    let (shortest, longest) = (*MIXED_LENGTHS.start(), *MIXED_LENGTHS.end());
    let mut buffers: Vec<Vec<u8>> = (0..MIXED_FRAMES)
        .map(|_| {
            let len = shortest + gen::below(rng, (longest - shortest + 1) as u64) as usize;
            random_bytes(rng, len)
        })
        .collect();
    let tks: Vec<[u8; 16]> = (0..MIXED_FRAMES).map(|_| random_bytes(rng, 16).try_into().expect("16 octets")).collect();
    let keys: Vec<Key> = tks.iter().map(|tk| Key::new(tk, Mode::CCMP128)).collect::<wlansec_core::Result<_>>()?;
    let octets: usize = buffers.iter().map(Vec::len).sum();
    let sample = clock.measure(|| {
        let mut jobs: Vec<Job> = buffers.iter_mut().zip(&keys).map(|(b, k)| Job::new(k, nonce, &aad, b)).collect();
        engine.seal_batch(&mut jobs).expect("engine on checked parameters");
    });
    let lanes = engine.backend().lanes();
    let mean = octets.div_ceil(MIXED_FRAMES);
    let mut out = vec![clock.result("wlansec", MIXED, lanes, mean, sample, MIXED_FRAMES, octets)];
    for lib in ipsec_mb {
        out.extend(measure_ipsec_mb(clock, engine, lib, MIXED, &tks, nonce, &aad, &mut buffers)?);
    }
    Ok(out)
}

/// `Alone` rows: one frame per call under CCMP-128 and Enhanced N = 2, 4, 8, at the sizes of
/// `ALONE_SIZES`, timed with LFENCE before and after each call (no instruction of the call
/// before or after overlaps it) and without.
fn measure_alone(clock: &Clock, engine: Engine, rng: &mut ChaCha8Rng) -> Result<Vec<Alone>> {
    let tk = random_bytes(rng, 16);
    let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
    let aad = random_bytes(rng, AAD_LEN);
    let mut rows = Vec::new();
    for bytes in ALONE_SIZES {
        let mut data = random_bytes(rng, bytes);
        for ways in Ways::ALL {
            let key = Key::new(&tk, Mode::enhanced(ways))?;
            let mut seal = |fenced: bool| {
                clock.measure(|| {
                    if fenced {
                        fence();
                    }
                    engine.seal(&key, &nonce, &aad, &mut data).expect("engine on checked parameters");
                    if fenced {
                        fence();
                    }
                })
            };
            let (alone, back_to_back) = (seal(true), seal(false));
            rows.push(Alone {
                mode: if ways == Ways::N1 { "single" } else { "enhanced" },
                lanes: ways.count(),
                frame_bytes: bytes,
                cycles_per_frame_alone: alone.cycles,
                cycles_per_frame_back_to_back: back_to_back.cycles,
            });
        }
    }
    Ok(rows)
}

/// Wait until every earlier instruction has completed before any later one starts (LFENCE
/// dispatch-serializes on Intel and on AMD under Linux).
fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: LFENCE has no operands and no effect on memory; SSE2 is part of x86_64.
    unsafe {
        core::arch::x86_64::_mm_lfence()
    };
}

/// intel-ipsec-mb's managers: init_mb_mgr_auto's first, then AVX2's where auto picked
/// AVX-512 (the AVX-512 code of 1.3 is the slower one on short frames).
fn open_ipsec_mb() -> Result<Vec<IpsecMb>> {
    let auto = IpsecMb::open(None)?;
    let avx2 = auto.arch() == Arch::Avx512 && std::arch::is_x86_feature_detected!("avx2");
    let mut libs = vec![auto];
    if avx2 {
        libs.push(IpsecMb::open(Some(Arch::Avx2))?);
    }
    Ok(libs)
}

/// intel-ipsec-mb's job and burst rows (`mode`) on the multi-buffer row's frames (`buffers`,
/// one per station key in `tks`), after checking both APIs against the engine on those
/// frames and on CCMP frames behind random 802.11 headers.
#[allow(clippy::too_many_arguments)]
fn measure_ipsec_mb(
    clock: &Clock,
    engine: Engine,
    lib: &IpsecMb,
    mode: &'static str,
    tks: &[[u8; 16]],
    nonce: [u8; 13],
    aad: &[u8],
    buffers: &mut [Vec<u8>],
) -> Result<Vec<Measured>> {
    let (frames, octets) = (buffers.len(), buffers.iter().map(Vec::len).sum::<usize>());
    let bytes = octets.div_ceil(frames);
    let schedules: Vec<KeySchedule> = tks.iter().map(|tk| lib.key_schedule(tk)).collect();
    let mut inputs: Vec<CcmInput> = tks
        .iter()
        .zip(buffers.iter())
        .map(|(tk, payload)| CcmInput { tk: *tk, nonce, aad: aad.to_vec(), payload: payload.clone() })
        .collect();
    // Its own seed: the other rows' frames stay the same with or without the library.
    inputs.extend(ipsec_mb::ccmp_frames(bytes as u64, bytes, CHECK_FRAMES)?);
    let mut rows = Vec::new();
    for api in Api::ALL {
        ipsec_mb::check_agreement(lib, engine, api, &inputs)
            .with_context(|| format!("bench ccmp: {bytes}-byte frames"))?;
        let mut failure = None;
        let sample = clock.measure(|| {
            let mut jobs: Vec<ipsec_mb::Frame> =
                buffers.iter_mut().zip(&schedules).map(|(b, s)| ipsec_mb::Frame::new(s, nonce, aad, b)).collect();
            if let Err(error) = lib.seal(api, &mut jobs) {
                failure.get_or_insert(error);
            }
        });
        if let Some(error) = failure {
            return Err(error.context(format!("bench ccmp: {bytes}-byte frames, timed loop")));
        }
        let name = ipsec_mb::row_name(lib.arch(), api);
        rows.push(clock.result(name, mode, frames, bytes, sample, frames, octets));
    }
    Ok(rows)
}

fn versus_ipsec_mb(results: &[Measured]) -> Vec<Versus> {
    let settings = SIZES.iter().map(|&bytes| ("multibuffer", Some(bytes))).chain([(MIXED, None)]);
    settings
        .filter_map(|(mode, bytes)| {
            let at_size = results.iter().filter(|r| r.mode == mode && bytes.is_none_or(|b| r.frame_bytes == b));
            let wlansec = at_size.clone().find(|r| r.implementation == "wlansec")?;
            let best = at_size
                .filter(|r| r.implementation.starts_with("ipsec-mb"))
                .min_by(|a, b| a.cycles_per_byte.total_cmp(&b.cycles_per_byte))?;
            Some(Versus {
                mode,
                frame_bytes: wlansec.frame_bytes,
                wlansec_multibuffer_cycles_per_byte: wlansec.cycles_per_byte,
                ipsec_mb_best: best.implementation,
                ipsec_mb_cycles_per_byte: best.cycles_per_byte,
                wlansec_speedup: best.cycles_per_byte / wlansec.cycles_per_byte,
            })
        })
        .collect()
}

/// The published layout: an N-way CBC-MAC (N chains advanced together) and an N-way CTR
/// (N counter blocks per step), each alone, with the `aes` crate's pipelined AES.
fn measure_mic_ctr(clock: &Clock, rng: &mut ChaCha8Rng) -> Vec<MicCtr> {
    let cipher = Aes128::new(&random_bytes(rng, 16)[..].try_into().expect("16 octets"));
    let mut rows = Vec::new();
    for ways in [1usize, 2, 4, 8] {
        for &bytes in &SIZES {
            let data = random_bytes(rng, bytes);
            let blocks: Vec<[u8; 16]> = data
                .chunks(16)
                .map(|c| {
                    let mut b = [0u8; 16];
                    b[..c.len()].copy_from_slice(c);
                    b
                })
                .collect();
            let mut states = vec![Array::<u8, _>::default(); ways];
            let mic = clock.measure(|| {
                // B0 and the two AAD blocks per chain, then the data round robin.
                for _ in 0..3 {
                    cipher.encrypt_blocks(&mut states);
                }
                for group in blocks.chunks(ways) {
                    for (state, block) in states.iter_mut().zip(group) {
                        for (s, b) in state.iter_mut().zip(block) {
                            *s ^= b;
                        }
                    }
                    cipher.encrypt_blocks(&mut states[..group.len()]);
                }
                std::hint::black_box(&states);
            });
            let mut counters = vec![Array::<u8, _>::default(); ways];
            let mut output = data.clone();
            let ctr = clock.measure(|| {
                for (step, chunk) in output.chunks_mut(16 * ways).enumerate() {
                    for (lane, counter) in counters.iter_mut().enumerate() {
                        counter[14..].copy_from_slice(&((step * ways + lane + 1) as u16).to_be_bytes());
                    }
                    let mut keystream = counters.clone();
                    cipher.encrypt_blocks(&mut keystream);
                    for (byte, k) in chunk.iter_mut().zip(keystream.iter().flatten()) {
                        *byte ^= k;
                    }
                }
                std::hint::black_box(&output);
            });
            rows.push(MicCtr {
                ways,
                frame_bytes: bytes,
                mic_us_per_frame: mic.ticks / clock.tsc_hz * 1e6,
                ctr_us_per_frame: ctr.ticks / clock.tsc_hz * 1e6,
            });
        }
    }
    rows
}

fn measure_threads(
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

fn print_report(report: &Report) {
    let m = &report.machine;
    println!(
        "CPU: {} ({} backend); TSC {:.3} GHz; core clock {:.3} GHz (TSC/core {:.3}); {}",
        m.cpu,
        m.backend,
        m.tsc_hz / 1e9,
        m.core_hz / 1e9,
        m.tsc_per_core_cycle,
        m.openssl
    );
    let b = &report.bound;
    println!(
        "AESENC: latency {:.2} cycles, throughput {:.2} cycles/instr{}",
        b.aesenc_latency_cycles,
        b.aesenc_throughput_cycles,
        b.vaesenc_zmm_throughput_cycles
            .map_or(String::new(), |v| format!("; VAESENC zmm {v:.2} cycles/instr (4 blocks)"))
    );
    for step in &b.lane_steps {
        println!(
            "multi-buffer step on {} registers alone, {} lanes: {:.1} cycles ({:.3} cycles/byte at 1500 bytes)",
            step.registers, step.lanes, step.cycles_per_step, step.cycles_per_byte_1500
        );
    }
    println!();
    println!(
        "{:<21} {:<12} {:>5} {:>6} {:>8} {:>8} {:>10} {:>9} {:>8}",
        "impl", "mode", "lanes", "bytes", "cyc/B", "GB/s", "us/frame", "bound", "of bound"
    );
    for (r, bound) in report.results.iter().zip(&b.per_result) {
        println!(
            "{:<21} {:<12} {:>5} {:>6} {:>8.3} {:>8.3} {:>10.3} {:>9.3} {:>7.0}%",
            r.implementation,
            r.mode,
            r.lanes,
            r.frame_bytes,
            r.cycles_per_byte,
            r.gb_per_s,
            r.us_per_frame,
            bound.bound_cycles_per_byte,
            100.0 * bound.fraction_of_bound
        );
    }
    println!();
    println!("Published layout: MIC (CBC-MAC) and CTR time, us per frame");
    print!("{:>6}", "bytes");
    for ways in [1, 2, 4, 8] {
        print!(" {:>10} {:>10}", format!("MIC {ways}-way"), format!("CTR {ways}-way"));
    }
    println!();
    for &bytes in &SIZES {
        print!("{bytes:>6}");
        for ways in [1, 2, 4, 8] {
            if let Some(row) = report.mic_ctr_split.iter().find(|r| r.ways == ways && r.frame_bytes == bytes) {
                print!(" {:>10.3} {:>10.3}", row.mic_us_per_frame, row.ctr_us_per_frame);
            }
        }
        println!();
    }
    println!();
    println!("One frame alone (LFENCE around each call) and back to back, core cycles per frame");
    for a in &report.alone {
        println!(
            "{:>6} bytes {:<8} {}: alone {:>8.1}, back to back {:>8.1}",
            a.frame_bytes, a.mode, a.lanes, a.cycles_per_frame_alone, a.cycles_per_frame_back_to_back
        );
    }
    println!();
    for t in &report.threads {
        println!(
            "sharded engine, {}: {} thread(s), {} x {}-byte frames: {:.3} GB/s (x{:.2}; {:.0}% of the multi-buffer \
             kernel, {:.0}% of it on as many frames; load {:.2} {:.2} {:.2})",
            t.direction,
            t.threads,
            t.frames,
            t.frame_bytes,
            t.gb_per_s,
            t.speedup,
            100.0 * t.of_kernel,
            100.0 * t.of_kernel_same_frames,
            t.load_average[0],
            t.load_average[1],
            t.load_average[2]
        );
    }
    if !report.versus_ipsec_mb.is_empty() {
        println!(
            "intel-ipsec-mb {} (init_mb_mgr_auto: {}); wlansec multi-buffer vs its fastest row, cycles/byte:",
            m.intel_ipsec_mb.version.as_deref().unwrap_or("?"),
            m.intel_ipsec_mb.arch.unwrap_or("?")
        );
        for v in &report.versus_ipsec_mb {
            let setting = match v.mode {
                MIXED => format!("mixed {}..{} (mean {})", MIXED_LENGTHS.start(), MIXED_LENGTHS.end(), v.frame_bytes),
                _ => format!("{:>6}", v.frame_bytes),
            };
            println!(
                "{setting} bytes: wlansec {:.3}, {} {:.3}: wlansec x{:.2}",
                v.wlansec_multibuffer_cycles_per_byte, v.ipsec_mb_best, v.ipsec_mb_cycles_per_byte, v.wlansec_speedup
            );
        }
        println!();
    }
    println!("load average at start: {:.2} {:.2} {:.2}", m.load_average[0], m.load_average[1], m.load_average[2]);
    println!();
    for note in &report.notes {
        println!("note: {note}");
    }
}
