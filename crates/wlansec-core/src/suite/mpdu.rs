//! The MPDU-level pieces that CCMP and GCMP share (IEEE 802.11-2016 12.5.3.2, 12.5.3.3.3,
//! 12.5.5.3.3): the 8-octet PN header, the AAD built from the masked MAC header, and the
//! replay counter a frame belongs to.

use crate::error::{Error, Result};
use crate::suite::{Decapsulated, Peeked};
use crate::wire::{Frame, FrameControl, QosControl, Rules};

/// Length of the CCMP/GCMP header that follows the MAC header.
pub const PN_HEADER_LEN: usize = 8;

const EXT_IV: u8 = 0x20;

/// A 48-bit packet number.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Default, Hash)]
pub struct Pn(u64);

impl Pn {
    pub const MAX: u64 = (1 << 48) - 1;

    pub fn new(value: u64) -> Result<Self> {
        if value > Self::MAX {
            return Err(Error::Malformed("packet number wider than 48 bits"));
        }
        Ok(Pn(value))
    }

    pub fn value(self) -> u64 {
        self.0
    }

    /// PN5..PN0, most significant octet first, as in the nonce.
    pub fn to_be_bytes(self) -> [u8; 6] {
        let b = self.0.to_be_bytes();
        [b[2], b[3], b[4], b[5], b[6], b[7]]
    }
}

/// The CCMP/GCMP header: `PN0 PN1 Rsvd KeyID-octet PN2 PN3 PN4 PN5`, with Ext IV (bit 5 of
/// the KeyID octet) always set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PnHeader {
    pub pn: Pn,
    pub key_id: u8,
}

impl PnHeader {
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let h = bytes.get(..PN_HEADER_LEN).ok_or(Error::Truncated {
            what: "CCMP/GCMP header",
            needed: PN_HEADER_LEN,
            got: bytes.len(),
        })?;
        if h[3] & EXT_IV == 0 {
            return Err(Error::ExtIvNotSet);
        }
        let pn = u64::from_le_bytes([h[0], h[1], h[4], h[5], h[6], h[7], 0, 0]);
        Ok(PnHeader { pn: Pn(pn), key_id: h[3] >> 6 })
    }

    pub fn emit(&self, out: &mut [u8; PN_HEADER_LEN]) -> Result<()> {
        if self.key_id > 3 {
            return Err(Error::Malformed("Key ID must be 0..=3"));
        }
        let p = self.pn.0.to_le_bytes();
        *out = [p[0], p[1], 0, (self.key_id << 6) | EXT_IV, p[2], p[3], p[4], p[5]];
        Ok(())
    }
}

/// The additional authenticated data of one MPDU: 22 to 30 octets.
#[derive(Clone, Copy)]
pub struct Aad {
    bytes: [u8; 30],
    len: usize,
}

impl Aad {
    /// Build the AAD from a frame's MAC header: FC with subtype (data frames only), Retry,
    /// Power Management and More Data masked, Protected set, Order masked when the frame
    /// has a QoS Control field (802.11n and later); A1-A3; SC with the sequence number
    /// masked; A4 if present; QC with only the TID (and A-MSDU Present under SPP A-MSDU).
    pub fn new<T: AsRef<[u8]>>(frame: &Frame<T>, rules: Rules) -> Self {
        let fc = frame.frame_control();
        let mut masked = fc.0 & !(FrameControl::RETRY | FrameControl::POWER_MANAGEMENT | FrameControl::MORE_DATA);
        masked |= FrameControl::PROTECTED;
        if fc.is_data() {
            masked &= !0x0070;
        }
        let qos = frame.qos_control();
        if qos.is_some() && rules.ht_control {
            masked &= !FrameControl::ORDER;
        }
        let header = frame.header();
        let mut bytes = [0u8; 30];
        bytes[0..2].copy_from_slice(&masked.to_le_bytes());
        bytes[2..20].copy_from_slice(&header[4..22]);
        bytes[20] = header[22] & 0x0f;
        bytes[21] = 0;
        let mut len = 22;
        if let Some(a4) = frame.addr4() {
            bytes[len..len + 6].copy_from_slice(&a4.0);
            len += 6;
        }
        if let Some(qc) = qos {
            let amsdu = rules.spp_amsdu && rules.ht_control && qc.amsdu_present();
            bytes[len] = qc.tid() | if amsdu { QosControl::AMSDU_PRESENT as u8 } else { 0 };
            bytes[len + 1] = 0;
            len += 2;
        }
        Aad { bytes, len }
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Which receive replay counter a frame is checked against (12.5.3.4.4): one per TID for
/// QoS data, one for non-QoS data, one for robust management frames.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum ReplayClass {
    Tid(u8),
    NonQosData,
    Management,
}

impl ReplayClass {
    pub const COUNT: usize = 18;

    pub fn of<T: AsRef<[u8]>>(frame: &Frame<T>) -> Self {
        match frame.qos_control() {
            Some(qc) => ReplayClass::Tid(qc.tid()),
            None if frame.frame_control().is_management() => ReplayClass::Management,
            None => ReplayClass::NonQosData,
        }
    }

    pub fn index(self) -> usize {
        match self {
            ReplayClass::Tid(tid) => usize::from(tid & 0x0f),
            ReplayClass::NonQosData => 16,
            ReplayClass::Management => 17,
        }
    }

    /// The priority a CCMP nonce carries: the TID for QoS data, else 0.
    pub fn priority(self) -> u8 {
        match self {
            ReplayClass::Tid(tid) => tid & 0x0f,
            _ => 0,
        }
    }
}

/// Check that a frame can be protected: management or data, version 0.
pub fn check_protectable<T: AsRef<[u8]>>(frame: &Frame<T>) -> Result<()> {
    let fc = frame.frame_control();
    if fc.is_data() || fc.is_management() {
        Ok(())
    } else {
        Err(Error::Unsupported("only data and management frames can be protected"))
    }
}

/// Make room for a suite's security header in the plaintext MPDU in `buf[..mpdu_len]`: check
/// the frame can be protected and that `buf` has room for `security_header` and a trailer of
/// `trailer_len` octets, set Protected, move the body behind the MAC header to open a gap,
/// and write `security_header` into it. Returns the MAC header length. Every suite frames
/// its MPDUs this way (IEEE 802.11-2016 12.3.2.2, 12.5.2.2, 12.5.3.2, 12.5.5.2).
pub(crate) fn insert_security_header(
    buf: &mut [u8],
    mpdu_len: usize,
    rules: Rules,
    security_header: &[u8],
    trailer_len: usize,
) -> Result<usize> {
    let out_len = mpdu_len + security_header.len() + trailer_len;
    if buf.len() < out_len {
        return Err(Error::BufferTooSmall { needed: out_len, got: buf.len() });
    }
    let mut frame = Frame::new_checked(&mut buf[..mpdu_len], rules)?;
    check_protectable(&frame)?;
    frame.set_flag(FrameControl::PROTECTED, true)?;
    let h = frame.header_len();
    buf.copy_within(h..mpdu_len, h + security_header.len());
    buf[h..h + security_header.len()].copy_from_slice(security_header);
    Ok(h)
}

/// The protected MPDU that is all of `buf`, checked to be a data or management frame with
/// Protected set and at least `overhead` octets (security header and trailer) after its MAC
/// header; `what` names the suite in the error.
pub(crate) fn protected_frame<'a>(
    buf: &'a [u8],
    rules: Rules,
    overhead: usize,
    what: &'static str,
) -> Result<Frame<&'a [u8]>> {
    let frame = Frame::new_checked(buf, rules)?;
    check_protectable(&frame)?;
    if !frame.frame_control().protected() {
        return Err(Error::NotProtected);
    }
    let needed = frame.header_len() + overhead;
    if buf.len() < needed {
        return Err(Error::Truncated { what, needed, got: buf.len() });
    }
    Ok(frame)
}

/// Protect the MPDU in `buf[..mpdu_len]` in place with the framing CCMP and GCMP share:
/// insert the PN header, then let `seal` encrypt the body and write the `mic_len`-octet MIC
/// behind it. `seal` gets the header (for the nonce), the AAD, the body and the MIC slot.
/// Returns the protected length.
pub(crate) fn seal_in_place(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
    mic_len: usize,
    seal: impl FnOnce(&Frame<&[u8]>, &[u8], &mut [u8], &mut [u8]) -> Result<()>,
) -> Result<usize> {
    let mut pn_header = [0u8; PN_HEADER_LEN];
    PnHeader { pn, key_id }.emit(&mut pn_header)?;
    let h = insert_security_header(buf, mpdu_len, rules, &pn_header, mic_len)?;
    let out_len = mpdu_len + PN_HEADER_LEN + mic_len;
    let (header, rest) = buf[..out_len].split_at_mut(h);
    let frame = Frame::new_checked(&*header, rules)?;
    let aad = Aad::new(&frame, rules);
    let (data, mic) = rest[PN_HEADER_LEN..].split_at_mut(mpdu_len - h);
    seal(&frame, aad.as_slice(), data, mic)?;
    Ok(out_len)
}

/// Read the PN header of a protected CCMP/GCMP MPDU (`what` names the suite in errors).
pub(crate) fn peek(buf: &[u8], rules: Rules, mic_len: usize, what: &'static str) -> Result<Peeked> {
    let frame = protected_frame(buf, rules, PN_HEADER_LEN + mic_len, what)?;
    let header = PnHeader::parse(frame.body())?;
    Ok(Peeked { pn: header.pn, key_id: header.key_id, class: ReplayClass::of(&frame) })
}

/// Verify and decrypt the protected MPDU that is all of `buf`, the inverse of
/// `seal_in_place`: `open` gets the header, the PN, the AAD, the body and the MIC, and must
/// leave the body as it found it when the MIC fails. On success the plaintext MPDU, with
/// Protected cleared, is at the front of `buf`.
pub(crate) fn open_in_place(
    buf: &mut [u8],
    rules: Rules,
    mic_len: usize,
    what: &'static str,
    open: impl FnOnce(&Frame<&[u8]>, Pn, &[u8], &mut [u8], &[u8]) -> Result<()>,
) -> Result<Decapsulated> {
    let peeked = peek(buf, rules, mic_len, what)?;
    let len = buf.len();
    let h = Frame::new_checked(&*buf, rules)?.header_len();
    let (header, rest) = buf.split_at_mut(h);
    let frame = Frame::new_checked(&*header, rules)?;
    let aad = Aad::new(&frame, rules);
    let (data, mic) = rest[PN_HEADER_LEN..].split_at_mut(len - h - PN_HEADER_LEN - mic_len);
    open(&frame, peeked.pn, aad.as_slice(), data, mic)?;
    Frame::new_checked(&mut *header, rules)?.set_flag(FrameControl::PROTECTED, false)?;
    buf.copy_within(h + PN_HEADER_LEN..len - mic_len, h);
    Ok(Decapsulated {
        mpdu_len: len - PN_HEADER_LEN - mic_len,
        pn: peeked.pn,
        key_id: peeked.key_id,
        class: peeked.class,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pn_header_layout_matches_the_standard_example() {
        let header = PnHeader { pn: Pn::new(0xb503_9776_e70c).unwrap(), key_id: 0 };
        let mut out = [0u8; 8];
        header.emit(&mut out).unwrap();
        assert_eq!(out, [0x0c, 0xe7, 0x00, 0x20, 0x76, 0x97, 0x03, 0xb5]);
        assert_eq!(PnHeader::parse(&out).unwrap(), header);
    }

    #[test]
    fn pn_header_refuses_bad_input() {
        assert_eq!(PnHeader::parse(&[0x0c, 0xe7, 0x00, 0x00, 0, 0, 0, 0]), Err(Error::ExtIvNotSet));
        assert!(matches!(PnHeader::parse(&[0; 7]), Err(Error::Truncated { .. })));
        let bad = PnHeader { pn: Pn::new(1).unwrap(), key_id: 4 };
        assert!(bad.emit(&mut [0; 8]).is_err());
        assert!(Pn::new(1 << 48).is_err());
    }
}
