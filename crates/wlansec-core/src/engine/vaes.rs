//! The VAES kernel for 4 and 8 lanes (Enhanced N = 4, 8 and batches): four lanes share one
//! 512-bit register and one VAESENC, each lane with its own round keys (packed four to a
//! register when a lane takes a frame with another key), so 8 lanes keep 16 blocks in flight
//! with 4 VAESENC per round.

use core::arch::x86_64::*;

use super::key::Key;
use super::lanes::{self, FrameTask, Kernel};

const MAX_LANES: usize = 8;

/// Round keys of 8 lanes, `[group][round][lane in group]`, and which key each lane holds.
#[repr(C, align(64))]
pub(crate) struct PackedKeys {
    rounds: [[[[u8; 16]; 4]; 11]; MAX_LANES / 4],
    holds: [*const Key; MAX_LANES],
}

pub(crate) struct Vaes;

impl Kernel for Vaes {
    type B = __m128i;
    type Keys<'k> = PackedKeys;

    /// Idle lanes' keys do not matter (their blocks are discarded); each lane's key is set
    /// when it takes a frame.
    fn new_keys(_first: &Key) -> PackedKeys {
        PackedKeys { rounds: [[[[0; 16]; 4]; 11]; MAX_LANES / 4], holds: [core::ptr::null(); MAX_LANES] }
    }

    #[inline(always)]
    fn set_key(keys: &mut PackedKeys, lane: usize, key: &Key) {
        if core::ptr::eq(keys.holds[lane], key) {
            return;
        }
        keys.holds[lane] = key;
        let group = &mut keys.rounds[lane / 4];
        for (round, rk) in key.round_keys.0.iter().enumerate() {
            group[round][lane % 4] = *rk;
        }
    }

    #[inline(always)]
    unsafe fn encrypt<const L: usize>(keys: &PackedKeys, mac: &mut [__m128i; L], ctr: &mut [__m128i; L]) {
        const { assert!(L.is_multiple_of(4) && L <= MAX_LANES) };
        // No closures here: a closure does not inherit the caller's target features, so
        // the AVX-512 intrinsics in it would become calls.
        let groups = L / 4;
        let mut m = [_mm512_setzero_si512(); MAX_LANES / 4];
        let mut c = [_mm512_setzero_si512(); MAX_LANES / 4];
        for g in 0..groups {
            let k0 = _mm512_load_si512(keys.rounds[g][0].as_ptr().cast());
            let v = _mm512_castsi128_si512(mac[4 * g]);
            let v = _mm512_inserti32x4::<1>(v, mac[4 * g + 1]);
            let v = _mm512_inserti32x4::<2>(v, mac[4 * g + 2]);
            m[g] = _mm512_xor_si512(_mm512_inserti32x4::<3>(v, mac[4 * g + 3]), k0);
            let v = _mm512_castsi128_si512(ctr[4 * g]);
            let v = _mm512_inserti32x4::<1>(v, ctr[4 * g + 1]);
            let v = _mm512_inserti32x4::<2>(v, ctr[4 * g + 2]);
            c[g] = _mm512_xor_si512(_mm512_inserti32x4::<3>(v, ctr[4 * g + 3]), k0);
        }
        for round in 1..10 {
            for g in 0..groups {
                let k = _mm512_load_si512(keys.rounds[g][round].as_ptr().cast());
                m[g] = _mm512_aesenc_epi128(m[g], k);
                c[g] = _mm512_aesenc_epi128(c[g], k);
            }
        }
        for g in 0..groups {
            let k = _mm512_load_si512(keys.rounds[g][10].as_ptr().cast());
            m[g] = _mm512_aesenclast_epi128(m[g], k);
            c[g] = _mm512_aesenclast_epi128(c[g], k);
        }
        for g in 0..groups {
            mac[4 * g] = _mm512_castsi512_si128(m[g]);
            mac[4 * g + 1] = _mm512_extracti32x4_epi32::<1>(m[g]);
            mac[4 * g + 2] = _mm512_extracti32x4_epi32::<2>(m[g]);
            mac[4 * g + 3] = _mm512_extracti32x4_epi32::<3>(m[g]);
            ctr[4 * g] = _mm512_castsi512_si128(c[g]);
            ctr[4 * g + 1] = _mm512_extracti32x4_epi32::<1>(c[g]);
            ctr[4 * g + 2] = _mm512_extracti32x4_epi32::<2>(c[g]);
            ctr[4 * g + 3] = _mm512_extracti32x4_epi32::<3>(c[g]);
        }
    }
}

/// # Safety
/// The CPU must have AES-NI, AVX-512F/VL and VAES; see `lanes::run`.
#[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512vl,vaes")]
pub(crate) unsafe fn run<const L: usize>(tasks: &mut [FrameTask<'_>]) {
    lanes::run::<Vaes, L>(tasks)
}
