//! Enhanced CCMP-N: CCMP-128 whose CBC-MAC is split into N = 1, 2, 4 or 8 sub-chains (the
//! MIC is the XOR of their outputs) so that N AES computations of one frame can run at the
//! same time. The frame format, nonce, AAD, PN header and CTR encryption are exactly those of
//! CCMP-128; only the MIC differs, and for N = 1 it does not: Enhanced CCMP-1 is CCMP-128.
//!
//! The precise definition (block-to-sub-chain assignment, the sub-chain B0 blocks, the CTR
//! lane mapping) and the security argument are in `docs/enhanced-ccmp.md`. This module is the
//! reference model of that definition, written for clarity; the fast engine is checked
//! against it. It also holds the RSN suite selectors and the negotiation rule.

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use aes::Aes128;
use subtle::ConstantTimeEq;

use crate::ccm;
use crate::error::{Error, Result};
pub use crate::suite::ccmp::{MAX_PAYLOAD, NONCE_LEN};

const BLOCK: usize = 16;
/// MIC length of CCMP-128 and of every Enhanced CCMP-N.
pub const MIC_LEN: usize = 8;
/// CCM's length octets at CCMP's nonce length.
const LENGTH_OCTETS: usize = 15 - NONCE_LEN;
/// B0 flags of CCMP-128: Adata, M' = (8 - 2) / 2 = 3, L' = 2 - 1 = 1.
pub const CCMP_B0_FLAGS: u8 = ccm::b0_flags(MIC_LEN, LENGTH_OCTETS, true);
/// Flags of the counter blocks A_i: L' = 1.
pub const CCMP_CTR_FLAGS: u8 = ccm::counter_flags(LENGTH_OCTETS);
/// Flags bit 7, reserved (always 0) in CCM: set in every sub-chain B0 of the default
/// Enhanced variant, so such a block is never a CCM B0 nor a counter block.
const ENHANCED_B0_MARK: u8 = 0x80;

/// How many CBC-MAC sub-chains (and parallel CTR lanes) a frame uses.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord, Default)]
pub enum Ways {
    #[default]
    N1 = 1,
    N2 = 2,
    N4 = 4,
    N8 = 8,
}

impl Ways {
    pub const ALL: [Ways; 4] = [Ways::N1, Ways::N2, Ways::N4, Ways::N8];

    pub fn new(n: usize) -> Result<Self> {
        match n {
            1 => Ok(Ways::N1),
            2 => Ok(Ways::N2),
            4 => Ok(Ways::N4),
            8 => Ok(Ways::N8),
            _ => Err(Error::Unsupported("Enhanced CCMP sub-chain count must be 1, 2, 4 or 8")),
        }
    }

    pub fn count(self) -> usize {
        self as usize
    }

    pub fn log2(self) -> u8 {
        (self as u8).trailing_zeros() as u8
    }
}

/// How the sub-chains are started.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub enum Variant {
    /// Each sub-chain starts from its own B0 (flags carry the marker, log2 N and the
    /// sub-chain index): the sub-chains cannot be swapped. The only variant ever negotiated.
    #[default]
    DomainSeparated,
    /// Every sub-chain starts from the standard B0. Insecure (sub-chains can be swapped
    /// without changing the MIC); kept only to measure what the separation costs.
    Naive,
}

/// The standard CCMP-128 B0: flags || nonce || payload length (2 octets).
pub fn ccmp_b0(nonce: &[u8; NONCE_LEN], payload_len: usize) -> [u8; BLOCK] {
    ccm::b0(nonce, payload_len, MIC_LEN, true)
}

/// The first block of sub-chain `j`: the standard B0 for N = 1 and for the naive variant;
/// otherwise B0 with its flags octet replaced by `0x80 | log2(N) << 3 | j`.
pub fn sub_chain_b0(b0: &[u8; BLOCK], ways: Ways, variant: Variant, j: usize) -> [u8; BLOCK] {
    let mut block = *b0;
    if ways != Ways::N1 && variant == Variant::DomainSeparated {
        block[0] = sub_chain_flags(ways.log2(), j);
    }
    block
}

/// The flags octet of sub-chain `j`'s B0 in the domain-separated variant (N > 1).
pub const fn sub_chain_flags(ways_log2: u8, j: usize) -> u8 {
    ENHANCED_B0_MARK | (ways_log2 << 3) | j as u8
}

/// Counter block A_i = 0x01 || nonce || i.
pub fn counter_block(nonce: &[u8; NONCE_LEN], i: u16) -> [u8; BLOCK] {
    ccm::counter_block(nonce, u64::from(i))
}

/// The AAD as CBC-MAC input: 2-octet length, AAD, zero padding to whole blocks.
pub fn aad_blocks(aad: &[u8]) -> Result<Vec<[u8; BLOCK]>> {
    if aad.is_empty() || aad.len() >= 0xff00 {
        return Err(Error::Unsupported("CCMP AAD must be 1..0xff00 octets"));
    }
    let (prefix, prefix_len) = ccm::aad_length_prefix(aad.len());
    let mut bytes = prefix[..prefix_len].to_vec();
    bytes.extend_from_slice(aad);
    Ok(bytes
        .chunks(BLOCK)
        .map(|chunk| {
            let mut block = [0u8; BLOCK];
            block[..chunk.len()].copy_from_slice(chunk);
            block
        })
        .collect())
}

/// Enhanced CCMP-N over AES-128 (reference model): in place, detached 8-octet MIC.
pub struct EnhancedCcm {
    cipher: Aes128,
    ways: Ways,
    variant: Variant,
}

impl EnhancedCcm {
    pub fn new(tk: &[u8], ways: Ways, variant: Variant) -> Result<Self> {
        let cipher = Aes128::new_from_slice(tk).map_err(|_| Error::KeyLength { expected: 16, got: tk.len() })?;
        Ok(EnhancedCcm { cipher, ways, variant })
    }

    pub fn ways(&self) -> Ways {
        self.ways
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], tag: &mut [u8; MIC_LEN]) -> Result<()> {
        *tag = self.mic(nonce, aad, data)?;
        self.apply_keystream(nonce, data);
        Ok(())
    }

    /// Decrypt and verify; on a MIC mismatch `data` is restored to the ciphertext and
    /// `Error::MicFailure` returned. The comparison is constant time.
    pub fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], tag: &[u8; MIC_LEN]) -> Result<()> {
        check_lengths(data.len())?;
        self.apply_keystream(nonce, data);
        let expected = self.mic(nonce, aad, data)?;
        if bool::from(expected.ct_eq(tag)) {
            Ok(())
        } else {
            self.apply_keystream(nonce, data);
            Err(Error::MicFailure)
        }
    }

    fn encrypt(&self, block: &[u8; BLOCK]) -> [u8; BLOCK] {
        let mut out = (*block).into();
        self.cipher.encrypt_block(&mut out);
        out.into()
    }

    /// CTR exactly as CCMP: payload block i (from 0) is XORed with E(A_{i+1}).
    fn apply_keystream(&self, nonce: &[u8; NONCE_LEN], data: &mut [u8]) {
        for (i, chunk) in data.chunks_mut(BLOCK).enumerate() {
            let keystream = self.encrypt(&counter_block(nonce, i as u16 + 1));
            for (d, k) in chunk.iter_mut().zip(keystream) {
                *d ^= k;
            }
        }
    }

    /// MIC = first 8 octets of (X_0 ^ ... ^ X_{N-1}) ^ E(A_0), where sub-chain j is the
    /// CBC-MAC of B0_j || AAD blocks || payload blocks j, j+N, j+2N, ... (zero-padded).
    fn mic(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], plaintext: &[u8]) -> Result<[u8; MIC_LEN]> {
        check_lengths(plaintext.len())?;
        let b0 = ccmp_b0(nonce, plaintext.len());
        let aad = aad_blocks(aad)?;
        let payload: Vec<[u8; BLOCK]> = plaintext
            .chunks(BLOCK)
            .map(|chunk| {
                let mut block = [0u8; BLOCK];
                block[..chunk.len()].copy_from_slice(chunk);
                block
            })
            .collect();
        let n = self.ways.count();
        let mut combined = [0u8; BLOCK];
        for j in 0..n {
            let mut x = self.encrypt(&sub_chain_b0(&b0, self.ways, self.variant, j));
            for block in aad.iter().chain(payload.iter().skip(j).step_by(n)) {
                x = self.encrypt(&xor(&x, block));
            }
            combined = xor(&combined, &x);
        }
        let s0 = self.encrypt(&counter_block(nonce, 0));
        let mut mic = [0u8; MIC_LEN];
        for (i, m) in mic.iter_mut().enumerate() {
            *m = combined[i] ^ s0[i];
        }
        Ok(mic)
    }
}

fn check_lengths(payload_len: usize) -> Result<()> {
    if payload_len > MAX_PAYLOAD {
        return Err(Error::Unsupported("payload too long for the CCMP length field"));
    }
    Ok(())
}

fn xor(a: &[u8; BLOCK], b: &[u8; BLOCK]) -> [u8; BLOCK] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

/// An RSN cipher suite selector: OUI (or CID) and suite type.
pub type SuiteSelector = [u8; 4];

/// CCMP-128 (00-0F-AC:4), what every RSN station advertises.
pub const CCMP128_SELECTOR: SuiteSelector = [0x00, 0x0f, 0xac, 4];

/// The vendor-specific OUI/CID under which the Enhanced suites are advertised. wlansec has
/// no registered OUI yet: this is a CID-format value (X bit set, so it collides with no
/// registered OUI) to be replaced by the project's own assignment.
pub const ENHANCED_OUI: [u8; 3] = [0x7a, 0x57, 0x4c];

/// The pairwise cipher suite selector of Enhanced CCMP-N: `ENHANCED_OUI`, suite type N
/// (2, 4 or 8). N = 1 is CCMP-128 and is advertised as such; the naive variant has no
/// selector and is never negotiated.
pub fn enhanced_selector(ways: Ways) -> Option<SuiteSelector> {
    match ways {
        Ways::N1 => None,
        _ => Some([ENHANCED_OUI[0], ENHANCED_OUI[1], ENHANCED_OUI[2], ways as u8]),
    }
}

/// The Enhanced sub-chain count a selector stands for, if it is an Enhanced selector.
pub fn enhanced_ways(selector: &SuiteSelector) -> Option<Ways> {
    if selector[..3] != ENHANCED_OUI {
        return None;
    }
    match selector[3] {
        2 => Some(Ways::N2),
        4 => Some(Ways::N4),
        8 => Some(Ways::N8),
        _ => None,
    }
}

/// The pairwise suite two ends use given the pairwise suites each advertises in its RSN
/// element: the Enhanced CCMP-N with the largest N that *both* advertise, else CCMP-128 if
/// both advertise it, else none (no common suite). Enhanced is never chosen one-sidedly.
pub fn negotiate_pairwise(ours: &[SuiteSelector], theirs: &[SuiteSelector]) -> Option<SuiteSelector> {
    let common = |s: &SuiteSelector| ours.contains(s) && theirs.contains(s);
    let enhanced = ours.iter().filter(|s| common(s)).filter_map(enhanced_ways).max();
    match enhanced {
        Some(ways) => enhanced_selector(ways),
        None => common(&CCMP128_SELECTOR).then_some(CCMP128_SELECTOR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_round_trip_and_reject_other_suites() {
        for ways in [Ways::N2, Ways::N4, Ways::N8] {
            assert_eq!(enhanced_ways(&enhanced_selector(ways).unwrap()), Some(ways));
        }
        assert_eq!(enhanced_selector(Ways::N1), None);
        assert_eq!(enhanced_ways(&CCMP128_SELECTOR), None);
        assert_eq!(enhanced_ways(&[0x7a, 0x57, 0x4c, 3]), None);
        assert_eq!(enhanced_ways(&[0x00, 0x0f, 0xac, 8]), None);
    }

    #[test]
    fn enhanced_is_used_only_when_both_ends_advertise_it() {
        let e2 = enhanced_selector(Ways::N2).unwrap();
        let e4 = enhanced_selector(Ways::N4).unwrap();
        let e8 = enhanced_selector(Ways::N8).unwrap();
        let ccmp = CCMP128_SELECTOR;
        assert_eq!(negotiate_pairwise(&[e8, e4, ccmp], &[ccmp]), Some(ccmp));
        assert_eq!(negotiate_pairwise(&[ccmp], &[e8, ccmp]), Some(ccmp));
        assert_eq!(negotiate_pairwise(&[e8, e4, ccmp], &[e2, e4, ccmp]), Some(e4));
        assert_eq!(negotiate_pairwise(&[e2, e8, ccmp], &[e8, e2, ccmp]), Some(e8));
        assert_eq!(negotiate_pairwise(&[e2], &[e4]), None);
        assert_eq!(negotiate_pairwise(&[e2, ccmp], &[e4, ccmp]), Some(ccmp));
        assert_eq!(negotiate_pairwise(&[], &[]), None);
    }

    #[test]
    fn sub_chain_b0_is_standard_for_one_way_and_naive_only() {
        let b0 = ccmp_b0(&[7; NONCE_LEN], 100);
        assert_eq!(b0[0], 0x59);
        assert_eq!(sub_chain_b0(&b0, Ways::N1, Variant::DomainSeparated, 0), b0);
        assert_eq!(sub_chain_b0(&b0, Ways::N8, Variant::Naive, 5), b0);
        assert_eq!(sub_chain_b0(&b0, Ways::N2, Variant::DomainSeparated, 1)[0], 0x89);
        assert_eq!(sub_chain_b0(&b0, Ways::N8, Variant::DomainSeparated, 7)[0], 0x9f);
        assert_eq!(sub_chain_b0(&b0, Ways::N4, Variant::DomainSeparated, 0)[1..], b0[1..]);
    }
}
