//! BIP, the Broadcast/multicast Integrity Protocol of 802.11w (IEEE 802.11-2016 12.5.4, and
//! 12.5.6 for BIP-GMAC): integrity and replay protection, no confidentiality, for
//! group-addressed robust management frames (Deauthentication, Disassociation, robust
//! Action). The frame is sent in the clear (Protected stays 0) with a Management MIC element
//! ([`MmeRepr`]) appended as the last element of its body.
//!
//! The MIC covers `AAD || body`, the MME's MIC field set to zero, where the AAD is Frame
//! Control with Retry, Power Management and More Data masked, then A1, A2, A3 (Sequence
//! Control is left out so a retransmission verifies); a beacon's Timestamp is masked to zero
//! (the radio writes it as the frame goes out). BIP-CMAC-128 and -256 take AES-CMAC
//! (truncated to 8 octets for -128); BIP-GMAC-128 and -256 take AES-GMAC with the nonce
//! `A2 || IPN5..IPN0`.
//!
//! Beacon protection (IEEE 802.11-2020 12.6.1.1) runs the same BIP on beacons under a BIGTK,
//! Key ID 6 or 7.
//!
//! [`Igtk`] is a keyed IGTK or BIGTK that protects and verifies; [`BipReceiver`] holds the
//! installed ones with their replay counters, as a station does.

use aes::{Aes128, Aes256};
use aes_gcm::aead::Nonce;
use aes_gcm::{Aes128Gcm, Aes256Gcm};
use cmac::{Cmac, KeyInit, Mac};
use subtle::ConstantTimeEq;

use crate::error::{Error, Result};
use crate::rsn::{CipherSuite, Secret};
use crate::suite::gcmp::GcmAead;
use crate::suite::mpdu::Pn;
use crate::wire::mgmt::MmeRepr;
use crate::wire::{Frame, FrameControl, Rules};

/// Octets of the BIP AAD: FC, A1, A2, A3.
pub const AAD_LEN: usize = 20;
/// The Key IDs an IGTK can have (12.7.2: 4 or 5; 0-3 are GTKs').
pub const IGTK_KEY_IDS: [u16; 2] = [4, 5];
/// The Key IDs a BIGTK (beacon integrity group key) can have.
pub const BIGTK_KEY_IDS: [u16; 2] = [6, 7];
/// Octets of a beacon's Timestamp, the first field of its body.
const TIMESTAMP_LEN: usize = 8;

/// One of the four BIP variants, by the group management cipher suite that names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum BipAlgorithm {
    Cmac128,
    Cmac256,
    Gmac128,
    Gmac256,
}

impl BipAlgorithm {
    pub const ALL: [BipAlgorithm; 4] =
        [BipAlgorithm::Cmac128, BipAlgorithm::Cmac256, BipAlgorithm::Gmac128, BipAlgorithm::Gmac256];

    /// The variant a group management cipher selector names; other suites are refused.
    pub fn from_cipher_suite(suite: CipherSuite) -> Result<Self> {
        match suite {
            CipherSuite::BipCmac128 => Ok(BipAlgorithm::Cmac128),
            CipherSuite::BipCmac256 => Ok(BipAlgorithm::Cmac256),
            CipherSuite::BipGmac128 => Ok(BipAlgorithm::Gmac128),
            CipherSuite::BipGmac256 => Ok(BipAlgorithm::Gmac256),
            _ => Err(Error::Unsupported("group management cipher other than BIP")),
        }
    }

    pub fn cipher_suite(self) -> CipherSuite {
        match self {
            BipAlgorithm::Cmac128 => CipherSuite::BipCmac128,
            BipAlgorithm::Cmac256 => CipherSuite::BipCmac256,
            BipAlgorithm::Gmac128 => CipherSuite::BipGmac128,
            BipAlgorithm::Gmac256 => CipherSuite::BipGmac256,
        }
    }

    /// Octets of the IGTK.
    pub fn key_len(self) -> usize {
        match self {
            BipAlgorithm::Cmac128 | BipAlgorithm::Gmac128 => 16,
            BipAlgorithm::Cmac256 | BipAlgorithm::Gmac256 => 32,
        }
    }

    /// Octets of the MIC in the MME.
    pub fn mic_len(self) -> usize {
        match self {
            BipAlgorithm::Cmac128 => 8,
            _ => 16,
        }
    }

    /// Octets BIP adds to a frame: the whole MME.
    pub fn overhead(self) -> usize {
        MmeRepr::len_with_mic(self.mic_len())
    }
}

/// An integrity group temporal key: BIP variant, Key ID (4 or 5; 6 or 7 for a BIGTK) and the
/// key, which is zeroized on drop, compared in constant time and never printed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Igtk {
    algorithm: BipAlgorithm,
    key_id: u16,
    key: Secret,
}

/// The BIP AAD of a management frame: FC (Retry, Power Management, More Data masked), A1,
/// A2, A3. Frames without three addresses (control frames) are refused.
pub fn aad<T: AsRef<[u8]>>(frame: &Frame<T>) -> Result<[u8; AAD_LEN]> {
    let addresses = frame.header().get(4..22).ok_or(Error::Unsupported("BIP AAD of a frame without A1-A3"))?;
    let fc =
        frame.frame_control().0 & !(FrameControl::RETRY | FrameControl::POWER_MANAGEMENT | FrameControl::MORE_DATA);
    let mut out = [0u8; AAD_LEN];
    let (fc_field, rest) = out.split_at_mut(2);
    fc_field.copy_from_slice(&fc.to_le_bytes());
    rest.copy_from_slice(addresses);
    Ok(out)
}

/// A frame BIP can protect: a management frame, group addressed, Protected clear.
fn bip_frame(mpdu: &[u8]) -> Result<Frame<&[u8]>> {
    let frame = Frame::new_checked(mpdu, Rules::default())?;
    let fc = frame.frame_control();
    if !fc.is_management() || !frame.addr1().is_group() {
        return Err(Error::Unsupported("BIP protects group-addressed management frames only"));
    }
    if fc.protected() {
        return Err(Error::Malformed("a BIP-protected frame has Protected clear"));
    }
    Ok(frame)
}

impl Igtk {
    /// Key an IGTK (or a BIGTK); `key` must have the variant's length and `key_id` be 4 or 5
    /// (6 or 7).
    pub fn new(algorithm: BipAlgorithm, key_id: u16, key: &[u8]) -> Result<Self> {
        if !IGTK_KEY_IDS.contains(&key_id) && !BIGTK_KEY_IDS.contains(&key_id) {
            return Err(Error::Malformed("IGTK Key ID must be 4 or 5, BIGTK Key ID 6 or 7"));
        }
        if key.len() != algorithm.key_len() {
            return Err(Error::KeyLength { expected: algorithm.key_len(), got: key.len() });
        }
        Ok(Igtk { algorithm, key_id, key: Secret::from_slice(key)? })
    }

    pub fn algorithm(&self) -> BipAlgorithm {
        self.algorithm
    }

    pub fn key_id(&self) -> u16 {
        self.key_id
    }

    pub fn key(&self) -> &Secret {
        &self.key
    }

    /// Octets `protect` adds (the MME).
    pub fn overhead(&self) -> usize {
        self.algorithm.overhead()
    }

    /// Append an MME with `ipn` and its MIC to the group-addressed management frame in
    /// `buf[..mpdu_len]`; `buf` needs `overhead()` more octets. Returns the new length.
    /// The caller keeps the IPN counter (a `suite::PnCounter`): each frame a new, higher IPN.
    pub fn protect(&self, buf: &mut [u8], mpdu_len: usize, ipn: Pn) -> Result<usize> {
        let out_len = mpdu_len + self.overhead();
        let got = buf.len();
        let buf = buf.get_mut(..out_len).ok_or(Error::BufferTooSmall { needed: out_len, got })?;
        let (mpdu, mme) = buf.split_at_mut(mpdu_len);
        let frame = bip_frame(mpdu)?;
        let mic_len = self.algorithm.mic_len();
        MmeRepr { key_id: self.key_id, ipn: ipn.value(), mic: &[0; 16][..mic_len] }.emit(mme)?;
        let mic = self.mic(&frame, frame.body(), mme, ipn)?;
        let (_, mic_field) = mme.split_at_mut(mme.len() - mic_len);
        mic_field.copy_from_slice(&mic[..mic_len]);
        Ok(out_len)
    }

    /// Check the MME of a received group-addressed management frame under this key: its
    /// Key ID, then its MIC (in constant time). Returns the frame's IPN; replay checking is
    /// [`BipReceiver`]'s.
    pub fn verify(&self, mpdu: &[u8]) -> Result<Pn> {
        let frame = bip_frame(mpdu)?;
        let mic_len = self.algorithm.mic_len();
        let (before, mme) = MmeRepr::split_last(frame.body(), mic_len)?;
        if mme.key_id != self.key_id {
            // Error::KeyId holds octets; an out-of-range Key ID shows as 255.
            let got = u8::try_from(mme.key_id).unwrap_or(u8::MAX);
            return Err(Error::KeyId { expected: self.key_id as u8, got });
        }
        let ipn = Pn::new(mme.ipn)?;
        let mut zeroed = [0u8; MmeRepr::len_with_mic(16)];
        let len = MmeRepr { mic: &[0; 16][..mic_len], ..mme }.emit(&mut zeroed)?;
        let expected = self.mic(&frame, before, &zeroed[..len], ipn)?;
        if bool::from(expected[..mic_len].ct_eq(mme.mic)) {
            Ok(ipn)
        } else {
            Err(Error::MicFailure)
        }
    }

    /// The MIC (16 octets; BIP-CMAC-128 sends the first 8) over AAD || `body` || `mme`,
    /// where `body` is the frame body before its MME (a beacon's Timestamp zeroed) and `mme`
    /// has its MIC field zeroed.
    fn mic<T: AsRef<[u8]>>(&self, frame: &Frame<T>, body: &[u8], mme: &[u8], ipn: Pn) -> Result<[u8; 16]> {
        let aad = aad(frame)?;
        let beacon = frame.frame_control().subtype() == crate::wire::mgmt::subtype::BEACON;
        let (timestamp, rest) = match body.split_at_checked(TIMESTAMP_LEN) {
            Some((_, rest)) if beacon => (&[0u8; TIMESTAMP_LEN][..], rest),
            None if beacon => return Err(Error::Truncated { what: "beacon", needed: TIMESTAMP_LEN, got: body.len() }),
            _ => (&[][..], body),
        };
        let parts = [&aad[..], timestamp, rest, mme];
        let key = self.key.as_bytes();
        match self.algorithm {
            BipAlgorithm::Cmac128 => cmac::<Cmac<Aes128>>(key, &parts),
            BipAlgorithm::Cmac256 => cmac::<Cmac<Aes256>>(key, &parts),
            BipAlgorithm::Gmac128 => gmac::<Aes128Gcm>(key, gmac_nonce(frame, ipn)?, &parts),
            BipAlgorithm::Gmac256 => gmac::<Aes256Gcm>(key, gmac_nonce(frame, ipn)?, &parts),
        }
    }
}

/// AES-CMAC over the concatenation of `parts`.
fn cmac<M: Mac + KeyInit>(key: &[u8], parts: &[&[u8]]) -> Result<[u8; 16]> {
    let mut mac = <M as KeyInit>::new_from_slice(key)
        .map_err(|_| Error::KeyLength { expected: M::key_size(), got: key.len() })?;
    parts.iter().for_each(|p| mac.update(p));
    let mut out = [0u8; 16];
    out.copy_from_slice(&mac.finalize().into_bytes()[..16]);
    Ok(out)
}

/// The BIP-GMAC nonce: A2 || IPN5..IPN0.
fn gmac_nonce<T: AsRef<[u8]>>(frame: &Frame<T>, ipn: Pn) -> Result<[u8; 12]> {
    let a2 = frame.addr2().ok_or(Error::Unsupported("frame without Address 2"))?;
    let mut nonce = [0u8; 12];
    nonce[..6].copy_from_slice(&a2.0);
    nonce[6..].copy_from_slice(&ipn.to_be_bytes());
    Ok(nonce)
}

/// AES-GMAC: GCM with the concatenation of `parts` as AAD and nothing to encrypt.
fn gmac<A: GcmAead>(key: &[u8], nonce: [u8; 12], parts: &[&[u8]]) -> Result<[u8; 16]> {
    let aead = A::new_from_slice(key).map_err(|_| Error::KeyLength { expected: A::key_size(), got: key.len() })?;
    // GCM takes its AAD in one piece; management frames are short, so copy them together.
    let aad = parts.concat();
    let tag = aead
        .encrypt_inout_detached(&Nonce::<A>::from(nonce), &aad, (&mut [][..]).into())
        .map_err(|_| Error::Unsupported("GMAC input longer than the mode allows"))?;
    let mut out = [0u8; 16];
    out.copy_from_slice(&tag);
    Ok(out)
}

/// The receiving side of BIP, as a station keeps it: the installed IGTKs and BIGTKs (one per
/// Key ID, 4 to 7) and each one's replay counter, the highest IPN accepted (12.5.4.5). A
/// receiver that holds only BIGTKs accepts only beacons' MMEs, and the other way round.
#[derive(Clone, Debug, Default)]
pub struct BipReceiver {
    keys: [Option<(Igtk, u64)>; 4],
}

impl BipReceiver {
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(key_id: u16) -> Option<usize> {
        IGTK_KEY_IDS.iter().chain(&BIGTK_KEY_IDS).position(|&k| k == key_id)
    }

    /// Install an IGTK with the IPN its distribution gave (the IGTK KDE's): frames must carry
    /// a higher one. Installing the key already in place changes nothing, so a repeated
    /// message 3 or group message 1 cannot rewind the replay counter (KRACK).
    pub fn install(&mut self, igtk: Igtk, ipn: Pn) {
        let Some(slot) = Self::slot(igtk.key_id).and_then(|i| self.keys.get_mut(i)) else { return };
        if slot.as_ref().is_some_and(|(installed, _)| *installed == igtk) {
            return;
        }
        *slot = Some((igtk, ipn.value()));
    }

    /// The IGTK installed under `key_id`, if any.
    pub fn igtk(&self, key_id: u16) -> Option<&Igtk> {
        self.keys.get(Self::slot(key_id)?)?.as_ref().map(|(igtk, _)| igtk)
    }

    /// The highest IPN accepted (or installed) under `key_id`.
    pub fn last_ipn(&self, key_id: u16) -> Option<u64> {
        self.keys.get(Self::slot(key_id)?)?.as_ref().map(|&(_, ipn)| ipn)
    }

    /// Verify a received group-addressed management frame: its MME names an installed
    /// IGTK (else `NoKey { group: true }`), its IPN is above that key's replay counter (else
    /// `Replay`) and its MIC verifies (else `MicFailure`). Only then is the counter
    /// advanced; returns the IPN. A frame without an MME is refused (`Truncated` or
    /// `Malformed`): under PMF a group-addressed robust frame must carry one.
    pub fn verify(&mut self, mpdu: &[u8]) -> Result<Pn> {
        let frame = bip_frame(mpdu)?;
        let body = frame.body();
        let mut refusal = None;
        for (igtk, last) in self.keys.iter_mut().flatten() {
            match MmeRepr::split_last(body, igtk.algorithm.mic_len()) {
                Ok((_, mme)) if mme.key_id == igtk.key_id => {
                    if mme.ipn <= *last {
                        return Err(Error::Replay { pn: mme.ipn, last: *last });
                    }
                    let ipn = igtk.verify(mpdu)?;
                    *last = ipn.value();
                    return Ok(ipn);
                }
                Ok(_) => refusal = Some(Error::NoKey { group: true }),
                Err(e) => refusal = refusal.or(Some(e)),
            }
        }
        Err(refusal.unwrap_or(Error::NoKey { group: true }))
    }
}
