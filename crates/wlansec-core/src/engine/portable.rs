//! The portable backend: the lane scheduler over the `aes` crate, which is constant time on
//! every target (bitsliced software AES where the CPU has no AES instructions). Used where
//! no accelerated backend applies, and in tests as the reference the accelerated kernels
//! must match.

use aes::cipher::{Array, BlockCipherEncrypt};

use super::kernel::{Blk, Kernel};
use super::key::Key;

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
}

/// The portable kernel needs no CPU feature: any code may make one.
#[derive(Clone, Copy)]
pub(crate) struct Portable;

impl Kernel for Portable {
    type B = Soft;
    type V = Soft;
    const W: usize = 1;
    type Keys<'k> = [&'k Key; 8];

    fn new_keys(self, first: &Key) -> [&Key; 8] {
        [first; 8]
    }

    fn set_key<'k>(self, keys: &mut [&'k Key; 8], lane: usize, key: &'k Key) {
        keys[lane] = key;
    }

    fn encrypt<const L: usize>(self, keys: &[&Key; 8], mac: &mut [Soft; L], ctr: &mut [Soft; L]) {
        for lane in 0..L {
            let mut blocks = [Array::from(mac[lane].to_bytes()), Array::from(ctr[lane].to_bytes())];
            keys[lane].soft.encrypt_blocks(&mut blocks);
            mac[lane] = Soft::from_bytes(&blocks[0].into());
            ctr[lane] = Soft::from_bytes(&blocks[1].into());
        }
    }

    /// Round key 0 of each lane's schedule (the `aes` crate's keys are not exposed by round).
    fn whiten<const L: usize>(self, keys: &[&Key; 8], v: &mut [Soft; L]) {
        for lane in 0..L {
            v[lane] = v[lane].xor(Soft::from_bytes(&keys[lane].round_keys.0[0]));
        }
    }

    fn encrypt_block(self, key: &Key, block: Soft) -> Soft {
        let mut b = Array::from(block.to_bytes());
        key.soft.encrypt_block(&mut b);
        Soft::from_bytes(&b.into())
    }

    type FrameKeys<'k> = &'k Key;

    fn frame_keys(self, key: &Key) -> &Key {
        key
    }
    /// No single rounds here: round keys 0 and 10 count as zero.
    fn first_round_key(self, _keys: &&Key) -> Soft {
        Soft(0)
    }
    fn last_round_key(self, _keys: &&Key) -> Soft {
        Soft(0)
    }
    /// Every lane's counter block, whatever `ctr_lanes` asks (the reference kernel).
    fn encrypt_frame<const L: usize>(
        self,
        key: &&Key,
        mac: &mut [Soft; L],
        mac_last: &[Soft; L],
        ctr: &mut [Soft; L],
        _ctr_lanes: usize,
    ) {
        self.encrypt::<L>(&[*key; 8], mac, ctr);
        for (m, last) in mac.iter_mut().zip(mac_last) {
            *m = m.xor(*last);
        }
    }
    unsafe fn load_run(self, ptr: *const u8) -> Soft {
        // SAFETY: `ptr` is valid for reading 16 octets (the caller's contract, W = 1).
        Soft(u128::from_ne_bytes(unsafe { core::ptr::read_unaligned(ptr.cast::<[u8; 16]>()) }))
    }
    unsafe fn store_run(self, ptr: *mut u8, v: Soft) {
        // SAFETY: `ptr` is valid for writing 16 octets (the caller's contract, W = 1).
        unsafe { core::ptr::write_unaligned(ptr.cast::<[u8; 16]>(), v.to_bytes()) };
    }

    fn gather(self, blocks: &[Soft]) -> Soft {
        blocks[0]
    }
    fn scatter(self, v: Soft, blocks: &mut [Soft]) {
        blocks[0] = v;
    }
    unsafe fn load(self, ptrs: &[*mut u8]) -> Soft {
        // SAFETY: `ptrs[0]` is valid for reading 16 octets (the caller's contract).
        unsafe { self.load_run(ptrs[0]) }
    }
    unsafe fn store(self, v: Soft, ptrs: &[*mut u8]) {
        // SAFETY: `ptrs[0]` is valid for writing 16 octets (the caller's contract).
        unsafe { self.store_run(ptrs[0], v) }
    }
    fn xor(self, a: Soft, b: Soft) -> Soft {
        a.xor(b)
    }
    fn and(self, a: Soft, b: Soft) -> Soft {
        Soft(a.0 & b.0)
    }
    fn add_counters(self, counters: Soft, steps: Soft) -> Soft {
        let (mut c, s) = (counters.to_bytes(), steps.to_bytes());
        let sum = u16::from_le_bytes([c[14], c[15]]).wrapping_add(u16::from_le_bytes([s[14], s[15]]));
        c[14..].copy_from_slice(&sum.to_le_bytes());
        Soft::from_bytes(&c)
    }
    fn counter_blocks(self, counters: Soft) -> Soft {
        let mut c = counters.to_bytes();
        c.swap(14, 15);
        Soft::from_bytes(&c)
    }
}
