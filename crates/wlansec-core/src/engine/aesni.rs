//! The AES-NI backend: 128-bit registers, one AESENC per lane block and round, 2L blocks in
//! flight per round so the AESENC latency is hidden behind its throughput. Built twice: with
//! AES-NI alone, and with AVX-512VL + VAES so the compiler has 32 vector registers (EVEX
//! `vaesenc xmm`) on the one- and two-lane paths of the AVX-512 backend.

use core::arch::x86_64::*;

use super::enhanced::{CCMP_B0_FLAGS, CCMP_CTR_FLAGS};
use super::kernel::{self, Blk, CcmBlocks, FrameTask, Kernel};
use super::key::{Key, RoundKeys};
use super::lanes;
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

/// The AES-NI kernel. A value is the proof that the CPU has AES-NI and SSE4.1 (so SSSE3):
/// only `AesNi::new` makes one.
#[derive(Clone, Copy)]
pub(crate) struct AesNi(());

impl AesNi {
    /// Safe to call only where AES-NI and SSE4.1 are enabled: a `#[target_feature]` function
    /// that enables them, or after the run-time check (`Backend::is_available`).
    #[target_feature(enable = "aes,sse4.1")]
    #[inline]
    pub(crate) fn new() -> Self {
        AesNi(())
    }

    /// Round key `round` of `keys`.
    #[inline(always)]
    pub(crate) fn round_key(self, keys: &RoundKeys, round: usize) -> __m128i {
        // SAFETY: SSE2 is part of x86_64; the round keys are 16-octet aligned (`RoundKeys`
        // is `align(16)`).
        unsafe { _mm_load_si128(keys.0[round].as_ptr().cast()) }
    }

    /// AES-128 of one block (both the AES-NI and the VAES kernels' `Kernel::encrypt_block`).
    #[inline(always)]
    pub(crate) fn encrypt_round_keys(self, keys: &RoundKeys, block: __m128i) -> __m128i {
        // SAFETY: `self` proves AES-NI (`AesNi::new`); the round keys are 16-octet aligned
        // (`RoundKeys` is `align(16)`).
        unsafe {
            let mut b = _mm_xor_si128(block, _mm_load_si128(keys.0[0].as_ptr().cast()));
            for round in 1..10 {
                b = _mm_aesenc_si128(b, _mm_load_si128(keys.0[round].as_ptr().cast()));
            }
            _mm_aesenclast_si128(b, _mm_load_si128(keys.0[10].as_ptr().cast()))
        }
    }

    /// `Kernel::ccm_blocks` in vector registers (SSSE3 shuffles): a quarter of the
    /// instructions of `kernel::ccm_blocks`, whose integer code was a fifth of a batch of
    /// 64-octet frames.
    ///
    /// # Safety
    /// As `Kernel::ccm_blocks`.
    #[inline(always)]
    pub(crate) unsafe fn ccm_blocks(self, a0: &[u8; 16], aad: &[u8], len: usize) -> CcmBlocks<__m128i> {
        let aad_len = aad.len();
        if aad_len < 16 {
            // 15 octets (no CCMP AAD is this short): not one 16-octet load.
            return CcmBlocks::<[u8; 16]>::map(kernel::ccm_blocks(a0, aad, len), |b| __m128i::from_bytes(&b));
        }
        // SAFETY: `self` proves SSSE3 and SSE4.1 (`AesNi::new`); the AAD's first and last 16
        // octets are in it (16 <= its length), and `SHIFT_DOWN[30 - aad_len..][..16]` is in
        // the 32-octet table (its length is at most 30: the caller's contract).
        unsafe {
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

    /// `Kernel::partial_block_in_frame`: one load and one store of the block that ends with
    /// the short block, its octets moved down and back up by `pshufb`: no branch on `r` and
    /// no block read back from narrower stores (the octet-wise form mispredicts on random
    /// lengths).
    ///
    /// # Safety
    /// As `Kernel::partial_block_in_frame`.
    #[inline(always)]
    pub(crate) unsafe fn partial_block_in_frame(
        self,
        ptr: *mut u8,
        r: usize,
        keystream: __m128i,
    ) -> (__m128i, __m128i) {
        // SAFETY: the 16 octets that end with the `r` at `ptr` are the frame's (the caller's
        // contract); `16 - r` and `r` (< 16) start 16-octet runs of the 32-octet tables;
        // `self` proves SSSE3 (`AesNi::new`).
        unsafe {
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
    }
}

/// `pshufb` control swapping octets 14 and 15 of a block (the counter's two octets).
pub(crate) const SWAP_COUNTER_OCTETS: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 14];

// Every method's `unsafe` block stands on the same two facts: `self` proves AES-NI and
// SSE4.1 (`AesNi::new`), and the round keys are 16-octet aligned (`RoundKeys`).
impl Kernel for AesNi {
    type B = __m128i;
    type V = __m128i;
    const W: usize = 1;
    type Keys<'k> = [&'k RoundKeys; 8];

    fn new_keys(self, first: &Key) -> [&RoundKeys; 8] {
        [&first.round_keys; 8]
    }

    #[inline(always)]
    fn set_key<'k>(self, keys: &mut [&'k RoundKeys; 8], lane: usize, key: &'k Key) {
        keys[lane] = &key.round_keys;
    }

    #[inline(always)]
    fn encrypt<const L: usize>(self, keys: &[&RoundKeys; 8], mac: &mut [__m128i; L], ctr: &mut [__m128i; L]) {
        // No closures: they would not inherit the caller's target features.
        // SAFETY: AES-NI (`self`); aligned round keys.
        unsafe {
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
    }

    #[inline(always)]
    fn whiten<const L: usize>(self, keys: &[&RoundKeys; 8], v: &mut [__m128i; L]) {
        for i in 0..L {
            // SAFETY: aligned round keys.
            v[i] = unsafe { _mm_xor_si128(v[i], _mm_load_si128(keys[i].0[0].as_ptr().cast())) };
        }
    }

    #[inline(always)]
    fn encrypt_block(self, key: &Key, block: __m128i) -> __m128i {
        self.encrypt_round_keys(&key.round_keys, block)
    }

    type FrameKeys<'k> = [__m128i; 11];

    #[inline(always)]
    fn frame_keys(self, key: &Key) -> [__m128i; 11] {
        let mut keys = [__m128i::zero(); 11];
        for (k, rk) in keys.iter_mut().zip(&key.round_keys.0) {
            // SAFETY: aligned round keys.
            *k = unsafe { _mm_load_si128(rk.as_ptr().cast()) };
        }
        keys
    }
    #[inline(always)]
    fn first_round_key(self, keys: &[__m128i; 11]) -> __m128i {
        keys[0]
    }
    #[inline(always)]
    fn last_round_key(self, keys: &[__m128i; 11]) -> __m128i {
        keys[10]
    }
    #[inline(always)]
    fn encrypt_frame<const L: usize>(
        self,
        keys: &[__m128i; 11],
        mac: &mut [__m128i; L],
        mac_last: &[__m128i; L],
        ctr: &mut [__m128i; L],
        ctr_lanes: usize,
    ) {
        // SAFETY: AES-NI (`self`).
        unsafe {
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
    }
    #[inline(always)]
    unsafe fn load_run(self, ptr: *const u8) -> __m128i {
        // SAFETY: `ptr` is valid for reading 16 octets (the caller's contract, W = 1).
        unsafe { _mm_loadu_si128(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn store_run(self, ptr: *mut u8, v: __m128i) {
        // SAFETY: `ptr` is valid for writing 16 octets (the caller's contract, W = 1).
        unsafe { _mm_storeu_si128(ptr.cast(), v) }
    }

    #[inline(always)]
    fn gather(self, blocks: &[__m128i]) -> __m128i {
        blocks[0]
    }
    #[inline(always)]
    fn scatter(self, v: __m128i, blocks: &mut [__m128i]) {
        blocks[0] = v;
    }
    #[inline(always)]
    unsafe fn load(self, ptrs: &[*mut u8]) -> __m128i {
        // SAFETY: `ptrs[0]` is valid for reading 16 octets (the caller's contract).
        unsafe { _mm_loadu_si128(ptrs[0].cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, v: __m128i, ptrs: &[*mut u8]) {
        // SAFETY: `ptrs[0]` is valid for writing 16 octets (the caller's contract).
        unsafe { _mm_storeu_si128(ptrs[0].cast(), v) }
    }
    #[inline(always)]
    fn xor(self, a: __m128i, b: __m128i) -> __m128i {
        a.xor(b)
    }
    #[inline(always)]
    fn and(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86_64.
        unsafe { _mm_and_si128(a, b) }
    }
    #[inline(always)]
    fn add_counters(self, counters: __m128i, steps: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86_64.
        unsafe { _mm_add_epi16(counters, steps) }
    }
    #[inline(always)]
    fn counter_blocks(self, counters: __m128i) -> __m128i {
        // SAFETY: SSSE3 (`self`).
        unsafe { _mm_shuffle_epi8(counters, __m128i::from_bytes(&SWAP_COUNTER_OCTETS)) }
    }
    #[inline(always)]
    unsafe fn ccm_blocks(self, a0: &[u8; 16], aad: &[u8], len: usize) -> CcmBlocks<__m128i> {
        // SAFETY: the same contract.
        unsafe { AesNi::ccm_blocks(self, a0, aad, len) }
    }
    #[inline(always)]
    unsafe fn partial_block_in_frame(self, ptr: *mut u8, r: usize, keystream: __m128i) -> (__m128i, __m128i) {
        // SAFETY: the same contract.
        unsafe { AesNi::partial_block_in_frame(self, ptr, r, keystream) }
    }
}

/// One frame (`stitched::run_frame`) on the AES-NI kernel.
///
/// # Safety
/// The CPU must have AES-NI and SSE4.1; the task as `FrameTask` requires.
#[target_feature(enable = "aes,sse4.1")]
pub(crate) unsafe fn frame<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    // SAFETY: the caller vouches for the task.
    unsafe { stitched::run_frame::<AesNi, L, OPEN>(AesNi::new(), task) }
}

/// `frame` built with AVX-512VL and VAES too, so the compiler has 32 vector registers.
///
/// # Safety
/// The CPU must have AES-NI, AVX-512F/VL and VAES; the task as `FrameTask` requires.
#[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512vl,vaes")]
pub(crate) unsafe fn frame_avx512<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    // SAFETY: the caller vouches for the task.
    unsafe { stitched::run_frame::<AesNi, L, OPEN>(AesNi::new(), task) }
}

/// A batch (`lanes::run`) on the AES-NI kernel.
///
/// # Safety
/// The CPU must have AES-NI and SSE4.1; the tasks as `FrameTask` requires.
#[target_feature(enable = "aes,sse4.1")]
pub(crate) unsafe fn run<const L: usize>(tasks: &mut [FrameTask<'_>]) {
    // SAFETY: the caller vouches for the tasks.
    unsafe { lanes::run::<AesNi, L>(AesNi::new(), tasks) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::enhanced::{aad_blocks, ccmp_b0, counter_block, NONCE_LEN};

    /// The SSSE3 blocks (which every x86 kernel builds its frames from) and the integer ones
    /// (portable kernel, AAD of 15 octets) against the reference model's, for every AAD
    /// length the engine takes and lengths at the ends of the length field. (The integer
    /// blocks are checked on any CPU.)
    #[test]
    fn ccm_blocks_match_the_reference_model_on_aes_ni() {
        let vector = std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse4.1");
        if !vector {
            eprintln!("skipped: this CPU lacks AES-NI/SSE4.1 (the integer blocks are still checked)");
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
                assert_eq!(kernel::ccm_blocks(&a0, aad, len), expected, "integer, AAD {aad_len}, len {len}");
                if vector {
                    // SAFETY: AES-NI and SSE4.1 are present (checked above).
                    let blocks = unsafe { ccm_blocks_sse(&a0, aad, len) };
                    assert_eq!(blocks.map(|b| b.to_bytes()), expected, "SSSE3, AAD {aad_len}, len {len}");
                }
            }
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    fn ccm_blocks_sse(a0: &[u8; 16], aad: &[u8], len: usize) -> CcmBlocks<__m128i> {
        assert!((15..=30).contains(&aad.len()));
        // SAFETY: the AAD is 15..=30 octets (asserted).
        unsafe { AesNi::new().ccm_blocks(a0, aad, len) }
    }
}
