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
        let mut counter = counter_block(nonce, 1);
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
        let mut counter = counter_block(nonce, 1);
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
        let mut b0 = Block::default();
        let adata = if aad.is_empty() { 0 } else { 0x40 };
        b0[0] = adata | (((tag_len as u8 - 2) / 2) << 3) | (length_octets as u8 - 1);
        b0[1..1 + nonce.len()].copy_from_slice(nonce);
        let len_bytes = (data_len as u64).to_be_bytes();
        b0[1 + nonce.len()..].copy_from_slice(&len_bytes[8 - length_octets..]);
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
        let mut prefix = [0u8; 6];
        let prefix = if aad.len() < 0xff00 {
            prefix[..2].copy_from_slice(&(aad.len() as u16).to_be_bytes());
            &prefix[..2]
        } else {
            prefix[..2].copy_from_slice(&[0xff, 0xfe]);
            prefix[2..6].copy_from_slice(&(aad.len() as u32).to_be_bytes());
            &prefix[..6]
        };
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
        let s0 = self.encrypt(&counter_block(nonce, 0));
        for ((t, m), s) in tag.iter_mut().zip(mac.iter()).zip(s0.iter()) {
            *t = m ^ s;
        }
    }
}

/// A_i = flags(L-1) || nonce || i, with i in the remaining L octets.
fn counter_block(nonce: &[u8], i: u64) -> Block {
    let mut a = Block::default();
    let length_octets = 15 - nonce.len();
    a[0] = length_octets as u8 - 1;
    a[1..1 + nonce.len()].copy_from_slice(nonce);
    let i = i.to_be_bytes();
    a[1 + nonce.len()..].copy_from_slice(&i[8 - length_octets..]);
    a
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
