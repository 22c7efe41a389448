//! The lane scheduler shared by every backend.
//!
//! A *lane* runs one CBC-MAC sub-chain and its CTR blocks: a CCMP-128 frame is one lane, an
//! Enhanced CCMP-N frame is N lanes (sub-chain j takes data blocks j, j+N, ...). All lanes
//! advance in lock step; each step encrypts two blocks per lane, one MAC block and one
//! counter block, so `L` lanes keep `2L` independent AES computations in flight. A lane's
//! steps for a share of m data blocks (h = 2 AAD blocks for every CCMP AAD):
//!
//! | step      | MAC input                 | counter input                     |
//! |-----------|---------------------------|-----------------------------------|
//! | 0         | B0_j                      | A_0 (gives E(A_0) for the MIC)    |
//! | 1         | X ^ H_1                   | (idle)                            |
//! | 2         | X ^ H_2                   | counter of data block 0           |
//! | 3 + k     | X ^ P_k                   | counter of data block k + 1       |
//!
//! The keystream of block k comes out of step 2 + k and is used at step 3 + k, where the
//! block is encrypted (or decrypted) in place and its plaintext fed to the MAC, so one pass
//! over the data does both. The lanes run the full data blocks only: a sub-chain's steps 0..3
//! run beforehand, `L` sub-chains at a time (`Heads`), and a short last block, with the MAC
//! step after it, on its own (`finish`). When a lane's sub-chain has no full block left, the
//! lane takes the next one of the queue: frames of any lengths and keys are packed densely
//! into the lanes (multi-buffer). A lane-full of like CCMP-128 frames (`is_cohort`) skips the
//! scheduler and runs the same steps in lock step (`cohort`).

use super::enhanced::{sub_chain_b0, Ways, CCMP_B0_FLAGS, CCMP_CTR_FLAGS};
use super::key::Key;
use crate::suite::ccmp::CounterBlock;

const BLOCK: usize = 16;

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
    /// B0, A_0, H_1, H_2 of a frame of `len` octets from its A_0 and `aad` (15..=30 octets).
    #[inline(always)]
    fn ccm_blocks(self, a0: &[u8; BLOCK], aad: &[u8], len: usize) -> CcmBlocks<Self::B> {
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

/// One frame to seal or open. `data` points at `len` octets that stay exclusively borrowed
/// for the run; on return `acc` holds the XOR of the sub-chain CBC-MAC values and `s0` is
/// E(A_0), so the MIC is the first 8 octets of `acc ^ s0`. The kernels build the frame's
/// other CCM blocks from `a0` and `aad` in their registers (`Kernel::ccm_blocks`).
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

/// A sub-chain past its head steps (see `Heads`), ready for a lane: where its data is, its
/// full blocks and short last block, and its lane state in the form the kernel's registers
/// hold it.
#[derive(Clone, Copy)]
struct Ready<B> {
    frame: usize,
    /// Full data blocks (its short last block, if any, not counted).
    full_blocks: usize,
    /// Octets of the short last block; 0 without one.
    short_len: usize,
    data: *mut u8,
    stride: usize,
    mac: B,
    /// The keystream of its first data block.
    keystream: B,
    /// The counter of its second data block, and its step, in `Kernel::add_counters` form.
    counter: B,
    counter_step: B,
}

/// Sub-chain `j` of `task`: (its data blocks, the octets of its short last block or 0).
#[inline(always)]
fn sub_chain_blocks(task: &FrameTask<'_>, j: usize) -> (usize, usize) {
    let mode = task.key.mode;
    let (n, shift) = (mode.ways.count(), mode.ways.log2());
    let total_blocks = task.len.div_ceil(BLOCK);
    let blocks = if total_blocks > j { (total_blocks - j + n - 1) >> shift } else { 0 };
    let holds_last = total_blocks > 0 && (total_blocks - 1) & (n - 1) == j;
    (blocks, if holds_last { task.len % BLOCK } else { 0 })
}

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

/// Run every frame of `tasks` through `L` lanes of kernel `K`. Every task seals, or every
/// task opens.
///
/// # Safety
/// Every task's data pointer valid for `len` octets and not aliased by another task.
#[inline(always)]
pub(crate) unsafe fn run<K: Kernel, const L: usize>(k: K, tasks: &mut [FrameTask<'_>]) {
    let Some(first) = tasks.first() else { return };
    let open = first.open;
    debug_assert!(tasks.iter().all(|t| t.open == open));
    let mut keys = k.new_keys(first.key);
    // Lane-fulls of like frames (see `is_cohort`) in lock step; the frames between them
    // through the scheduler, which packs frames of any length and mode into the lanes.
    let mut mixed_from = 0;
    let mut at = 0;
    while at + L <= tasks.len() {
        if is_cohort(&tasks[at..at + L]) {
            let (mixed, cohort_tasks) = tasks[mixed_from..at + L].split_at_mut(at - mixed_from);
            // SAFETY: these tasks are some of the caller's, whose data it vouches for; the
            // cohort is a lane-full for which `is_cohort` holds.
            unsafe {
                schedule::<K, L>(k, &mut keys, mixed);
                match (K::W > 1, open) {
                    (true, false) => cohort::<K, L, SEAL>(k, &mut keys, cohort_tasks),
                    (true, true) => cohort::<K, L, OPEN>(k, &mut keys, cohort_tasks),
                    (false, _) => cohort::<K, L, EITHER>(k, &mut keys, cohort_tasks),
                }
            }
            mixed_from = at + L;
        }
        at += L;
    }
    // SAFETY: as above.
    unsafe { schedule::<K, L>(k, &mut keys, &mut tasks[mixed_from..]) };
}

/// Whether `tasks` (a lane-full) can run in lock step: CCMP-128 frames (one sub-chain
/// each) with the same number of full blocks, all with a short last block or none, so
/// every lane is in the same phase at every step. A batch of one station's traffic, or of
/// frames of one size, is mostly such lane-fulls.
#[inline(always)]
fn is_cohort(tasks: &[FrameTask<'_>]) -> bool {
    let shape = |t: &FrameTask<'_>| (t.key.mode.ways == Ways::N1, t.len / BLOCK, t.len.is_multiple_of(BLOCK));
    let first = shape(&tasks[0]);
    first.0 && tasks.iter().all(|t| shape(t) == first)
}

/// The lane scheduler: every frame of `tasks` through `L` lanes of kernel `K`. The lanes run
/// bulk steps only (`bulk_loop`), their state in the kernel's registers from start to end: a
/// sub-chain enters a lane at its first data block, its head steps done with `L - 1` others
/// beforehand (`Heads`), and leaves it after its last full block (`finish`), the lane's
/// registers and data pointer replaced in place. On frames of mixed lengths this replaced a
/// general step (lanes in different phases, their inputs through memory and tests of each
/// lane's phase), which every new sub-chain took three times and every short last block
/// once, and a repacking of every lane's registers whenever one lane changed (AMD EPYC Zen 3,
/// `wlansec bench ccmp` row `mixed`, 20 alternating pairs, medians: 1.866 -> 1.159
/// cycles/byte, against intel-ipsec-mb from 0.83x to 1.36x; capture decryption 0.429 ->
/// 0.354 CPU-s; docs/results/2026-11-29-zen3-mixed-lengths/).
///
/// # Safety
/// As `run`.
#[inline(always)]
unsafe fn schedule<'k, K: Kernel, const L: usize>(k: K, keys: &mut K::Keys<'k>, tasks: &mut [FrameTask<'k>]) {
    let Some(first) = tasks.first() else { return };
    let open = first.open;
    let open_mask = k.gather(&[K::B::from_bytes(&[if open { 0xff } else { 0 }; BLOCK]); L]);
    let mut heads = Heads::<K, L>::new(k, first.key);
    // Idle lanes en/decrypt a scratch block in place (their results are discarded), so every
    // lane runs the same code.
    let mut scratch = [0u8; BLOCK];
    let idle = scratch.as_mut_ptr();
    let mut ptr = [idle; L];
    let mut stride = [0usize; L];
    // Per lane: its frame, full blocks left (`usize::MAX` when idle) and short last block.
    let mut frame = [0usize; L];
    let mut left = [usize::MAX; L];
    let mut short_len = [0usize; L];
    let zero = pack::<K, L>(k, &[K::B::zero(); L]);
    let (mut mac, mut keystream, mut counters, mut counter_steps) = (zero, zero, zero, zero);
    for i in 0..L {
        // SAFETY: the caller vouches for the tasks' data.
        if let Some(next) = unsafe { heads.take(tasks) } {
            (frame[i], left[i], short_len[i], ptr[i], stride[i]) =
                (next.frame, next.full_blocks, next.short_len, next.data, next.stride);
            enter::<K, L>(k, i, &next, (&mut mac, &mut keystream, &mut counters, &mut counter_steps));
            k.set_key(keys, i, tasks[next.frame].key);
        }
    }
    loop {
        let steps = left.iter().copied().min().unwrap_or(usize::MAX);
        if steps == usize::MAX {
            break;
        }
        // Wide kernels get a bulk step per direction, so a sealing lane's MAC input does not
        // wait for the keystream; 128-bit kernels (16 xmm registers in the AES-NI build) keep
        // one step for both, as two copies spilled their lane state (AES-NI 1500-octet
        // batches 0.91 -> 1.06 cycles/byte).
        let regs = (&mut mac, &mut keystream, &mut counters);
        let advance = (&counter_steps, &counter_steps);
        // SAFETY: every busy lane's pointer is at its sub-chain's next full block, `left[i]`
        // (>= `steps`) full blocks `stride[i]` apart ahead of it in the task's data; an idle
        // lane's is at `scratch` with stride 0.
        unsafe {
            match (K::W > 1, open) {
                (true, false) => {
                    bulk_loop::<K, L, SEAL, false>((k, keys), &mut ptr, &stride, open_mask, regs, advance, steps)
                }
                (true, true) => {
                    bulk_loop::<K, L, OPEN, false>((k, keys), &mut ptr, &stride, open_mask, regs, advance, steps)
                }
                (false, _) => {
                    bulk_loop::<K, L, EITHER, false>((k, keys), &mut ptr, &stride, open_mask, regs, advance, steps)
                }
            }
        }
        for i in 0..L {
            if left[i] == usize::MAX {
                continue;
            }
            left[i] -= steps;
            if left[i] > 0 {
                continue;
            }
            // The lane's pointer is at its short last block, the keystream is that block's.
            let (lane_mac, lane_keystream) = (lane::<K, L>(k, &mac, i), lane::<K, L>(k, &keystream, i));
            // SAFETY: the lane's sub-chain's short last block (if any) is what is left of it
            // at `ptr[i]`; the caller vouches for the tasks' data.
            let next = unsafe {
                finish::<K>(k, &mut tasks[frame[i]], lane_mac, lane_keystream, ptr[i], short_len[i]);
                heads.take(tasks)
            };
            match next {
                Some(next) => {
                    (frame[i], left[i], short_len[i], ptr[i], stride[i]) =
                        (next.frame, next.full_blocks, next.short_len, next.data, next.stride);
                    enter::<K, L>(k, i, &next, (&mut mac, &mut keystream, &mut counters, &mut counter_steps));
                    k.set_key(keys, i, tasks[next.frame].key);
                }
                None => (left[i], ptr[i], stride[i]) = (usize::MAX, idle, 0),
            }
        }
    }
}

/// Lane `i`'s MAC, keystream, counter and counter step registers take `next`'s.
#[inline(always)]
fn enter<K: Kernel, const L: usize>(
    k: K,
    i: usize,
    next: &Ready<K::B>,
    (mac, keystream, counters, counter_steps): (
        &mut Registers<K, L>,
        &mut Registers<K, L>,
        &mut Registers<K, L>,
        &mut Registers<K, L>,
    ),
) {
    set_lane::<K, L>(k, mac, i, next.mac);
    set_lane::<K, L>(k, keystream, i, next.keystream);
    set_lane::<K, L>(k, counters, i, next.counter);
    set_lane::<K, L>(k, counter_steps, i, next.counter_step);
}

/// Lane `i`'s block of `registers`. (Each group is tested, so that `registers` is indexed by
/// constants only and stays in registers.)
#[inline(always)]
fn lane<K: Kernel, const L: usize>(k: K, registers: &[K::V; L], i: usize) -> K::B {
    let mut block = K::B::zero();
    for (g, register) in registers.iter().enumerate().take(L / K::W) {
        if g == i / K::W {
            block = k.extract_lane(*register, i % K::W);
        }
    }
    block
}

/// Replace lane `i`'s block of `registers` with `block`.
#[inline(always)]
fn set_lane<K: Kernel, const L: usize>(k: K, registers: &mut [K::V; L], i: usize, block: K::B) {
    for (g, register) in registers.iter_mut().enumerate().take(L / K::W) {
        if g == i / K::W {
            *register = k.insert_lane(*register, i % K::W, block);
        }
    }
}

/// The most lanes a kernel register holds (zmm).
const MAX_W: usize = 4;

/// Sub-chains past their head steps, waiting for a lane. The head steps (B0_j with A_0, H_1,
/// H_2 with the first counter: three steps of AES on every lane) run for the next `L`
/// sub-chains of the queue at once, so they keep every lane of the kernel busy, and a lane
/// that frees up takes a sub-chain at its first data block.
struct Heads<'k, K: Kernel, const L: usize> {
    kernel: K,
    /// The head steps' own key schedules (the lanes' stay as they are).
    keys: K::Keys<'k>,
    ready: [Ready<K::B>; L],
    taken: usize,
    count: usize,
    /// The next sub-chain of the queue: (frame, sub-chain).
    next: (usize, usize),
}

impl<'k, K: Kernel, const L: usize> Heads<'k, K, L> {
    fn new(k: K, first: &'k Key) -> Self {
        let none = Ready {
            frame: 0,
            full_blocks: 0,
            short_len: 0,
            data: core::ptr::null_mut(),
            stride: 0,
            mac: K::B::zero(),
            keystream: K::B::zero(),
            counter: K::B::zero(),
            counter_step: K::B::zero(),
        };
        Heads { kernel: k, keys: k.new_keys(first), ready: [none; L], taken: 0, count: 0, next: (0, 0) }
    }

    /// The next sub-chain with a full data block, or `None` when the queue is done.
    ///
    /// # Safety
    /// As `run`.
    #[inline(always)]
    unsafe fn take(&mut self, tasks: &mut [FrameTask<'k>]) -> Option<Ready<K::B>> {
        while self.taken == self.count {
            if self.next.0 >= tasks.len() {
                return None;
            }
            // SAFETY: the caller vouches for the tasks' data.
            unsafe { self.run_heads(tasks) };
        }
        self.taken += 1;
        Some(self.ready[self.taken - 1])
    }

    /// The head steps of the next `L` sub-chains (fewer at the end of the queue): those with
    /// a full data block wait in `ready`, the others end here.
    ///
    /// # Safety
    /// As `run`.
    #[inline(always)]
    unsafe fn run_heads(&mut self, tasks: &mut [FrameTask<'k>]) {
        let k = self.kernel;
        let mut blocks = [[K::B::zero(); L]; 5];
        let mut started = [(0usize, 0usize, 0usize, 0usize); L];
        let Some(first) = tasks.get(self.next.0) else { return };
        let mut head_keys = [first.key; L];
        let mut used = 0;
        while used < L {
            let (frame, j) = self.next;
            let Some(task) = tasks.get(frame) else { break };
            let mode = task.key.mode;
            let (sub_blocks, short_len) = sub_chain_blocks(task, j);
            let [b0, a0, h1, h2] = k.ccm_blocks(task.a0.as_bytes(), task.aad, task.len);
            blocks[0][used] = if mode.ways == Ways::N1 {
                b0
            } else {
                K::B::from_bytes(&sub_chain_b0(&b0.to_bytes(), mode.ways, mode.variant, j))
            };
            blocks[1][used] = a0;
            blocks[2][used] = h1;
            blocks[3][used] = h2;
            // Sub-chain j's first data block is block j, whose counter is j + 1.
            blocks[4][used] = if sub_blocks > 0 { K::B::with_counter(a0, 1 + j as u16) } else { a0 };
            head_keys[used] = task.key;
            started[used] = (frame, j, sub_blocks, short_len);
            used += 1;
            self.next = if j + 1 < mode.ways.count() { (frame, j + 1) } else { (frame + 1, 0) };
        }
        k.set_keys(&mut self.keys, &head_keys);
        let (s0, mac, ctr) = head_steps::<K, L>(k, &self.keys, &blocks);
        let (mut mac_out, mut keystream) = ([K::B::zero(); L], [K::B::zero(); L]);
        unpack::<K, L>(k, &mac, &mut mac_out);
        unpack::<K, L>(k, &ctr, &mut keystream);
        (self.taken, self.count) = (0, 0);
        for i in 0..used {
            let (frame, j, sub_blocks, short_len) = started[i];
            let task = &mut tasks[frame];
            if j == 0 {
                task.s0 = s0[i].to_bytes();
            }
            let full_blocks = sub_blocks - usize::from(short_len > 0);
            // SAFETY: block j starts inside the data when the sub-chain has a block.
            let data = if sub_blocks > 0 { unsafe { task.data.add(j * BLOCK) } } else { task.data };
            if full_blocks == 0 {
                // SAFETY: the sub-chain's only block, if any, is its short last block at `data`.
                unsafe { finish::<K>(k, task, mac_out[i], keystream[i], data, short_len) };
                continue;
            }
            let n = task.key.mode.ways.count();
            self.ready[self.count] = Ready {
                frame,
                full_blocks,
                short_len,
                data,
                stride: n * BLOCK,
                mac: mac_out[i],
                keystream: keystream[i],
                counter: K::B::with_counter(blocks[1][i], ((1 + j + n) as u16).swap_bytes()),
                counter_step: K::B::with_counter(K::B::zero(), (n as u16).swap_bytes()),
            };
            self.count += 1;
        }
    }
}

/// Fold a sub-chain whose full data blocks are done into its frame's accumulator: its short
/// last block (`short_len` octets at `ptr`, if it has one) en/decrypted with `keystream`, the
/// lane's last, and through the MAC's last step, one block on its own (nothing in the lanes
/// waits for it, so its latency overlaps their next steps).
///
/// # Safety
/// As `run`; `ptr` valid for `short_len` octets.
#[inline(always)]
unsafe fn finish<K: Kernel>(
    k: K,
    task: &mut FrameTask<'_>,
    mac: K::B,
    keystream: K::B,
    ptr: *mut u8,
    short_len: usize,
) {
    let mut mac = mac;
    if short_len > 0 {
        // SAFETY: `short_len` < 16 octets at `ptr` (the caller's contract), the last of the
        // task's data, so in a frame of at least a block the 16 - `short_len` before them are
        // the frame's too.
        let (input, output) = unsafe {
            match task.len >= BLOCK {
                true => k.partial_block_in_frame(ptr, short_len, keystream),
                false => partial_block(ptr, short_len, keystream),
            }
        };
        mac = k.encrypt_block(task.key, mac.xor(if task.open { output } else { input }));
    }
    task.acc = K::B::from_bytes(&task.acc).xor(mac).to_bytes();
}

/// One register per group of `K::W` lanes (groups past `L / K::W` unused).
type Registers<K, const L: usize> = [<K as Kernel>::V; L];

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

/// The three set-up steps of `L` lanes from their blocks `[B0, A_0, H_1, H_2, first
/// counter]`: E(A_0) of every lane, and the MAC (after H_2) and keystream of the first data
/// block in the kernel's registers.
#[inline(always)]
fn head_steps<K: Kernel, const L: usize>(
    k: K,
    keys: &K::Keys<'_>,
    blocks: &[[K::B; L]; 5],
) -> ([K::B; L], Registers<K, L>, Registers<K, L>) {
    let mut mac = pack::<K, L>(k, &blocks[0]);
    let (a0, h1) = (pack::<K, L>(k, &blocks[1]), pack::<K, L>(k, &blocks[2]));
    let (h2, first) = (pack::<K, L>(k, &blocks[3]), pack::<K, L>(k, &blocks[4]));
    let mut ctr = a0;
    k.encrypt::<L>(keys, &mut mac, &mut ctr);
    let mut s0 = [K::B::zero(); L];
    unpack::<K, L>(k, &ctr, &mut s0);
    for g in 0..L / K::W {
        mac[g] = k.xor(mac[g], h1[g]);
    }
    ctr = a0;
    k.encrypt::<L>(keys, &mut mac, &mut ctr);
    for g in 0..L / K::W {
        mac[g] = k.xor(mac[g], h2[g]);
    }
    ctr = first;
    k.encrypt::<L>(keys, &mut mac, &mut ctr);
    (s0, mac, ctr)
}

/// A lane-full of like frames (`is_cohort`) in lock step: the set-up of every lane at once
/// straight from the tasks, the full blocks, then the short last blocks, with no per-lane
/// phase tests and no lane state in memory between them. `L` lanes of frames of b blocks
/// take the 3 + b steps of `L` AES computations each that the scheduler would, without its
/// bookkeeping (about 500 instructions a frame).
///
/// # Safety
/// As `run`; `tasks` holds `L` tasks for which `is_cohort` holds.
#[inline(always)]
unsafe fn cohort<'k, K: Kernel, const L: usize, const DIRECTION: u8>(
    k: K,
    keys: &mut K::Keys<'k>,
    tasks: &mut [FrameTask<'k>],
) {
    let mut blocks = [[K::B::zero(); L]; 5];
    let mut ptr = [core::ptr::null_mut(); L];
    let mut lane_keys = [tasks[0].key; L];
    for i in 0..L {
        lane_keys[i] = tasks[i].key;
    }
    k.set_keys(keys, &lane_keys);
    for i in 0..L {
        let task = &tasks[i];
        [blocks[0][i], blocks[1][i], blocks[2][i], blocks[3][i]] = k.ccm_blocks(task.a0.as_bytes(), task.aad, task.len);
        blocks[4][i] = K::B::with_counter(blocks[1][i], 1);
        ptr[i] = task.data;
    }
    let (s0, mut mac, mut keystream) = head_steps::<K, L>(k, keys, &blocks);
    let open = tasks[0].open;
    let open_mask = k.gather(&[K::B::from_bytes(&[if open { 0xff } else { 0 }; BLOCK]); L]);
    let bulk = (&mut mac, &mut keystream);
    if K::W > 1 {
        // Every lane is at the same data block: one register of counter values in
        // `Kernel::add_counters` form (from data block 1's, 2, on, one apart) serves them
        // all, XORed into each lane's A_0 (octets 14, 15 zero), whitened once here. (The
        // AES-NI build, 16 registers for 8 lanes, loses 10 % with it.)
        let mut whitened_a0 = pack::<K, L>(k, &blocks[1]);
        k.whiten::<L>(keys, &mut whitened_a0);
        let mut counters = [k.gather(&[K::B::with_counter(K::B::zero(), 2u16.swap_bytes()); L]); L];
        let counter_steps = [k.gather(&[K::B::with_counter(K::B::zero(), 1u16.swap_bytes()); L]); L];
        // SAFETY: every lane's frame has `len / BLOCK` full blocks from its data pointer.
        unsafe {
            bulk_loop::<K, L, DIRECTION, true>(
                (k, keys),
                &mut ptr,
                &[BLOCK; L],
                open_mask,
                (bulk.0, bulk.1, &mut counters),
                (&counter_steps, &whitened_a0),
                tasks[0].len / BLOCK,
            )
        };
    } else {
        // Each lane's counters in `Kernel::add_counters` form, from data block 1's (2) on.
        let mut counters = [K::B::zero(); L];
        for i in 0..L {
            counters[i] = K::B::with_counter(blocks[1][i], 2u16.swap_bytes());
        }
        let mut counters = pack::<K, L>(k, &counters);
        let counter_steps = pack::<K, L>(k, &[K::B::with_counter(K::B::zero(), 1u16.swap_bytes()); L]);
        // SAFETY: as above.
        unsafe {
            bulk_loop::<K, L, DIRECTION, false>(
                (k, keys),
                &mut ptr,
                &[BLOCK; L],
                open_mask,
                (bulk.0, bulk.1, &mut counters),
                (&counter_steps, &counter_steps),
                tasks[0].len / BLOCK,
            )
        };
    }
    if !tasks[0].len.is_multiple_of(BLOCK) {
        let mut ks = [K::B::zero(); L];
        unpack::<K, L>(k, &keystream, &mut ks);
        let mut plain = [K::B::zero(); L];
        for i in 0..L {
            // SAFETY: past the full blocks, `ptr[i]` is at the frame's short last block, the
            // last `len % BLOCK` octets of its data.
            let (input, output) = unsafe {
                match tasks[i].len >= BLOCK {
                    true => k.partial_block_in_frame(ptr[i], tasks[i].len % BLOCK, ks[i]),
                    false => partial_block(ptr[i], tasks[i].len % BLOCK, ks[i]),
                }
            };
            plain[i] = if open { output } else { input };
        }
        let plain = pack::<K, L>(k, &plain);
        for g in 0..L / K::W {
            mac[g] = k.xor(mac[g], plain[g]);
        }
        // The counter blocks of this step are not used.
        k.encrypt::<L>(keys, &mut mac, &mut keystream);
    }
    let mut macs = [K::B::zero(); L];
    unpack::<K, L>(k, &mac, &mut macs);
    for i in 0..L {
        tasks[i].acc = macs[i].to_bytes();
        tasks[i].s0 = s0[i].to_bytes();
    }
}

/// `bulk_loop`'s direction: every lane seals, every lane opens, or either (from `open`).
const SEAL: u8 = 0;
const OPEN: u8 = 1;
const EITHER: u8 = 2;

/// The registers of `L` lanes through `steps` bulk steps: each lane's data block at `ptr`
/// en/decrypted in place with `keystream` and fed to `mac`, the next `counters` encrypted
/// for the keystream of the next step; `ptr` advances by `stride`. `open` is all ones
/// where the lanes open (read only in the `EITHER` direction). Each group's `counters`
/// advance by its `counter_steps`; with `SHARED` (a cohort: every lane at the same block)
/// `counters[0]` and `counter_steps[0]` alone count for every lane, a counter block is
/// that count XORed into the lane's whitened A_0 (`whitened_a0`, read only then), and the
/// MAC chains run whitened (`Kernel::encrypt_whitened`): one XOR a register for each
/// input instead of a shuffle, an add and two whitening XORs (AMD EPYC Zen-4 class, medians
/// of 8 alternating runs, multi-buffer 1500 octets: the shared count zmm 0.424 → 0.412
/// cycles/byte, ymm 0.425 → 0.419; the whitened MAC then ymm 0.418 → 0.399 (10 runs), zmm
/// 0.414 → 0.408).
///
/// # Safety
/// As `run`; every lane's `ptr` valid for `steps` blocks `stride` apart.
#[inline(always)]
unsafe fn bulk_loop<K: Kernel, const L: usize, const DIRECTION: u8, const SHARED: bool>(
    (k, keys): (K, &K::Keys<'_>),
    ptr: &mut [*mut u8; L],
    stride: &[usize; L],
    open: K::V,
    (mac, keystream, counters): (&mut Registers<K, L>, &mut Registers<K, L>, &mut Registers<K, L>),
    (counter_steps, whitened_a0): (&[K::V; L], &[K::V; L]),
    steps: usize,
) {
    if SHARED {
        k.whiten::<L>(keys, mac);
    }
    for _ in 0..steps {
        let mut ctr = *counters;
        let mut shared = counters[0];
        if SHARED {
            shared = k.counter_blocks(counters[0]);
            counters[0] = k.add_counters(counters[0], counter_steps[0]);
        }
        for g in 0..L / K::W {
            let lane_ptrs = &ptr[g * K::W..(g + 1) * K::W];
            // SAFETY: each lane's pointer is at one of its `steps` blocks (the caller's contract).
            let d = unsafe { k.load(lane_ptrs) };
            // SAFETY: as above.
            unsafe { k.store(k.xor(d, keystream[g]), lane_ptrs) };
            // The plaintext: the input when sealing, the output when opening.
            let plaintext = match DIRECTION {
                SEAL => d,
                OPEN => k.xor(d, keystream[g]),
                _ => k.xor(d, k.and(keystream[g], open)),
            };
            mac[g] = k.xor(mac[g], plaintext);
            if SHARED {
                ctr[g] = k.xor(whitened_a0[g], shared);
            } else {
                ctr[g] = k.counter_blocks(counters[g]);
                counters[g] = k.add_counters(counters[g], counter_steps[g]);
            }
        }
        for i in 0..L {
            // Wrapping: after its last full block an Enhanced sub-chain's pointer may point up
            // to N - 1 blocks past its frame's data; it is not read there.
            ptr[i] = ptr[i].wrapping_add(stride[i]);
        }
        if SHARED {
            k.encrypt_whitened::<L>(keys, mac, &mut ctr);
        } else {
            k.encrypt::<L>(keys, mac, &mut ctr);
        }
        *keystream = ctr;
    }
    if SHARED {
        k.whiten::<L>(keys, mac);
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
