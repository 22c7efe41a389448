//! The hashes of SAE and the keys it ends with (IEEE 802.11-2020 12.4.5.4, 12.4.5.5): H as
//! HMAC or HKDF-Extract, HKDF-Expand, KDF-Hash-Length, keyseed → KCK || PMK, the PMKID, and
//! the confirm function CN.

use core::fmt;

use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Sha256, Sha384, Sha512};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::rsn::kdf::{kdf, KdfHash, Pmk, Secret};

/// HMAC-`hash`(key, parts[0] || parts[1] || ...); also HKDF-Extract(salt = key, ikm = parts).
pub(super) fn hmac(hash: KdfHash, key: &[u8], parts: &[&[u8]]) -> Zeroizing<Vec<u8>> {
    fn run<M: Mac + KeyInit>(key: &[u8], parts: &[&[u8]]) -> Zeroizing<Vec<u8>> {
        // HMAC takes keys of any length.
        let mut mac = <M as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
        parts.iter().for_each(|p| mac.update(p));
        Zeroizing::new(mac.finalize().into_bytes().to_vec())
    }
    match hash {
        KdfHash::Sha1 => run::<Hmac<sha1::Sha1>>(key, parts),
        KdfHash::Sha256 => run::<Hmac<Sha256>>(key, parts),
        KdfHash::Sha384 => run::<Hmac<Sha384>>(key, parts),
        KdfHash::Sha512 => run::<Hmac<Sha512>>(key, parts),
    }
}

/// HKDF-Expand(prk, info, out.len()) (RFC 5869) with `hash`; `prk` is one hash long.
pub(super) fn hkdf_expand(hash: KdfHash, prk: &[u8], info: &[u8], out: &mut [u8]) {
    // The PRK is a whole hash output and SAE asks for at most 99 octets: both always valid.
    match hash {
        KdfHash::Sha1 => unreachable!("SAE has no SHA-1 group"),
        KdfHash::Sha256 => {
            Hkdf::<Sha256>::from_prk(prk).and_then(|h| h.expand(info, out).map_err(|_| hkdf::InvalidPrkLength))
        }
        KdfHash::Sha384 => {
            Hkdf::<Sha384>::from_prk(prk).and_then(|h| h.expand(info, out).map_err(|_| hkdf::InvalidPrkLength))
        }
        KdfHash::Sha512 => {
            Hkdf::<Sha512>::from_prk(prk).and_then(|h| h.expand(info, out).map_err(|_| hkdf::InvalidPrkLength))
        }
    }
    .unwrap_or_else(|_| unreachable!())
}

/// KDF-SHA256-`bits` (12.7.1.6.2) for a length that need not be whole octets: the first
/// `bits` bits of the stream, right-aligned in `out` (ceil(bits/8) octets), as
/// hunting-and-pecking reads pwd-value for P-521.
pub(super) fn kdf_sha256_bits(key: &[u8], label: &[u8], context: &[u8], bits: usize, out: &mut [u8]) {
    debug_assert_eq!(out.len(), bits.div_ceil(8));
    let length = (bits as u16).to_le_bytes();
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let counter = (i as u16 + 1).to_le_bytes();
        let block = hmac(KdfHash::Sha256, key, &[&counter, label, context, &length]);
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
    let spare = out.len() * 8 - bits;
    if spare > 0 {
        // Shift the whole string right so its first `bits` bits become the value.
        for i in (0..out.len()).rev() {
            let carry = if i > 0 { out[i - 1] << (8 - spare) } else { 0 };
            out[i] = (out[i] >> spare) | carry;
        }
    }
}

/// What a completed SAE exchange yields: KCK (for the confirm), PMK and PMKID.
#[derive(Clone)]
pub struct SaeKeys {
    pub(super) hash: KdfHash,
    pub(super) kck: Secret,
    pub(super) pmk: Pmk,
    pub(super) pmkid: [u8; 16],
}

impl SaeKeys {
    /// keyseed = H(salt, k); KCK || PMK = KDF-Hash-Length(keyseed, "SAE KCK and PMK",
    /// (commit-scalar + peer-commit-scalar) mod r); PMKID = the first 128 bits of that sum.
    /// `hash` is SHA-256 for hunting-and-pecking, the group's for hash-to-element; the salt
    /// is the Rejected Groups list a hash-to-element commit carried, else <0>n. The KCK is
    /// one hash long; the PMK 256 bits under SAE (AKM 8), one hash long under SAE-EXT-KEY
    /// (AKM 24, `ext_key`; as hostapd's pmk_len = hash_len).
    pub(super) fn derive(
        hash: KdfHash,
        ext_key: bool,
        rejected_groups: Option<&[u8]>,
        k: &[u8],
        scalar_sum: &[u8],
    ) -> SaeKeys {
        let len = hash.output_len();
        let pmk_len = if ext_key { len } else { Pmk::LEN };
        let zeros = vec![0u8; len];
        let keyseed = hmac(hash, rejected_groups.unwrap_or(&zeros), &[k]);
        let mut out = Zeroizing::new(vec![0u8; len + pmk_len]);
        // At most 64 + 64 octets: within the KDF's 16-bit length.
        kdf(hash, &keyseed, b"SAE KCK and PMK", scalar_sum, &mut out).unwrap_or_else(|_| unreachable!());
        let mut pmkid = [0u8; 16];
        pmkid.copy_from_slice(&scalar_sum[..16]);
        SaeKeys {
            hash,
            kck: Secret::from_slice(&out[..len]).unwrap_or_else(|_| unreachable!()),
            pmk: Pmk::from_bytes(&out[len..]).unwrap_or_else(|_| unreachable!()),
            pmkid,
        }
    }

    pub fn kck(&self) -> &Secret {
        &self.kck
    }

    pub fn pmk(&self) -> &Pmk {
        &self.pmk
    }

    pub fn pmkid(&self) -> [u8; 16] {
        self.pmkid
    }

    /// CN(KCK, send-confirm, scalar1, element1, scalar2, element2) (12.4.5.5):
    /// HMAC over send-confirm (2 octets little-endian) and the four values in that order.
    pub(super) fn confirm(&self, send_confirm: u16, s1: &[u8], e1: &[u8], s2: &[u8], e2: &[u8]) -> Vec<u8> {
        hmac(self.hash, self.kck.as_bytes(), &[&send_confirm.to_le_bytes(), s1, e1, s2, e2]).to_vec()
    }

    /// Whether `got` is the peer's confirm, compared in constant time.
    pub(super) fn verify(&self, got: &[u8], send_confirm: u16, s1: &[u8], e1: &[u8], s2: &[u8], e2: &[u8]) -> bool {
        bool::from(self.confirm(send_confirm, s1, e1, s2, e2).ct_eq(got))
    }
}

impl fmt::Debug for SaeKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaeKeys").field("hash", &self.hash).field("pmkid", &self.pmkid).finish_non_exhaustive()
    }
}
