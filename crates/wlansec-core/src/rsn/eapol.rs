//! EAPOL-Key frames (IEEE 802.1X-2010 11.3, IEEE 802.11-2016 12.7.2): a zero-copy view
//! that checks its lengths once, a validated representation with parse/emit, the Key MIC
//! for descriptor versions 1 (HMAC-MD5), 2 (HMAC-SHA1-128) and 3 (AES-128-CMAC) and for the
//! AKM-defined version 0 (AES-128-CMAC, HMAC-SHA-256/384/512, [`KeyIntegrity`]), and Key
//! Data encryption (RC4 for version 1, AES key wrap for the others).
//!
//! Layout (offsets from the start of the 802.1X header), with a 16-octet Key MIC:
//! `0 version | 1 type=3 | 2..4 body length (BE) | 4 descriptor type | 5..7 Key Information |
//! 7..9 Key Length | 9..17 Replay Counter | 17..49 Key Nonce | 49..65 Key IV | 65..73 Key RSC |
//! 73..81 reserved | 81..97 Key MIC | 97..99 Key Data Length | 99.. Key Data`. The AKMs with
//! SHA-384 (Suite B 192-bit, FT-802.1X-SHA384, OWE on group 20) have a 24-octet Key MIC,
//! SHA-512 a 32-octet one: the fields after it move along.

use cmac::Cmac;
use hmac::{Hmac, KeyInit, Mac};
use md5::Md5;
use rc4::{Rc4, StreamCipher};
use sha1::Sha1;
use sha2::{Sha256, Sha384, Sha512};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use crate::error::{Error, Result};
use crate::rsn::keywrap;

/// The EtherType that carries EAPOL (802.1X) frames.
pub const ETHERTYPE_EAPOL: u16 = 0x888e;
/// Packet Type of an EAPOL-Key frame.
pub const PACKET_TYPE_KEY: u8 = 3;
/// Length of everything before the Key Data (with a 16-octet Key MIC).
pub const HEADER_LEN: usize = 99;
/// Length of the Key MIC field for the AKMs with a 128-bit MIC.
pub const MIC_LEN: usize = 16;
/// The longest Key MIC field (HMAC-SHA-512).
pub const MAX_MIC_LEN: usize = 32;
/// Octets before the Key MIC field.
const MIC_OFFSET: usize = 81;

mod field {
    use core::ops::Range;
    pub const VERSION: usize = 0;
    pub const PACKET_TYPE: usize = 1;
    pub const BODY_LEN: Range<usize> = 2..4;
    pub const DESCRIPTOR_TYPE: usize = 4;
    pub const KEY_INFO: Range<usize> = 5..7;
    pub const KEY_LEN: Range<usize> = 7..9;
    pub const REPLAY_COUNTER: Range<usize> = 9..17;
    pub const NONCE: Range<usize> = 17..49;
    pub const KEY_IV: Range<usize> = 49..65;
    pub const KEY_RSC: Range<usize> = 65..73;
}

/// The Descriptor Type octet.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DescriptorType {
    /// 2: IEEE 802.11 (RSN).
    Rsn,
    /// 254: WPA (the pre-RSN descriptor TKIP networks used).
    Wpa,
}

impl DescriptorType {
    pub fn from_u8(value: u8) -> Result<Self> {
        match value {
            2 => Ok(DescriptorType::Rsn),
            254 => Ok(DescriptorType::Wpa),
            _ => Err(Error::Unsupported("EAPOL-Key descriptor type other than 2 (RSN) or 254 (WPA)")),
        }
    }
    pub fn to_u8(self) -> u8 {
        match self {
            DescriptorType::Rsn => 2,
            DescriptorType::Wpa => 254,
        }
    }
}

/// Key Descriptor Version (bits 0-2 of Key Information): which MIC and Key Data cipher.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyDescriptorVersion {
    /// 0: the AKM defines the MIC ([`KeyIntegrity`]); AES key wrap (SAE, OWE, Suite B, ...).
    AkmDefined,
    /// 1: HMAC-MD5 MIC, RC4 Key Data encryption (TKIP).
    HmacMd5Rc4,
    /// 2: HMAC-SHA1-128 MIC, AES key wrap.
    HmacSha1Aes,
    /// 3: AES-128-CMAC MIC, AES key wrap (SHA-256 AKMs).
    AesCmac,
}

impl KeyDescriptorVersion {
    pub fn from_bits(bits: u16) -> Result<Self> {
        match bits & 0x7 {
            0 => Ok(KeyDescriptorVersion::AkmDefined),
            1 => Ok(KeyDescriptorVersion::HmacMd5Rc4),
            2 => Ok(KeyDescriptorVersion::HmacSha1Aes),
            3 => Ok(KeyDescriptorVersion::AesCmac),
            _ => Err(Error::Unsupported("key descriptor version other than 0, 1, 2 or 3")),
        }
    }
    /// The MIC algorithm this version names; `None` for version 0, whose AKM names it.
    pub fn integrity(self) -> Option<KeyIntegrity> {
        match self {
            KeyDescriptorVersion::AkmDefined => None,
            KeyDescriptorVersion::HmacMd5Rc4 => Some(KeyIntegrity::HmacMd5),
            KeyDescriptorVersion::HmacSha1Aes => Some(KeyIntegrity::HmacSha1),
            KeyDescriptorVersion::AesCmac => Some(KeyIntegrity::AesCmac),
        }
    }
    pub fn bits(self) -> u16 {
        match self {
            KeyDescriptorVersion::AkmDefined => 0,
            KeyDescriptorVersion::HmacMd5Rc4 => 1,
            KeyDescriptorVersion::HmacSha1Aes => 2,
            KeyDescriptorVersion::AesCmac => 3,
        }
    }
}

/// The EAPOL-Key MIC algorithm (IEEE 802.11-2020 Table 12-11): by descriptor version, or
/// for version 0 by the AKM.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyIntegrity {
    HmacMd5,
    /// HMAC-SHA-1, truncated to 128 bits.
    HmacSha1,
    AesCmac,
    /// HMAC-SHA-256, truncated to 128 bits.
    HmacSha256,
    /// HMAC-SHA-384, truncated to 192 bits.
    HmacSha384,
    /// HMAC-SHA-512, truncated to 256 bits.
    HmacSha512,
}

impl KeyIntegrity {
    /// Octets of the Key MIC field.
    pub fn mic_len(self) -> usize {
        match self {
            KeyIntegrity::HmacSha384 => 24,
            KeyIntegrity::HmacSha512 => 32,
            _ => MIC_LEN,
        }
    }
}

/// The Key Information field (12.7.2 Figure 12-33).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct KeyInfo(pub u16);

impl KeyInfo {
    pub const PAIRWISE: u16 = 1 << 3;
    pub const INSTALL: u16 = 1 << 6;
    pub const ACK: u16 = 1 << 7;
    pub const MIC: u16 = 1 << 8;
    pub const SECURE: u16 = 1 << 9;
    pub const ERROR: u16 = 1 << 10;
    pub const REQUEST: u16 = 1 << 11;
    pub const ENCRYPTED_KEY_DATA: u16 = 1 << 12;

    pub fn new(version: KeyDescriptorVersion, flags: u16) -> Self {
        KeyInfo(version.bits() | flags)
    }
    pub fn version(self) -> Result<KeyDescriptorVersion> {
        KeyDescriptorVersion::from_bits(self.0)
    }
    pub fn has(self, flag: u16) -> bool {
        self.0 & flag != 0
    }
    /// The (WPA-only) Key Index of a group key message, bits 4-5.
    pub fn wpa_key_index(self) -> u8 {
        ((self.0 >> 4) & 0x3) as u8
    }
}

pub use crate::error::Message;

/// A read-only or mutable view of an EAPOL-Key frame.
#[derive(Clone, Copy, Debug)]
pub struct EapolKey<T: AsRef<[u8]>> {
    buffer: T,
    mic_len: usize,
}

impl<T: AsRef<[u8]>> EapolKey<T> {
    /// Check that `buffer` starts with a whole EAPOL-Key frame with a 16-octet Key MIC
    /// field (trailing octets, e.g. Ethernet padding, are allowed and ignored).
    pub fn new_checked(buffer: T) -> Result<Self> {
        Self::new_checked_with_mic_len(buffer, MIC_LEN)
    }

    /// [`EapolKey::new_checked`] for a Key MIC field of `mic_len` octets (16, 24 or 32: the
    /// AKM's; the frame does not say).
    pub fn new_checked_with_mic_len(buffer: T, mic_len: usize) -> Result<Self> {
        if ![16, 24, 32].contains(&mic_len) {
            return Err(Error::Unsupported("Key MIC field other than 16, 24 or 32 octets"));
        }
        let header_len = HEADER_LEN - MIC_LEN + mic_len;
        let b = buffer.as_ref();
        if b.len() < 4 {
            return Err(Error::Truncated { what: "EAPOL header", needed: 4, got: b.len() });
        }
        if b[field::PACKET_TYPE] != PACKET_TYPE_KEY {
            return Err(Error::Unsupported("EAPOL packet that is not an EAPOL-Key frame"));
        }
        if b.len() < header_len {
            return Err(Error::Truncated { what: "EAPOL-Key frame", needed: header_len, got: b.len() });
        }
        let body_len = usize::from(u16::from_be_bytes([b[2], b[3]]));
        let frame_len = 4 + body_len;
        if frame_len < header_len {
            return Err(Error::Malformed("EAPOL body length shorter than an EAPOL-Key descriptor"));
        }
        if b.len() < frame_len {
            return Err(Error::Truncated { what: "EAPOL-Key frame", needed: frame_len, got: b.len() });
        }
        let at = MIC_OFFSET + mic_len;
        let key_data_len = usize::from(u16::from_be_bytes([b[at], b[at + 1]]));
        if header_len + key_data_len > frame_len {
            return Err(Error::Malformed("Key Data Length runs past the EAPOL body"));
        }
        Ok(EapolKey { buffer, mic_len })
    }

    /// Octets of the Key MIC field.
    pub fn mic_len(&self) -> usize {
        self.mic_len
    }

    fn header_len(&self) -> usize {
        MIC_OFFSET + self.mic_len + 2
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    pub fn protocol_version(&self) -> u8 {
        self.b()[field::VERSION]
    }
    /// Length of the EAPOL frame itself (header and body, without trailing padding).
    pub fn frame_len(&self) -> usize {
        4 + usize::from(u16::from_be_bytes([self.b()[2], self.b()[3]]))
    }
    /// The frame's octets, the MIC field included.
    pub fn frame(&self) -> &[u8] {
        &self.b()[..self.frame_len()]
    }
    pub fn descriptor_type(&self) -> Result<DescriptorType> {
        DescriptorType::from_u8(self.b()[field::DESCRIPTOR_TYPE])
    }
    pub fn key_info(&self) -> KeyInfo {
        KeyInfo(u16::from_be_bytes([self.b()[5], self.b()[6]]))
    }
    pub fn key_length(&self) -> u16 {
        u16::from_be_bytes([self.b()[7], self.b()[8]])
    }
    pub fn replay_counter(&self) -> u64 {
        u64::from_be_bytes(self.array(field::REPLAY_COUNTER))
    }
    pub fn nonce(&self) -> [u8; 32] {
        self.array(field::NONCE)
    }
    pub fn key_iv(&self) -> [u8; 16] {
        self.array(field::KEY_IV)
    }
    /// Key RSC: the group key's receive sequence counter, little-endian on the air.
    pub fn key_rsc(&self) -> u64 {
        u64::from_le_bytes(self.array(field::KEY_RSC))
    }
    pub fn mic(&self) -> &[u8] {
        &self.b()[MIC_OFFSET..MIC_OFFSET + self.mic_len]
    }
    pub fn key_data(&self) -> &[u8] {
        let at = MIC_OFFSET + self.mic_len;
        let len = usize::from(u16::from_be_bytes([self.b()[at], self.b()[at + 1]]));
        &self.b()[self.header_len()..self.header_len() + len]
    }

    fn array<const N: usize>(&self, range: core::ops::Range<usize>) -> [u8; N] {
        let mut out = [0u8; N];
        out.copy_from_slice(&self.b()[range]);
        out
    }

    /// Which handshake message this frame is.
    pub fn message(&self) -> Message {
        let info = self.key_info();
        if info.has(KeyInfo::REQUEST) {
            return Message::Request;
        }
        let ack = info.has(KeyInfo::ACK);
        match (info.has(KeyInfo::PAIRWISE), ack) {
            (true, true) if info.has(KeyInfo::MIC) && info.has(KeyInfo::INSTALL) => Message::FourWay3,
            (true, true) => Message::FourWay1,
            (true, false) => {
                let has_nonce = self.nonce() != [0; 32];
                if !self.key_data().is_empty() || (has_nonce && !info.has(KeyInfo::SECURE)) {
                    Message::FourWay2
                } else {
                    Message::FourWay4
                }
            }
            (false, true) => Message::Group1,
            (false, false) => Message::Group2,
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EapolKey<T> {
    /// Write the MIC computed under `kck` into the frame (for its descriptor version).
    pub fn sign(&mut self, kck: &[u8]) -> Result<()> {
        let version = self.key_info().version()?;
        let integrity = version.integrity().ok_or(Error::Unsupported("key descriptor version 0 without its AKM"))?;
        self.sign_with(integrity, kck)
    }

    /// Write the MIC computed with `integrity` under `kck` into the frame.
    pub fn sign_with(&mut self, integrity: KeyIntegrity, kck: &[u8]) -> Result<()> {
        if integrity.mic_len() != self.mic_len {
            return Err(Error::Malformed("Key MIC field of another length than the MIC"));
        }
        let mic = compute_mic_with(kck, integrity, self.frame())?;
        let mic_len = self.mic_len;
        self.buffer.as_mut()[MIC_OFFSET..MIC_OFFSET + mic_len].copy_from_slice(&mic[..mic_len]);
        Ok(())
    }
}

/// The parsed, validated content of an EAPOL-Key frame.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EapolKeyRepr<'a> {
    /// 802.1X protocol version: 1 (802.1X-2001) or 2 (802.1X-2004).
    pub protocol_version: u8,
    pub descriptor_type: DescriptorType,
    pub key_info: KeyInfo,
    pub key_length: u16,
    pub replay_counter: u64,
    pub nonce: [u8; 32],
    pub key_iv: [u8; 16],
    pub key_rsc: u64,
    pub mic: [u8; MIC_LEN],
    pub key_data: &'a [u8],
}

impl<'a> EapolKeyRepr<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let view = EapolKey::new_checked(bytes)?;
        view.key_info().version()?;
        let key_data_len = view.key_data().len();
        Ok(EapolKeyRepr {
            protocol_version: view.protocol_version(),
            descriptor_type: view.descriptor_type()?,
            key_info: view.key_info(),
            key_length: view.key_length(),
            replay_counter: view.replay_counter(),
            nonce: view.nonce(),
            key_iv: view.key_iv(),
            key_rsc: view.key_rsc(),
            mic: view.mic().try_into().map_err(|_| Error::Malformed("Key MIC"))?,
            key_data: &bytes[HEADER_LEN..HEADER_LEN + key_data_len],
        })
    }

    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.key_data.len()
    }

    /// Write the frame into `buf` (its MIC field as held in `self.mic`); returns its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len();
        if self.key_data.len() > usize::from(u16::MAX) - (HEADER_LEN - 4) {
            return Err(Error::Malformed("Key Data too long for an EAPOL frame"));
        }
        self.key_info.version()?;
        let got = buf.len();
        let out = buf.get_mut(..len).ok_or(Error::BufferTooSmall { needed: len, got })?;
        out[field::VERSION] = self.protocol_version;
        out[field::PACKET_TYPE] = PACKET_TYPE_KEY;
        out[field::BODY_LEN].copy_from_slice(&((len - 4) as u16).to_be_bytes());
        out[field::DESCRIPTOR_TYPE] = self.descriptor_type.to_u8();
        out[field::KEY_INFO].copy_from_slice(&self.key_info.0.to_be_bytes());
        out[field::KEY_LEN].copy_from_slice(&self.key_length.to_be_bytes());
        out[field::REPLAY_COUNTER].copy_from_slice(&self.replay_counter.to_be_bytes());
        out[field::NONCE].copy_from_slice(&self.nonce);
        out[field::KEY_IV].copy_from_slice(&self.key_iv);
        out[field::KEY_RSC].copy_from_slice(&self.key_rsc.to_le_bytes());
        out[73..81].fill(0);
        out[MIC_OFFSET..MIC_OFFSET + MIC_LEN].copy_from_slice(&self.mic);
        out[HEADER_LEN - 2..HEADER_LEN].copy_from_slice(&(self.key_data.len() as u16).to_be_bytes());
        out[HEADER_LEN..].copy_from_slice(self.key_data);
        Ok(len)
    }

    /// The frame as bytes with a Key MIC field as long as `integrity`'s MIC, computed with
    /// it under `kck` when the Key MIC bit is set (for the AKM-defined descriptor version).
    pub fn to_signed_bytes_with(&self, integrity: KeyIntegrity, kck: &[u8]) -> Result<Vec<u8>> {
        let mut short = vec![0u8; self.buffer_len()];
        self.emit(&mut short)?;
        let extra = integrity.mic_len() - MIC_LEN;
        let mut out = Vec::with_capacity(short.len() + extra);
        out.extend_from_slice(&short[..MIC_OFFSET + MIC_LEN]);
        out.resize(out.len() + extra, 0);
        out.extend_from_slice(&short[MIC_OFFSET + MIC_LEN..]);
        let body_len =
            u16::try_from(out.len() - 4).map_err(|_| Error::Malformed("Key Data too long for an EAPOL frame"))?;
        out[field::BODY_LEN].copy_from_slice(&body_len.to_be_bytes());
        let mut view = EapolKey::new_checked_with_mic_len(&mut out[..], integrity.mic_len())?;
        if self.key_info.has(KeyInfo::MIC) {
            view.sign_with(integrity, kck)?;
        }
        Ok(out)
    }

    /// The frame as bytes, with its MIC computed under `kck` when the Key MIC bit is set.
    pub fn to_signed_bytes(&self, kck: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.buffer_len()];
        self.emit(&mut out)?;
        let mut view = EapolKey::new_checked(&mut out[..])?;
        if self.key_info.has(KeyInfo::MIC) {
            view.sign(kck)?;
        }
        Ok(out)
    }
}

/// The Key MIC of an EAPOL frame under `kck`, computed as if its MIC field were zero.
/// `frame` must be a whole, checked EAPOL-Key frame (header and body, no trailing octets)
/// with a 16-octet Key MIC field.
pub fn compute_mic(kck: &[u8], version: KeyDescriptorVersion, frame: &[u8]) -> Result<[u8; MIC_LEN]> {
    let integrity = version.integrity().ok_or(Error::Unsupported("key descriptor version 0 without its AKM"))?;
    let mic = compute_mic_with(kck, integrity, frame)?;
    let mut out = [0u8; MIC_LEN];
    out.copy_from_slice(&mic[..MIC_LEN]);
    Ok(out)
}

/// The Key MIC of `frame` computed with `integrity` under `kck` (its first
/// `integrity.mic_len()` octets count), as if the frame's Key MIC field (of that length)
/// were zero.
pub fn compute_mic_with(kck: &[u8], integrity: KeyIntegrity, frame: &[u8]) -> Result<[u8; MAX_MIC_LEN]> {
    let mic_len = integrity.mic_len();
    let header_len = MIC_OFFSET + mic_len + 2;
    if frame.len() < header_len {
        return Err(Error::Truncated { what: "EAPOL-Key frame", needed: header_len, got: frame.len() });
    }
    let kck_len = match integrity {
        KeyIntegrity::HmacSha384 => 24,
        KeyIntegrity::HmacSha512 => 32,
        _ => 16,
    };
    if kck.len() != kck_len {
        return Err(Error::KeyLength { expected: kck_len, got: kck.len() });
    }
    let zeros = [0u8; MAX_MIC_LEN];
    let parts = [&frame[..MIC_OFFSET], &zeros[..mic_len], &frame[MIC_OFFSET + mic_len..]];
    let mut mic = [0u8; MAX_MIC_LEN];
    fn run<M: Mac + KeyInit>(kck: &[u8], parts: &[&[u8]; 3], out: &mut [u8]) -> Result<()> {
        let mut mac =
            <M as KeyInit>::new_from_slice(kck).map_err(|_| Error::KeyLength { expected: 16, got: kck.len() })?;
        parts.iter().for_each(|p| mac.update(p));
        let tag = mac.finalize().into_bytes();
        out.copy_from_slice(&tag[..out.len()]);
        Ok(())
    }
    let out = &mut mic[..mic_len];
    match integrity {
        KeyIntegrity::HmacMd5 => run::<Hmac<Md5>>(kck, &parts, out)?,
        KeyIntegrity::HmacSha1 => run::<Hmac<Sha1>>(kck, &parts, out)?,
        KeyIntegrity::AesCmac => run::<Cmac<aes::Aes128>>(kck, &parts, out)?,
        KeyIntegrity::HmacSha256 => run::<Hmac<Sha256>>(kck, &parts, out)?,
        KeyIntegrity::HmacSha384 => run::<Hmac<Sha384>>(kck, &parts, out)?,
        KeyIntegrity::HmacSha512 => run::<Hmac<Sha512>>(kck, &parts, out)?,
    }
    Ok(mic)
}

/// Check the Key MIC of the EAPOL-Key frame at the front of `bytes` under `kck`, in
/// constant time. A frame without the Key MIC bit has nothing to verify and is refused.
pub fn verify_mic(kck: &[u8], bytes: &[u8]) -> Result<()> {
    let version = EapolKey::new_checked(bytes)?.key_info().version()?;
    let integrity = version.integrity().ok_or(Error::Unsupported("key descriptor version 0 without its AKM"))?;
    verify_mic_with(integrity, kck, bytes)
}

/// [`verify_mic`] with the MIC algorithm `integrity` (whose length the Key MIC field has).
pub fn verify_mic_with(integrity: KeyIntegrity, kck: &[u8], bytes: &[u8]) -> Result<()> {
    let view = EapolKey::new_checked_with_mic_len(bytes, integrity.mic_len())?;
    if !view.key_info().has(KeyInfo::MIC) {
        return Err(Error::Malformed("EAPOL-Key frame has no MIC to verify"));
    }
    let expected = compute_mic_with(kck, integrity, view.frame())?;
    if bool::from(expected[..view.mic_len()].ct_eq(view.mic())) {
        Ok(())
    } else {
        Err(Error::MicFailure)
    }
}

/// Encrypt plaintext Key Data under the KEK: RC4 (version 1, keyed with Key IV || KEK,
/// first 256 keystream octets discarded) or AES key wrap after padding (versions 2 and 3).
pub fn encrypt_key_data(version: KeyDescriptorVersion, kek: &[u8], key_iv: &[u8; 16], plain: &[u8]) -> Result<Vec<u8>> {
    match version {
        KeyDescriptorVersion::HmacMd5Rc4 => {
            let mut out = plain.to_vec();
            rc4_key_data(kek, key_iv, &mut out)?;
            Ok(out)
        }
        _ => keywrap::wrap(kek, &keywrap::pad_key_data(plain)),
    }
}

/// Decrypt encrypted Key Data under the KEK (the inverse of [`encrypt_key_data`]). AES
/// unwrapping checks integrity; the padding is kept (Key Data parsing stops at it).
pub fn decrypt_key_data(
    version: KeyDescriptorVersion,
    kek: &[u8],
    key_iv: &[u8; 16],
    data: &[u8],
) -> Result<Zeroizing<Vec<u8>>> {
    match version {
        KeyDescriptorVersion::HmacMd5Rc4 => {
            let mut out = Zeroizing::new(data.to_vec());
            rc4_key_data(kek, key_iv, &mut out)?;
            Ok(out)
        }
        _ => keywrap::unwrap(kek, data),
    }
}

fn rc4_key_data(kek: &[u8], key_iv: &[u8; 16], data: &mut [u8]) -> Result<()> {
    if kek.len() != 16 {
        return Err(Error::KeyLength { expected: 16, got: kek.len() });
    }
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(key_iv);
    key[16..].copy_from_slice(kek);
    let mut rc4 =
        <Rc4 as rc4::KeyInit>::new_from_slice(&key).map_err(|_| Error::KeyLength { expected: 32, got: 32 })?;
    key.zeroize();
    let mut discard = [0u8; 256];
    rc4.apply_keystream(&mut discard);
    rc4.apply_keystream(data);
    Ok(())
}

#[cfg(test)]
mod tests;
