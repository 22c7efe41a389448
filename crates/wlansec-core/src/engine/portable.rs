//! The portable backend: the lane scheduler over the `aes` crate, which is constant time on
//! every target (bitsliced software AES where the CPU has no AES instructions). Used where
//! no accelerated backend applies, and in tests as the reference the accelerated kernels
//! must match.

use aes::cipher::{Array, BlockCipherEncrypt};

use super::key::Key;
use super::lanes::{Blk, Kernel};

/// A block as a `u128` of its octets in memory order.
#[derive(Clone, Copy)]
pub(crate) struct Soft(u128);

impl Blk for Soft {
    fn zero() -> Self {
        Soft(0)
    }
    fn from_bytes(bytes: &[u8; 16]) -> Self {
        Soft(u128::from_ne_bytes(*bytes))
    }
    fn to_bytes(self) -> [u8; 16] {
        self.0.to_ne_bytes()
    }
    fn xor(self, other: Self) -> Self {
        Soft(self.0 ^ other.0)
    }
    fn with_counter(base: Self, counter: u16) -> Self {
        let mut bytes = base.to_bytes();
        bytes[14..].copy_from_slice(&counter.to_be_bytes());
        Soft::from_bytes(&bytes)
    }
    unsafe fn load(ptr: *const u8) -> Self {
        Soft(u128::from_ne_bytes(core::ptr::read_unaligned(ptr.cast::<[u8; 16]>())))
    }
    unsafe fn store(self, ptr: *mut u8) {
        core::ptr::write_unaligned(ptr.cast::<[u8; 16]>(), self.0.to_ne_bytes());
    }
}

pub(crate) struct Portable;

impl Kernel for Portable {
    type B = Soft;
    type V = Soft;
    const W: usize = 1;
    type Keys<'k> = [&'k Key; 8];

    fn new_keys(first: &Key) -> [&Key; 8] {
        [first; 8]
    }

    fn set_key<'k>(keys: &mut [&'k Key; 8], lane: usize, key: &'k Key) {
        keys[lane] = key;
    }

    unsafe fn encrypt<const L: usize>(keys: &[&Key; 8], mac: &mut [Soft; L], ctr: &mut [Soft; L]) {
        for lane in 0..L {
            let mut blocks = [Array::from(mac[lane].to_bytes()), Array::from(ctr[lane].to_bytes())];
            keys[lane].soft.encrypt_blocks(&mut blocks);
            mac[lane] = Soft::from_bytes(&blocks[0].into());
            ctr[lane] = Soft::from_bytes(&blocks[1].into());
        }
    }

    /// Round key 0 of each lane's schedule (the `aes` crate's keys are not exposed by round).
    unsafe fn whiten<const L: usize>(keys: &[&Key; 8], v: &mut [Soft; L]) {
        for lane in 0..L {
            v[lane] = v[lane].xor(Soft::from_bytes(&keys[lane].round_keys.0[0]));
        }
    }

    unsafe fn encrypt_block(key: &Key, block: Soft) -> Soft {
        let mut b = Array::from(block.to_bytes());
        key.soft.encrypt_block(&mut b);
        Soft::from_bytes(&b.into())
    }

    type FrameKeys<'k> = &'k Key;

    unsafe fn frame_keys(key: &Key) -> &Key {
        key
    }
    /// No single rounds here: round keys 0 and 10 count as zero.
    unsafe fn first_round_key(_keys: &&Key) -> Soft {
        Soft(0)
    }
    unsafe fn last_round_key(_keys: &&Key) -> Soft {
        Soft(0)
    }
    /// Every lane's counter block, whatever `ctr_lanes` asks (the reference kernel).
    unsafe fn encrypt_frame<const L: usize>(
        key: &&Key,
        mac: &mut [Soft; L],
        mac_last: &[Soft; L],
        ctr: &mut [Soft; L],
        _ctr_lanes: usize,
    ) {
        Self::encrypt::<L>(&[*key; 8], mac, ctr);
        for (m, last) in mac.iter_mut().zip(mac_last) {
            *m = m.xor(*last);
        }
    }
    unsafe fn load_run(ptr: *const u8) -> Soft {
        Soft::load(ptr)
    }
    unsafe fn store_run(ptr: *mut u8, v: Soft) {
        v.store(ptr)
    }

    unsafe fn gather(blocks: &[Soft]) -> Soft {
        blocks[0]
    }
    unsafe fn scatter(v: Soft, blocks: &mut [Soft]) {
        blocks[0] = v;
    }
    unsafe fn load(ptrs: &[*mut u8]) -> Soft {
        Soft::load(ptrs[0])
    }
    unsafe fn store(v: Soft, ptrs: &[*mut u8]) {
        v.store(ptrs[0])
    }
    unsafe fn xor(a: Soft, b: Soft) -> Soft {
        a.xor(b)
    }
    unsafe fn and(a: Soft, b: Soft) -> Soft {
        Soft(a.0 & b.0)
    }
    unsafe fn add_counters(counters: Soft, steps: Soft) -> Soft {
        let (mut c, s) = (counters.to_bytes(), steps.to_bytes());
        let sum = u16::from_le_bytes([c[14], c[15]]).wrapping_add(u16::from_le_bytes([s[14], s[15]]));
        c[14..].copy_from_slice(&sum.to_le_bytes());
        Soft::from_bytes(&c)
    }
    unsafe fn counter_blocks(counters: Soft) -> Soft {
        let mut c = counters.to_bytes();
        c.swap(14, 15);
        Soft::from_bytes(&c)
    }
}
