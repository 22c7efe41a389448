//! The VAES kernels: several lanes share one wide register and one VAESENC, each lane with
//! its own round keys (packed side by side when a lane takes a frame with another key).
//!
//! * [`Vaes512`] (AVX-512): four lanes per 512-bit register, so 8 lanes keep 16 blocks in
//!   flight with 4 VAESENC per round.
//! * [`Vaes256`] (AVX2 + VAES, for CPUs with VAES on 256-bit registers and no AVX-512, such
//!   as Zen 3): two lanes per 256-bit register, 8 VAESENC per round for 8 lanes.
//!
//! Both are one kernel, [`Vaes`], over the register width ([`Wide`]: the dozen instructions
//! the kernel uses, per width), so the load/step/store bodies exist once.

use core::arch::x86_64::*;
use core::marker::PhantomData;

use super::aesni::SWAP_COUNTER_OCTETS;
use super::key::Key;
use super::lanes::{self, FrameTask, Kernel};
use super::stitched;

const MAX_LANES: usize = 8;
/// `PackedKeys`' entry of round key 10 XOR round key 0.
const FOLD: usize = 11;

/// Round keys of 8 lanes, `[round][lane]`: the keys of one round for W adjacent lanes
/// (W = 2 or 4, the group starting at a multiple of W) are one aligned load. After the 11
/// rounds, `FOLD`: round key 10 XOR round key 0, the last round of a MAC block whose output
/// goes on whitened (`Kernel::encrypt_whitened`).
#[repr(C, align(64))]
pub(crate) struct PackedKeys {
    rounds: [[[u8; 16]; MAX_LANES]; 12],
    holds: [*const Key; MAX_LANES],
}

impl PackedKeys {
    /// Idle lanes' keys do not matter (their blocks are discarded); each lane's key is set
    /// when it takes a frame.
    fn new() -> Self {
        PackedKeys { rounds: [[[0; 16]; MAX_LANES]; 12], holds: [core::ptr::null(); MAX_LANES] }
    }

    #[inline(always)]
    fn set(&mut self, lane: usize, key: &Key) {
        if core::ptr::eq(self.holds[lane], key) {
            return;
        }
        self.holds[lane] = key;
        let rk = &key.round_keys.0;
        for (round, k) in rk.iter().enumerate() {
            self.rounds[round][lane] = *k;
        }
        self.rounds[FOLD][lane] = core::array::from_fn(|i| rk[10][i] ^ rk[0][i]);
    }

    /// `set` of lanes `0..L`, a group of lanes at a time: each round's keys of a group
    /// gathered in a register and stored whole, as the kernel loads them. (Stored lane by
    /// lane, they are read back by loads that span several stores still in flight, which
    /// wait until the stores reach the cache: 64-octet frames, every frame under its own
    /// key, 0.14 cycles/byte.)
    #[inline(always)]
    unsafe fn set_groups<R: Wide, const L: usize>(&mut self, lane_keys: &[&Key; L]) {
        for g in 0..L / R::W {
            let group = &lane_keys[g * R::W..(g + 1) * R::W];
            if group.iter().zip(&self.holds[g * R::W..]).all(|(k, held)| core::ptr::eq(*k, *held)) {
                continue;
            }
            for (lane, key) in group.iter().enumerate() {
                self.holds[g * R::W + lane] = *key;
            }
            let mut first_last = [R::zero(); 2];
            for round in 0..11 {
                let mut blocks = [_mm_setzero_si128(); 4];
                for (block, key) in blocks.iter_mut().zip(group) {
                    *block = _mm_load_si128(key.round_keys.0[round].as_ptr().cast());
                }
                let keys = R::gather(&blocks);
                R::store_keys(self.rounds[round][g * R::W].as_mut_ptr(), keys);
                match round {
                    0 => first_last[0] = keys,
                    10 => first_last[1] = keys,
                    _ => {}
                }
            }
            R::store_keys(self.rounds[FOLD][g * R::W].as_mut_ptr(), R::xor(first_last[0], first_last[1]));
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

/// A register of `W` lanes' blocks side by side, and the instructions the kernel uses on it.
pub(crate) trait Wide: Copy {
    const W: usize;
    /// # Safety (every function)
    /// The CPU features of the register's width must be present; pointers valid for
    /// `16 * W` octets (`load_keys`: aligned to them), `ptrs[..W]` for 16 octets each.
    unsafe fn zero() -> Self;
    unsafe fn broadcast(block: __m128i) -> Self;
    unsafe fn load_keys(ptr: *const u8) -> Self;
    unsafe fn store_keys(ptr: *mut u8, v: Self);
    unsafe fn load_run(ptr: *const u8) -> Self;
    unsafe fn store_run(ptr: *mut u8, v: Self);
    unsafe fn gather(blocks: &[__m128i]) -> Self;
    unsafe fn scatter(v: Self, blocks: &mut [__m128i]);
    /// Lane `at` (< W), and `v` with it replaced: in registers, without a branch (a block
    /// stored over a register's copy in memory and read back whole stalls the load until
    /// the stores reach the cache).
    unsafe fn extract(v: Self, at: usize) -> __m128i;
    unsafe fn insert(v: Self, at: usize, block: __m128i) -> Self;
    unsafe fn load(ptrs: &[*mut u8]) -> Self;
    unsafe fn store(v: Self, ptrs: &[*mut u8]);
    unsafe fn aesenc(v: Self, key: Self) -> Self;
    unsafe fn aesenclast(v: Self, key: Self) -> Self;
    unsafe fn xor(a: Self, b: Self) -> Self;
    unsafe fn and(a: Self, b: Self) -> Self;
    unsafe fn add_epi16(a: Self, b: Self) -> Self;
    unsafe fn shuffle_epi8(v: Self, control: Self) -> Self;
}

impl Wide for __m512i {
    const W: usize = 4;
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm512_setzero_si512()
    }
    #[inline(always)]
    unsafe fn broadcast(block: __m128i) -> Self {
        _mm512_broadcast_i32x4(block)
    }
    #[inline(always)]
    unsafe fn load_keys(ptr: *const u8) -> Self {
        _mm512_load_si512(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store_keys(ptr: *mut u8, v: Self) {
        _mm512_store_si512(ptr.cast(), v)
    }
    #[inline(always)]
    unsafe fn load_run(ptr: *const u8) -> Self {
        _mm512_loadu_si512(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store_run(ptr: *mut u8, v: Self) {
        _mm512_storeu_si512(ptr.cast(), v)
    }
    #[inline(always)]
    unsafe fn gather(blocks: &[__m128i]) -> Self {
        let v = _mm512_castsi128_si512(blocks[0]);
        let v = _mm512_inserti32x4::<1>(v, blocks[1]);
        let v = _mm512_inserti32x4::<2>(v, blocks[2]);
        _mm512_inserti32x4::<3>(v, blocks[3])
    }
    #[inline(always)]
    unsafe fn scatter(v: Self, blocks: &mut [__m128i]) {
        blocks[0] = _mm512_castsi512_si128(v);
        blocks[1] = _mm512_extracti32x4_epi32::<1>(v);
        blocks[2] = _mm512_extracti32x4_epi32::<2>(v);
        blocks[3] = _mm512_extracti32x4_epi32::<3>(v);
    }
    #[inline(always)]
    unsafe fn extract(v: Self, at: usize) -> __m128i {
        let down = _mm512_add_epi32(
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm512_set1_epi32(4 * at as i32),
        );
        _mm512_castsi512_si128(_mm512_permutexvar_epi32(down, v))
    }
    #[inline(always)]
    unsafe fn insert(v: Self, at: usize, block: __m128i) -> Self {
        _mm512_mask_broadcast_i32x4(v, 0xf << (4 * at), block)
    }
    #[inline(always)]
    unsafe fn load(ptrs: &[*mut u8]) -> Self {
        let v = _mm512_castsi128_si512(_mm_loadu_si128(ptrs[0].cast()));
        let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(ptrs[1].cast()));
        let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(ptrs[2].cast()));
        _mm512_inserti32x4::<3>(v, _mm_loadu_si128(ptrs[3].cast()))
    }
    #[inline(always)]
    unsafe fn store(v: Self, ptrs: &[*mut u8]) {
        _mm_storeu_si128(ptrs[0].cast(), _mm512_castsi512_si128(v));
        _mm_storeu_si128(ptrs[1].cast(), _mm512_extracti32x4_epi32::<1>(v));
        _mm_storeu_si128(ptrs[2].cast(), _mm512_extracti32x4_epi32::<2>(v));
        _mm_storeu_si128(ptrs[3].cast(), _mm512_extracti32x4_epi32::<3>(v));
    }
    #[inline(always)]
    unsafe fn aesenc(v: Self, key: Self) -> Self {
        _mm512_aesenc_epi128(v, key)
    }
    #[inline(always)]
    unsafe fn aesenclast(v: Self, key: Self) -> Self {
        _mm512_aesenclast_epi128(v, key)
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        _mm512_xor_si512(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        _mm512_and_si512(a, b)
    }
    #[inline(always)]
    unsafe fn add_epi16(a: Self, b: Self) -> Self {
        _mm512_add_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn shuffle_epi8(v: Self, control: Self) -> Self {
        _mm512_shuffle_epi8(v, control)
    }
}

impl Wide for __m256i {
    const W: usize = 2;
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm256_setzero_si256()
    }
    #[inline(always)]
    unsafe fn broadcast(block: __m128i) -> Self {
        _mm256_broadcastsi128_si256(block)
    }
    #[inline(always)]
    unsafe fn load_keys(ptr: *const u8) -> Self {
        _mm256_load_si256(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store_keys(ptr: *mut u8, v: Self) {
        _mm256_store_si256(ptr.cast(), v)
    }
    #[inline(always)]
    unsafe fn load_run(ptr: *const u8) -> Self {
        _mm256_loadu_si256(ptr.cast())
    }
    #[inline(always)]
    unsafe fn store_run(ptr: *mut u8, v: Self) {
        _mm256_storeu_si256(ptr.cast(), v)
    }
    #[inline(always)]
    unsafe fn gather(blocks: &[__m128i]) -> Self {
        _mm256_set_m128i(blocks[1], blocks[0])
    }
    #[inline(always)]
    unsafe fn scatter(v: Self, blocks: &mut [__m128i]) {
        blocks[0] = _mm256_castsi256_si128(v);
        blocks[1] = _mm256_extracti128_si256::<1>(v);
    }
    #[inline(always)]
    unsafe fn extract(v: Self, at: usize) -> __m128i {
        let down = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(4 * at as i32));
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, down))
    }
    #[inline(always)]
    unsafe fn insert(v: Self, at: usize, block: __m128i) -> Self {
        let lane = _mm256_cmpeq_epi32(_mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), _mm256_set1_epi32(at as i32));
        _mm256_blendv_epi8(v, _mm256_broadcastsi128_si256(block), lane)
    }
    #[inline(always)]
    unsafe fn load(ptrs: &[*mut u8]) -> Self {
        _mm256_loadu2_m128i(ptrs[1].cast(), ptrs[0].cast())
    }
    #[inline(always)]
    unsafe fn store(v: Self, ptrs: &[*mut u8]) {
        _mm256_storeu2_m128i(ptrs[1].cast(), ptrs[0].cast(), v)
    }
    #[inline(always)]
    unsafe fn aesenc(v: Self, key: Self) -> Self {
        _mm256_aesenc_epi128(v, key)
    }
    #[inline(always)]
    unsafe fn aesenclast(v: Self, key: Self) -> Self {
        _mm256_aesenclast_epi128(v, key)
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        _mm256_xor_si256(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        _mm256_and_si256(a, b)
    }
    #[inline(always)]
    unsafe fn add_epi16(a: Self, b: Self) -> Self {
        _mm256_add_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn shuffle_epi8(v: Self, control: Self) -> Self {
        _mm256_shuffle_epi8(v, control)
    }
}

/// The VAES kernel on registers of type `R`.
pub(crate) struct Vaes<R>(PhantomData<R>);

pub(crate) type Vaes512 = Vaes<__m512i>;
pub(crate) type Vaes256 = Vaes<__m256i>;

/// `Kernel::encrypt` on registers of type `R`; with `WHITENED`, `Kernel::encrypt_whitened`.
///
/// # Safety
/// As `Kernel::encrypt`.
// No closures in the kernels: a closure does not inherit the caller's target features, so
// the intrinsics in it would become calls.
#[inline(always)]
unsafe fn encrypt_lanes<R: Wide, const L: usize, const WHITENED: bool>(
    keys: &PackedKeys,
    mac: &mut [R; L],
    ctr: &mut [R; L],
) {
    const { assert!(L.is_multiple_of(R::W) && L <= MAX_LANES) };
    if !WHITENED {
        for g in 0..L / R::W {
            let k = R::load_keys(keys.at(0, R::W * g));
            mac[g] = R::xor(mac[g], k);
            ctr[g] = R::xor(ctr[g], k);
        }
    }
    for round in 1..10 {
        for g in 0..L / R::W {
            let k = R::load_keys(keys.at(round, R::W * g));
            mac[g] = R::aesenc(mac[g], k);
            ctr[g] = R::aesenc(ctr[g], k);
        }
    }
    let mac_last = if WHITENED { FOLD } else { 10 };
    for g in 0..L / R::W {
        mac[g] = R::aesenclast(mac[g], R::load_keys(keys.at(mac_last, R::W * g)));
        ctr[g] = R::aesenclast(ctr[g], R::load_keys(keys.at(10, R::W * g)));
    }
}

impl<R: Wide> Kernel for Vaes<R> {
    type B = __m128i;
    type V = R;
    const W: usize = R::W;
    type Keys<'k> = PackedKeys;

    fn new_keys(_first: &Key) -> PackedKeys {
        PackedKeys::new()
    }

    #[inline(always)]
    fn set_key(keys: &mut PackedKeys, lane: usize, key: &Key) {
        keys.set(lane, key)
    }
    #[inline(always)]
    unsafe fn set_keys<const L: usize>(keys: &mut PackedKeys, lane_keys: &[&Key; L]) {
        keys.set_groups::<R, L>(lane_keys)
    }

    #[inline(always)]
    unsafe fn encrypt<const L: usize>(keys: &PackedKeys, mac: &mut [R; L], ctr: &mut [R; L]) {
        encrypt_lanes::<R, L, false>(keys, mac, ctr)
    }
    #[inline(always)]
    unsafe fn whiten<const L: usize>(keys: &PackedKeys, v: &mut [R; L]) {
        for (g, group) in v.iter_mut().enumerate().take(L / R::W) {
            *group = R::xor(*group, R::load_keys(keys.at(0, R::W * g)));
        }
    }
    #[inline(always)]
    unsafe fn encrypt_block(key: &Key, block: __m128i) -> __m128i {
        super::aesni::encrypt_block(&key.round_keys, block)
    }
    #[inline(always)]
    unsafe fn encrypt_whitened<const L: usize>(keys: &PackedKeys, mac: &mut [R; L], ctr: &mut [R; L]) {
        encrypt_lanes::<R, L, true>(keys, mac, ctr)
    }

    type FrameKeys<'k> = [R; 11];

    #[inline(always)]
    unsafe fn frame_keys(key: &Key) -> [R; 11] {
        let mut keys = [R::zero(); 11];
        for (k, rk) in keys.iter_mut().zip(&key.round_keys.0) {
            *k = R::broadcast(_mm_load_si128(rk.as_ptr().cast()));
        }
        keys
    }
    #[inline(always)]
    unsafe fn first_round_key(keys: &[R; 11]) -> R {
        keys[0]
    }
    #[inline(always)]
    unsafe fn last_round_key(keys: &[R; 11]) -> R {
        keys[10]
    }
    #[inline(always)]
    unsafe fn encrypt_frame<const L: usize>(
        keys: &[R; 11],
        mac: &mut [R; L],
        mac_last: &[R; L],
        ctr: &mut [R; L],
        ctr_lanes: usize,
    ) {
        let ctr_groups = ctr_lanes.div_ceil(R::W);
        for c in ctr.iter_mut().take(ctr_groups) {
            *c = R::xor(*c, keys[0]);
        }
        for k in &keys[1..10] {
            for g in 0..L / R::W {
                mac[g] = R::aesenc(mac[g], *k);
                if g < ctr_groups {
                    ctr[g] = R::aesenc(ctr[g], *k);
                }
            }
        }
        for g in 0..L / R::W {
            mac[g] = R::aesenclast(mac[g], mac_last[g]);
            if g < ctr_groups {
                ctr[g] = R::aesenclast(ctr[g], keys[10]);
            }
        }
    }
    #[inline(always)]
    unsafe fn load_run(ptr: *const u8) -> R {
        R::load_run(ptr)
    }
    #[inline(always)]
    unsafe fn store_run(ptr: *mut u8, v: R) {
        R::store_run(ptr, v)
    }
    #[inline(always)]
    unsafe fn gather(blocks: &[__m128i]) -> R {
        R::gather(blocks)
    }
    #[inline(always)]
    unsafe fn scatter(v: R, blocks: &mut [__m128i]) {
        R::scatter(v, blocks)
    }
    #[inline(always)]
    unsafe fn extract_lane(v: R, at: usize) -> __m128i {
        R::extract(v, at)
    }
    #[inline(always)]
    unsafe fn insert_lane(v: R, at: usize, block: __m128i) -> R {
        R::insert(v, at, block)
    }
    #[inline(always)]
    unsafe fn load(ptrs: &[*mut u8]) -> R {
        R::load(ptrs)
    }
    #[inline(always)]
    unsafe fn store(v: R, ptrs: &[*mut u8]) {
        R::store(v, ptrs)
    }
    #[inline(always)]
    unsafe fn xor(a: R, b: R) -> R {
        R::xor(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: R, b: R) -> R {
        R::and(a, b)
    }
    #[inline(always)]
    unsafe fn add_counters(counters: R, steps: R) -> R {
        R::add_epi16(counters, steps)
    }
    #[inline(always)]
    unsafe fn counter_blocks(counters: R) -> R {
        R::shuffle_epi8(counters, R::broadcast(_mm_loadu_si128(SWAP_COUNTER_OCTETS.as_ptr().cast())))
    }
}
