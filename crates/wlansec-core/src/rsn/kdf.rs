//! The pairwise key hierarchy (IEEE 802.11-2020 12.7.1): passphrase → PMK (PBKDF2-SHA1),
//! the PRF (HMAC-SHA1) and KDF-SHA-256/384/512 key expansions, PMK → PTK split into KCK,
//! KEK and TK by AKM and cipher ([`AkmKeys`], Table 12-11), the FT key hierarchy
//! ([`ft`]: PMK-R0 → PMK-R1 → PTK) and the PMKID.

use core::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha384, Sha512};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::error::{Error, Result};
use crate::rsn::eapol::{KeyDescriptorVersion, KeyIntegrity};
use crate::rsn::element::{Akm, CipherSuite};
use crate::wire::MacAddr;

/// Iterations of PBKDF2 in the PSK mapping (J.4.1).
pub const PSK_ITERATIONS: u32 = 4096;

/// A secret key of up to 64 octets (a PMK of SHA-512): zeroized on drop, compared in
/// constant time, never printed.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Secret {
    bytes: [u8; 64],
    len: u8,
}

impl Secret {
    pub const MAX_LEN: usize = 64;

    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        if bytes.len() > Self::MAX_LEN {
            return Err(Error::KeyLength { expected: Self::MAX_LEN, got: bytes.len() });
        }
        let mut s = Secret { bytes: [0; 64], len: bytes.len() as u8 };
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

/// A pairwise master key: 256 bits; 384 for Suite B 192-bit (and the SHA-384 OWE and SAE
/// groups), 512 for the SHA-512 ones.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Pmk(Secret);

impl Pmk {
    /// The usual length (PSK, 802.1X, SAE on group 19).
    pub const LEN: usize = 32;

    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if ![32, 48, 64].contains(&bytes.len()) {
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

/// KDF-SHA256-Length (12.7.1.6.2): the first `out.len()` octets of
/// HMAC-SHA256(K, i || label || context || Length) for i = 1, 2, ..., with i and Length
/// (in bits) as 16-bit little-endian integers.
pub fn kdf_sha256(key: &[u8], label: &[u8], context: &[u8], out: &mut [u8]) -> Result<()> {
    kdf(KdfHash::Sha256, key, label, context, out)
}

/// The hash of a key hierarchy: SHA-1 means the PRF of 12.7.1.2, the others the KDF of
/// 12.7.1.6.2 with that hash.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KdfHash {
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl KdfHash {
    /// Octets of the hash's output.
    pub fn output_len(self) -> usize {
        match self {
            KdfHash::Sha1 => 20,
            KdfHash::Sha256 => 32,
            KdfHash::Sha384 => 48,
            KdfHash::Sha512 => 64,
        }
    }

    /// The hash of an ECC group's prime length (19: P-256, 20: P-384, 21: P-521), as OWE
    /// and SAE-EXT-KEY pick it (12.4.2, 12.4.7.5).
    pub fn of_group(group: u16) -> Result<Self> {
        match group {
            19 => Ok(KdfHash::Sha256),
            20 => Ok(KdfHash::Sha384),
            21 => Ok(KdfHash::Sha512),
            _ => Err(Error::Unsupported("Diffie-Hellman group other than 19, 20 or 21")),
        }
    }

    /// Truncate-128(Hash(parts...)): the FT key names.
    fn name(self, parts: &[&[u8]]) -> [u8; 16] {
        fn run<D: Digest>(parts: &[&[u8]]) -> [u8; 16] {
            let mut d = D::new();
            parts.iter().for_each(|p| d.update(p));
            let mut out = [0u8; 16];
            out.copy_from_slice(&d.finalize()[..16]);
            out
        }
        match self {
            KdfHash::Sha1 => run::<Sha1>(parts),
            KdfHash::Sha256 => run::<Sha256>(parts),
            KdfHash::Sha384 => run::<Sha384>(parts),
            KdfHash::Sha512 => run::<Sha512>(parts),
        }
    }
}

/// KDF-Hash-Length (12.7.1.6.2) with `hash` (SHA-1 gives the PRF of 12.7.1.2 instead).
pub fn kdf(hash: KdfHash, key: &[u8], label: &[u8], context: &[u8], out: &mut [u8]) -> Result<()> {
    fn run<M: Mac + KeyInit>(key: &[u8], label: &[u8], context: &[u8], out: &mut [u8], block: usize) -> Result<()> {
        let bits = u16::try_from(out.len() * 8).map_err(|_| Error::Unsupported("KDF output over 65535 bits"))?;
        for (i, chunk) in out.chunks_mut(block).enumerate() {
            // HMAC takes keys of any length.
            let mut mac = <M as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
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
    match hash {
        KdfHash::Sha1 => {
            prf_sha1(key, label, context, out);
            Ok(())
        }
        KdfHash::Sha256 => run::<Hmac<Sha256>>(key, label, context, out, 32),
        KdfHash::Sha384 => run::<Hmac<Sha384>>(key, label, context, out, 48),
        KdfHash::Sha512 => run::<Hmac<Sha512>>(key, label, context, out, 64),
    }
}

const PAIRWISE_LABEL: &[u8] = b"Pairwise key expansion";

/// How an AKM derives and uses its pairwise keys (IEEE 802.11-2020 12.7.1.3, Table 12-11):
/// the KDF's hash, the KCK and KEK lengths and the EAPOL-Key MIC of the AKM-defined key
/// descriptor version.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AkmKeys {
    pub akm: Akm,
    pub hash: KdfHash,
    pub kck_len: usize,
    pub kek_len: usize,
    /// The MIC of key descriptor version 0 (and of version 3, AES-128-CMAC).
    pub integrity: KeyIntegrity,
}

impl AkmKeys {
    /// The key hierarchy of `akm`; `group` is the Diffie-Hellman group OWE and SAE-EXT-KEY
    /// pick their hash by (19 when not known). An AKM without one here is refused, named.
    pub fn of(akm: Akm, group: Option<u16>) -> Result<Self> {
        let (hash, integrity) = match akm {
            Akm::Psk | Akm::Ieee8021x => (KdfHash::Sha1, KeyIntegrity::HmacSha1),
            Akm::PskSha256 | Akm::Ieee8021xSha256 | Akm::Sae | Akm::FtSae | Akm::FtPsk | Akm::FtIeee8021x => {
                (KdfHash::Sha256, KeyIntegrity::AesCmac)
            }
            Akm::SuiteB => (KdfHash::Sha256, KeyIntegrity::HmacSha256),
            Akm::SuiteB192 | Akm::FtIeee8021xSha384 => (KdfHash::Sha384, KeyIntegrity::HmacSha384),
            Akm::Owe | Akm::SaeExtKey => {
                let hash = KdfHash::of_group(group.unwrap_or(19))?;
                let integrity = match hash {
                    KdfHash::Sha384 => KeyIntegrity::HmacSha384,
                    KdfHash::Sha512 => KeyIntegrity::HmacSha512,
                    _ => KeyIntegrity::HmacSha256,
                };
                (hash, integrity)
            }
            Akm::Other { .. } => return Err(Error::UnsupportedAkm { selector: akm.selector(), name: akm.name() }),
        };
        let (kck_len, kek_len) = match integrity {
            KeyIntegrity::HmacSha384 => (24, 32),
            KeyIntegrity::HmacSha512 => (32, 32),
            _ => (16, 16),
        };
        Ok(AkmKeys { akm, hash, kck_len, kek_len, integrity })
    }

    /// The EAPOL-Key MIC of a frame of key descriptor `version`: the version's, or for
    /// version 0 the AKM's.
    pub fn integrity_of(&self, version: KeyDescriptorVersion) -> KeyIntegrity {
        version.integrity().unwrap_or(self.integrity)
    }

    /// The key descriptor version this AKM's EAPOL-Key frames carry with `pairwise`
    /// (12.7.2): 1 for TKIP, 2 for the SHA-1 AKMs, 3 for the AES-128-CMAC ones but SAE, 0
    /// (AKM-defined) for the others.
    pub fn descriptor_version(&self, pairwise: CipherSuite) -> KeyDescriptorVersion {
        match self.akm {
            Akm::Psk | Akm::Ieee8021x if pairwise == CipherSuite::Tkip => KeyDescriptorVersion::HmacMd5Rc4,
            Akm::Psk | Akm::Ieee8021x => KeyDescriptorVersion::HmacSha1Aes,
            Akm::PskSha256 | Akm::Ieee8021xSha256 | Akm::FtPsk | Akm::FtIeee8021x => KeyDescriptorVersion::AesCmac,
            _ => KeyDescriptorVersion::AkmDefined,
        }
    }

    /// The Key MIC field's length in this AKM's EAPOL-Key frames.
    pub fn mic_len(&self) -> usize {
        self.integrity.mic_len()
    }

    /// Split `ptk` octets into KCK, KEK and TK.
    fn split(&self, ptk: &[u8]) -> Result<Ptk> {
        let (kck, rest) = ptk.split_at(self.kck_len);
        let (kek, tk) = rest.split_at(self.kek_len);
        Ok(Ptk { kck: Secret::from_slice(kck)?, kek: Secret::from_slice(kek)?, tk: Secret::from_slice(tk)? })
    }

    fn check_tk_len(&self, tk_len: usize) -> Result<()> {
        if tk_len == 0 || tk_len > 32 {
            return Err(Error::KeyLength { expected: 32, got: tk_len });
        }
        Ok(())
    }
}

/// The longest PTK: KCK 32, KEK 32, TK 32.
const MAX_PTK_LEN: usize = 96;

/// PTK = PRF (SHA-1 AKMs) or KDF-Hash of the PMK over
/// Min(AA,SPA) || Max(AA,SPA) || Min(ANonce,SNonce) || Max(ANonce,SNonce), split into
/// KCK, KEK and a TK of the pairwise cipher's length; the AKM's defaults (group 19).
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
    derive_ptk_with(pmk, &AkmKeys::of(akm, None)?, tk_len, aa, spa, anonce, snonce)
}

/// [`derive_ptk`] for a key hierarchy and TK length given (an FT AKM is refused: its PTK
/// comes from [`ft::derive_ptk`]).
pub fn derive_ptk_with(
    pmk: &Pmk,
    keys: &AkmKeys,
    tk_len: usize,
    aa: MacAddr,
    spa: MacAddr,
    anonce: &[u8; 32],
    snonce: &[u8; 32],
) -> Result<Ptk> {
    keys.check_tk_len(tk_len)?;
    if keys.akm.is_ft() {
        return Err(Error::Unsupported("an FT AKM's PTK comes from PMK-R1"));
    }
    let mut data = [0u8; 6 + 6 + 32 + 32];
    let (a_lo, a_hi) = if aa.0 <= spa.0 { (aa.0, spa.0) } else { (spa.0, aa.0) };
    let (n_lo, n_hi) = if anonce <= snonce { (anonce, snonce) } else { (snonce, anonce) };
    data[..6].copy_from_slice(&a_lo);
    data[6..12].copy_from_slice(&a_hi);
    data[12..44].copy_from_slice(n_lo);
    data[44..].copy_from_slice(n_hi);

    let mut ptk = [0u8; MAX_PTK_LEN];
    let ptk = &mut ptk[..keys.kck_len + keys.kek_len + tk_len];
    kdf(keys.hash, pmk.as_bytes(), PAIRWISE_LABEL, &data, ptk)?;
    let out = keys.split(ptk);
    ptk.zeroize();
    out
}

/// The FT key hierarchy (IEEE 802.11-2020 12.7.1.7): XXKey (the PSK, the second 256 bits
/// of the MSK, or SAE's PMK) → PMK-R0 (by SSID, mobility domain, R0KH-ID and the station)
/// → PMK-R1 (by R1KH-ID) → PTK (by the nonces, BSSID and station). SHA-384 for
/// FT-802.1X-SHA384, else SHA-256.
pub mod ft {
    use super::*;

    /// What the capture's Mobility Domain and Fast BSS Transition elements name.
    #[derive(Clone, PartialEq, Eq, Debug)]
    pub struct Ids<'a> {
        pub ssid: &'a [u8],
        /// The MDID as it is in the Mobility Domain element.
        pub mdid: [u8; 2],
        /// 1 to 48 octets.
        pub r0kh_id: &'a [u8],
        pub r1kh_id: [u8; 6],
        /// The station (S0KH-ID and S1KH-ID).
        pub spa: MacAddr,
    }

    /// PMK-R0 and PMKR0Name.
    pub fn pmk_r0(keys: &AkmKeys, xxkey: &[u8], ids: &Ids<'_>) -> Result<(Secret, [u8; 16])> {
        if ids.ssid.len() > 32 || ids.r0kh_id.is_empty() || ids.r0kh_id.len() > 48 {
            return Err(Error::Malformed("FT: SSID over 32 or R0KH-ID not 1 to 48 octets"));
        }
        let q = keys.hash.output_len();
        let mut context = Vec::with_capacity(1 + 32 + 2 + 1 + 48 + 6);
        context.push(ids.ssid.len() as u8);
        context.extend_from_slice(ids.ssid);
        context.extend_from_slice(&ids.mdid);
        context.push(ids.r0kh_id.len() as u8);
        context.extend_from_slice(ids.r0kh_id);
        context.extend_from_slice(&ids.spa.0);
        let mut r0_key_data = [0u8; 64 + 16];
        let r0_key_data = &mut r0_key_data[..q + 16];
        kdf(keys.hash, xxkey, b"FT-R0", &context, r0_key_data)?;
        let pmk_r0 = Secret::from_slice(&r0_key_data[..q]);
        let name = keys.hash.name(&[b"FT-R0N", &r0_key_data[q..]]);
        r0_key_data.zeroize();
        Ok((pmk_r0?, name))
    }

    /// PMK-R1 and PMKR1Name.
    pub fn pmk_r1(
        keys: &AkmKeys,
        pmk_r0: &Secret,
        pmk_r0_name: &[u8; 16],
        ids: &Ids<'_>,
    ) -> Result<(Secret, [u8; 16])> {
        let mut context = [0u8; 12];
        context[..6].copy_from_slice(&ids.r1kh_id);
        context[6..].copy_from_slice(&ids.spa.0);
        let mut pmk_r1 = [0u8; 64];
        let pmk_r1 = &mut pmk_r1[..keys.hash.output_len()];
        kdf(keys.hash, pmk_r0.as_bytes(), b"FT-R1", &context, pmk_r1)?;
        let out = Secret::from_slice(pmk_r1);
        pmk_r1.zeroize();
        Ok((out?, keys.hash.name(&[b"FT-R1N", pmk_r0_name, &ids.r1kh_id, &ids.spa.0])))
    }

    /// PTK = KDF-Hash(PMK-R1, "FT-PTK", SNonce || ANonce || BSSID || STA-ADDR), split as the
    /// AKM says, with a TK of `tk_len` octets.
    pub fn ptk(
        keys: &AkmKeys,
        pmk_r1: &Secret,
        tk_len: usize,
        bssid: MacAddr,
        spa: MacAddr,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
    ) -> Result<Ptk> {
        keys.check_tk_len(tk_len)?;
        let mut context = [0u8; 32 + 32 + 6 + 6];
        context[..32].copy_from_slice(snonce);
        context[32..64].copy_from_slice(anonce);
        context[64..70].copy_from_slice(&bssid.0);
        context[70..].copy_from_slice(&spa.0);
        let mut ptk = [0u8; MAX_PTK_LEN];
        let ptk = &mut ptk[..keys.kck_len + keys.kek_len + tk_len];
        kdf(keys.hash, pmk_r1.as_bytes(), b"FT-PTK", &context, ptk)?;
        let out = keys.split(ptk);
        ptk.zeroize();
        out
    }

    /// The whole chain, XXKey → PMK-R0 → PMK-R1 → PTK; also PMKR1Name (the PMKID an FT
    /// station's RSN element carries).
    pub fn derive_ptk(
        keys: &AkmKeys,
        xxkey: &[u8],
        ids: &Ids<'_>,
        tk_len: usize,
        bssid: MacAddr,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
    ) -> Result<(Ptk, [u8; 16])> {
        let (r0, r0_name) = pmk_r0(keys, xxkey, ids)?;
        let (r1, r1_name) = pmk_r1(keys, &r0, &r0_name, ids)?;
        Ok((ptk(keys, &r1, tk_len, bssid, ids.spa, anonce, snonce)?, r1_name))
    }
}

/// PMKID = Truncate-128(HMAC-SHA1 (SHA-256 for the SHA-256 AKMs) (PMK, "PMK Name" || AA || SPA)).
/// OWE's and SAE's PMKIDs come from their exchanges instead ([`crate::rsn::owe`], [`crate::rsn::sae`]).
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
    fn every_named_akm_has_a_key_hierarchy_and_only_those() {
        for akm in Akm::named() {
            assert!(AkmKeys::of(akm, None).is_ok(), "{akm}");
        }
        let other = Akm::from_selector([0x00, 0x0f, 0xac, 20]);
        assert!(matches!(other, Akm::Other { .. }) && AkmKeys::of(other, None).is_err());
    }

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
