//! One frame on its own: CCMP-128 (one lane) or Enhanced CCMP-N (N lanes, sub-chain j on
//! lane j), its CBC-MAC chains stitched with its CTR stream as in `lanes`, but without the
//! scheduler: one key, so its round keys are broadcast into registers once, and lane j's
//! block of round t is data block t*N + j, so the N lanes' blocks are one contiguous run of
//! the data (one wide load and store per register). The bulk loop holds every lane's state
//! in registers and has no branch but its own; the set-up (B0_j, A_0, the AAD blocks) and the
//! last, partial round are outside it.

use super::enhanced::{sub_chain_b0, sub_chain_flags, Variant};
use super::kernel::{copy_short, pack, unpack, Blk, FrameTask, Kernel, BLOCK};
/// The most lanes a frame runs on (Enhanced N = 8).
const MAX_LANES: usize = 8;
/// `MASKS[MAX_LANES * BLOCK - k..]` starts with k octets 0xff, then zeros.
static MASKS: [u8; 2 * MAX_LANES * BLOCK] = {
    let mut m = [0u8; 2 * MAX_LANES * BLOCK];
    let mut i = 0;
    while i < MAX_LANES * BLOCK {
        m[i] = 0xff;
        i += 1;
    }
    m
};

/// Octet 0 (the flags) of every lane's block zero, the rest 0xff.
static ALL_BUT_FLAGS: [u8; MAX_LANES * BLOCK] = {
    let mut m = [0xffu8; MAX_LANES * BLOCK];
    let mut j = 0;
    while j < MAX_LANES {
        m[j * BLOCK] = 0;
        j += 1;
    }
    m
};
/// `SUB_CHAIN_FLAGS[log2 N]`: lane j's block is zero but for octet 0, sub-chain j's B0 flags
/// (B0_j built in registers: octet stores read back as a block stall store forwarding).
static SUB_CHAIN_FLAGS: [[u8; MAX_LANES * BLOCK]; 4] = {
    let mut m = [[0u8; MAX_LANES * BLOCK]; 4];
    let mut log2 = 1;
    while log2 < 4 {
        let mut j = 0;
        while j < MAX_LANES {
            m[log2][j * BLOCK] = sub_chain_flags(log2 as u8, j);
            j += 1;
        }
        log2 += 1;
    }
    m
};

/// Seal (`OPEN` false) or open `task` on `L` lanes (`L` = the key's N); `task.acc` gets the
/// XOR of the sub-chain CBC-MAC values and `task.s0` E(A_0).
///
/// Each step encrypts one MAC block per lane and the counter blocks it will use (all lanes' in
/// the bulk). The MAC input X ^ P is
/// never formed on the chain: the step before folds P (and round key 0) into its last round
/// key, so the chain is AES rounds only. The keystream runs one step ahead of the MAC, so
/// the plaintext that an opening step folds in is ready before the step needs it.
///
/// | step            | MAC folds in        | counter block gives     |
/// |-----------------|---------------------|-------------------------|
/// | 0 (B0_j)        | H_1                 | E(A_0), for the MIC     |
/// | 1               | H_2                 | keystream of round 0    |
/// | 2 + t           | data of round t     | keystream of round t+1  |
/// | last (one more for lanes with a block in the rest) | nothing: the MAC value | unused |
///
/// # Safety
/// `task` as `FrameTask` requires: its data valid for `len` octets, its AAD 15..=30 octets.
#[inline(always)]
pub(crate) unsafe fn run_frame<K: Kernel, const L: usize, const OPEN: bool>(k: K, task: &mut FrameTask<'_>) {
    const { assert!(L <= MAX_LANES) };
    let mode = task.key.mode;
    debug_assert_eq!(mode.ways.count(), L);
    let keys = k.frame_keys(task.key);
    let k10 = k.last_round_key(&keys);
    let fold = k.xor(k10, k.first_round_key(&keys));
    let groups = L / K::W;
    let len = task.len;

    // Set-up: B0_j, A_0, the AAD blocks folded into round key 10, and the counters in the
    // form `Kernel::add_counters` advances (octets 14, 15 little-endian): one register for
    // the round's first group, and each group's offset from it (fewer live registers: the
    // 16-register ymm build of 8 lanes spilled its state with one counter per group).
    // SAFETY: a task's AAD is 15..=30 octets (`FrameTask`).
    let [b0, base, h1, h2] = unsafe { k.ccm_blocks(task.a0.as_bytes(), task.aad, len) };
    let mut offsets = [K::B::zero(); L];
    for (j, offset) in offsets.iter_mut().enumerate() {
        *offset = K::B::with_counter(K::B::zero(), ((j / K::W * K::W) as u16).swap_bytes());
    }
    // B0_j (`enhanced::sub_chain_b0`): B0 with its flags replaced, unless N = 1 or naive.
    // In wide registers from static flag blocks; 128-bit kernels build each lane's block
    // (the masks cost the AES-NI build of Enhanced-8 at 64 octets 3 %).
    let mut mac = pack::<K, L>(k, &[b0; L]);
    if K::W == 1 {
        let mut b0_j = [K::B::zero(); L];
        for (j, b) in b0_j.iter_mut().enumerate() {
            *b = K::B::from_bytes(&sub_chain_b0(&b0.to_bytes(), mode.ways, mode.variant, j));
        }
        mac = pack::<K, L>(k, &b0_j);
    } else if L > 1 && mode.variant == Variant::DomainSeparated {
        let flags = SUB_CHAIN_FLAGS[mode.ways.log2() as usize].as_ptr();
        for (g, b0) in mac.iter_mut().enumerate().take(groups) {
            // SAFETY: group g's lanes are `g * W..(g + 1) * W` < `MAX_LANES` blocks of each table.
            let (keep, flags) = unsafe {
                (k.load_run(ALL_BUT_FLAGS.as_ptr().add(g * K::W * BLOCK)), k.load_run(flags.add(g * K::W * BLOCK)))
            };
            *b0 = k.xor(k.and(*b0, keep), flags);
        }
    }
    let mut ctr = pack::<K, L>(k, &[base; L]);
    let mut last = pack::<K, L>(k, &[h1; L]);
    let h2 = pack::<K, L>(k, &[h2; L]);
    let group_offsets = pack::<K, L>(k, &offsets);
    let mut first = [base; L];
    for (j, c) in first.iter_mut().enumerate() {
        *c = K::B::with_counter(base, (1 + (j % K::W) as u16).swap_bytes());
    }
    let mut counters = pack::<K, L>(k, &first)[0];
    let counter_step = pack::<K, L>(k, &[K::B::with_counter(K::B::zero(), (L as u16).swap_bytes()); L])[0];
    for g in 0..groups {
        mac[g] = k.xor(mac[g], k.first_round_key(&keys));
        last[g] = k.xor(last[g], fold);
    }
    // Step 0's counter blocks are all A_0: lane 0's gives E(A_0).
    k.encrypt_frame::<L>(&keys, &mut mac, &last, &mut ctr, 1);
    let mut s0 = [K::B::zero(); L];
    unpack::<K, L>(k, &ctr, &mut s0);
    for g in 0..groups {
        last[g] = k.xor(h2[g], fold);
        ctr[g] = k.counter_blocks(k.add_counters(counters, group_offsets[g]));
    }
    counters = k.add_counters(counters, counter_step);
    // Step 1's keystream is round 0's: a frame of at most L / 2 blocks uses only the first
    // half's (with step 0's A_0 alone, Enhanced-4 of 64 octets on a Zen 3: 3.30 -> 3.18
    // cycles/byte).
    if L > K::W && len <= L / 2 * BLOCK {
        k.encrypt_frame::<L>(&keys, &mut mac, &last, &mut ctr, L / 2);
    } else {
        k.encrypt_frame::<L>(&keys, &mut mac, &last, &mut ctr, L);
    }
    let keystream = ctr;

    // A frame without a whole round (Enhanced-8 under 128 octets) finishes in code of its
    // own, where no bulk-loop values are live: fewer of its MAC chains go through the stack
    // between steps (Enhanced-8 of 64 octets on a Zen 3: 4.12 -> 3.75 cycles/byte). The
    // loop would run no round for it either; the second call is for the register allocator.
    let rounds = len / (L * BLOCK);
    let acc = if rounds == 0 {
        // SAFETY: the whole frame is the rest (the caller's contract).
        unsafe { finish_frame::<K, L, OPEN>((k, &keys), mac, last, ctr, keystream, task.data, len) }
    } else {
        let mut keystream = keystream;
        let mut ptr = task.data;
        for _ in 0..rounds {
            for g in 0..groups {
                // SAFETY: a round is `L` blocks of the data from `ptr`, `rounds` of them in it.
                let p = unsafe { ptr.add(g * K::W * BLOCK) };
                // SAFETY: group g's `W` blocks of the round.
                let d = unsafe { k.load_run(p) };
                let o = k.xor(d, keystream[g]);
                // SAFETY: as above.
                unsafe { k.store_run(p, o) };
                last[g] = k.xor(if OPEN { o } else { d }, fold);
                ctr[g] = k.counter_blocks(k.add_counters(counters, group_offsets[g]));
            }
            counters = k.add_counters(counters, counter_step);
            // SAFETY: at most the end of the data after the last round.
            ptr = unsafe { ptr.add(L * BLOCK) };
            k.encrypt_frame::<L>(&keys, &mut mac, &last, &mut ctr, L);
            keystream = ctr;
        }
        // SAFETY: what follows the rounds is the rest of the data.
        unsafe { finish_frame::<K, L, OPEN>((k, &keys), mac, last, ctr, keystream, ptr, len - rounds * L * BLOCK) }
    };
    task.acc = acc.to_bytes();
    task.s0 = s0[0].to_bytes();
}

/// The rest of a frame (`rest` octets at `ptr`, under L blocks, the last maybe short) and
/// its MIC value: lanes with a block fold it in and take one more step; the others end here.
/// Returns the XOR of the sub-chains' CBC-MAC values.
///
/// # Safety
/// `rest` < `L` blocks, and `ptr` valid for `rest` octets.
#[inline(always)]
unsafe fn finish_frame<K: Kernel, const L: usize, const OPEN: bool>(
    (k, keys): (K, &K::FrameKeys<'_>),
    mut mac: [K::V; L],
    mut last: [K::V; L],
    mut ctr: [K::V; L],
    keystream: [K::V; L],
    ptr: *mut u8,
    rest: usize,
) -> K::B {
    let k10 = k.last_round_key(keys);
    let groups = L / K::W;
    // Whole groups of blocks straight from the data, the group with the short block through
    // a zero-padded copy, groups past the data fold in nothing.
    let mut in_use = last;
    if rest > 0 {
        let in_use_from = MAX_LANES * BLOCK - rest.div_ceil(BLOCK) * BLOCK;
        for g in 0..groups {
            let (start, size) = (g * K::W * BLOCK, K::W * BLOCK);
            // SAFETY: `in_use_from + start` + `size` <= `2 * MAX_LANES * BLOCK`, the table's
            // length (`in_use_from` <= `MAX_LANES * BLOCK`, `start + size` <= `L * BLOCK`).
            in_use[g] = unsafe { k.load_run(MASKS.as_ptr().add(in_use_from + start)) };
            let plain = if start + size <= rest {
                // SAFETY: the group's blocks are whole blocks of the rest.
                let p = unsafe { ptr.add(start) };
                // SAFETY: as above.
                let d = unsafe { k.load_run(p) };
                let o = k.xor(d, keystream[g]);
                // SAFETY: as above.
                unsafe { k.store_run(p, o) };
                if OPEN {
                    o
                } else {
                    d
                }
            } else if start < rest {
                let mut buf = [0u8; MAX_LANES * BLOCK];
                // SAFETY: `rest - start` < `size` <= `COPY_SHORT_MAX` octets of the rest, and
                // `buf` holds `MAX_LANES` blocks.
                let d = unsafe {
                    copy_short(ptr.add(start), buf.as_mut_ptr(), rest - start);
                    k.load_run(buf.as_ptr())
                };
                let o = k.xor(d, keystream[g]);
                // SAFETY: as above.
                unsafe {
                    k.store_run(buf.as_mut_ptr(), o);
                    copy_short(buf.as_ptr(), ptr.add(start), rest - start);
                }
                // SAFETY: the run from `MAX_LANES * BLOCK - (rest - start)` ends before
                // `2 * MAX_LANES * BLOCK`, as `rest - start` < `size`.
                let valid = unsafe { k.load_run(MASKS.as_ptr().add(MAX_LANES * BLOCK - (rest - start))) };
                k.and(if OPEN { o } else { d }, valid)
            } else {
                last[g] = k10;
                continue;
            };
            let folded = k.xor(plain, k.first_round_key(keys));
            last[g] = k.xor(k10, k.and(folded, in_use[g]));
        }
    } else {
        last = [k10; L];
    }
    // The last steps encrypt MAC blocks only: their counter blocks would not be used.
    k.encrypt_frame::<L>(keys, &mut mac, &last, &mut ctr, 0);
    if rest > 0 {
        let before = mac;
        last = [k10; L];
        // The lanes with a block in the rest take one more step: when they are all in the
        // first half, only that half's registers (Enhanced-8 of up to 64 octets: a step of
        // all eight lanes here made it slower than Enhanced-4).
        if L / 2 >= K::W && rest <= L / 2 * BLOCK {
            encrypt_first_half_mac::<K, L>(k, keys, &mut mac, &last, &mut ctr);
        } else {
            k.encrypt_frame::<L>(keys, &mut mac, &last, &mut ctr, 0);
        }
        for g in 0..groups {
            mac[g] = k.xor(before[g], k.and(k.xor(mac[g], before[g]), in_use[g]));
        }
    }

    let mut macs = [K::B::zero(); L];
    unpack::<K, L>(k, &mac, &mut macs);
    let mut acc = macs[0];
    for m in &macs[1..] {
        acc = acc.xor(*m);
    }
    acc
}

/// `Kernel::encrypt_frame` of lanes `0..L / 2`, MAC blocks only; the other registers are left
/// as they are. `L / 2` is a multiple of `K::W`.
#[inline(always)]
fn encrypt_first_half_mac<K: Kernel, const L: usize>(
    k: K,
    keys: &K::FrameKeys<'_>,
    mac: &mut [K::V; L],
    mac_last: &[K::V; L],
    ctr: &mut [K::V; L],
) {
    fn first<const H: usize, T>(registers: &mut [T]) -> &mut [T; H] {
        (&mut registers[..H]).try_into().expect("H <= L")
    }
    let last = |h: usize| &mac_last[..h];
    match L {
        8 => k.encrypt_frame::<4>(keys, first(mac), last(4).try_into().expect("4 <= L"), first(ctr), 0),
        4 => k.encrypt_frame::<2>(keys, first(mac), last(2).try_into().expect("2 <= L"), first(ctr), 0),
        2 => k.encrypt_frame::<1>(keys, first(mac), last(1).try_into().expect("1 <= L"), first(ctr), 0),
        _ => unreachable!("a frame runs on 2, 4 or 8 lanes when it has halves"),
    }
}
