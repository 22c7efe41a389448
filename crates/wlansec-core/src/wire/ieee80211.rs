//! IEEE 802.11 MAC header: Frame Control, Duration, addresses, Sequence Control,
//! QoS Control and HT Control (IEEE 802.11-2016 9.2.3, 9.2.4).
//!
//! Every multi-octet field is little-endian on the air.
//!
//! (About 500 lines: the zero-copy `Frame` view and the validated `HeaderRepr` share every
//! field's layout and are kept together; the tests are in `ieee80211/tests.rs`.)

use core::fmt;

use crate::error::{Error, Result};

/// A 48-bit IEEE MAC address.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);

    /// Group (multicast or broadcast) addresses have the I/G bit set.
    pub fn is_group(&self) -> bool {
        self.0[0] & 0x01 != 0
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(f, "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", b[0], b[1], b[2], b[3], b[4], b[5])
    }
}

impl fmt::Debug for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl core::str::FromStr for MacAddr {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let mut out = [0u8; 6];
        let mut parts = s.split([':', '-']);
        for byte in out.iter_mut() {
            let part = parts.next().ok_or(Error::Malformed("MAC address needs 6 octets"))?;
            if part.len() != 2 {
                return Err(Error::Malformed("MAC address octets are two hex digits"));
            }
            *byte = u8::from_str_radix(part, 16).map_err(|_| Error::Malformed("MAC address octet is not hex"))?;
        }
        if parts.next().is_some() {
            return Err(Error::Malformed("MAC address has more than 6 octets"));
        }
        Ok(MacAddr(out))
    }
}

/// The Type field of Frame Control.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FrameType {
    Management,
    Control,
    Data,
    Extension,
}

/// The Frame Control field (9.2.4.1), kept as its 16-bit value.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameControl(pub u16);

impl FrameControl {
    pub const TO_DS: u16 = 1 << 8;
    pub const FROM_DS: u16 = 1 << 9;
    pub const MORE_FRAGMENTS: u16 = 1 << 10;
    pub const RETRY: u16 = 1 << 11;
    pub const POWER_MANAGEMENT: u16 = 1 << 12;
    pub const MORE_DATA: u16 = 1 << 13;
    pub const PROTECTED: u16 = 1 << 14;
    pub const ORDER: u16 = 1 << 15;

    /// Subtype bit that marks a QoS data frame (bit 7 of the field).
    const QOS_SUBTYPE_BIT: u16 = 0x08 << 4;

    /// A Frame Control value with version 0, the given type and subtype and no flags.
    pub fn new(frame_type: FrameType, subtype: u8) -> Self {
        let t = match frame_type {
            FrameType::Management => 0,
            FrameType::Control => 1,
            FrameType::Data => 2,
            FrameType::Extension => 3,
        };
        FrameControl((t << 2) | (u16::from(subtype & 0x0f) << 4))
    }

    pub fn protocol_version(self) -> u8 {
        (self.0 & 0x3) as u8
    }

    pub fn frame_type(self) -> FrameType {
        match (self.0 >> 2) & 0x3 {
            0 => FrameType::Management,
            1 => FrameType::Control,
            2 => FrameType::Data,
            _ => FrameType::Extension,
        }
    }

    pub fn subtype(self) -> u8 {
        ((self.0 >> 4) & 0x0f) as u8
    }

    pub fn flag(self, bit: u16) -> bool {
        self.0 & bit != 0
    }

    #[must_use]
    pub fn with_flag(self, bit: u16, on: bool) -> Self {
        FrameControl(if on { self.0 | bit } else { self.0 & !bit })
    }

    pub fn to_ds(self) -> bool {
        self.flag(Self::TO_DS)
    }
    pub fn from_ds(self) -> bool {
        self.flag(Self::FROM_DS)
    }
    pub fn more_fragments(self) -> bool {
        self.flag(Self::MORE_FRAGMENTS)
    }
    pub fn retry(self) -> bool {
        self.flag(Self::RETRY)
    }
    pub fn power_management(self) -> bool {
        self.flag(Self::POWER_MANAGEMENT)
    }
    pub fn more_data(self) -> bool {
        self.flag(Self::MORE_DATA)
    }
    pub fn protected(self) -> bool {
        self.flag(Self::PROTECTED)
    }
    pub fn order(self) -> bool {
        self.flag(Self::ORDER)
    }

    // Bit tests rather than `frame_type()`'s match: the framing asks these several times
    // per MPDU.
    pub fn is_data(self) -> bool {
        (self.0 >> 2) & 0x3 == 2
    }
    pub fn is_management(self) -> bool {
        (self.0 >> 2) & 0x3 == 0
    }
    /// A data frame of one of the QoS subtypes (8..=15).
    pub fn is_qos_data(self) -> bool {
        self.is_data() && self.0 & Self::QOS_SUBTYPE_BIT != 0
    }
    /// A data frame carrying both To DS and From DS, hence a fourth address.
    pub fn has_addr4(self) -> bool {
        self.is_data() && self.to_ds() && self.from_ds()
    }

    pub fn to_bytes(self) -> [u8; 2] {
        self.0.to_le_bytes()
    }
}

impl fmt::Debug for FrameControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FrameControl({:?}/{} {:#06x})", self.frame_type(), self.subtype(), self.0)
    }
}

/// Sequence Control (9.2.4.4): fragment number in bits 0-3, sequence number in 4-15.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct SequenceControl(pub u16);

impl SequenceControl {
    pub fn new(sequence_number: u16, fragment_number: u8) -> Self {
        SequenceControl((sequence_number << 4) | u16::from(fragment_number & 0x0f))
    }
    pub fn fragment_number(self) -> u8 {
        (self.0 & 0x0f) as u8
    }
    pub fn sequence_number(self) -> u16 {
        self.0 >> 4
    }
}

/// QoS Control (9.2.4.5): TID in bits 0-3, EOSP bit 4, Ack Policy bits 5-6, A-MSDU Present
/// bit 7, and a subtype-dependent octet in bits 8-15.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct QosControl(pub u16);

impl QosControl {
    pub const AMSDU_PRESENT: u16 = 1 << 7;

    pub fn tid(self) -> u8 {
        (self.0 & 0x0f) as u8
    }
    pub fn amsdu_present(self) -> bool {
        self.0 & Self::AMSDU_PRESENT != 0
    }
}

/// Which edition's rules decide header shape and CCMP AAD masking.
///
/// The default is IEEE 802.11-2016. `IEEE80211I_2004` reproduces the 802.11i-2004 era, when
/// the Order bit of a QoS data frame did not announce an HT Control field and was not masked
/// in the AAD, and all QoS Control bits above the TID were masked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Rules {
    /// Order=1 means a +HTC frame (802.11n and later).
    pub ht_control: bool,
    /// Both stations negotiated SPP A-MSDU, so the A-MSDU Present bit is authenticated.
    pub spp_amsdu: bool,
}

impl Rules {
    pub const IEEE80211_2016: Rules = Rules { ht_control: true, spp_amsdu: false };
    pub const IEEE80211I_2004: Rules = Rules { ht_control: false, spp_amsdu: false };
}

impl Default for Rules {
    fn default() -> Self {
        Rules::IEEE80211_2016
    }
}

mod field {
    pub const FRAME_CONTROL: usize = 0;
    pub const DURATION: usize = 2;
    pub const ADDR1: usize = 4;
    pub const ADDR2: usize = 10;
    pub const ADDR3: usize = 16;
    pub const SEQUENCE_CONTROL: usize = 22;
    pub const ADDR4: usize = 24;
    /// Minimum header of an ACK or CTS.
    pub const SHORT_CONTROL_LEN: usize = 10;
    /// Header of a control frame with a transmitter address (RTS, PS-Poll, BAR, ...).
    pub const LONG_CONTROL_LEN: usize = 16;
    pub const BASE_LEN: usize = 24;
}

/// Control subtypes whose header ends after Address 1.
const CTS_SUBTYPE: u8 = 12;
const ACK_SUBTYPE: u8 = 13;

/// The length of the MAC header that a frame with this Frame Control carries.
pub fn header_len(fc: FrameControl, rules: Rules) -> Result<usize> {
    if fc.protocol_version() != 0 {
        return Err(Error::Unsupported("802.11 protocol version other than 0"));
    }
    let htc = |present: bool| if present { 4 } else { 0 };
    match fc.frame_type() {
        FrameType::Management => Ok(field::BASE_LEN + htc(rules.ht_control && fc.order())),
        FrameType::Data => {
            let mut len = field::BASE_LEN;
            if fc.has_addr4() {
                len += 6;
            }
            if fc.is_qos_data() {
                len += 2 + htc(rules.ht_control && fc.order());
            }
            Ok(len)
        }
        FrameType::Control => Ok(match fc.subtype() {
            CTS_SUBTYPE | ACK_SUBTYPE => field::SHORT_CONTROL_LEN,
            _ => field::LONG_CONTROL_LEN,
        }),
        FrameType::Extension => Err(Error::Unsupported("extension frames (type 3)")),
    }
}

/// A read (and flag-write) view of an 802.11 MPDU without FCS.
///
/// The only constructor checks that the buffer holds the whole header its Frame Control
/// announces, so no accessor can fail afterwards. Setters only touch fields that do not
/// change the header's shape.
#[derive(Debug, Clone)]
pub struct Frame<T: AsRef<[u8]>> {
    buffer: T,
    header_len: usize,
}

impl<T: AsRef<[u8]>> Frame<T> {
    pub fn new_checked(buffer: T, rules: Rules) -> Result<Self> {
        let bytes = buffer.as_ref();
        let fc = match bytes {
            [a, b, ..] => FrameControl(u16::from_le_bytes([*a, *b])),
            _ => return Err(Error::Truncated { what: "802.11 header", needed: 2, got: bytes.len() }),
        };
        let header_len = header_len(fc, rules)?;
        if bytes.len() < header_len {
            return Err(Error::Truncated { what: "802.11 header", needed: header_len, got: bytes.len() });
        }
        Ok(Frame { buffer, header_len })
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn bytes<const N: usize>(&self, offset: usize) -> [u8; N] {
        let mut out = [0u8; N];
        if let Some(src) = self.buffer.as_ref().get(offset..offset + N) {
            out.copy_from_slice(src);
        }
        out
    }

    fn u16_at(&self, offset: usize) -> u16 {
        u16::from_le_bytes(self.bytes(offset))
    }

    pub fn frame_control(&self) -> FrameControl {
        FrameControl(self.u16_at(field::FRAME_CONTROL))
    }
    pub fn duration(&self) -> u16 {
        self.u16_at(field::DURATION)
    }
    pub fn addr1(&self) -> MacAddr {
        MacAddr(self.bytes(field::ADDR1))
    }
    /// Absent only in ACK and CTS frames.
    pub fn addr2(&self) -> Option<MacAddr> {
        (self.header_len >= field::ADDR2 + 6).then(|| MacAddr(self.bytes(field::ADDR2)))
    }
    /// Present in management and data frames.
    pub fn addr3(&self) -> Option<MacAddr> {
        self.has_full_header().then(|| MacAddr(self.bytes(field::ADDR3)))
    }
    pub fn sequence_control(&self) -> Option<SequenceControl> {
        self.has_full_header().then(|| SequenceControl(self.u16_at(field::SEQUENCE_CONTROL)))
    }
    pub fn addr4(&self) -> Option<MacAddr> {
        self.frame_control().has_addr4().then(|| MacAddr(self.bytes(field::ADDR4)))
    }
    pub fn qos_control(&self) -> Option<QosControl> {
        self.frame_control().is_qos_data().then(|| QosControl(self.u16_at(self.qos_offset())))
    }
    pub fn ht_control(&self) -> Option<u32> {
        let qos_end = self.qos_offset() + 2;
        let fc = self.frame_control();
        let has = match fc.frame_type() {
            FrameType::Management => self.header_len == field::BASE_LEN + 4,
            FrameType::Data => fc.is_qos_data() && self.header_len == qos_end + 4,
            _ => false,
        };
        let offset = if fc.is_management() { field::BASE_LEN } else { qos_end };
        has.then(|| u32::from_le_bytes(self.bytes(offset)))
    }

    fn has_full_header(&self) -> bool {
        matches!(self.frame_control().frame_type(), FrameType::Management | FrameType::Data)
    }

    fn qos_offset(&self) -> usize {
        field::BASE_LEN + if self.frame_control().has_addr4() { 6 } else { 0 }
    }

    pub fn header_len(&self) -> usize {
        self.header_len
    }
    pub fn header(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.header_len]
    }
    /// Everything after the MAC header: the frame body (ciphertext if protected).
    pub fn body(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Frame<T> {
    fn set_u16(&mut self, offset: usize, value: u16) {
        if let Some(dst) = self.buffer.as_mut().get_mut(offset..offset + 2) {
            dst.copy_from_slice(&value.to_le_bytes());
        }
    }

    /// Set or clear one of the Frame Control flags that leave the header's shape unchanged
    /// (Retry, Power Management, More Data, More Fragments, Protected).
    pub fn set_flag(&mut self, bit: u16, on: bool) -> Result<()> {
        const SHAPE_BITS: u16 = FrameControl::TO_DS | FrameControl::FROM_DS | FrameControl::ORDER;
        if bit & SHAPE_BITS != 0 || bit & 0x00ff != 0 {
            return Err(Error::Unsupported("changing a Frame Control bit that sets the header shape"));
        }
        let fc = self.frame_control().with_flag(bit, on);
        self.set_u16(field::FRAME_CONTROL, fc.0);
        Ok(())
    }
    pub fn set_duration(&mut self, value: u16) {
        self.set_u16(field::DURATION, value);
    }
    pub fn set_sequence_control(&mut self, sc: SequenceControl) {
        if self.has_full_header() {
            self.set_u16(field::SEQUENCE_CONTROL, sc.0);
        }
    }
    pub fn header_mut(&mut self) -> &mut [u8] {
        let len = self.header_len;
        &mut self.buffer.as_mut()[..len]
    }
    pub fn body_mut(&mut self) -> &mut [u8] {
        let len = self.header_len;
        &mut self.buffer.as_mut()[len..]
    }
}

/// The validated MAC header of a management or data frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HeaderRepr {
    pub frame_control: FrameControl,
    pub duration: u16,
    pub addr1: MacAddr,
    pub addr2: MacAddr,
    pub addr3: MacAddr,
    pub sequence_control: SequenceControl,
    /// Present iff To DS and From DS are both set in a data frame.
    pub addr4: Option<MacAddr>,
    /// Present iff the frame is a QoS data frame.
    pub qos_control: Option<QosControl>,
    /// Present iff Order is set in a QoS data or management frame (802.11n and later).
    pub ht_control: Option<u32>,
}

impl HeaderRepr {
    pub fn parse<T: AsRef<[u8]>>(frame: &Frame<T>) -> Result<Self> {
        let (Some(addr2), Some(addr3), Some(sequence_control)) =
            (frame.addr2(), frame.addr3(), frame.sequence_control())
        else {
            return Err(Error::Unsupported("control frames have no data-frame header"));
        };
        Ok(HeaderRepr {
            frame_control: frame.frame_control(),
            duration: frame.duration(),
            addr1: frame.addr1(),
            addr2,
            addr3,
            sequence_control,
            addr4: frame.addr4(),
            qos_control: frame.qos_control(),
            ht_control: frame.ht_control(),
        })
    }

    /// Check that the optional fields are present exactly when Frame Control says so.
    pub fn check(&self, rules: Rules) -> Result<()> {
        let fc = self.frame_control;
        if !(fc.is_data() || fc.is_management()) {
            return Err(Error::Unsupported("only management and data headers have a HeaderRepr"));
        }
        if self.addr4.is_some() != fc.has_addr4() {
            return Err(Error::Malformed("Address 4 must be present iff To DS and From DS are set"));
        }
        if self.qos_control.is_some() != fc.is_qos_data() {
            return Err(Error::Malformed("QoS Control must be present iff the subtype is QoS data"));
        }
        let htc = rules.ht_control && fc.order() && (fc.is_qos_data() || fc.is_management());
        if self.ht_control.is_some() != htc {
            return Err(Error::Malformed(
                "HT Control must be present iff Order is set in a QoS data or management frame",
            ));
        }
        header_len(fc, rules).map(|_| ())
    }

    pub fn header_len(&self) -> usize {
        field::BASE_LEN
            + self.addr4.map_or(0, |_| 6)
            + self.qos_control.map_or(0, |_| 2)
            + self.ht_control.map_or(0, |_| 4)
    }

    /// Write the header to the front of `buf`; returns its length.
    pub fn emit(&self, buf: &mut [u8], rules: Rules) -> Result<usize> {
        self.check(rules)?;
        let len = self.header_len();
        let got = buf.len();
        let out = buf.get_mut(..len).ok_or(Error::BufferTooSmall { needed: len, got })?;
        out[0..2].copy_from_slice(&self.frame_control.to_bytes());
        out[2..4].copy_from_slice(&self.duration.to_le_bytes());
        out[4..10].copy_from_slice(&self.addr1.0);
        out[10..16].copy_from_slice(&self.addr2.0);
        out[16..22].copy_from_slice(&self.addr3.0);
        out[22..24].copy_from_slice(&self.sequence_control.0.to_le_bytes());
        let mut at = field::BASE_LEN;
        if let Some(a4) = self.addr4 {
            out[at..at + 6].copy_from_slice(&a4.0);
            at += 6;
        }
        if let Some(qc) = self.qos_control {
            out[at..at + 2].copy_from_slice(&qc.0.to_le_bytes());
            at += 2;
        }
        if let Some(htc) = self.ht_control {
            out[at..at + 4].copy_from_slice(&htc.to_le_bytes());
        }
        Ok(len)
    }

    /// Destination address of the MSDU (9.3.2.1, Table 9-26).
    pub fn da(&self) -> MacAddr {
        match (self.frame_control.to_ds(), self.frame_control.from_ds()) {
            (false, _) => self.addr1,
            (true, _) => self.addr3,
        }
    }

    /// Source address of the MSDU.
    pub fn sa(&self) -> MacAddr {
        match (self.frame_control.to_ds(), self.frame_control.from_ds()) {
            (_, false) => self.addr2,
            (false, true) => self.addr3,
            (true, true) => self.addr4.unwrap_or(self.addr2),
        }
    }

    /// The BSSID, where the header carries one (not in 4-address frames).
    pub fn bssid(&self) -> Option<MacAddr> {
        match (self.frame_control.to_ds(), self.frame_control.from_ds()) {
            (false, false) => Some(self.addr3),
            (false, true) => Some(self.addr2),
            (true, false) => Some(self.addr1),
            (true, true) => None,
        }
    }
}

#[cfg(test)]
mod tests;
