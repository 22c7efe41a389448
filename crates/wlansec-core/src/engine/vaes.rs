//! The VAES kernels: several lanes share one wide register and one VAESENC, each lane with
//! its own round keys (packed side by side when a lane takes a frame with another key).
//!
//! * [`Vaes512`] (AVX-512): four lanes per 512-bit register, so 8 lanes keep 16 blocks in
//!   flight with 4 VAESENC per round.
//! * [`Vaes256`] (AVX2 + VAES, for CPUs with VAES on 256-bit registers and no AVX-512, such
//!   as Zen 3): two lanes per 256-bit register, 8 VAESENC per round for 8 lanes.

use core::arch::x86_64::*;

use super::aesni::SWAP_COUNTER_OCTETS;
use super::key::Key;
use super::lanes::{self, FrameTask, Kernel};
use super::stitched;

const MAX_LANES: usize = 8;

/// Round keys of 8 lanes, `[round][lane]`: the keys of one round for W adjacent lanes
/// (W = 2 or 4, the group starting at a multiple of W) are one aligned load.
#[repr(C, align(64))]
pub(crate) struct PackedKeys {
    rounds: [[[u8; 16]; MAX_LANES]; 11],
    holds: [*const Key; MAX_LANES],
}

impl PackedKeys {
    /// Idle lanes' keys do not matter (their blocks are discarded); each lane's key is set
    /// when it takes a frame.
    fn new() -> Self {
        PackedKeys { rounds: [[[0; 16]; MAX_LANES]; 11], holds: [core::ptr::null(); MAX_LANES] }
    }

    #[inline(always)]
    fn set(&mut self, lane: usize, key: &Key) {
        if core::ptr::eq(self.holds[lane], key) {
            return;
        }
        self.holds[lane] = key;
        for (round, rk) in key.round_keys.0.iter().enumerate() {
            self.rounds[round][lane] = *rk;
        }
    }

    /// The keys of `round` for the lanes from `first`.
    #[inline(always)]
    fn at(&self, round: usize, first: usize) -> *const u8 {
        self.rounds[round][first].as_ptr()
    }
}

/// # Safety
/// The CPU must have AES-NI, AVX-512F/BW/VL and VAES; see `stitched::run_frame`.
#[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512bw,avx512vl,vaes")]
pub(crate) unsafe fn frame512<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    stitched::run_frame::<Vaes512, L, OPEN>(task)
}

/// # Safety
/// The CPU must have AES-NI, AVX2 and VAES; see `stitched::run_frame`.
#[target_feature(enable = "aes,sse4.1,avx,avx2,vaes")]
pub(crate) unsafe fn frame256<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    stitched::run_frame::<Vaes256, L, OPEN>(task)
}

/// # Safety
/// The CPU must have AES-NI, AVX-512F/BW/VL and VAES; see `lanes::run`.
#[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512bw,avx512vl,vaes")]
pub(crate) unsafe fn run512<const L: usize>(tasks: &mut [FrameTask<'_>]) {
    lanes::run::<Vaes512, L>(tasks)
}

/// # Safety
/// The CPU must have AES-NI, AVX2 and VAES; see `lanes::run`.
#[target_feature(enable = "aes,sse4.1,avx,avx2,vaes")]
pub(crate) unsafe fn run256<const L: usize>(tasks: &mut [FrameTask<'_>]) {
    lanes::run::<Vaes256, L>(tasks)
}

pub(crate) struct Vaes512;

impl Kernel for Vaes512 {
    type B = __m128i;
    type V = __m512i;
    const W: usize = 4;
    type Keys<'k> = PackedKeys;

    fn new_keys(_first: &Key) -> PackedKeys {
        PackedKeys::new()
    }

    #[inline(always)]
    fn set_key(keys: &mut PackedKeys, lane: usize, key: &Key) {
        keys.set(lane, key)
    }

    // No closures in the kernels: a closure does not inherit the caller's target features,
    // so the intrinsics in it would become calls.
    #[inline(always)]
    unsafe fn encrypt<const L: usize>(keys: &PackedKeys, mac: &mut [__m512i; L], ctr: &mut [__m512i; L]) {
        const { assert!(L.is_multiple_of(4) && L <= MAX_LANES) };
        for g in 0..L / 4 {
            let k = _mm512_load_si512(keys.at(0, 4 * g).cast());
            mac[g] = _mm512_xor_si512(mac[g], k);
            ctr[g] = _mm512_xor_si512(ctr[g], k);
        }
        for round in 1..10 {
            for g in 0..L / 4 {
                let k = _mm512_load_si512(keys.at(round, 4 * g).cast());
                mac[g] = _mm512_aesenc_epi128(mac[g], k);
                ctr[g] = _mm512_aesenc_epi128(ctr[g], k);
            }
        }
        for g in 0..L / 4 {
            let k = _mm512_load_si512(keys.at(10, 4 * g).cast());
            mac[g] = _mm512_aesenclast_epi128(mac[g], k);
            ctr[g] = _mm512_aesenclast_epi128(ctr[g], k);
        }
    }

    type FrameKeys<'k> = [__m512i; 11];

    #[inline(always)]
    unsafe fn frame_keys(key: &Key) -> [__m512i; 11] {
        let mut keys = [_mm512_setzero_si512(); 11];
        for (k, rk) in keys.iter_mut().zip(&key.round_keys.0) {
            *k = _mm512_broadcast_i32x4(_mm_load_si128(rk.as_ptr().cast()));
        }
        keys
    }
    #[inline(always)]
    unsafe fn first_round_key(keys: &[__m512i; 11]) -> __m512i {
        keys[0]
    }
    #[inline(always)]
    unsafe fn last_round_key(keys: &[__m512i; 11]) -> __m512i {
        keys[10]
    }
    #[inline(always)]
    unsafe fn encrypt_frame<const L: usize>(
        keys: &[__m512i; 11],
        mac: &mut [__m512i; L],
        mac_last: &[__m512i; L],
        ctr: &mut [__m512i; L],
    ) {
        for c in ctr.iter_mut().take(L / 4) {
            *c = _mm512_xor_si512(*c, keys[0]);
        }
        for k in &keys[1..10] {
            for g in 0..L / 4 {
                mac[g] = _mm512_aesenc_epi128(mac[g], *k);
                ctr[g] = _mm512_aesenc_epi128(ctr[g], *k);
            }
        }
        for g in 0..L / 4 {
            mac[g] = _mm512_aesenclast_epi128(mac[g], mac_last[g]);
            ctr[g] = _mm512_aesenclast_epi128(ctr[g], keys[10]);
        }
    }
    #[inline(always)]
    unsafe fn load_run(ptr: *const u8) -> __m512i {
        _mm512_loadu_si512(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store_run(ptr: *mut u8, v: __m512i) {
        _mm512_storeu_si512(ptr.cast(), v)
    }

    #[inline(always)]
    unsafe fn gather(blocks: &[__m128i]) -> __m512i {
        let v = _mm512_castsi128_si512(blocks[0]);
        let v = _mm512_inserti32x4::<1>(v, blocks[1]);
        let v = _mm512_inserti32x4::<2>(v, blocks[2]);
        _mm512_inserti32x4::<3>(v, blocks[3])
    }
    #[inline(always)]
    unsafe fn scatter(v: __m512i, blocks: &mut [__m128i]) {
        blocks[0] = _mm512_castsi512_si128(v);
        blocks[1] = _mm512_extracti32x4_epi32::<1>(v);
        blocks[2] = _mm512_extracti32x4_epi32::<2>(v);
        blocks[3] = _mm512_extracti32x4_epi32::<3>(v);
    }
    #[inline(always)]
    unsafe fn load(ptrs: &[*mut u8]) -> __m512i {
        let v = _mm512_castsi128_si512(_mm_loadu_si128(ptrs[0].cast()));
        let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(ptrs[1].cast()));
        let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(ptrs[2].cast()));
        _mm512_inserti32x4::<3>(v, _mm_loadu_si128(ptrs[3].cast()))
    }
    #[inline(always)]
    unsafe fn store(v: __m512i, ptrs: &[*mut u8]) {
        _mm_storeu_si128(ptrs[0].cast(), _mm512_castsi512_si128(v));
        _mm_storeu_si128(ptrs[1].cast(), _mm512_extracti32x4_epi32::<1>(v));
        _mm_storeu_si128(ptrs[2].cast(), _mm512_extracti32x4_epi32::<2>(v));
        _mm_storeu_si128(ptrs[3].cast(), _mm512_extracti32x4_epi32::<3>(v));
    }
    #[inline(always)]
    unsafe fn xor(a: __m512i, b: __m512i) -> __m512i {
        _mm512_xor_si512(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: __m512i, b: __m512i) -> __m512i {
        _mm512_and_si512(a, b)
    }
    #[inline(always)]
    unsafe fn add_counters(counters: __m512i, steps: __m512i) -> __m512i {
        _mm512_add_epi16(counters, steps)
    }
    #[inline(always)]
    unsafe fn counter_blocks(counters: __m512i) -> __m512i {
        let swap = _mm512_broadcast_i32x4(_mm_loadu_si128(SWAP_COUNTER_OCTETS.as_ptr().cast()));
        _mm512_shuffle_epi8(counters, swap)
    }
}

pub(crate) struct Vaes256;

impl Kernel for Vaes256 {
    type B = __m128i;
    type V = __m256i;
    const W: usize = 2;
    type Keys<'k> = PackedKeys;

    fn new_keys(_first: &Key) -> PackedKeys {
        PackedKeys::new()
    }

    #[inline(always)]
    fn set_key(keys: &mut PackedKeys, lane: usize, key: &Key) {
        keys.set(lane, key)
    }

    #[inline(always)]
    unsafe fn encrypt<const L: usize>(keys: &PackedKeys, mac: &mut [__m256i; L], ctr: &mut [__m256i; L]) {
        const { assert!(L.is_multiple_of(2) && L <= MAX_LANES) };
        for g in 0..L / 2 {
            let k = _mm256_load_si256(keys.at(0, 2 * g).cast());
            mac[g] = _mm256_xor_si256(mac[g], k);
            ctr[g] = _mm256_xor_si256(ctr[g], k);
        }
        for round in 1..10 {
            for g in 0..L / 2 {
                let k = _mm256_load_si256(keys.at(round, 2 * g).cast());
                mac[g] = _mm256_aesenc_epi128(mac[g], k);
                ctr[g] = _mm256_aesenc_epi128(ctr[g], k);
            }
        }
        for g in 0..L / 2 {
            let k = _mm256_load_si256(keys.at(10, 2 * g).cast());
            mac[g] = _mm256_aesenclast_epi128(mac[g], k);
            ctr[g] = _mm256_aesenclast_epi128(ctr[g], k);
        }
    }

    type FrameKeys<'k> = [__m256i; 11];

    #[inline(always)]
    unsafe fn frame_keys(key: &Key) -> [__m256i; 11] {
        let mut keys = [_mm256_setzero_si256(); 11];
        for (k, rk) in keys.iter_mut().zip(&key.round_keys.0) {
            *k = _mm256_broadcastsi128_si256(_mm_load_si128(rk.as_ptr().cast()));
        }
        keys
    }
    #[inline(always)]
    unsafe fn first_round_key(keys: &[__m256i; 11]) -> __m256i {
        keys[0]
    }
    #[inline(always)]
    unsafe fn last_round_key(keys: &[__m256i; 11]) -> __m256i {
        keys[10]
    }
    #[inline(always)]
    unsafe fn encrypt_frame<const L: usize>(
        keys: &[__m256i; 11],
        mac: &mut [__m256i; L],
        mac_last: &[__m256i; L],
        ctr: &mut [__m256i; L],
    ) {
        for c in ctr.iter_mut().take(L / 2) {
            *c = _mm256_xor_si256(*c, keys[0]);
        }
        for k in &keys[1..10] {
            for g in 0..L / 2 {
                mac[g] = _mm256_aesenc_epi128(mac[g], *k);
                ctr[g] = _mm256_aesenc_epi128(ctr[g], *k);
            }
        }
        for g in 0..L / 2 {
            mac[g] = _mm256_aesenclast_epi128(mac[g], mac_last[g]);
            ctr[g] = _mm256_aesenclast_epi128(ctr[g], keys[10]);
        }
    }
    #[inline(always)]
    unsafe fn load_run(ptr: *const u8) -> __m256i {
        _mm256_loadu_si256(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store_run(ptr: *mut u8, v: __m256i) {
        _mm256_storeu_si256(ptr.cast(), v)
    }

    #[inline(always)]
    unsafe fn gather(blocks: &[__m128i]) -> __m256i {
        _mm256_set_m128i(blocks[1], blocks[0])
    }
    #[inline(always)]
    unsafe fn scatter(v: __m256i, blocks: &mut [__m128i]) {
        blocks[0] = _mm256_castsi256_si128(v);
        blocks[1] = _mm256_extracti128_si256::<1>(v);
    }
    #[inline(always)]
    unsafe fn load(ptrs: &[*mut u8]) -> __m256i {
        _mm256_loadu2_m128i(ptrs[1].cast(), ptrs[0].cast())
    }
    #[inline(always)]
    unsafe fn store(v: __m256i, ptrs: &[*mut u8]) {
        _mm256_storeu2_m128i(ptrs[1].cast(), ptrs[0].cast(), v)
    }
    #[inline(always)]
    unsafe fn xor(a: __m256i, b: __m256i) -> __m256i {
        _mm256_xor_si256(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: __m256i, b: __m256i) -> __m256i {
        _mm256_and_si256(a, b)
    }
    #[inline(always)]
    unsafe fn add_counters(counters: __m256i, steps: __m256i) -> __m256i {
        _mm256_add_epi16(counters, steps)
    }
    #[inline(always)]
    unsafe fn counter_blocks(counters: __m256i) -> __m256i {
        let swap = _mm256_broadcastsi128_si256(_mm_loadu_si128(SWAP_COUNTER_OCTETS.as_ptr().cast()));
        _mm256_shuffle_epi8(counters, swap)
    }
}
