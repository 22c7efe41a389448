//! CCM mode (NIST SP 800-38C, RFC 3610) over any 128-bit block cipher, in place with a
//! detached tag.
//!
//! It is written here rather than taken from the `ccm` crate because wlansec's engine is
//! about how this mode is scheduled: the CBC-MAC and CTR halves run in one pass over the
//! data, which later engines split into lanes. The `ccm` crate is the cross-check in tests.

use aes::cipher::{consts::U16, Array, BlockCipherEncrypt};
use subtle::ConstantTimeEq;

use crate::error::{Error, Result};

const BLOCK: usize = 16;
type Block = Array<u8, U16>;

/// CCM over the block cipher `C` with per-call nonce length (7..=13) and tag length
/// (4, 6, ..., 16).
pub struct Ccm<C> {
    cipher: C,
}

impl<C: BlockCipherEncrypt<BlockSize = U16>> Ccm<C> {
    pub fn new(cipher: C) -> Self {
        Ccm { cipher }
    }

    /// Encrypt `data` in place and write the authentication tag (its length is the tag
    /// length `M`) into `tag`.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        let mut mac = self.start(nonce, aad, data.len(), tag.len())?;
        let mut counter = Block::from(counter_block(nonce, 1));
        for chunk in data.chunks_mut(BLOCK) {
            xor_into(&mut mac, chunk);
            let keystream = self.encrypt(&counter);
            self.cipher.encrypt_block(&mut mac);
            xor_into(chunk, &keystream);
            increment(&mut counter, nonce.len());
        }
        self.finish_tag(nonce, &mac, tag);
        Ok(())
    }

    /// Verify `tag` over `aad` and the ciphertext `data`, decrypting `data` in place. On
    /// failure `data` is left as it came in (ciphertext) and `Error::MicFailure` returned;
    /// the tag comparison takes the same time whatever the mismatch.
    pub fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        let mut mac = self.start(nonce, aad, data.len(), tag.len())?;
        self.apply_keystream(nonce, data);
        for chunk in data.chunks(BLOCK) {
            xor_into(&mut mac, chunk);
            self.cipher.encrypt_block(&mut mac);
        }
        let mut expected = [0u8; BLOCK];
        self.finish_tag(nonce, &mac, &mut expected[..tag.len()]);
        if bool::from(expected[..tag.len()].ct_eq(tag)) {
            Ok(())
        } else {
            self.apply_keystream(nonce, data);
            Err(Error::MicFailure)
        }
    }

    fn encrypt(&self, block: &Block) -> Block {
        let mut out = *block;
        self.cipher.encrypt_block(&mut out);
        out
    }

    fn apply_keystream(&self, nonce: &[u8], data: &mut [u8]) {
        let mut counter = Block::from(counter_block(nonce, 1));
        for chunk in data.chunks_mut(BLOCK) {
            xor_into(chunk, &self.encrypt(&counter));
            increment(&mut counter, nonce.len());
        }
    }

    /// Check the parameters, then run the CBC-MAC over B0 and the encoded AAD.
    fn start(&self, nonce: &[u8], aad: &[u8], data_len: usize, tag_len: usize) -> Result<Block> {
        if !(7..=13).contains(&nonce.len()) {
            return Err(Error::Unsupported("CCM nonce length outside 7..=13"));
        }
        if !(4..=16).contains(&tag_len) || !tag_len.is_multiple_of(2) {
            return Err(Error::Unsupported("CCM tag length not an even number in 4..=16"));
        }
        let length_octets = 15 - nonce.len();
        if length_octets < 8 && (data_len as u64) >> (8 * length_octets) != 0 {
            return Err(Error::Unsupported("data too long for the CCM length field"));
        }
        if aad.len() as u64 > u64::from(u32::MAX) {
            return Err(Error::Unsupported("CCM associated data longer than 2^32 octets"));
        }
        let mut b0 = Block::from(b0(nonce, data_len, tag_len, !aad.is_empty()));
        self.cipher.encrypt_block(&mut b0);
        let mut mac = b0;
        if !aad.is_empty() {
            self.absorb_aad(&mut mac, aad);
        }
        Ok(mac)
    }

    /// CBC-MAC the AAD behind its length encoding (2 octets, or 0xFFFE and 4 octets),
    /// zero-padded to a block boundary.
    fn absorb_aad(&self, mac: &mut Block, aad: &[u8]) {
        let (prefix, prefix_len) = aad_length_prefix(aad.len());
        let prefix = &prefix[..prefix_len];
        let mut block = [0u8; BLOCK];
        let mut fill = 0;
        for &byte in prefix.iter().chain(aad) {
            block[fill] = byte;
            fill += 1;
            if fill == BLOCK {
                xor_into(mac, &block);
                self.cipher.encrypt_block(mac);
                fill = 0;
            }
        }
        if fill > 0 {
            xor_into(mac, &block[..fill]);
            self.cipher.encrypt_block(mac);
        }
    }

    /// T = first M octets of CBC-MAC XOR E(A0).
    fn finish_tag(&self, nonce: &[u8], mac: &Block, tag: &mut [u8]) {
        let s0 = self.encrypt(&Block::from(counter_block(nonce, 0)));
        for ((t, m), s) in tag.iter_mut().zip(mac.iter()).zip(s0.iter()) {
            *t = m ^ s;
        }
    }
}

// CCM's block formatting (SP 800-38C A.2), here once for the mode above, the Enhanced CCMP
// reference model and the engine's kernels. L = 15 - nonce length octets of length or counter.

/// The flags octet of B0: Adata, M' = (M - 2) / 2, L' = L - 1.
pub const fn b0_flags(tag_len: usize, length_octets: usize, has_aad: bool) -> u8 {
    (if has_aad { 0x40 } else { 0 }) | (((tag_len as u8 - 2) / 2) << 3) | (length_octets as u8 - 1)
}

/// The flags octet of every counter block A_i: L' = L - 1.
pub const fn counter_flags(length_octets: usize) -> u8 {
    length_octets as u8 - 1
}

/// B0 = flags || nonce || the data's length in L octets (the caller checked that it fits).
pub fn b0(nonce: &[u8], data_len: usize, tag_len: usize, has_aad: bool) -> [u8; BLOCK] {
    let length_octets = 15 - nonce.len();
    let mut b0 = [0u8; BLOCK];
    b0[0] = b0_flags(tag_len, length_octets, has_aad);
    b0[1..1 + nonce.len()].copy_from_slice(nonce);
    b0[1 + nonce.len()..].copy_from_slice(&(data_len as u64).to_be_bytes()[8 - length_octets..]);
    b0
}

/// A_i = flags || nonce || i, with i in the remaining L octets.
pub fn counter_block(nonce: &[u8], i: u64) -> [u8; BLOCK] {
    let length_octets = 15 - nonce.len();
    let mut a = [0u8; BLOCK];
    a[0] = counter_flags(length_octets);
    a[1..1 + nonce.len()].copy_from_slice(nonce);
    a[1 + nonce.len()..].copy_from_slice(&i.to_be_bytes()[8 - length_octets..]);
    a
}

/// The encoding of the AAD's length ahead of the AAD: 2 octets below 0xFF00, else 0xFFFE and
/// 4 octets; returned with how many of the 6 octets it takes.
pub fn aad_length_prefix(aad_len: usize) -> ([u8; 6], usize) {
    let mut prefix = [0u8; 6];
    if aad_len < 0xff00 {
        prefix[..2].copy_from_slice(&(aad_len as u16).to_be_bytes());
        (prefix, 2)
    } else {
        prefix[..2].copy_from_slice(&[0xff, 0xfe]);
        prefix[2..6].copy_from_slice(&(aad_len as u32).to_be_bytes());
        (prefix, 6)
    }
}

fn increment(counter: &mut Block, nonce_len: usize) {
    for byte in counter[1 + nonce_len..].iter_mut().rev() {
        *byte = byte.wrapping_add(1);
        if *byte != 0 {
            break;
        }
    }
}

/// XOR `src` into the first `src.len()` octets of `dst`.
fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}
