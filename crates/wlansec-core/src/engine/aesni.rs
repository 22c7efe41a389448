//! The AES-NI backend: 128-bit registers, one AESENC per lane block and round, 2L blocks in
//! flight per round so the AESENC latency is hidden behind its throughput. Built twice: with
//! AES-NI alone, and with AVX-512VL + VAES so the compiler has 32 vector registers (EVEX
//! `vaesenc xmm`) on the one- and two-lane paths of the AVX-512 backend.

use core::arch::x86_64::*;

use super::enhanced::{CCMP_B0_FLAGS, CCMP_CTR_FLAGS};
use super::key::{Key, RoundKeys};
use super::lanes::{self, Blk, CcmBlocks, FrameTask, Kernel};
use super::stitched;

impl Blk for __m128i {
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: SSE2 is part of x86_64.
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    fn from_bytes(bytes: &[u8; 16]) -> Self {
        // SAFETY: 16 readable octets; SSE2 is part of x86_64.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    }
    #[inline(always)]
    fn to_bytes(self) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: 16 writable octets.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self) };
        out
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        unsafe { _mm_xor_si128(self, other) }
    }
    #[inline(always)]
    fn with_counter(base: Self, counter: u16) -> Self {
        // Octets 14, 15 are 16-bit word 7 (little-endian), so the big-endian counter is swapped.
        // SAFETY: SSE2 is part of x86_64.
        unsafe { _mm_insert_epi16::<7>(base, i32::from(counter.swap_bytes())) }
    }
    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        _mm_loadu_si128(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        _mm_storeu_si128(ptr.cast(), self)
    }
    /// One load and one store of the block that ends with the short block, its octets
    /// moved down and back up by `pshufb`: no branch on `r` and no block read back from
    /// narrower stores (the octet-wise form mispredicts on random lengths).
    #[inline(always)]
    unsafe fn partial_block_in_frame(ptr: *mut u8, r: usize, keystream: Self) -> (Self, Self) {
        let end = ptr.add(r).sub(16);
        let block = _mm_loadu_si128(end.cast());
        let down = _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(16 - r).cast());
        let up = _mm_loadu_si128(SHIFT_UP.as_ptr().add(r).cast());
        let input = _mm_shuffle_epi8(block, down);
        // The keystream's first r octets where the short block sits in `block`, and at 0..r.
        let keystream_up = _mm_shuffle_epi8(keystream, up);
        let output = _mm_xor_si128(input, _mm_shuffle_epi8(keystream_up, down));
        _mm_storeu_si128(end.cast(), _mm_xor_si128(block, keystream_up));
        (input, output)
    }
    /// In vector registers (SSSE3 shuffles): a quarter of the instructions of
    /// `lanes::ccm_blocks`, whose integer code was a fifth of a batch of 64-octet frames.
    #[inline(always)]
    unsafe fn ccm_blocks(a0: &[u8; 16], aad: &[u8], len: usize) -> CcmBlocks<Self> {
        let aad_len = aad.len();
        if aad_len < 16 {
            // 15 octets (no CCMP AAD is this short): not one 16-octet load.
            return CcmBlocks::<[u8; 16]>::map(lanes::ccm_blocks(a0, aad, len), |b| Self::from_bytes(&b));
        }
        let a0 = _mm_loadu_si128(a0.as_ptr().cast());
        let b0 = _mm_xor_si128(a0, _mm_cvtsi32_si128(i32::from(CCMP_B0_FLAGS ^ CCMP_CTR_FLAGS)));
        let b0 = _mm_insert_epi16::<7>(b0, i32::from((len as u16).swap_bytes()));
        // H_1: the length, AAD octets 0..14; H_2: octets 14.., zero-padded (the last 16
        // octets shifted down by 30 - len).
        let head = _mm_loadu_si128(aad.as_ptr().cast());
        let h1 = _mm_insert_epi16::<0>(_mm_slli_si128::<2>(head), i32::from((aad_len as u16).swap_bytes()));
        let tail = _mm_loadu_si128(aad.as_ptr().add(aad_len - 16).cast());
        let h2 = _mm_shuffle_epi8(tail, _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(30 - aad_len).cast()));
        [b0, a0, h1, h2]
    }
}

/// `SHIFT_UP[s..s + 16]`, as a `pshufb` control, moves octets 0.. to 16 - s.. and zeros the
/// rest (the inverse of `SHIFT_DOWN[16 - s..]`).
static SHIFT_UP: [u8; 32] = {
    let mut m = [0x80u8; 32];
    let mut i = 0;
    while i < 16 {
        m[16 + i] = i as u8;
        i += 1;
    }
    m
};

/// `SHIFT_DOWN[s..s + 16]`, as a `pshufb` control, moves octets s.. to 0.. and zeros the rest.
static SHIFT_DOWN: [u8; 32] = {
    let mut m = [0x80u8; 32];
    let mut i = 0;
    while i < 16 {
        m[i] = i as u8;
        i += 1;
    }
    m
};

pub(crate) struct AesNi;

/// AES-128 of one block (both the AES-NI and the VAES kernels' `Kernel::encrypt_block`).
///
/// # Safety
/// The CPU must have AES-NI.
#[inline(always)]
pub(crate) unsafe fn encrypt_block(keys: &RoundKeys, block: __m128i) -> __m128i {
    let mut b = _mm_xor_si128(block, _mm_load_si128(keys.0[0].as_ptr().cast()));
    for round in 1..10 {
        b = _mm_aesenc_si128(b, _mm_load_si128(keys.0[round].as_ptr().cast()));
    }
    _mm_aesenclast_si128(b, _mm_load_si128(keys.0[10].as_ptr().cast()))
}

/// `pshufb` control swapping octets 14 and 15 of a block (the counter's two octets).
pub(crate) const SWAP_COUNTER_OCTETS: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 14];

impl Kernel for AesNi {
    type B = __m128i;
    type V = __m128i;
    const W: usize = 1;
    type Keys<'k> = [&'k RoundKeys; 8];

    fn new_keys(first: &Key) -> [&RoundKeys; 8] {
        [&first.round_keys; 8]
    }

    #[inline(always)]
    fn set_key<'k>(keys: &mut [&'k RoundKeys; 8], lane: usize, key: &'k Key) {
        keys[lane] = &key.round_keys;
    }

    #[inline(always)]
    unsafe fn encrypt<const L: usize>(keys: &[&RoundKeys; 8], mac: &mut [__m128i; L], ctr: &mut [__m128i; L]) {
        // No closures: they would not inherit the caller's target features.
        for i in 0..L {
            let k = _mm_load_si128(keys[i].0[0].as_ptr().cast());
            mac[i] = _mm_xor_si128(mac[i], k);
            ctr[i] = _mm_xor_si128(ctr[i], k);
        }
        for round in 1..10 {
            for i in 0..L {
                let k = _mm_load_si128(keys[i].0[round].as_ptr().cast());
                mac[i] = _mm_aesenc_si128(mac[i], k);
                ctr[i] = _mm_aesenc_si128(ctr[i], k);
            }
        }
        for i in 0..L {
            let k = _mm_load_si128(keys[i].0[10].as_ptr().cast());
            mac[i] = _mm_aesenclast_si128(mac[i], k);
            ctr[i] = _mm_aesenclast_si128(ctr[i], k);
        }
    }

    #[inline(always)]
    unsafe fn whiten<const L: usize>(keys: &[&RoundKeys; 8], v: &mut [__m128i; L]) {
        for i in 0..L {
            v[i] = _mm_xor_si128(v[i], _mm_load_si128(keys[i].0[0].as_ptr().cast()));
        }
    }

    #[inline(always)]
    unsafe fn encrypt_block(key: &Key, block: __m128i) -> __m128i {
        encrypt_block(&key.round_keys, block)
    }

    type FrameKeys<'k> = [__m128i; 11];

    #[inline(always)]
    unsafe fn frame_keys(key: &Key) -> [__m128i; 11] {
        let mut keys = [_mm_setzero_si128(); 11];
        for (k, rk) in keys.iter_mut().zip(&key.round_keys.0) {
            *k = _mm_load_si128(rk.as_ptr().cast());
        }
        keys
    }
    #[inline(always)]
    unsafe fn first_round_key(keys: &[__m128i; 11]) -> __m128i {
        keys[0]
    }
    #[inline(always)]
    unsafe fn last_round_key(keys: &[__m128i; 11]) -> __m128i {
        keys[10]
    }
    #[inline(always)]
    unsafe fn encrypt_frame<const L: usize>(
        keys: &[__m128i; 11],
        mac: &mut [__m128i; L],
        mac_last: &[__m128i; L],
        ctr: &mut [__m128i; L],
        ctr_lanes: usize,
    ) {
        for c in ctr.iter_mut().take(ctr_lanes) {
            *c = _mm_xor_si128(*c, keys[0]);
        }
        for k in &keys[1..10] {
            for g in 0..L {
                mac[g] = _mm_aesenc_si128(mac[g], *k);
                if g < ctr_lanes {
                    ctr[g] = _mm_aesenc_si128(ctr[g], *k);
                }
            }
        }
        for g in 0..L {
            mac[g] = _mm_aesenclast_si128(mac[g], mac_last[g]);
            if g < ctr_lanes {
                ctr[g] = _mm_aesenclast_si128(ctr[g], keys[10]);
            }
        }
    }
    #[inline(always)]
    unsafe fn load_run(ptr: *const u8) -> __m128i {
        _mm_loadu_si128(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store_run(ptr: *mut u8, v: __m128i) {
        _mm_storeu_si128(ptr.cast(), v)
    }

    #[inline(always)]
    unsafe fn gather(blocks: &[__m128i]) -> __m128i {
        blocks[0]
    }
    #[inline(always)]
    unsafe fn scatter(v: __m128i, blocks: &mut [__m128i]) {
        blocks[0] = v;
    }
    #[inline(always)]
    unsafe fn load(ptrs: &[*mut u8]) -> __m128i {
        _mm_loadu_si128(ptrs[0].cast())
    }
    #[inline(always)]
    unsafe fn store(v: __m128i, ptrs: &[*mut u8]) {
        _mm_storeu_si128(ptrs[0].cast(), v)
    }
    #[inline(always)]
    unsafe fn xor(a: __m128i, b: __m128i) -> __m128i {
        _mm_xor_si128(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: __m128i, b: __m128i) -> __m128i {
        _mm_and_si128(a, b)
    }
    #[inline(always)]
    unsafe fn add_counters(counters: __m128i, steps: __m128i) -> __m128i {
        _mm_add_epi16(counters, steps)
    }
    #[inline(always)]
    unsafe fn counter_blocks(counters: __m128i) -> __m128i {
        _mm_shuffle_epi8(counters, _mm_loadu_si128(SWAP_COUNTER_OCTETS.as_ptr().cast()))
    }
}

/// # Safety
/// The CPU must have AES-NI and SSE4.1; see `stitched::run_frame`.
#[target_feature(enable = "aes,sse4.1")]
pub(crate) unsafe fn frame<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    stitched::run_frame::<AesNi, L, OPEN>(task)
}

/// # Safety
/// The CPU must have AES-NI, AVX-512F/VL and VAES; see `stitched::run_frame`.
#[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512vl,vaes")]
pub(crate) unsafe fn frame_avx512<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    stitched::run_frame::<AesNi, L, OPEN>(task)
}

/// # Safety
/// The CPU must have AES-NI and SSE4.1; see `lanes::run`.
#[target_feature(enable = "aes,sse4.1")]
pub(crate) unsafe fn run<const L: usize>(tasks: &mut [FrameTask<'_>]) {
    lanes::run::<AesNi, L>(tasks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::enhanced::{aad_blocks, ccmp_b0, counter_block, NONCE_LEN};

    /// The SSSE3 blocks (which every x86 kernel builds its frames from) and the integer ones
    /// (portable kernel, AAD of 15 octets) against the reference model's, for every AAD
    /// length the engine takes and lengths at the ends of the length field.
    #[test]
    fn ccm_blocks_match_the_reference_model() {
        if !(std::arch::is_x86_feature_detected!("ssse3") && std::arch::is_x86_feature_detected!("sse4.1")) {
            eprintln!("skipped: this CPU lacks SSSE3/SSE4.1");
            return;
        }
        let nonce: [u8; NONCE_LEN] = core::array::from_fn(|i| 0xa0 ^ (17 * i as u8));
        let a0 = *crate::suite::ccmp::CounterBlock::from_nonce(&nonce).as_bytes();
        assert_eq!(a0, counter_block(&nonce, 0));
        // Nonzero octets follow the AAD, so H_2's zero padding is checked.
        let buffer: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
        for aad_len in 15..=30 {
            let aad = &buffer[..aad_len];
            let h = aad_blocks(aad).unwrap();
            for len in [0usize, 1, 15, 64, 1500, 0x1234, 0xffff] {
                let expected = [ccmp_b0(&nonce, len), a0, h[0], h[1]];
                assert_eq!(lanes::ccm_blocks(&a0, aad, len), expected, "integer, AAD {aad_len}, len {len}");
                // SAFETY: SSSE3 and SSE4.1 are present (checked above).
                let vector = unsafe { ccm_blocks_sse(&a0, aad, len) };
                assert_eq!(vector.map(|b| b.to_bytes()), expected, "SSSE3, AAD {aad_len}, len {len}");
            }
        }
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    unsafe fn ccm_blocks_sse(a0: &[u8; 16], aad: &[u8], len: usize) -> CcmBlocks<__m128i> {
        <__m128i as Blk>::ccm_blocks(a0, aad, len)
    }
}
