//! What a backend implements, and what both the lane scheduler (`lanes`) and the
//! single-frame path (`stitched`) run on: [`Kernel`] (AES rounds, loads, stores and lane
//! shuffles on registers of `W` lanes), [`Blk`] (one block in the kernel's register type),
//! the frame task, and the block helpers both paths share (the CCM blocks of a frame, a short
//! last block in place, packing lanes into registers, short copies).

use super::enhanced::{CCMP_B0_FLAGS, CCMP_CTR_FLAGS};
use super::key::Key;
use crate::suite::ccmp::CounterBlock;

pub(crate) const BLOCK: usize = 16;

/// A frame's CCM blocks: B0, A_0 and the AAD as CBC-MAC blocks H_1 H_2.
pub(crate) type CcmBlocks<B> = [B; 4];

/// A 128-bit block in the backend's register type.
pub(crate) trait Blk: Copy {
    fn zero() -> Self;
    fn from_bytes(bytes: &[u8; BLOCK]) -> Self;
    fn to_bytes(self) -> [u8; BLOCK];
    fn xor(self, other: Self) -> Self;
    /// Octets 14..16 of `base` (zero there) replaced by `counter`, big-endian.
    fn with_counter(base: Self, counter: u16) -> Self;
}

/// `Kernel::ccm_blocks` as octets, in integer registers (same octets as `enhanced::ccmp_b0`,
/// `counter_block` and `aad_blocks`).
#[inline(always)]
pub(crate) fn ccm_blocks(a0: &[u8; BLOCK], aad: &[u8], len: usize) -> CcmBlocks<[u8; BLOCK]> {
    let be64 = |bytes: &[u8]| u64::from_be_bytes(bytes.try_into().expect("8 octets"));
    let b0_flags = u128::from(CCMP_B0_FLAGS ^ CCMP_CTR_FLAGS) << 120;
    let b0 = (u128::from_be_bytes(*a0) ^ b0_flags) | u128::from(len as u16);
    let aad_len = aad.len();
    let h1 = (u128::from(aad_len as u16) << 112)
        | (u128::from(be64(&aad[..8])) << 48)
        | u128::from(be64(&aad[6..14]) & 0xffff_ffff_ffff);
    let h2 = if aad_len == 15 {
        u128::from(aad[14]) << 120
    } else {
        let last16 = u128::from_be_bytes(aad[aad_len - 16..].try_into().expect("16 octets"));
        last16 << (8 * (30 - aad_len))
    };
    [b0.to_be_bytes(), *a0, h1.to_be_bytes(), h2.to_be_bytes()]
}

/// AES-128 encryption of one MAC block and one counter block per lane, on registers that
/// each hold `W` lanes' blocks side by side (`W` = 1 for 128-bit kernels, 2 for ymm VAES, 4
/// for zmm VAES): group g of a `[V; L]` holds lanes `g*W..(g+1)*W`, and groups past `L / W`
/// are unused.
///
/// A kernel value is the proof that the CPU has the features the kernel's instructions
/// need: the accelerated kernels are made only by their `#[target_feature]` constructor,
/// which safe code can call only where those features are enabled. So the methods on
/// registers are safe; only those that take raw pointers are `unsafe`.
pub(crate) trait Kernel: Copy {
    type B: Blk;
    type V: Copy;
    const W: usize;
    /// Per-lane key schedules, in the layout the kernel wants.
    type Keys<'k>;
    fn new_keys(self, first: &Key) -> Self::Keys<'_>;
    fn set_key<'k>(self, keys: &mut Self::Keys<'k>, lane: usize, key: &'k Key);
    /// `set_key` of lanes `0..L` at once.
    #[inline(always)]
    fn set_keys<'k, const L: usize>(self, keys: &mut Self::Keys<'k>, lane_keys: &[&'k Key; L]) {
        for (lane, key) in lane_keys.iter().enumerate() {
            self.set_key(keys, lane, key);
        }
    }
    fn encrypt<const L: usize>(self, keys: &Self::Keys<'_>, mac: &mut [Self::V; L], ctr: &mut [Self::V; L]);
    /// Round key 0 of each lane XORed into `v` (grouped as in `encrypt`).
    fn whiten<const L: usize>(self, keys: &Self::Keys<'_>, v: &mut [Self::V; L]);
    /// One block under `key` (a sub-chain's last MAC step after a short block, `finish`).
    fn encrypt_block(self, key: &Key, block: Self::B) -> Self::B;
    /// As `encrypt`, both inputs arriving whitened (`whiten`) and the MAC blocks leaving
    /// whitened (round key 0 folded into the last round's), so a MAC chain's next input is
    /// its output XOR the data. By default the whitening is taken off, `encrypt` run and the
    /// MAC blocks whitened again (the wide kernels override it; only their cohorts whiten,
    /// see `bulk_loop`).
    #[inline(always)]
    fn encrypt_whitened<const L: usize>(self, keys: &Self::Keys<'_>, mac: &mut [Self::V; L], ctr: &mut [Self::V; L]) {
        self.whiten::<L>(keys, mac);
        self.whiten::<L>(keys, ctr);
        self.encrypt::<L>(keys, mac, ctr);
        self.whiten::<L>(keys, mac);
    }
    /// One key for every lane, its round keys in registers (the single-frame path).
    type FrameKeys<'k>;
    fn frame_keys(self, key: &Key) -> Self::FrameKeys<'_>;
    /// Round key 0, which the MAC input of `encrypt_frame` arrives XORed with (zero for a
    /// kernel without single rounds).
    fn first_round_key(self, keys: &Self::FrameKeys<'_>) -> Self::V;
    /// Round key 10 (zero for a kernel without single rounds).
    fn last_round_key(self, keys: &Self::FrameKeys<'_>) -> Self::V;
    /// As `encrypt`, every lane under `keys`; the MAC input arrives whitened (XORed with
    /// `first_round_key`) and its last round takes `mac_last` for round key 10, so the next
    /// block and whitening fold into the last round and the CBC-MAC chain is AES rounds
    /// only. (A kernel without single rounds XORs `mac_last` into the MAC output.) Only the
    /// counter blocks of lanes `0..ctr_lanes` (whole registers) need be encrypted: a frame's
    /// first and last steps use few or none, and every caller passes a constant, so the
    /// inlined rounds keep no branch.
    fn encrypt_frame<const L: usize>(
        self,
        keys: &Self::FrameKeys<'_>,
        mac: &mut [Self::V; L],
        mac_last: &[Self::V; L],
        ctr: &mut [Self::V; L],
        ctr_lanes: usize,
    );
    /// `W` consecutive blocks at `ptr`, lane by lane.
    ///
    /// # Safety
    /// `ptr` valid for reading `16 * W` octets.
    unsafe fn load_run(self, ptr: *const u8) -> Self::V;
    /// # Safety
    /// `ptr` valid for writing `16 * W` octets.
    unsafe fn store_run(self, ptr: *mut u8, v: Self::V);
    /// `W` lanes' blocks, from `blocks[..W]`.
    fn gather(self, blocks: &[Self::B]) -> Self::V;
    fn scatter(self, v: Self::V, blocks: &mut [Self::B]);
    /// Lane `at` (< `W`) of `v`.
    #[inline(always)]
    fn extract_lane(self, v: Self::V, at: usize) -> Self::B {
        let mut blocks = [Self::B::zero(); MAX_W];
        self.scatter(v, &mut blocks);
        blocks[at]
    }
    /// `v` with lane `at` (< `W`) replaced by `block`.
    #[inline(always)]
    fn insert_lane(self, v: Self::V, at: usize, block: Self::B) -> Self::V {
        let mut blocks = [Self::B::zero(); MAX_W];
        self.scatter(v, &mut blocks);
        blocks[at] = block;
        self.gather(&blocks)
    }
    /// # Safety
    /// `ptrs[..W]` valid for reading 16 octets each.
    unsafe fn load(self, ptrs: &[*mut u8]) -> Self::V;
    /// # Safety
    /// `ptrs[..W]` valid for writing 16 octets each.
    unsafe fn store(self, v: Self::V, ptrs: &[*mut u8]);
    fn xor(self, a: Self::V, b: Self::V) -> Self::V;
    fn and(self, a: Self::V, b: Self::V) -> Self::V;
    /// Counter registers hold each lane's counter in octets 14, 15 little-endian, so one
    /// 16-bit add advances every lane; `counter_blocks` swaps the two octets into CCM's order.
    fn add_counters(self, counters: Self::V, steps: Self::V) -> Self::V;
    fn counter_blocks(self, counters: Self::V) -> Self::V;
    /// B0, A_0, H_1, H_2 of a frame of `len` octets from its A_0 and `aad`.
    ///
    /// # Safety
    /// `aad` is 15..=30 octets (a task's is: `FrameTask`).
    #[inline(always)]
    unsafe fn ccm_blocks(self, a0: &[u8; BLOCK], aad: &[u8], len: usize) -> CcmBlocks<Self::B> {
        ccm_blocks(a0, aad, len).map(|b| Self::B::from_bytes(&b))
    }
    /// `partial_block` of a frame's short last block (`r` < 16 octets at `ptr`) where the
    /// `16 - r` octets before it are the frame's too: a kernel may read and write the block
    /// that ends with it, writing those octets back as they were.
    ///
    /// # Safety
    /// As `partial_block`, and the `16 - r` octets before `ptr` valid and not in use elsewhere.
    #[inline(always)]
    unsafe fn partial_block_in_frame(self, ptr: *mut u8, r: usize, keystream: Self::B) -> (Self::B, Self::B) {
        // SAFETY: the caller's contract includes `partial_block`'s.
        unsafe { partial_block(ptr, r, keystream) }
    }
}

/// Frames whose tasks a batch call holds at once, on the stack (6 KiB), and the lane
/// scheduler's window for ordering them. A multiple of every lane count, so the lane-fulls of
/// like frames (`lanes::is_cohort`) fall where they would in one run of the whole batch.
pub const TASK_CHUNK: usize = 64;

/// One frame to seal or open. `data` points at `len` octets that stay exclusively borrowed
/// for the run; on return `acc` holds the XOR of the sub-chain CBC-MAC values and `s0` is
/// E(A_0), so the MIC is the first 8 octets of `acc ^ s0`. The kernels build the frame's
/// other CCM blocks from `a0` and `aad` in their registers (`Kernel::ccm_blocks`).
///
/// The engine's unsafe code relies on two facts about a task, which `batch::task` checks
/// when it makes one: `data` is valid for `len` octets and no other task's, and `aad` is
/// 15..=30 octets.
pub(crate) struct FrameTask<'k> {
    pub key: &'k Key,
    pub a0: CounterBlock,
    /// 15..=30 octets.
    pub aad: &'k [u8],
    pub data: *mut u8,
    pub len: usize,
    pub open: bool,
    pub acc: [u8; BLOCK],
    pub s0: [u8; BLOCK],
}

/// Sub-chain `j` of `task`: (its data blocks, the octets of its short last block or 0).
#[inline(always)]
pub(crate) fn sub_chain_blocks(task: &FrameTask<'_>, j: usize) -> (usize, usize) {
    let mode = task.key.mode;
    let (n, shift) = (mode.ways.count(), mode.ways.log2());
    let total_blocks = task.len.div_ceil(BLOCK);
    let blocks = if total_blocks > j { (total_blocks - j + n - 1) >> shift } else { 0 };
    let holds_last = total_blocks > 0 && (total_blocks - 1) & (n - 1) == j;
    (blocks, if holds_last { task.len % BLOCK } else { 0 })
}

/// The most lanes a kernel register holds (zmm).
const MAX_W: usize = 4;

/// En/decrypt the `r` < 16 octets at `ptr` in place with `keystream`: (input zero-padded,
/// output zero-padded). In integer registers, without `memcpy` calls or a buffer: every
/// frame of a length that is not a multiple of 16 comes here once per lane; byte loops cost
/// a tenth of a 1500-octet frame, and a block read back from narrower stores waits for
/// them to reach the cache.
///
/// # Safety
/// `r` < 16 and `ptr` valid for reading and writing `r` octets.
#[inline(always)]
pub(crate) unsafe fn partial_block<B: Blk>(ptr: *mut u8, r: usize, keystream: B) -> (B, B) {
    use core::ptr::{read_unaligned, write_unaligned};
    // SAFETY: each access is at `at..at + size` where the bits of `r` above `size` sum to
    // `at`, so every access lies in the `r` octets at `ptr` the caller vouches for.
    unsafe {
        let mut input = 0u128;
        let mut at = 0;
        if r & 8 != 0 {
            input |= u128::from(read_unaligned(ptr.cast::<u64>()));
            at = 8;
        }
        if r & 4 != 0 {
            input |= u128::from(read_unaligned(ptr.add(at).cast::<u32>())) << (8 * at);
            at += 4;
        }
        if r & 2 != 0 {
            input |= u128::from(read_unaligned(ptr.add(at).cast::<u16>())) << (8 * at);
            at += 2;
        }
        if r & 1 != 0 {
            input |= u128::from(*ptr.add(at)) << (8 * at);
        }
        let keystream = u128::from_le_bytes(keystream.to_bytes());
        // r < 16: the first r octets.
        let valid = (1u128 << (8 * r)) - 1;
        let output = (input ^ keystream) & valid;
        let mut at = 0;
        if r & 8 != 0 {
            write_unaligned(ptr.cast::<u64>(), output as u64);
            at = 8;
        }
        if r & 4 != 0 {
            write_unaligned(ptr.add(at).cast::<u32>(), (output >> (8 * at)) as u32);
            at += 4;
        }
        if r & 2 != 0 {
            write_unaligned(ptr.add(at).cast::<u16>(), (output >> (8 * at)) as u16);
            at += 2;
        }
        if r & 1 != 0 {
            *ptr.add(at) = (output >> (8 * at)) as u8;
        }
        (B::from_bytes(&input.to_le_bytes()), B::from_bytes(&output.to_le_bytes()))
    }
}

/// The blocks of `L` lanes as registers of `K::W` lanes each.
#[inline(always)]
pub(crate) fn pack<K: Kernel, const L: usize>(k: K, blocks: &[K::B; L]) -> [K::V; L] {
    let mut out = [k.gather(blocks); L];
    for g in 1..L / K::W {
        out[g] = k.gather(&blocks[g * K::W..]);
    }
    out
}

#[inline(always)]
pub(crate) fn unpack<K: Kernel, const L: usize>(k: K, registers: &[K::V; L], blocks: &mut [K::B; L]) {
    for g in 0..L / K::W {
        k.scatter(registers[g], &mut blocks[g * K::W..]);
    }
}

/// The longest copy `copy_short` makes: the rest of a frame on 8 lanes.
pub(crate) const COPY_SHORT_MAX: usize = 8 * BLOCK;

/// Copy `n` < `COPY_SHORT_MAX` octets: whole blocks, then the tail. Inline, as a call to
/// `memcpy` costs about as much as a step.
///
/// # Safety
/// `src` and `dst` valid for `n` octets.
#[inline(always)]
pub(crate) unsafe fn copy_short(src: *const u8, dst: *mut u8, n: usize) {
    use core::ptr::{read_unaligned, write_unaligned};
    // SAFETY: the whole blocks end at `whole` <= `n`, and each tail access is at
    // `at..at + size` with `at + size` <= `n` (the bits of `n` below `BLOCK`), so every access
    // lies in the `n` octets the caller vouches for.
    unsafe {
        let whole = n / BLOCK * BLOCK;
        for b in 0..COPY_SHORT_MAX / BLOCK {
            if b * BLOCK < whole {
                let at = b * BLOCK;
                write_unaligned(dst.add(at).cast::<u128>(), read_unaligned(src.add(at).cast::<u128>()));
            }
        }
        let mut at = whole;
        if n & 8 != 0 {
            write_unaligned(dst.add(at).cast::<u64>(), read_unaligned(src.add(at).cast::<u64>()));
            at += 8;
        }
        if n & 4 != 0 {
            write_unaligned(dst.add(at).cast::<u32>(), read_unaligned(src.add(at).cast::<u32>()));
            at += 4;
        }
        if n & 2 != 0 {
            write_unaligned(dst.add(at).cast::<u16>(), read_unaligned(src.add(at).cast::<u16>()));
            at += 2;
        }
        if n & 1 != 0 {
            *dst.add(at) = *src.add(at);
        }
    }
}
