//! The pairwise key hierarchy (IEEE 802.11-2016 12.7.1): passphrase → PMK (PBKDF2-SHA1),
//! the PRF (HMAC-SHA1) and KDF-SHA256 key expansions, PMK → PTK split into KCK, KEK and TK
//! by cipher, and the PMKID.

use core::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::error::{Error, Result};
use crate::rsn::element::{Akm, CipherSuite};
use crate::wire::MacAddr;

/// Iterations of PBKDF2 in the PSK mapping (J.4.1).
pub const PSK_ITERATIONS: u32 = 4096;

/// A secret key of up to 32 octets: zeroized on drop, compared in constant time, never
/// printed.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Secret {
    bytes: [u8; 32],
    len: u8,
}

impl Secret {
    pub const MAX_LEN: usize = 32;

    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        if bytes.len() > Self::MAX_LEN {
            return Err(Error::KeyLength { expected: Self::MAX_LEN, got: bytes.len() });
        }
        let mut s = Secret { bytes: [0; 32], len: bytes.len() as u8 };
        s.bytes[..bytes.len()].copy_from_slice(bytes);
        Ok(s)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether every octet is zero (an all-zero key is never installed).
    pub fn is_all_zero(&self) -> bool {
        self.as_bytes().iter().fold(0u8, |acc, b| acc | b) == 0
    }
}

impl PartialEq for Secret {
    fn eq(&self, other: &Self) -> bool {
        bool::from(self.as_bytes().ct_eq(other.as_bytes()))
    }
}
impl Eq for Secret {}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({} octets)", self.len)
    }
}

/// A pairwise master key (256 bits).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Pmk(Secret);

impl Pmk {
    pub const LEN: usize = 32;

    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::LEN {
            return Err(Error::KeyLength { expected: Self::LEN, got: bytes.len() });
        }
        Ok(Pmk(Secret::from_slice(bytes)?))
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// A pairwise transient key split into its parts (12.7.1.3).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Ptk {
    /// Key confirmation key: the EAPOL-Key MIC key.
    pub kck: Secret,
    /// Key encryption key: wraps the Key Data.
    pub kek: Secret,
    /// Temporal key; for TKIP its 32 octets are the encryption key, then the
    /// Authenticator→Supplicant and Supplicant→Authenticator Michael keys.
    pub tk: Secret,
}

/// PMK = PBKDF2-HMAC-SHA1(passphrase, SSID, 4096, 256) (J.4.1). The passphrase is 8 to 63
/// printable ASCII characters and the SSID at most 32 octets.
pub fn pmk_from_passphrase(passphrase: &str, ssid: &[u8]) -> Result<Pmk> {
    let printable = passphrase.bytes().all(|b| (0x20..=0x7e).contains(&b));
    if !(8..=63).contains(&passphrase.len()) || !printable {
        return Err(Error::Passphrase);
    }
    if ssid.len() > 32 {
        return Err(Error::OutOfRange { what: "SSID length", min: 0, max: 32, got: ssid.len() as u64 });
    }
    let mut pmk = [0u8; Pmk::LEN];
    pbkdf2_sha1(passphrase.as_bytes(), ssid, PSK_ITERATIONS, &mut pmk);
    let out = Pmk::from_bytes(&pmk);
    pmk.zeroize();
    out
}

/// PBKDF2 with HMAC-SHA1 (RFC 8018), any output length.
pub fn pbkdf2_sha1(password: &[u8], salt: &[u8], iterations: u32, out: &mut [u8]) {
    pbkdf2::pbkdf2_hmac::<Sha1>(password, salt, iterations, out);
}

fn hmac_sha1(key: &[u8]) -> Hmac<Sha1> {
    // HMAC takes keys of any length.
    <Hmac<Sha1> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
}

fn hmac_sha256(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
}

/// PRF-n (12.7.1.2): the first `out.len()` octets of
/// HMAC-SHA1(K, A || 0 || B || i) for i = 0, 1, ...
pub fn prf_sha1(key: &[u8], label: &[u8], data: &[u8], out: &mut [u8]) {
    for (i, chunk) in out.chunks_mut(20).enumerate() {
        let mut mac = hmac_sha1(key);
        mac.update(label);
        mac.update(&[0]);
        mac.update(data);
        mac.update(&[i as u8]);
        let mut block = mac.finalize().into_bytes();
        chunk.copy_from_slice(&block[..chunk.len()]);
        block.zeroize();
    }
}

/// KDF-SHA256-Length (12.7.1.7.2): the first `out.len()` octets of
/// HMAC-SHA256(K, i || label || context || Length) for i = 1, 2, ..., with i and Length
/// (in bits) as 16-bit little-endian integers.
pub fn kdf_sha256(key: &[u8], label: &[u8], context: &[u8], out: &mut [u8]) -> Result<()> {
    let bits = u16::try_from(out.len() * 8).map_err(|_| Error::Unsupported("KDF output over 65535 bits"))?;
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let mut mac = hmac_sha256(key);
        mac.update(&(i as u16 + 1).to_le_bytes());
        mac.update(label);
        mac.update(context);
        mac.update(&bits.to_le_bytes());
        let mut block = mac.finalize().into_bytes();
        chunk.copy_from_slice(&block[..chunk.len()]);
        block.zeroize();
    }
    Ok(())
}

const PAIRWISE_LABEL: &[u8] = b"Pairwise key expansion";
const KCK_LEN: usize = 16;
const KEK_LEN: usize = 16;

/// PTK = PRF (or KDF-SHA256) of the PMK over
/// Min(AA,SPA) || Max(AA,SPA) || Min(ANonce,SNonce) || Max(ANonce,SNonce), split into
/// KCK (16), KEK (16) and a TK of the pairwise cipher's length.
pub fn derive_ptk(
    pmk: &Pmk,
    akm: Akm,
    cipher: CipherSuite,
    aa: MacAddr,
    spa: MacAddr,
    anonce: &[u8; 32],
    snonce: &[u8; 32],
) -> Result<Ptk> {
    let tk_len = cipher.tk_len().ok_or(Error::Unsupported("pairwise cipher with no known TK length"))?;
    derive_ptk_with_tk_len(pmk, akm, tk_len, aa, spa, anonce, snonce)
}

/// [`derive_ptk`] for a cipher this module does not name (e.g. a vendor suite), given its
/// TK length.
pub fn derive_ptk_with_tk_len(
    pmk: &Pmk,
    akm: Akm,
    tk_len: usize,
    aa: MacAddr,
    spa: MacAddr,
    anonce: &[u8; 32],
    snonce: &[u8; 32],
) -> Result<Ptk> {
    if tk_len == 0 || tk_len > Secret::MAX_LEN {
        return Err(Error::KeyLength { expected: Secret::MAX_LEN, got: tk_len });
    }
    let mut data = [0u8; 6 + 6 + 32 + 32];
    let (a_lo, a_hi) = if aa.0 <= spa.0 { (aa.0, spa.0) } else { (spa.0, aa.0) };
    let (n_lo, n_hi) = if anonce <= snonce { (anonce, snonce) } else { (snonce, anonce) };
    data[..6].copy_from_slice(&a_lo);
    data[6..12].copy_from_slice(&a_hi);
    data[12..44].copy_from_slice(n_lo);
    data[44..].copy_from_slice(n_hi);

    let mut ptk = [0u8; KCK_LEN + KEK_LEN + Secret::MAX_LEN];
    let ptk = &mut ptk[..KCK_LEN + KEK_LEN + tk_len];
    match akm {
        Akm::Psk | Akm::Ieee8021x => prf_sha1(pmk.as_bytes(), PAIRWISE_LABEL, &data, ptk),
        Akm::PskSha256 | Akm::Ieee8021xSha256 | Akm::Sae => kdf_sha256(pmk.as_bytes(), PAIRWISE_LABEL, &data, ptk)?,
        Akm::Other { .. } => return Err(Error::Unsupported("AKM suite with no known key derivation")),
    }
    let out = Ptk {
        kck: Secret::from_slice(&ptk[..KCK_LEN])?,
        kek: Secret::from_slice(&ptk[KCK_LEN..KCK_LEN + KEK_LEN])?,
        tk: Secret::from_slice(&ptk[KCK_LEN + KEK_LEN..])?,
    };
    ptk.zeroize();
    Ok(out)
}

/// PMKID = Truncate-128(HMAC-SHA1 (SHA-256 for the SHA-256 AKMs) (PMK, "PMK Name" || AA || SPA)).
pub fn pmkid(pmk: &Pmk, akm: Akm, aa: MacAddr, spa: MacAddr) -> [u8; 16] {
    let mut out = [0u8; 16];
    if akm.uses_sha256() {
        let mut mac = hmac_sha256(pmk.as_bytes());
        mac.update(b"PMK Name");
        mac.update(&aa.0);
        mac.update(&spa.0);
        out.copy_from_slice(&mac.finalize().into_bytes()[..16]);
    } else {
        let mut mac = hmac_sha1(pmk.as_bytes());
        mac.update(b"PMK Name");
        mac.update(&aa.0);
        mac.update(&spa.0);
        out.copy_from_slice(&mac.finalize().into_bytes()[..16]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passphrase_and_ssid_limits_are_typed_errors() {
        assert!(pmk_from_passphrase("short", b"x").is_err());
        assert!(pmk_from_passphrase(&"a".repeat(64), b"x").is_err());
        assert!(pmk_from_passphrase("pass\u{7f}word", b"x").is_err());
        assert!(pmk_from_passphrase("password", &[0; 33]).is_err());
        assert!(Pmk::from_bytes(&[1; 31]).is_err());
    }

    #[test]
    fn ptk_is_symmetric_in_its_inputs() {
        let pmk = Pmk::from_bytes(&[7; 32]).unwrap();
        let a = MacAddr([2, 0, 0, 0, 0, 1]);
        let s = MacAddr([2, 0, 0, 0, 0, 2]);
        let (an, sn) = ([1u8; 32], [9u8; 32]);
        let p1 = derive_ptk(&pmk, Akm::Psk, CipherSuite::Ccmp128, a, s, &an, &sn).unwrap();
        let p2 = derive_ptk(&pmk, Akm::Psk, CipherSuite::Ccmp128, s, a, &sn, &an).unwrap();
        assert_eq!(p1, p2);
        assert_eq!(p1.tk.len(), 16);
        let other = CipherSuite::Other { oui: [1, 2, 3], suite_type: 1 };
        assert!(derive_ptk(&pmk, Akm::Psk, other, a, s, &an, &sn).is_err());
        assert_eq!(format!("{:?}", p1.tk), "Secret(16 octets)");
    }
}
