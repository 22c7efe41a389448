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
//! over the data does both. When a lane finishes, it takes the next sub-chain of the queue:
//! frames of any lengths and keys are packed densely into the lanes (multi-buffer). A
//! lane-full of like CCMP-128 frames (`is_cohort`) skips the scheduler and runs the same
//! steps in lock step (`cohort`).

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
    /// # Safety
    /// `ptr` must be valid for reading 16 octets.
    unsafe fn load(ptr: *const u8) -> Self;
    /// # Safety
    /// `ptr` must be valid for writing 16 octets.
    unsafe fn store(self, ptr: *mut u8);
    /// B0, A_0, H_1, H_2 of a frame of `len` octets from its A_0 and `aad` (15..=30 octets).
    ///
    /// # Safety
    /// As `Kernel::encrypt` of a kernel on this block type.
    #[inline(always)]
    unsafe fn ccm_blocks(a0: &[u8; BLOCK], aad: &[u8], len: usize) -> CcmBlocks<Self> {
        ccm_blocks(a0, aad, len).map(|b| Self::from_bytes(&b))
    }
}

/// `Blk::ccm_blocks` as octets, in integer registers (same octets as `enhanced::ccmp_b0`,
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
pub(crate) trait Kernel {
    type B: Blk;
    type V: Copy;
    const W: usize;
    /// Per-lane key schedules, in the layout the kernel wants.
    type Keys<'k>;
    fn new_keys(first: &Key) -> Self::Keys<'_>;
    fn set_key<'k>(keys: &mut Self::Keys<'k>, lane: usize, key: &'k Key);
    /// `set_key` of lanes `0..L` at once.
    ///
    /// # Safety
    /// As `encrypt`.
    #[inline(always)]
    unsafe fn set_keys<'k, const L: usize>(keys: &mut Self::Keys<'k>, lane_keys: &[&'k Key; L]) {
        for (lane, key) in lane_keys.iter().enumerate() {
            Self::set_key(keys, lane, key);
        }
    }
    /// # Safety
    /// The CPU features the kernel was built for must be present.
    unsafe fn encrypt<const L: usize>(keys: &Self::Keys<'_>, mac: &mut [Self::V; L], ctr: &mut [Self::V; L]);
    /// Round key 0 of each lane XORed into `v` (grouped as in `encrypt`).
    ///
    /// # Safety
    /// As `encrypt`.
    unsafe fn whiten<const L: usize>(keys: &Self::Keys<'_>, v: &mut [Self::V; L]);
    /// As `encrypt`, both inputs arriving whitened (`whiten`) and the MAC blocks leaving
    /// whitened (round key 0 folded into the last round's), so a MAC chain's next input is
    /// its output XOR the data. By default the whitening is taken off, `encrypt` run and the
    /// MAC blocks whitened again (the wide kernels override it; only their cohorts whiten,
    /// see `bulk_loop`).
    ///
    /// # Safety
    /// As `encrypt`.
    #[inline(always)]
    unsafe fn encrypt_whitened<const L: usize>(keys: &Self::Keys<'_>, mac: &mut [Self::V; L], ctr: &mut [Self::V; L]) {
        Self::whiten::<L>(keys, mac);
        Self::whiten::<L>(keys, ctr);
        Self::encrypt::<L>(keys, mac, ctr);
        Self::whiten::<L>(keys, mac);
    }
    /// One key for every lane, its round keys in registers (the single-frame path).
    type FrameKeys<'k>;
    /// # Safety
    /// As `encrypt`.
    unsafe fn frame_keys(key: &Key) -> Self::FrameKeys<'_>;
    /// Round key 0, which the MAC input of `encrypt_frame` arrives XORed with (zero for a
    /// kernel without single rounds).
    ///
    /// # Safety
    /// As `encrypt`.
    unsafe fn first_round_key(keys: &Self::FrameKeys<'_>) -> Self::V;
    /// Round key 10 (zero for a kernel without single rounds).
    ///
    /// # Safety
    /// As `encrypt`.
    unsafe fn last_round_key(keys: &Self::FrameKeys<'_>) -> Self::V;
    /// As `encrypt`, every lane under `keys`; the MAC input arrives whitened (XORed with
    /// `first_round_key`) and its last round takes `mac_last` for round key 10, so the next
    /// block and whitening fold into the last round and the CBC-MAC chain is AES rounds
    /// only. (A kernel without single rounds XORs `mac_last` into the MAC output.) Only the
    /// counter blocks of lanes `0..ctr_lanes` (whole registers) need be encrypted: a frame's
    /// first and last steps use few or none, and every caller passes a constant, so the
    /// inlined rounds keep no branch.
    ///
    /// # Safety
    /// As `encrypt`.
    unsafe fn encrypt_frame<const L: usize>(
        keys: &Self::FrameKeys<'_>,
        mac: &mut [Self::V; L],
        mac_last: &[Self::V; L],
        ctr: &mut [Self::V; L],
        ctr_lanes: usize,
    );
    /// `W` consecutive blocks at `ptr`, lane by lane.
    ///
    /// # Safety
    /// As `encrypt`; `ptr` valid for reading `16 * W` octets.
    unsafe fn load_run(ptr: *const u8) -> Self::V;
    /// # Safety
    /// As `encrypt`; `ptr` valid for writing `16 * W` octets.
    unsafe fn store_run(ptr: *mut u8, v: Self::V);
    /// `W` lanes' blocks, from `blocks[..W]`.
    ///
    /// # Safety
    /// As `encrypt`.
    unsafe fn gather(blocks: &[Self::B]) -> Self::V;
    /// # Safety
    /// As `encrypt`.
    unsafe fn scatter(v: Self::V, blocks: &mut [Self::B]);
    /// # Safety
    /// As `encrypt`; `ptrs[..W]` valid for reading 16 octets each.
    unsafe fn load(ptrs: &[*mut u8]) -> Self::V;
    /// # Safety
    /// As `encrypt`; `ptrs[..W]` valid for writing 16 octets each.
    unsafe fn store(v: Self::V, ptrs: &[*mut u8]);
    /// # Safety
    /// As `encrypt`.
    unsafe fn xor(a: Self::V, b: Self::V) -> Self::V;
    /// # Safety
    /// As `encrypt`.
    unsafe fn and(a: Self::V, b: Self::V) -> Self::V;
    /// Counter registers hold each lane's counter in octets 14, 15 little-endian, so one
    /// 16-bit add advances every lane; `counter_blocks` swaps the two octets into CCM's order.
    ///
    /// # Safety
    /// As `encrypt`.
    unsafe fn add_counters(counters: Self::V, steps: Self::V) -> Self::V;
    /// # Safety
    /// As `encrypt`.
    unsafe fn counter_blocks(counters: Self::V) -> Self::V;
}

/// One frame to seal or open. `data` points at `len` octets that stay exclusively borrowed
/// for the run; on return `acc` holds the XOR of the sub-chain CBC-MAC values and `s0` is
/// E(A_0), so the MIC is the first 8 octets of `acc ^ s0`. The kernels build the frame's
/// other CCM blocks from `a0` and `aad` in their registers (`Blk::ccm_blocks`).
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

#[derive(Clone, Copy)]
struct Lane<B> {
    active: bool,
    frame: usize,
    sub_chain: usize,
    step: usize,
    total_steps: usize,
    blocks: usize,
    last_len: usize,
    mac: B,
    keystream: B,
    b0: B,
    h1: B,
    h2: B,
    counter_base: B,
    counter: u16,
    counter_step: u16,
    data: *mut u8,
    stride: usize,
    open: bool,
}

impl<B: Blk> Lane<B> {
    fn idle() -> Self {
        Lane {
            active: false,
            frame: 0,
            sub_chain: 0,
            step: 0,
            total_steps: 0,
            blocks: 0,
            last_len: BLOCK,
            mac: B::zero(),
            keystream: B::zero(),
            b0: B::zero(),
            h1: B::zero(),
            h2: B::zero(),
            counter_base: B::zero(),
            counter: 0,
            counter_step: 1,
            data: core::ptr::null_mut(),
            stride: BLOCK,
            open: false,
        }
    }

    /// Start sub-chain `j` of `task`. Inlined: as a call it returns the lane through memory,
    /// and copying it from there stalls on store forwarding.
    ///
    /// # Safety
    /// As `run`.
    #[inline(always)]
    unsafe fn start(frame: usize, j: usize, task: &FrameTask<'_>) -> Self {
        let mode = task.key.mode;
        let (n, shift) = (mode.ways.count(), mode.ways.log2());
        let total_blocks = task.len.div_ceil(BLOCK);
        let blocks = if total_blocks > j { (total_blocks - j + n - 1) >> shift } else { 0 };
        let holds_last = total_blocks > 0 && (total_blocks - 1) & (n - 1) == j;
        let last_len = if holds_last && !task.len.is_multiple_of(BLOCK) { task.len % BLOCK } else { BLOCK };
        let [b0, a0, h1, h2] = B::ccm_blocks(task.a0.as_bytes(), task.aad, task.len);
        let b0 = if mode.ways == Ways::N1 {
            b0
        } else {
            B::from_bytes(&sub_chain_b0(&b0.to_bytes(), mode.ways, mode.variant, j))
        };
        Lane {
            active: true,
            frame,
            sub_chain: j,
            step: 0,
            total_steps: 3 + blocks,
            blocks,
            last_len,
            mac: B::zero(),
            keystream: B::zero(),
            b0,
            h1,
            h2,
            counter_base: a0,
            counter: 1 + j as u16,
            counter_step: n as u16,
            // SAFETY: block j starts inside the data (or the lane never touches data).
            data: if blocks > 0 { unsafe { task.data.add(j * BLOCK) } } else { task.data },
            stride: n * BLOCK,
            open: task.open,
        }
    }

    /// The two blocks this lane encrypts in its current step; en/decrypts a data block.
    ///
    /// # Safety
    /// The lane's data pointer must be valid for its blocks.
    #[inline(always)]
    unsafe fn inputs(&mut self) -> (B, B) {
        let s = self.step;
        if s >= 3 {
            let k = s - 3;
            let ptr = self.data.add(k * self.stride);
            let (plain_in, out) = if k + 1 < self.blocks || self.last_len == BLOCK {
                let d = B::load(ptr);
                let o = d.xor(self.keystream);
                o.store(ptr);
                (d, o)
            } else {
                self.partial_block(ptr)
            };
            let plaintext = if self.open { out } else { plain_in };
            let counter = if k + 1 < self.blocks { self.next_counter() } else { self.counter_base };
            (self.mac.xor(plaintext), counter)
        } else if s == 0 {
            (self.b0, self.counter_base)
        } else if s == 1 {
            (self.mac.xor(self.h1), self.counter_base)
        } else {
            let counter = if self.blocks > 0 { self.next_counter() } else { self.counter_base };
            (self.mac.xor(self.h2), counter)
        }
    }

    #[inline(always)]
    fn next_counter(&mut self) -> B {
        let c = B::with_counter(self.counter_base, self.counter);
        self.counter = self.counter.wrapping_add(self.counter_step);
        c
    }

    /// The frame's last, short block: (input zero-padded, output zero-padded).
    #[inline(always)]
    unsafe fn partial_block(&self, ptr: *mut u8) -> (B, B) {
        partial_block(ptr, self.last_len, self.keystream)
    }
}

/// En/decrypt the `r` < 16 octets at `ptr` in place with `keystream`: (input zero-padded,
/// output zero-padded). In integer registers, without `memcpy` calls or a buffer: every
/// frame of a length that is not a multiple of 16 comes here once per lane; byte loops cost
/// a tenth of a 1500-octet frame, and a block read back from narrower stores waits for
/// them to reach the cache.
#[inline(always)]
unsafe fn partial_block<B: Blk>(ptr: *mut u8, r: usize, keystream: B) -> (B, B) {
    use core::ptr::{read_unaligned, write_unaligned};
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

/// Run every frame of `tasks` through `L` lanes of kernel `K`. Every task seals, or every
/// task opens.
///
/// # Safety
/// The kernel's CPU features must be present, and every task's data pointer valid for `len`
/// octets and not aliased by another task.
#[inline(always)]
pub(crate) unsafe fn run<K: Kernel, const L: usize>(tasks: &mut [FrameTask<'_>]) {
    let Some(first) = tasks.first() else { return };
    let open = first.open;
    debug_assert!(tasks.iter().all(|t| t.open == open));
    let mut keys = K::new_keys(first.key);
    // Lane-fulls of like frames (see `is_cohort`) in lock step; the frames between them
    // through the scheduler, which packs frames of any length and mode into the lanes.
    let mut mixed_from = 0;
    let mut at = 0;
    while at + L <= tasks.len() {
        if is_cohort(&tasks[at..at + L]) {
            schedule::<K, L>(&mut keys, &mut tasks[mixed_from..at]);
            match (K::W > 1, open) {
                (true, false) => cohort::<K, L, SEAL>(&mut keys, &mut tasks[at..at + L]),
                (true, true) => cohort::<K, L, OPEN>(&mut keys, &mut tasks[at..at + L]),
                (false, _) => cohort::<K, L, EITHER>(&mut keys, &mut tasks[at..at + L]),
            }
            mixed_from = at + L;
        }
        at += L;
    }
    schedule::<K, L>(&mut keys, &mut tasks[mixed_from..]);
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

/// The lane scheduler: every frame of `tasks` through `L` lanes of kernel `K`.
///
/// # Safety
/// As `run`.
#[inline(always)]
unsafe fn schedule<'k, K: Kernel, const L: usize>(keys: &mut K::Keys<'k>, tasks: &mut [FrameTask<'k>]) {
    let Some(first) = tasks.first() else { return };
    let open = first.open;
    let mut lanes = [Lane::<K::B>::idle(); L];
    let mut next = (0usize, 0usize);
    for (i, lane) in lanes.iter_mut().enumerate() {
        assign::<K>(lane, keys, i, &mut next, tasks);
    }
    let mut mac = [K::B::zero(); L];
    let mut ctr = [K::B::zero(); L];
    // Three phases, cheapest first: the head (B0 and AAD steps) of lanes that all start
    // together, the bulk (full data blocks) of lanes that are all in it, and otherwise one
    // general step, which handles lanes in different phases and short last blocks.
    loop {
        if lanes.iter().all(|l| !l.active || l.step == 0) {
            if !lanes.iter().any(|l| l.active) {
                break;
            }
            head::<K, L>(keys, &mut lanes, tasks);
            retire_finished::<K, L>(&mut lanes, keys, &mut next, tasks);
            continue;
        }
        let steps = bulk_steps(&lanes);
        if steps > 0 {
            // Wide kernels get a bulk step per direction, so a sealing lane's MAC input does
            // not wait for the keystream; 128-bit kernels (16 xmm registers in the AES-NI
            // build) keep one step for both, as two copies spilled their lane state (AES-NI
            // 1500-octet batches 0.91 -> 1.06 cycles/byte).
            match (K::W > 1, open) {
                (true, false) => bulk::<K, L, SEAL>(keys, &mut lanes, steps),
                (true, true) => bulk::<K, L, OPEN>(keys, &mut lanes, steps),
                (false, _) => bulk::<K, L, EITHER>(keys, &mut lanes, steps),
            }
            retire_finished::<K, L>(&mut lanes, keys, &mut next, tasks);
            continue;
        }
        for i in 0..L {
            let lane = &mut lanes[i];
            (mac[i], ctr[i]) = if lane.active { lane.inputs() } else { (K::B::zero(), K::B::zero()) };
        }
        encrypt_blocks::<K, L>(keys, &mut mac, &mut ctr);
        for i in 0..L {
            let lane = &mut lanes[i];
            if !lane.active {
                continue;
            }
            lane.mac = mac[i];
            lane.keystream = ctr[i];
            if lane.step == 0 && lane.sub_chain == 0 {
                tasks[lane.frame].s0 = ctr[i].to_bytes();
            }
            lane.step += 1;
        }
        retire_finished::<K, L>(&mut lanes, keys, &mut next, tasks);
    }
}

/// One register per group of `K::W` lanes (groups past `L / K::W` unused).
type Registers<K, const L: usize> = [<K as Kernel>::V; L];

/// The blocks of `L` lanes as registers of `K::W` lanes each.
#[inline(always)]
pub(crate) unsafe fn pack<K: Kernel, const L: usize>(blocks: &[K::B; L]) -> [K::V; L] {
    let mut out = [K::gather(blocks); L];
    for g in 1..L / K::W {
        out[g] = K::gather(&blocks[g * K::W..]);
    }
    out
}

#[inline(always)]
pub(crate) unsafe fn unpack<K: Kernel, const L: usize>(registers: &[K::V; L], blocks: &mut [K::B; L]) {
    for g in 0..L / K::W {
        K::scatter(registers[g], &mut blocks[g * K::W..]);
    }
}

/// One step of the general path: the lanes' blocks through the kernel.
#[inline(always)]
unsafe fn encrypt_blocks<K: Kernel, const L: usize>(keys: &K::Keys<'_>, mac: &mut [K::B; L], ctr: &mut [K::B; L]) {
    let (mut m, mut c) = (pack::<K, L>(mac), pack::<K, L>(ctr));
    K::encrypt::<L>(keys, &mut m, &mut c);
    unpack::<K, L>(&m, mac);
    unpack::<K, L>(&c, ctr);
}

/// Steps 0..3 (B0 with A_0, H_1, H_2 with the first counter) of lanes that are all at
/// step 0, in the kernel's registers and without the general step's per-lane phase tests:
/// the per-frame set-up of a whole lane-full of frames at once.
///
/// # Safety
/// As `run`.
#[inline(always)]
unsafe fn head<K: Kernel, const L: usize>(
    keys: &K::Keys<'_>,
    lanes: &mut [Lane<K::B>; L],
    tasks: &mut [FrameTask<'_>],
) {
    let mut blocks = [[K::B::zero(); L]; 5];
    for i in 0..L {
        let lane = &mut lanes[i];
        blocks[0][i] = lane.b0;
        blocks[1][i] = lane.counter_base;
        blocks[2][i] = lane.h1;
        blocks[3][i] = lane.h2;
        blocks[4][i] = if lane.active && lane.blocks > 0 { lane.next_counter() } else { lane.counter_base };
    }
    let (s0, mac, ctr) = head_steps::<K, L>(keys, &blocks);
    let (mut mac_out, mut keystream) = ([K::B::zero(); L], [K::B::zero(); L]);
    unpack::<K, L>(&mac, &mut mac_out);
    unpack::<K, L>(&ctr, &mut keystream);
    for i in 0..L {
        let lane = &mut lanes[i];
        if lane.active {
            if lane.sub_chain == 0 {
                tasks[lane.frame].s0 = s0[i].to_bytes();
            }
            lane.mac = mac_out[i];
            lane.keystream = keystream[i];
            lane.step = 3;
        }
    }
}

/// The three set-up steps of `L` lanes from their blocks `[B0, A_0, H_1, H_2, first
/// counter]`: E(A_0) of every lane, and the MAC (after H_2) and keystream of the first data
/// block in the kernel's registers.
///
/// # Safety
/// As `run`.
#[inline(always)]
unsafe fn head_steps<K: Kernel, const L: usize>(
    keys: &K::Keys<'_>,
    blocks: &[[K::B; L]; 5],
) -> ([K::B; L], Registers<K, L>, Registers<K, L>) {
    let mut mac = pack::<K, L>(&blocks[0]);
    let (a0, h1) = (pack::<K, L>(&blocks[1]), pack::<K, L>(&blocks[2]));
    let (h2, first) = (pack::<K, L>(&blocks[3]), pack::<K, L>(&blocks[4]));
    let mut ctr = a0;
    K::encrypt::<L>(keys, &mut mac, &mut ctr);
    let mut s0 = [K::B::zero(); L];
    unpack::<K, L>(&ctr, &mut s0);
    for g in 0..L / K::W {
        mac[g] = K::xor(mac[g], h1[g]);
    }
    ctr = a0;
    K::encrypt::<L>(keys, &mut mac, &mut ctr);
    for g in 0..L / K::W {
        mac[g] = K::xor(mac[g], h2[g]);
    }
    ctr = first;
    K::encrypt::<L>(keys, &mut mac, &mut ctr);
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
    keys: &mut K::Keys<'k>,
    tasks: &mut [FrameTask<'k>],
) {
    let mut blocks = [[K::B::zero(); L]; 5];
    let mut ptr = [core::ptr::null_mut(); L];
    let mut lane_keys = [tasks[0].key; L];
    for i in 0..L {
        lane_keys[i] = tasks[i].key;
    }
    K::set_keys(keys, &lane_keys);
    for i in 0..L {
        let task = &tasks[i];
        [blocks[0][i], blocks[1][i], blocks[2][i], blocks[3][i]] =
            K::B::ccm_blocks(task.a0.as_bytes(), task.aad, task.len);
        blocks[4][i] = K::B::with_counter(blocks[1][i], 1);
        ptr[i] = task.data;
    }
    let (s0, mut mac, mut keystream) = head_steps::<K, L>(keys, &blocks);
    let open = tasks[0].open;
    let open_mask = K::gather(&[K::B::from_bytes(&[if open { 0xff } else { 0 }; BLOCK]); L]);
    let bulk = (&mut mac, &mut keystream);
    if K::W > 1 {
        // Every lane is at the same data block: one register of counter values in
        // `Kernel::add_counters` form (from data block 1's, 2, on, one apart) serves them
        // all, XORed into each lane's A_0 (octets 14, 15 zero), whitened once here. (The
        // AES-NI build, 16 registers for 8 lanes, loses 10 % with it.)
        let mut whitened_a0 = pack::<K, L>(&blocks[1]);
        K::whiten::<L>(keys, &mut whitened_a0);
        let mut counters = [K::gather(&[K::B::with_counter(K::B::zero(), 2u16.swap_bytes()); L]); L];
        let counter_steps = [K::gather(&[K::B::with_counter(K::B::zero(), 1u16.swap_bytes()); L]); L];
        bulk_loop::<K, L, DIRECTION, true>(
            keys,
            &mut ptr,
            &[BLOCK; L],
            open_mask,
            (bulk.0, bulk.1, &mut counters),
            (&counter_steps, &whitened_a0),
            tasks[0].len / BLOCK,
        );
    } else {
        // Each lane's counters in `Kernel::add_counters` form, from data block 1's (2) on.
        let mut counters = [K::B::zero(); L];
        for i in 0..L {
            counters[i] = K::B::with_counter(blocks[1][i], 2u16.swap_bytes());
        }
        let mut counters = pack::<K, L>(&counters);
        let counter_steps = pack::<K, L>(&[K::B::with_counter(K::B::zero(), 1u16.swap_bytes()); L]);
        bulk_loop::<K, L, DIRECTION, false>(
            keys,
            &mut ptr,
            &[BLOCK; L],
            open_mask,
            (bulk.0, bulk.1, &mut counters),
            (&counter_steps, &counter_steps),
            tasks[0].len / BLOCK,
        );
    }
    if !tasks[0].len.is_multiple_of(BLOCK) {
        let mut ks = [K::B::zero(); L];
        unpack::<K, L>(&keystream, &mut ks);
        let mut plain = [K::B::zero(); L];
        for i in 0..L {
            let (input, output) = partial_block(ptr[i], tasks[i].len % BLOCK, ks[i]);
            plain[i] = if open { output } else { input };
        }
        let plain = pack::<K, L>(&plain);
        for g in 0..L / K::W {
            mac[g] = K::xor(mac[g], plain[g]);
        }
        // The counter blocks of this step are not used.
        K::encrypt::<L>(keys, &mut mac, &mut keystream);
    }
    let mut macs = [K::B::zero(); L];
    unpack::<K, L>(&mac, &mut macs);
    for i in 0..L {
        tasks[i].acc = macs[i].to_bytes();
        tasks[i].s0 = s0[i].to_bytes();
    }
}

/// Fold the CBC-MAC value of every lane that has finished its sub-chain into its frame's
/// accumulator and give the lane the next sub-chain of the queue.
///
/// # Safety
/// As `run`.
#[inline(always)]
unsafe fn retire_finished<'k, K: Kernel, const L: usize>(
    lanes: &mut [Lane<K::B>; L],
    keys: &mut K::Keys<'k>,
    next: &mut (usize, usize),
    tasks: &mut [FrameTask<'k>],
) {
    for (i, lane) in lanes.iter_mut().enumerate() {
        if lane.active && lane.step == lane.total_steps {
            let acc = &mut tasks[lane.frame].acc;
            for (a, x) in acc.iter_mut().zip(lane.mac.to_bytes()) {
                *a ^= x;
            }
            assign::<K>(lane, keys, i, next, tasks);
        }
    }
}

/// How many steps every active lane can take in its bulk phase: a full data block in, and
/// the counter of the next data block out.
#[inline(always)]
fn bulk_steps<B: Blk, const L: usize>(lanes: &[Lane<B>; L]) -> usize {
    let mut steps = usize::MAX;
    for lane in lanes.iter().filter(|l| l.active) {
        if lane.step < 3 {
            return 0;
        }
        // A full last block is a bulk step too (its next counter is computed and unused);
        // a short one goes through the general step.
        let full_last = usize::from(lane.last_len == BLOCK);
        steps = steps.min(lane.blocks - 1 + full_last - (lane.step - 3));
    }
    if steps == usize::MAX {
        0
    } else {
        steps
    }
}

/// `bulk`'s direction: every lane seals, every lane opens, or either (from the lanes).
const SEAL: u8 = 0;
const OPEN: u8 = 1;
const EITHER: u8 = 2;

/// `steps` bulk steps of every lane: the lane state in the kernel's registers, no phase
/// tests or branches, memory touched only for the data. Idle lanes en/decrypt a scratch
/// block in place (their results are discarded), so every lane runs the same code.
///
/// # Safety
/// As `run`; every active lane has `steps` more full blocks and counters.
#[inline(always)]
unsafe fn bulk<K: Kernel, const L: usize, const DIRECTION: u8>(
    keys: &K::Keys<'_>,
    lanes: &mut [Lane<K::B>; L],
    steps: usize,
) {
    // Plain loops rather than `array::from_fn`: its closures do not inherit the caller's
    // target features and stay calls.
    let mut scratch = [0u8; BLOCK];
    let mut ptr = [scratch.as_mut_ptr(); L];
    let mut stride = [0usize; L];
    let mut blocks = [[K::B::zero(); L]; 4];
    // Every task of a run seals, or every task opens (see `run`).
    let open = if lanes.iter().any(|l| l.active && l.open) { [0xff; BLOCK] } else { [0; BLOCK] };
    let open = K::gather(&[K::B::from_bytes(&open); L]);
    for i in 0..L {
        let lane = &lanes[i];
        if lane.active {
            ptr[i] = lane.data.add((lane.step - 3) * lane.stride);
            stride[i] = lane.stride;
        }
        blocks[0][i] = lane.mac;
        blocks[1][i] = lane.keystream;
        blocks[2][i] = K::B::with_counter(lane.counter_base, lane.counter.swap_bytes());
        blocks[3][i] = K::B::with_counter(K::B::zero(), lane.counter_step.swap_bytes());
    }
    let (mut mac, mut keystream) = (pack::<K, L>(&blocks[0]), pack::<K, L>(&blocks[1]));
    let (mut counters, counter_steps) = (pack::<K, L>(&blocks[2]), pack::<K, L>(&blocks[3]));
    bulk_loop::<K, L, DIRECTION, false>(
        keys,
        &mut ptr,
        &stride,
        open,
        (&mut mac, &mut keystream, &mut counters),
        (&counter_steps, &counter_steps),
        steps,
    );
    let (mut mac_out, mut keystream_out) = ([K::B::zero(); L], [K::B::zero(); L]);
    unpack::<K, L>(&mac, &mut mac_out);
    unpack::<K, L>(&keystream, &mut keystream_out);
    for i in 0..L {
        let lane = &mut lanes[i];
        if lane.active {
            lane.mac = mac_out[i];
            lane.keystream = keystream_out[i];
            lane.counter = lane.counter.wrapping_add((steps as u16).wrapping_mul(lane.counter_step));
            lane.step += steps;
        }
    }
}

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
    keys: &K::Keys<'_>,
    ptr: &mut [*mut u8; L],
    stride: &[usize; L],
    open: K::V,
    (mac, keystream, counters): (&mut Registers<K, L>, &mut Registers<K, L>, &mut Registers<K, L>),
    (counter_steps, whitened_a0): (&[K::V; L], &[K::V; L]),
    steps: usize,
) {
    if SHARED {
        K::whiten::<L>(keys, mac);
    }
    for _ in 0..steps {
        let mut ctr = *counters;
        let mut shared = counters[0];
        if SHARED {
            shared = K::counter_blocks(counters[0]);
            counters[0] = K::add_counters(counters[0], counter_steps[0]);
        }
        for g in 0..L / K::W {
            let lane_ptrs = &ptr[g * K::W..(g + 1) * K::W];
            let d = K::load(lane_ptrs);
            K::store(K::xor(d, keystream[g]), lane_ptrs);
            // The plaintext: the input when sealing, the output when opening.
            let plaintext = match DIRECTION {
                SEAL => d,
                OPEN => K::xor(d, keystream[g]),
                _ => K::xor(d, K::and(keystream[g], open)),
            };
            mac[g] = K::xor(mac[g], plaintext);
            if SHARED {
                ctr[g] = K::xor(whitened_a0[g], shared);
            } else {
                ctr[g] = K::counter_blocks(counters[g]);
                counters[g] = K::add_counters(counters[g], counter_steps[g]);
            }
        }
        for i in 0..L {
            ptr[i] = ptr[i].add(stride[i]);
        }
        if SHARED {
            K::encrypt_whitened::<L>(keys, mac, &mut ctr);
        } else {
            K::encrypt::<L>(keys, mac, &mut ctr);
        }
        *keystream = ctr;
    }
    if SHARED {
        K::whiten::<L>(keys, mac);
    }
}

/// Give `lane` the next sub-chain in the queue, or idle it.
///
/// # Safety
/// As `run`.
#[inline(always)]
unsafe fn assign<'k, K: Kernel>(
    lane: &mut Lane<K::B>,
    keys: &mut K::Keys<'k>,
    index: usize,
    next: &mut (usize, usize),
    tasks: &[FrameTask<'k>],
) {
    let (frame, j) = *next;
    let Some(task) = tasks.get(frame) else {
        lane.active = false;
        return;
    };
    *lane = Lane::start(frame, j, task);
    K::set_key(keys, index, task.key);
    *next = if j + 1 < task.key.mode.ways.count() { (frame, j + 1) } else { (frame + 1, 0) };
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
