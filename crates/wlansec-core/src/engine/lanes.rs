//! The lane scheduler shared by every backend (multi-buffer batches).
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
//! lane takes the next one of the queue (longest first): frames of any lengths and keys are
//! packed densely into the lanes (multi-buffer). A lane-full of like CCMP-128 frames
//! (`is_cohort`) skips the scheduler and runs the same steps in lock step (`cohort`).

use super::enhanced::{sub_chain_b0, Ways};
use super::kernel::{pack, partial_block, sub_chain_blocks, unpack, Blk, FrameTask, Kernel, BLOCK, TASK_CHUNK};
use super::key::Key;

/// A sub-chain past its head steps (`Heads`), ready for a lane: where its data is, its full
/// blocks and short last block, and its lane state as the kernel's registers hold it.
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

/// Run every frame of `tasks` through `L` lanes of kernel `K`. Every task seals, or every
/// task opens.
///
/// # Safety
/// Every task as `FrameTask` requires: its data valid for `len` octets and no other
/// task's, its AAD 15..=30 octets.
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
            // SAFETY: these tasks are some of the caller's, who vouches for them.
            unsafe { schedule::<K, L>(k, &mut keys, &mut tasks[mixed_from..at]) };
            let cohort_tasks = &mut tasks[at..at + L];
            // SAFETY: as above, and `is_cohort` holds for this lane-full.
            unsafe {
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
/// registers and data pointer replaced in place: no general step with lanes in different
/// phases, no repacking of every lane's registers when one lane changes (on frames of mixed
/// lengths 1.866 -> 1.159 cycles/byte: docs/results/2026-11-29-zen3-mixed-lengths/).
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
    /// The next sub-chain of the queue: (its frame's place in the queue, sub-chain).
    next: (usize, usize),
    /// The queue's order within each window of `TASK_CHUNK` tasks: longest sub-chains first
    /// (list scheduling, longest first), so that the lanes run out of work together at the
    /// end of a batch instead of a long frame entering last and running on while the
    /// other lanes idle. Frames of 28..=1500 octets in batches of 64 on 8 lanes: 9.7 % of
    /// the lanes' bulk steps idle in arrival order, 0.8 % longest first (by simulation).
    order: [u8; TASK_CHUNK],
    /// The first place of the window `order` holds, `usize::MAX` before the first.
    window: usize,
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
        Heads {
            kernel: k,
            keys: k.new_keys(first),
            ready: [none; L],
            taken: 0,
            count: 0,
            next: (0, 0),
            order: [0; TASK_CHUNK],
            window: usize::MAX,
        }
    }

    /// The frame at `place` in the queue's order, or `None` past its end.
    #[inline(always)]
    fn frame_at(&mut self, tasks: &[FrameTask<'k>], place: usize) -> Option<usize> {
        if place >= tasks.len() {
            return None;
        }
        let window = place - place % TASK_CHUNK;
        if window != self.window {
            self.window = window;
            let tasks = &tasks[window..tasks.len().min(window + TASK_CHUNK)];
            if tasks.len() <= L {
                // Every frame has a lane from the start: the order cannot shorten the batch.
                for (i, slot) in self.order.iter_mut().take(tasks.len()).enumerate() {
                    *slot = i as u8;
                }
                return Some(place);
            }
            // One key a frame, computed once: its sub-chains' length in octets (clamped) above
            // its index, so that a descending sort of plain integers puts the longest first and
            // keeps equal ones in arrival order (a sort that looked each task's length up in
            // its comparisons ran mixed lengths at 0.465 cycles/byte against 0.418).
            let mut keys = [0u32; TASK_CHUNK];
            for (i, (key, task)) in keys.iter_mut().zip(tasks).enumerate() {
                let sub_chain_len = (task.len >> task.key.mode.ways.log2()).min(0xff_ffff) as u32;
                *key = (sub_chain_len << 8) | (0xff - i as u32);
            }
            let keys = &mut keys[..tasks.len()];
            keys.sort_unstable_by(|a, b| b.cmp(a));
            for (slot, key) in self.order.iter_mut().zip(keys.iter()) {
                *slot = 0xff - (*key & 0xff) as u8;
            }
        }
        Some(window + usize::from(self.order[place - window]))
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
        let Some(first) = self.frame_at(tasks, self.next.0) else { return };
        let mut head_keys = [tasks[first].key; L];
        let mut used = 0;
        while used < L {
            let (place, j) = self.next;
            let Some(frame) = self.frame_at(tasks, place) else { break };
            let task = &tasks[frame];
            let mode = task.key.mode;
            let (sub_blocks, short_len) = sub_chain_blocks(task, j);
            // SAFETY: a task's AAD is 15..=30 octets (`FrameTask`).
            let [b0, a0, h1, h2] = unsafe { k.ccm_blocks(task.a0.as_bytes(), task.aad, task.len) };
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
            self.next = if j + 1 < mode.ways.count() { (place, j + 1) } else { (place + 1, 0) };
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
        // SAFETY: a task's AAD is 15..=30 octets (`FrameTask`).
        [blocks[0][i], blocks[1][i], blocks[2][i], blocks[3][i]] =
            unsafe { k.ccm_blocks(task.a0.as_bytes(), task.aad, task.len) };
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
/// input instead of a shuffle, an add and two whitening XORs (Zen-4 class EPYC, 1500-octet
/// batches, alternating runs: zmm 0.424 → 0.408 cycles/byte, ymm 0.425 → 0.399).
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
            ptr[i] = if SHARED {
                // SAFETY: a cohort lane walks its own CCMP-128 frame block by block, so it
                // ends at most at the end of its data.
                unsafe { ptr[i].add(stride[i]) }
            } else {
                // Wrapping: after its last full block an Enhanced sub-chain's pointer may point
                // up to N - 1 blocks past its frame's data; it is not read there.
                ptr[i].wrapping_add(stride[i])
            };
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

#[cfg(test)]
mod tests {
    use super::super::key::Mode;
    use super::super::portable::Portable;
    use super::*;
    use crate::suite::ccmp::CounterBlock;

    #[test]
    fn the_queue_takes_the_longest_sub_chains_first_and_equal_ones_in_arrival_order() {
        let tk = [7u8; 16];
        let enhanced4 = Key::new(&tk, Mode::enhanced(Ways::N4)).unwrap();
        let ccmp = Key::new(&tk, Mode::CCMP128).unwrap();
        let aad = [0u8; 22];
        // (octets, key): sub-chains of 100, 300, 400 (1600 over 4), 300, 28 and 1500 octets.
        let frames = [(100, &ccmp), (300, &ccmp), (1600, &enhanced4), (300, &ccmp), (28, &ccmp), (1500, &ccmp)];
        let mut data: Vec<Vec<u8>> = frames.iter().map(|(len, _)| vec![0; *len]).collect();
        let tasks: Vec<FrameTask<'_>> = frames
            .iter()
            .zip(&mut data)
            .map(|((_, key), data)| FrameTask {
                key,
                a0: CounterBlock::from_nonce(&[0; 13]),
                aad: &aad,
                data: data.as_mut_ptr(),
                len: data.len(),
                open: false,
                acc: [0; 16],
                s0: [0; 16],
            })
            .collect();
        // Two lanes, fewer than the frames: the order decides when each frame starts.
        let mut heads = Heads::<Portable, 2>::new(Portable, &ccmp);
        let order: Vec<usize> = (0..=tasks.len()).map_while(|place| heads.frame_at(&tasks, place)).collect();
        assert_eq!(order, [5, 2, 1, 3, 0, 4]);
        // As many frames as lanes: arrival order.
        let mut heads = Heads::<Portable, 8>::new(Portable, &ccmp);
        let order: Vec<usize> = (0..=tasks.len()).map_while(|place| heads.frame_at(&tasks, place)).collect();
        assert_eq!(order, [0, 1, 2, 3, 4, 5]);
    }
}
