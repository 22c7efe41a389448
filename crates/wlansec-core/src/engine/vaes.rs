//! The VAES backend for 16-lane batches: four lanes share one 512-bit register and one
//! VAESENC, each lane with its own round keys (packed four to a register when a lane takes a
//! new frame), so 32 blocks are in flight with 8 VAESENC per round.

use core::arch::x86_64::*;

use super::key::Key;
use super::lanes::{self, FrameTask, Kernel};

/// Round keys of 16 lanes: `[group][round][lane in group]`.
#[repr(C, align(64))]
pub(crate) struct PackedKeys([[[[u8; 16]; 4]; 11]; 4]);

pub(crate) struct Vaes;

impl Kernel for Vaes {
    type B = __m128i;
    type Keys<'k> = PackedKeys;

    fn new_keys(first: &Key) -> PackedKeys {
        let mut keys = PackedKeys([[[[0; 16]; 4]; 11]; 4]);
        for lane in 0..16 {
            Self::set_key(&mut keys, lane, first);
        }
        keys
    }

    #[inline(always)]
    fn set_key(keys: &mut PackedKeys, lane: usize, key: &Key) {
        let group = &mut keys.0[lane / 4];
        for (round, rk) in key.round_keys.0.iter().enumerate() {
            group[round][lane % 4] = *rk;
        }
    }

    #[inline(always)]
    unsafe fn encrypt<const L: usize>(keys: &PackedKeys, mac: &mut [__m128i; L], ctr: &mut [__m128i; L]) {
        const { assert!(L == 16) };
        let rk = |group: usize, round: usize| _mm512_load_si512(keys.0[group][round].as_ptr().cast());
        let pack = |b: &[__m128i; L], g: usize| {
            let v = _mm512_castsi128_si512(b[4 * g]);
            let v = _mm512_inserti32x4::<1>(v, b[4 * g + 1]);
            let v = _mm512_inserti32x4::<2>(v, b[4 * g + 2]);
            _mm512_inserti32x4::<3>(v, b[4 * g + 3])
        };
        let mut m: [__m512i; 4] = core::array::from_fn(|g| pack(mac, g));
        let mut c: [__m512i; 4] = core::array::from_fn(|g| pack(ctr, g));
        for g in 0..4 {
            m[g] = _mm512_xor_si512(m[g], rk(g, 0));
            c[g] = _mm512_xor_si512(c[g], rk(g, 0));
        }
        for round in 1..10 {
            for g in 0..4 {
                m[g] = _mm512_aesenc_epi128(m[g], rk(g, round));
                c[g] = _mm512_aesenc_epi128(c[g], rk(g, round));
            }
        }
        for g in 0..4 {
            m[g] = _mm512_aesenclast_epi128(m[g], rk(g, 10));
            c[g] = _mm512_aesenclast_epi128(c[g], rk(g, 10));
        }
        for g in 0..4 {
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
