//! The VAES kernels: several lanes share one wide register and one VAESENC, each lane with
//! its own round keys (packed side by side when a lane takes a frame with another key).
//!
//! * [`Vaes512`] (AVX-512): four lanes per 512-bit register, so 8 lanes keep 16 blocks in
//!   flight with 4 VAESENC per round, 16 lanes (where the CPU issues two VAESENCs a cycle,
//!   `Backend::lanes`) 32 blocks with 8.
//! * [`Vaes256`] (AVX2 + VAES, for CPUs with VAES on 256-bit registers and no AVX-512, such
//!   as Zen 3): two lanes per 256-bit register, 8 VAESENC per round for 8 lanes.
//!
//! Both are one kernel, [`Vaes`], over the register width ([`Wide`]: the dozen instructions
//! the kernel uses, per width), so the load/step/store bodies exist once. A width's value
//! ([`Zmm`], [`Ymm`]) is the proof that the CPU has its features, so the instructions on
//! registers are safe methods; each holds its one intrinsic in an `unsafe` block.

use core::arch::x86_64::*;

use super::aesni::{AesNi, SWAP_COUNTER_OCTETS};
use super::kernel::{Blk, CcmBlocks, FrameTask, Kernel};
use super::key::Key;
use super::lanes;
use super::stitched;

const MAX_LANES: usize = 16;
/// `PackedKeys`' entry of round key 10 XOR round key 0.
const FOLD: usize = 11;

/// Round keys of up to 16 lanes, `[round][lane]`: the keys of one round for W adjacent lanes
/// (W = 2 or 4, the group starting at a multiple of W) are one aligned load. After the 11
/// rounds, `FOLD`: round key 10 XOR round key 0, the last round of a MAC block whose output
/// goes on whitened (`Kernel::encrypt_whitened`). `holds` borrows the key each lane's
/// schedule came from, so a lane that takes a frame under the key it holds skips the copy.
#[repr(C, align(64))]
pub(crate) struct PackedKeys<'k> {
    rounds: [[[u8; 16]; MAX_LANES]; 12],
    holds: [Option<&'k Key>; MAX_LANES],
}

impl<'k> PackedKeys<'k> {
    /// Idle lanes' keys do not matter (their blocks are discarded); each lane's key is set
    /// when it takes a frame.
    fn new() -> Self {
        PackedKeys { rounds: [[[0; 16]; MAX_LANES]; 12], holds: [None; MAX_LANES] }
    }

    /// Whether lane `lane` holds `key`'s schedule (the same key, by address; `None` is null,
    /// which no key is, so one comparison).
    #[inline(always)]
    fn holds(&self, lane: usize, key: &Key) -> bool {
        core::ptr::eq(self.holds[lane].map_or(core::ptr::null(), |held| held), key)
    }

    #[inline(always)]
    fn set(&mut self, lane: usize, key: &'k Key) {
        if self.holds(lane, key) {
            return;
        }
        self.holds[lane] = Some(key);
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
    fn set_groups<T: Wide, const L: usize>(&mut self, wide: T, lane_keys: &[&'k Key; L]) {
        const { assert!(L.is_multiple_of(T::W) && L <= MAX_LANES) };
        for g in 0..L / T::W {
            let group = &lane_keys[g * T::W..(g + 1) * T::W];
            let held = &self.holds[g * T::W..(g + 1) * T::W];
            if group.iter().zip(held).all(|(key, held)| core::ptr::eq(held.map_or(core::ptr::null(), |h| h), *key)) {
                continue;
            }
            for (lane, key) in group.iter().enumerate() {
                self.holds[g * T::W + lane] = Some(*key);
            }
            let mut first_last = [wide.zero(); 2];
            for round in 0..11 {
                let mut blocks = [__m128i::zero(); 4];
                for (block, key) in blocks.iter_mut().zip(group) {
                    *block = wide.aesni().round_key(&key.round_keys, round);
                }
                let keys = wide.gather(&blocks);
                // SAFETY: group g < L / W, and L <= MAX_LANES (asserted above).
                unsafe { self.store_group(wide, round, g, keys) };
                match round {
                    0 => first_last[0] = keys,
                    10 => first_last[1] = keys,
                    _ => {}
                }
            }
            // SAFETY: as above.
            unsafe { self.store_group(wide, FOLD, g, wide.xor(first_last[0], first_last[1])) };
        }
    }

    /// The keys of `round` for the lanes of group `g` (lanes `g * W..(g + 1) * W`).
    ///
    /// # Safety
    /// `(g + 1) * W` <= `MAX_LANES`.
    #[inline(always)]
    unsafe fn group<T: Wide>(&self, wide: T, round: usize, g: usize) -> T::R {
        debug_assert!((g + 1) * T::W <= MAX_LANES);
        // SAFETY: the group's `16 * W` octets are in the round's row (the caller's contract),
        // at a multiple of `16 * W` from the row's start, which is 64-octet aligned (a row is
        // 128 octets of the `align(64)` struct).
        unsafe { wide.load_keys(self.rounds[round].as_ptr().add(g * T::W).cast()) }
    }

    /// # Safety
    /// As `group`.
    #[inline(always)]
    unsafe fn store_group<T: Wide>(&mut self, wide: T, round: usize, g: usize, keys: T::R) {
        debug_assert!((g + 1) * T::W <= MAX_LANES);
        // SAFETY: as in `group`.
        unsafe { wide.store_keys(self.rounds[round].as_mut_ptr().add(g * T::W).cast(), keys) }
    }
}

/// One frame (`stitched::run_frame`) on the zmm kernel.
///
/// # Safety
/// The CPU must have AES-NI, AVX-512F/BW/VL and VAES; the task as `FrameTask` requires.
#[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512bw,avx512vl,vaes")]
pub(crate) unsafe fn frame512<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    // SAFETY: the caller vouches for the task.
    unsafe { stitched::run_frame::<Vaes512, L, OPEN>(Vaes(Zmm::new()), task) }
}

/// One frame (`stitched::run_frame`) on the ymm kernel.
///
/// # Safety
/// The CPU must have AES-NI, AVX2 and VAES; the task as `FrameTask` requires.
#[target_feature(enable = "aes,sse4.1,avx,avx2,vaes")]
pub(crate) unsafe fn frame256<const L: usize, const OPEN: bool>(task: &mut FrameTask<'_>) {
    // SAFETY: the caller vouches for the task.
    unsafe { stitched::run_frame::<Vaes256, L, OPEN>(Vaes(Ymm::new()), task) }
}

/// A batch (`lanes::run`) on the zmm kernel.
///
/// # Safety
/// The CPU must have AES-NI, AVX-512F/BW/VL and VAES; the tasks as `FrameTask` requires.
#[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512bw,avx512vl,vaes")]
pub(crate) unsafe fn run512<const L: usize>(tasks: &mut [FrameTask<'_>]) {
    // SAFETY: the caller vouches for the tasks.
    unsafe { lanes::run::<Vaes512, L>(Vaes(Zmm::new()), tasks) }
}

/// A batch (`lanes::run`) on the ymm kernel.
///
/// # Safety
/// The CPU must have AES-NI, AVX2 and VAES; the tasks as `FrameTask` requires.
#[target_feature(enable = "aes,sse4.1,avx,avx2,vaes")]
pub(crate) unsafe fn run256<const L: usize>(tasks: &mut [FrameTask<'_>]) {
    // SAFETY: the caller vouches for the tasks.
    unsafe { lanes::run::<Vaes256, L>(Vaes(Ymm::new()), tasks) }
}

/// A register width (`R`: `W` lanes' blocks side by side) and the instructions the kernel
/// uses on it. A value is the proof that the CPU has the width's features.
pub(crate) trait Wide: Copy {
    type R: Copy;
    const W: usize;
    /// The AES-NI kernel (every width's features include AES-NI and SSE4.1).
    fn aesni(self) -> AesNi;
    fn zero(self) -> Self::R;
    fn broadcast(self, block: __m128i) -> Self::R;
    /// # Safety
    /// `ptr` valid for reading `16 * W` octets and aligned to them.
    unsafe fn load_keys(self, ptr: *const u8) -> Self::R;
    /// # Safety
    /// `ptr` valid for writing `16 * W` octets and aligned to them.
    unsafe fn store_keys(self, ptr: *mut u8, v: Self::R);
    /// # Safety
    /// `ptr` valid for reading `16 * W` octets.
    unsafe fn load_run(self, ptr: *const u8) -> Self::R;
    /// # Safety
    /// `ptr` valid for writing `16 * W` octets.
    unsafe fn store_run(self, ptr: *mut u8, v: Self::R);
    fn gather(self, blocks: &[__m128i]) -> Self::R;
    fn scatter(self, v: Self::R, blocks: &mut [__m128i]);
    /// Lane `at` (< W), and `v` with it replaced: in registers, without a branch (a block
    /// stored over a register's copy in memory and read back whole stalls the load until
    /// the stores reach the cache).
    fn extract(self, v: Self::R, at: usize) -> __m128i;
    fn insert(self, v: Self::R, at: usize, block: __m128i) -> Self::R;
    /// # Safety
    /// `ptrs[..W]` valid for reading 16 octets each.
    unsafe fn load(self, ptrs: &[*mut u8]) -> Self::R;
    /// # Safety
    /// `ptrs[..W]` valid for writing 16 octets each.
    unsafe fn store(self, v: Self::R, ptrs: &[*mut u8]);
    fn aesenc(self, v: Self::R, key: Self::R) -> Self::R;
    fn aesenclast(self, v: Self::R, key: Self::R) -> Self::R;
    fn xor(self, a: Self::R, b: Self::R) -> Self::R;
    fn and(self, a: Self::R, b: Self::R) -> Self::R;
    fn add_epi16(self, a: Self::R, b: Self::R) -> Self::R;
    fn shuffle_epi8(self, v: Self::R, control: Self::R) -> Self::R;
}

/// 512-bit registers: the proof that the CPU has AES-NI, AVX-512F/BW/VL and VAES.
#[derive(Clone, Copy)]
pub(crate) struct Zmm(AesNi);

impl Zmm {
    /// Safe to call only where these features are enabled (`AesNi::new`).
    #[target_feature(enable = "aes,sse4.1,avx2,avx512f,avx512bw,avx512vl,vaes")]
    #[inline]
    pub(crate) fn new() -> Self {
        Zmm(AesNi::new())
    }
}

// In every method, `self` proves AVX-512F/BW/VL and VAES (`Zmm::new`).
impl Wide for Zmm {
    type R = __m512i;
    const W: usize = 4;
    #[inline(always)]
    fn aesni(self) -> AesNi {
        self.0
    }
    #[inline(always)]
    fn zero(self) -> __m512i {
        // SAFETY: AVX-512F (`self`).
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn broadcast(self, block: __m128i) -> __m512i {
        // SAFETY: AVX-512F (`self`).
        unsafe { _mm512_broadcast_i32x4(block) }
    }
    #[inline(always)]
    unsafe fn load_keys(self, ptr: *const u8) -> __m512i {
        // SAFETY: AVX-512F (`self`); 64 aligned octets (the caller's contract).
        unsafe { _mm512_load_si512(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn store_keys(self, ptr: *mut u8, v: __m512i) {
        // SAFETY: AVX-512F (`self`); 64 aligned octets (the caller's contract).
        unsafe { _mm512_store_si512(ptr.cast(), v) }
    }
    #[inline(always)]
    unsafe fn load_run(self, ptr: *const u8) -> __m512i {
        // SAFETY: AVX-512F (`self`); 64 octets (the caller's contract).
        unsafe { _mm512_loadu_si512(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn store_run(self, ptr: *mut u8, v: __m512i) {
        // SAFETY: AVX-512F (`self`); 64 octets (the caller's contract).
        unsafe { _mm512_storeu_si512(ptr.cast(), v) }
    }
    #[inline(always)]
    fn gather(self, blocks: &[__m128i]) -> __m512i {
        // SAFETY: AVX-512F (`self`).
        unsafe {
            let v = _mm512_castsi128_si512(blocks[0]);
            let v = _mm512_inserti32x4::<1>(v, blocks[1]);
            let v = _mm512_inserti32x4::<2>(v, blocks[2]);
            _mm512_inserti32x4::<3>(v, blocks[3])
        }
    }
    #[inline(always)]
    fn scatter(self, v: __m512i, blocks: &mut [__m128i]) {
        // SAFETY: AVX-512F (`self`).
        unsafe {
            blocks[0] = _mm512_castsi512_si128(v);
            blocks[1] = _mm512_extracti32x4_epi32::<1>(v);
            blocks[2] = _mm512_extracti32x4_epi32::<2>(v);
            blocks[3] = _mm512_extracti32x4_epi32::<3>(v);
        }
    }
    #[inline(always)]
    fn extract(self, v: __m512i, at: usize) -> __m128i {
        // SAFETY: AVX-512F (`self`).
        unsafe {
            let down = _mm512_add_epi32(
                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                _mm512_set1_epi32(4 * at as i32),
            );
            _mm512_castsi512_si128(_mm512_permutexvar_epi32(down, v))
        }
    }
    #[inline(always)]
    fn insert(self, v: __m512i, at: usize, block: __m128i) -> __m512i {
        // SAFETY: AVX-512F (`self`).
        unsafe { _mm512_mask_broadcast_i32x4(v, 0xf << (4 * at), block) }
    }
    #[inline(always)]
    unsafe fn load(self, ptrs: &[*mut u8]) -> __m512i {
        // SAFETY: AVX-512F (`self`); 16 octets at each of `ptrs[..4]` (the caller's contract).
        unsafe {
            let v = _mm512_castsi128_si512(_mm_loadu_si128(ptrs[0].cast()));
            let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(ptrs[1].cast()));
            let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(ptrs[2].cast()));
            _mm512_inserti32x4::<3>(v, _mm_loadu_si128(ptrs[3].cast()))
        }
    }
    #[inline(always)]
    unsafe fn store(self, v: __m512i, ptrs: &[*mut u8]) {
        // SAFETY: AVX-512F (`self`); 16 octets at each of `ptrs[..4]` (the caller's contract).
        unsafe {
            _mm_storeu_si128(ptrs[0].cast(), _mm512_castsi512_si128(v));
            _mm_storeu_si128(ptrs[1].cast(), _mm512_extracti32x4_epi32::<1>(v));
            _mm_storeu_si128(ptrs[2].cast(), _mm512_extracti32x4_epi32::<2>(v));
            _mm_storeu_si128(ptrs[3].cast(), _mm512_extracti32x4_epi32::<3>(v));
        }
    }
    #[inline(always)]
    fn aesenc(self, v: __m512i, key: __m512i) -> __m512i {
        // SAFETY: VAES and AVX-512F (`self`).
        unsafe { _mm512_aesenc_epi128(v, key) }
    }
    #[inline(always)]
    fn aesenclast(self, v: __m512i, key: __m512i) -> __m512i {
        // SAFETY: VAES and AVX-512F (`self`).
        unsafe { _mm512_aesenclast_epi128(v, key) }
    }
    #[inline(always)]
    fn xor(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512F (`self`).
        unsafe { _mm512_xor_si512(a, b) }
    }
    #[inline(always)]
    fn and(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512F (`self`).
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    fn add_epi16(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (`self`).
        unsafe { _mm512_add_epi16(a, b) }
    }
    #[inline(always)]
    fn shuffle_epi8(self, v: __m512i, control: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (`self`).
        unsafe { _mm512_shuffle_epi8(v, control) }
    }
}

/// 256-bit registers: the proof that the CPU has AES-NI, AVX2 and VAES.
#[derive(Clone, Copy)]
pub(crate) struct Ymm(AesNi);

impl Ymm {
    /// Safe to call only where these features are enabled (`AesNi::new`).
    #[target_feature(enable = "aes,sse4.1,avx,avx2,vaes")]
    #[inline]
    pub(crate) fn new() -> Self {
        Ymm(AesNi::new())
    }
}

// In every method, `self` proves AVX2 and VAES (`Ymm::new`).
impl Wide for Ymm {
    type R = __m256i;
    const W: usize = 2;
    #[inline(always)]
    fn aesni(self) -> AesNi {
        self.0
    }
    #[inline(always)]
    fn zero(self) -> __m256i {
        // SAFETY: AVX (`self`).
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn broadcast(self, block: __m128i) -> __m256i {
        // SAFETY: AVX2 (`self`).
        unsafe { _mm256_broadcastsi128_si256(block) }
    }
    #[inline(always)]
    unsafe fn load_keys(self, ptr: *const u8) -> __m256i {
        // SAFETY: AVX (`self`); 32 aligned octets (the caller's contract).
        unsafe { _mm256_load_si256(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn store_keys(self, ptr: *mut u8, v: __m256i) {
        // SAFETY: AVX (`self`); 32 aligned octets (the caller's contract).
        unsafe { _mm256_store_si256(ptr.cast(), v) }
    }
    #[inline(always)]
    unsafe fn load_run(self, ptr: *const u8) -> __m256i {
        // SAFETY: AVX (`self`); 32 octets (the caller's contract).
        unsafe { _mm256_loadu_si256(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn store_run(self, ptr: *mut u8, v: __m256i) {
        // SAFETY: AVX (`self`); 32 octets (the caller's contract).
        unsafe { _mm256_storeu_si256(ptr.cast(), v) }
    }
    #[inline(always)]
    fn gather(self, blocks: &[__m128i]) -> __m256i {
        // SAFETY: AVX (`self`).
        unsafe { _mm256_set_m128i(blocks[1], blocks[0]) }
    }
    #[inline(always)]
    fn scatter(self, v: __m256i, blocks: &mut [__m128i]) {
        // SAFETY: AVX2 (`self`).
        unsafe {
            blocks[0] = _mm256_castsi256_si128(v);
            blocks[1] = _mm256_extracti128_si256::<1>(v);
        }
    }
    #[inline(always)]
    fn extract(self, v: __m256i, at: usize) -> __m128i {
        // SAFETY: AVX2 (`self`).
        unsafe {
            let down = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(4 * at as i32));
            _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, down))
        }
    }
    #[inline(always)]
    fn insert(self, v: __m256i, at: usize, block: __m128i) -> __m256i {
        // SAFETY: AVX2 (`self`).
        unsafe {
            let lane = _mm256_cmpeq_epi32(_mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), _mm256_set1_epi32(at as i32));
            _mm256_blendv_epi8(v, _mm256_broadcastsi128_si256(block), lane)
        }
    }
    #[inline(always)]
    unsafe fn load(self, ptrs: &[*mut u8]) -> __m256i {
        // SAFETY: AVX (`self`); 16 octets at each of `ptrs[..2]` (the caller's contract).
        unsafe { _mm256_loadu2_m128i(ptrs[1].cast(), ptrs[0].cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, v: __m256i, ptrs: &[*mut u8]) {
        // SAFETY: AVX (`self`); 16 octets at each of `ptrs[..2]` (the caller's contract).
        unsafe { _mm256_storeu2_m128i(ptrs[1].cast(), ptrs[0].cast(), v) }
    }
    #[inline(always)]
    fn aesenc(self, v: __m256i, key: __m256i) -> __m256i {
        // SAFETY: VAES and AVX (`self`).
        unsafe { _mm256_aesenc_epi128(v, key) }
    }
    #[inline(always)]
    fn aesenclast(self, v: __m256i, key: __m256i) -> __m256i {
        // SAFETY: VAES and AVX (`self`).
        unsafe { _mm256_aesenclast_epi128(v, key) }
    }
    #[inline(always)]
    fn xor(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 (`self`).
        unsafe { _mm256_xor_si256(a, b) }
    }
    #[inline(always)]
    fn and(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 (`self`).
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    fn add_epi16(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 (`self`).
        unsafe { _mm256_add_epi16(a, b) }
    }
    #[inline(always)]
    fn shuffle_epi8(self, v: __m256i, control: __m256i) -> __m256i {
        // SAFETY: AVX2 (`self`).
        unsafe { _mm256_shuffle_epi8(v, control) }
    }
}

/// The VAES kernel on registers of width `T`.
#[derive(Clone, Copy)]
pub(crate) struct Vaes<T>(T);

pub(crate) type Vaes512 = Vaes<Zmm>;
pub(crate) type Vaes256 = Vaes<Ymm>;

/// `Kernel::encrypt` on registers of width `T`; with `WHITENED`, `Kernel::encrypt_whitened`.
// No closures in the kernels: a closure does not inherit the caller's target features, so
// the intrinsics in it would become calls.
#[inline(always)]
fn encrypt_lanes<T: Wide, const L: usize, const WHITENED: bool>(
    wide: T,
    keys: &PackedKeys<'_>,
    mac: &mut [T::R; L],
    ctr: &mut [T::R; L],
) {
    const { assert!(L.is_multiple_of(T::W) && L <= MAX_LANES) };
    // SAFETY (each `keys.group`): g < L / W, and L <= MAX_LANES (asserted above).
    if !WHITENED {
        for g in 0..L / T::W {
            // SAFETY: see above.
            let k = unsafe { keys.group(wide, 0, g) };
            mac[g] = wide.xor(mac[g], k);
            ctr[g] = wide.xor(ctr[g], k);
        }
    }
    for round in 1..10 {
        for g in 0..L / T::W {
            // SAFETY: see above.
            let k = unsafe { keys.group(wide, round, g) };
            mac[g] = wide.aesenc(mac[g], k);
            ctr[g] = wide.aesenc(ctr[g], k);
        }
    }
    let mac_last = if WHITENED { FOLD } else { 10 };
    for g in 0..L / T::W {
        // SAFETY: see above.
        let (k_mac, k_ctr) = unsafe { (keys.group(wide, mac_last, g), keys.group(wide, 10, g)) };
        mac[g] = wide.aesenclast(mac[g], k_mac);
        ctr[g] = wide.aesenclast(ctr[g], k_ctr);
    }
}

impl<T: Wide> Kernel for Vaes<T> {
    type B = __m128i;
    type V = T::R;
    const W: usize = T::W;
    type Keys<'k> = PackedKeys<'k>;

    fn new_keys(self, _first: &Key) -> PackedKeys<'_> {
        PackedKeys::new()
    }

    #[inline(always)]
    fn set_key<'k>(self, keys: &mut PackedKeys<'k>, lane: usize, key: &'k Key) {
        keys.set(lane, key)
    }
    #[inline(always)]
    fn set_keys<'k, const L: usize>(self, keys: &mut PackedKeys<'k>, lane_keys: &[&'k Key; L]) {
        keys.set_groups::<T, L>(self.0, lane_keys)
    }

    #[inline(always)]
    fn encrypt<const L: usize>(self, keys: &PackedKeys<'_>, mac: &mut [T::R; L], ctr: &mut [T::R; L]) {
        encrypt_lanes::<T, L, false>(self.0, keys, mac, ctr)
    }
    #[inline(always)]
    fn whiten<const L: usize>(self, keys: &PackedKeys<'_>, v: &mut [T::R; L]) {
        const { assert!(L.is_multiple_of(T::W) && L <= MAX_LANES) };
        for (g, group) in v.iter_mut().enumerate().take(L / T::W) {
            // SAFETY: g < L / W, and L <= MAX_LANES (asserted above).
            *group = self.0.xor(*group, unsafe { keys.group(self.0, 0, g) });
        }
    }
    #[inline(always)]
    fn encrypt_block(self, key: &Key, block: __m128i) -> __m128i {
        self.0.aesni().encrypt_round_keys(&key.round_keys, block)
    }
    #[inline(always)]
    fn encrypt_whitened<const L: usize>(self, keys: &PackedKeys<'_>, mac: &mut [T::R; L], ctr: &mut [T::R; L]) {
        encrypt_lanes::<T, L, true>(self.0, keys, mac, ctr)
    }

    type FrameKeys<'k> = [T::R; 11];

    #[inline(always)]
    fn frame_keys(self, key: &Key) -> [T::R; 11] {
        let mut keys = [self.0.zero(); 11];
        for (round, k) in keys.iter_mut().enumerate() {
            *k = self.0.broadcast(self.0.aesni().round_key(&key.round_keys, round));
        }
        keys
    }
    #[inline(always)]
    fn first_round_key(self, keys: &[T::R; 11]) -> T::R {
        keys[0]
    }
    #[inline(always)]
    fn last_round_key(self, keys: &[T::R; 11]) -> T::R {
        keys[10]
    }
    #[inline(always)]
    fn encrypt_frame<const L: usize>(
        self,
        keys: &[T::R; 11],
        mac: &mut [T::R; L],
        mac_last: &[T::R; L],
        ctr: &mut [T::R; L],
        ctr_lanes: usize,
    ) {
        let wide = self.0;
        let ctr_groups = ctr_lanes.div_ceil(T::W);
        for c in ctr.iter_mut().take(ctr_groups) {
            *c = wide.xor(*c, keys[0]);
        }
        for k in &keys[1..10] {
            for g in 0..L / T::W {
                mac[g] = wide.aesenc(mac[g], *k);
                if g < ctr_groups {
                    ctr[g] = wide.aesenc(ctr[g], *k);
                }
            }
        }
        for g in 0..L / T::W {
            mac[g] = wide.aesenclast(mac[g], mac_last[g]);
            if g < ctr_groups {
                ctr[g] = wide.aesenclast(ctr[g], keys[10]);
            }
        }
    }
    #[inline(always)]
    unsafe fn load_run(self, ptr: *const u8) -> T::R {
        // SAFETY: the same contract.
        unsafe { self.0.load_run(ptr) }
    }
    #[inline(always)]
    unsafe fn store_run(self, ptr: *mut u8, v: T::R) {
        // SAFETY: the same contract.
        unsafe { self.0.store_run(ptr, v) }
    }
    #[inline(always)]
    fn gather(self, blocks: &[__m128i]) -> T::R {
        self.0.gather(blocks)
    }
    #[inline(always)]
    fn scatter(self, v: T::R, blocks: &mut [__m128i]) {
        self.0.scatter(v, blocks)
    }
    #[inline(always)]
    fn extract_lane(self, v: T::R, at: usize) -> __m128i {
        self.0.extract(v, at)
    }
    #[inline(always)]
    fn insert_lane(self, v: T::R, at: usize, block: __m128i) -> T::R {
        self.0.insert(v, at, block)
    }
    #[inline(always)]
    unsafe fn load(self, ptrs: &[*mut u8]) -> T::R {
        // SAFETY: the same contract.
        unsafe { self.0.load(ptrs) }
    }
    #[inline(always)]
    unsafe fn store(self, v: T::R, ptrs: &[*mut u8]) {
        // SAFETY: the same contract.
        unsafe { self.0.store(v, ptrs) }
    }
    #[inline(always)]
    fn xor(self, a: T::R, b: T::R) -> T::R {
        self.0.xor(a, b)
    }
    #[inline(always)]
    fn and(self, a: T::R, b: T::R) -> T::R {
        self.0.and(a, b)
    }
    #[inline(always)]
    fn add_counters(self, counters: T::R, steps: T::R) -> T::R {
        self.0.add_epi16(counters, steps)
    }
    #[inline(always)]
    fn counter_blocks(self, counters: T::R) -> T::R {
        self.0.shuffle_epi8(counters, self.0.broadcast(__m128i::from_bytes(&SWAP_COUNTER_OCTETS)))
    }
    #[inline(always)]
    unsafe fn ccm_blocks(self, a0: &[u8; 16], aad: &[u8], len: usize) -> CcmBlocks<__m128i> {
        // SAFETY: the same contract.
        unsafe { self.0.aesni().ccm_blocks(a0, aad, len) }
    }
    #[inline(always)]
    unsafe fn partial_block_in_frame(self, ptr: *mut u8, r: usize, keystream: __m128i) -> (__m128i, __m128i) {
        // SAFETY: the same contract.
        unsafe { self.0.aesni().partial_block_in_frame(ptr, r, keystream) }
    }
}
