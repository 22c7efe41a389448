//! The AES-NI bound, measured in the run: AESENC latency and throughput (and the 512-bit
//! VAESENC's where the CPU has it), the multi-buffer kernel's step on registers alone, and for
//! every row the bound of its setting and the fraction of it reached.

use serde::Serialize;
use wlansec_core::engine::Backend;

use super::clock::{Clock, Measured};
use super::frames::MIXED;

const AES_ROUNDS: f64 = 10.0;

#[derive(Serialize)]
pub struct Bound {
    pub aesenc_latency_cycles: f64,
    /// Core cycles per AESENC (128-bit) when enough independent blocks are in flight.
    pub aesenc_throughput_cycles: f64,
    /// Core cycles per 512-bit VAESENC (four blocks), where the CPU has VAES.
    pub vaesenc_zmm_throughput_cycles: Option<f64>,
    /// The multi-buffer kernel's step on registers alone (`lane_step_ceilings`).
    pub lane_steps: Vec<LaneStep>,
    /// Per result: the AES-NI bound for that setting and the fraction of it achieved
    /// (bound cycles/byte divided by measured cycles/byte).
    pub per_result: Vec<BoundOf>,
}

/// One step of the multi-buffer kernel's structure (per lane one MAC block, its input XORed
/// with data and round key 0, and one counter block, through 10 rounds) with nothing else:
/// no loads of data, no stores, no shuffles, the round keys from the L1 cache. What the
/// kernel's design could reach on this core at best; the step's AES throughput bound is
/// `2 * lanes / blocks_per_register` VAESENCs a round.
#[derive(Serialize)]
pub struct LaneStep {
    pub registers: &'static str,
    pub lanes: usize,
    pub cycles_per_step: f64,
    /// A 1500-octet frame's 3 + 94 steps over the lanes.
    pub cycles_per_byte_1500: f64,
}

/// A row's bound: `per_result`'s entry for the row at the same index.
#[derive(Serialize)]
pub struct BoundOf {
    #[serde(rename = "impl")]
    pub implementation: &'static str,
    pub mode: &'static str,
    pub lanes: usize,
    pub frame_bytes: usize,
    pub bound_cycles_per_byte: f64,
    pub fraction_of_bound: f64,
}

/// 8 dependent AESENCs per iteration. VEX encoding, as the engine's kernels are compiled:
/// legacy-SSE AESENC after 256/512-bit code pays a false dependency on the upper register
/// half (one more cycle of latency on this class of CPU).
///
/// # Safety
///
/// The CPU has AES-NI and AVX.
#[cfg(target_arch = "x86_64")]
unsafe fn aesenc_latency(iterations: u64) {
    // SAFETY: the caller guarantees AES-NI and AVX (VEX-encoded AESENC); the loop touches
    // only the registers it declares.
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
///
/// # Safety
///
/// The CPU has AES-NI and AVX.
#[cfg(target_arch = "x86_64")]
unsafe fn aesenc_throughput(iterations: u64) {
    // SAFETY: the caller guarantees AES-NI and AVX (VEX-encoded AESENC); the loop touches
    // only the registers it declares.
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
///
/// # Safety
///
/// The CPU has AVX-512F and VAES.
#[cfg(target_arch = "x86_64")]
unsafe fn vaesenc_throughput(iterations: u64) {
    // SAFETY: the caller guarantees AVX-512F and VAES; the loop touches only the registers it
    // declares.
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
    ($(#[$doc:meta])* $name:ident, needs $needs:literal, $register:literal, $width:literal, order $order:literal,
     inputs [$($input:literal),+]) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        #[doc = concat!("The CPU has ", $needs, ".")]
        #[cfg(target_arch = "x86_64")]
        unsafe fn $name(iterations: u64, keys: &RoundKeyRegisters) {
            // SAFETY: the caller guarantees the instructions. The loop reads round keys 0 to 10
            // at `keys + r * width`, width at most 64: inside the 11 × 64 octets of `keys`; it
            // writes only registers (`clobber_abi("C")` declares every vector register).
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
    lane_steps_zmm8, needs "AVX-512F and VAES", "zmm", 64, order "0, 2, 1, 3",
    inputs ["vpternlogq zmm0, zmm14, [rdx], 0x96", "vpternlogq zmm1, zmm14, [rdx], 0x96",
            "vpxorq zmm2, zmm15, [rdx]", "vpxorq zmm3, zmm15, [rdx]"]
);

lane_steps!(
    /// As `lane_steps_zmm8`, 16 lanes.
    lane_steps_zmm16, needs "AVX-512F and VAES", "zmm", 64, order "0, 4, 1, 5, 2, 6, 3, 7",
    inputs ["vpternlogq zmm0, zmm14, [rdx], 0x96", "vpternlogq zmm1, zmm14, [rdx], 0x96",
            "vpternlogq zmm2, zmm14, [rdx], 0x96", "vpternlogq zmm3, zmm14, [rdx], 0x96",
            "vpxorq zmm4, zmm15, [rdx]", "vpxorq zmm5, zmm15, [rdx]",
            "vpxorq zmm6, zmm15, [rdx]", "vpxorq zmm7, zmm15, [rdx]"]
);

lane_steps!(
    /// 8 lanes on 256-bit registers (AVX2 + VAES, 16 registers: keys from memory, two XORs for
    /// the MAC input).
    lane_steps_ymm8, needs "AVX2 and VAES", "ymm", 32, order "0, 4, 1, 5, 2, 6, 3, 7",
    inputs ["vpxor ymm0, ymm0, ymm14", "vpxor ymm0, ymm0, [rdx]", "vpxor ymm1, ymm1, ymm14", "vpxor ymm1, ymm1, [rdx]",
            "vpxor ymm2, ymm2, ymm14", "vpxor ymm2, ymm2, [rdx]", "vpxor ymm3, ymm3, ymm14", "vpxor ymm3, ymm3, [rdx]",
            "vpxor ymm4, ymm15, [rdx]", "vpxor ymm5, ymm15, [rdx]", "vpxor ymm6, ymm15, [rdx]", "vpxor ymm7, ymm15, [rdx]"]
);

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

/// The instruction timings and lane steps; `per_result` follows once the rows are measured.
pub fn measure(clock: &Clock) -> Bound {
    let iterations = 2_000;
    // SAFETY: a `Clock` exists only once `calibrate` has found AES-NI and AVX.
    let latency = clock.measure(|| unsafe { aesenc_latency(iterations) }).cycles / (8.0 * iterations as f64);
    // SAFETY: as for `latency`.
    let throughput = clock.measure(|| unsafe { aesenc_throughput(iterations) }).cycles / (12.0 * iterations as f64);
    let zmm = std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("vaes");
    // SAFETY: run only where `zmm`: AVX-512F and VAES detected.
    let vaes =
        zmm.then(|| clock.measure(|| unsafe { vaesenc_throughput(iterations) }).cycles / (12.0 * iterations as f64));
    Bound {
        aesenc_latency_cycles: latency,
        aesenc_throughput_cycles: throughput,
        vaesenc_zmm_throughput_cycles: vaes,
        lane_steps: lane_step_ceilings(clock),
        per_result: Vec::new(),
    }
}

/// One of the `lane_steps_*` loops: iterations, round keys.
type StepLoop = unsafe fn(u64, &RoundKeyRegisters);

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
            // SAFETY: `has` found the instructions of this loop's registers.
            let cycles_per_step = clock.measure(|| unsafe { steps(iterations, &keys) }).cycles / iterations as f64;
            let cycles_per_byte_1500 = (3.0 + (1500.0f64 / 16.0).ceil()) * cycles_per_step / lanes as f64 / 1500.0;
            LaneStep { registers, lanes, cycles_per_step, cycles_per_byte_1500 }
        })
        .collect()
}

/// Every row's bound, in the rows' order.
pub fn per_result(bound: &Bound, results: &[Measured], backend: Backend) -> Vec<BoundOf> {
    results
        .iter()
        .map(|r| {
            // The engine's VAES kernels take settings of four lanes or more; intel-ipsec-mb is
            // held to the best this CPU has.
            let vaes = (matches!(backend, Backend::Avx512Vaes | Backend::Avx2Vaes)
                && r.implementation == "wlansec"
                && r.lanes >= 4)
                || r.implementation.starts_with("ipsec-mb");
            let b = bound_cpb(bound, r.mode, r.lanes, r.frame_bytes, vaes);
            BoundOf {
                implementation: r.implementation,
                mode: r.mode,
                lanes: r.lanes,
                frame_bytes: r.frame_bytes,
                bound_cycles_per_byte: b,
                fraction_of_bound: b / r.cycles_per_byte,
            }
        })
        .collect()
}
