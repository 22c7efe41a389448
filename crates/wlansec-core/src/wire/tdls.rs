//! TDLS (IEEE 802.11-2020 9.6.13, 11.20): the Action frames two stations of a BSS send each
//! other through the AP, as the payload of ordinary data frames (LLC/SNAP EtherType 89-0d,
//! payload type 2), to set up a direct link; and the two elements only TDLS uses, the Link
//! Identifier (9.4.2.61) and the Timeout Interval (9.4.2.48).
//!
//! `TdlsFrame` is the zero-copy view (checked once, accessors never panic); `SetupRepr`,
//! `LinkIdRepr` and `TimeoutIntervalRepr` the validated forms that emit back.

use super::mgmt::Elements;
use super::MacAddr;
use crate::error::{Error, Result};

/// The EtherType of the Remote Frame Type, under which TDLS frames travel (9.6.13.1).
pub const ETHERTYPE_TDLS: u16 = 0x890d;
/// Payload Type of a TDLS frame in a remote frame (Table 9-548).
pub const PAYLOAD_TYPE_TDLS: u8 = 2;
/// The TDLS Action category (Table 9-51).
pub const CATEGORY_TDLS: u8 = 12;

/// Element IDs of the elements a TDLS setup carries besides the RSN and FT elements.
pub mod element_id {
    pub const TIMEOUT_INTERVAL: u8 = 56;
    pub const LINK_IDENTIFIER: u8 = 101;
}

/// Timeout Interval Type 2: the key lifetime in seconds (Table 9-225), the TPK's.
pub const TIMEOUT_KEY_LIFETIME: u8 = 2;

/// Payload type, category and action code.
const HEADER_LEN: usize = 3;

/// A TDLS payload (what follows the LLC/SNAP header), checked to be long enough for its
/// payload type, category and action code and to be TDLS.
#[derive(Clone, Copy, Debug)]
pub struct TdlsFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TdlsFrame<T> {
    pub fn new_checked(buffer: T) -> Result<Self> {
        let bytes = buffer.as_ref();
        match bytes {
            [PAYLOAD_TYPE_TDLS, CATEGORY_TDLS, _, ..] => Ok(TdlsFrame { buffer }),
            [_, _, _, ..] => Err(Error::Malformed("not a TDLS Action frame (payload type 2, category 12)")),
            _ => Err(Error::Truncated { what: "TDLS frame", needed: HEADER_LEN, got: bytes.len() }),
        }
    }

    pub fn action(&self) -> u8 {
        self.buffer.as_ref()[2]
    }

    /// The action's fixed fields and elements.
    pub fn fields(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }
}

/// The three frames of the TPK handshake (Setup Request, Response and Confirm: action codes
/// 0, 1, 2; their FTE MICs use transaction sequence numbers 1, 2, 3).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SetupAction {
    Request,
    Response,
    Confirm,
}

impl SetupAction {
    pub fn code(self) -> u8 {
        match self {
            SetupAction::Request => 0,
            SetupAction::Response => 1,
            SetupAction::Confirm => 2,
        }
    }

    pub fn from_code(code: u8) -> Option<Self> {
        [SetupAction::Request, SetupAction::Response, SetupAction::Confirm].into_iter().find(|a| a.code() == code)
    }

    /// The Transaction Sequence number the FTE MIC of this message covers (12.7.8.4.3).
    pub fn transaction_sequence(self) -> u8 {
        self.code() + 1
    }

    /// Octets of fixed fields before the elements: [Status Code,] Dialog Token
    /// [, Capability] (9.6.13.2-4).
    fn fixed_len(self) -> usize {
        match self {
            SetupAction::Request => 3,
            SetupAction::Response => 5,
            SetupAction::Confirm => 3,
        }
    }
}

/// A TDLS Setup Request, Response or Confirm. The Status Code is 0 in a Request (which has
/// none); the Capability is 0 in a Confirm (which has none).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SetupRepr<'a> {
    pub action: SetupAction,
    pub status: u16,
    pub dialog_token: u8,
    pub capability: u16,
    pub elements: Elements<'a>,
}

impl<'a> SetupRepr<'a> {
    pub fn parse(frame: &TdlsFrame<&'a [u8]>) -> Result<Self> {
        let action = SetupAction::from_code(frame.action()).ok_or(Error::Malformed("TDLS action other than setup"))?;
        let fields: &'a [u8] = &frame.buffer[HEADER_LEN..];
        let fixed_len = action.fixed_len();
        let (fixed, elements) = fields.split_at_checked(fixed_len).ok_or(Error::Truncated {
            what: "TDLS setup fixed fields",
            needed: HEADER_LEN + fixed_len,
            got: frame.buffer.len(),
        })?;
        let le = |a: u8, b: u8| u16::from_le_bytes([a, b]);
        let (status, dialog_token, capability) = match (action, fixed) {
            (SetupAction::Request, &[token, c0, c1]) => (0, token, le(c0, c1)),
            (SetupAction::Response, &[s0, s1, token, c0, c1]) => (le(s0, s1), token, le(c0, c1)),
            (SetupAction::Confirm, &[s0, s1, token]) => (le(s0, s1), token, 0),
            _ => return Err(Error::Malformed("TDLS setup fixed fields")),
        };
        Ok(SetupRepr { action, status, dialog_token, capability, elements: Elements::new(elements) })
    }

    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.action.fixed_len() + self.elements.as_bytes().len()
    }

    /// The TDLS payload as a new buffer.
    pub fn emit_vec(&self) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.buffer_len()];
        self.emit(&mut out)?;
        Ok(out)
    }

    /// Write the TDLS payload at the front of `buf`; returns its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len();
        let got = buf.len();
        let out = buf.get_mut(..len).ok_or(Error::BufferTooSmall { needed: len, got })?;
        let [s0, s1] = self.status.to_le_bytes();
        let [c0, c1] = self.capability.to_le_bytes();
        let fixed: &[u8] = match self.action {
            SetupAction::Request => &[self.dialog_token, c0, c1],
            SetupAction::Response => &[s0, s1, self.dialog_token, c0, c1],
            SetupAction::Confirm => &[s0, s1, self.dialog_token],
        };
        let (head, rest) = out.split_at_mut(HEADER_LEN + fixed.len());
        head[..HEADER_LEN].copy_from_slice(&[PAYLOAD_TYPE_TDLS, CATEGORY_TDLS, self.action.code()]);
        head[HEADER_LEN..].copy_from_slice(fixed);
        rest.copy_from_slice(self.elements.as_bytes());
        Ok(len)
    }
}

/// Split a whole element into its data, checking its ID and that its length is `len`.
fn element_data<'a>(element: &'a [u8], id: u8, len: usize, what: &'static str) -> Result<&'a [u8]> {
    match element {
        [i, l, data @ ..] if *i == id && usize::from(*l) == len && data.len() == len => Ok(data),
        [i, ..] if *i != id => Err(Error::Malformed(what)),
        _ => Err(Error::Truncated { what, needed: 2 + len, got: element.len() }),
    }
}

/// The Link Identifier element: the BSSID and the two stations of a TDLS link.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LinkIdRepr {
    pub bssid: MacAddr,
    pub initiator: MacAddr,
    pub responder: MacAddr,
}

impl LinkIdRepr {
    pub const LEN: usize = 20;

    /// Parse a whole element (ID, Length, data).
    pub fn parse(element: &[u8]) -> Result<Self> {
        let data = element_data(element, element_id::LINK_IDENTIFIER, 18, "Link Identifier element")?;
        let mac = |at: usize| MacAddr(data[at..at + 6].try_into().unwrap_or_default());
        Ok(LinkIdRepr { bssid: mac(0), initiator: mac(6), responder: mac(12) })
    }

    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        out[..2].copy_from_slice(&[element_id::LINK_IDENTIFIER, 18]);
        for (at, mac) in [(2, self.bssid), (8, self.initiator), (14, self.responder)] {
            out[at..at + 6].copy_from_slice(&mac.0);
        }
        out
    }
}

/// The Timeout Interval element: an interval type and its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TimeoutIntervalRepr {
    pub interval_type: u8,
    pub value: u32,
}

impl TimeoutIntervalRepr {
    pub const LEN: usize = 7;

    pub fn parse(element: &[u8]) -> Result<Self> {
        let data = element_data(element, element_id::TIMEOUT_INTERVAL, 5, "Timeout Interval element")?;
        Ok(TimeoutIntervalRepr {
            interval_type: data[0],
            value: u32::from_le_bytes([data[1], data[2], data[3], data[4]]),
        })
    }

    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let [v0, v1, v2, v3] = self.value.to_le_bytes();
        [element_id::TIMEOUT_INTERVAL, 5, self.interval_type, v0, v1, v2, v3]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: LinkIdRepr =
        LinkIdRepr { bssid: MacAddr([1, 1, 1, 1, 1, 1]), initiator: MacAddr([2; 6]), responder: MacAddr([3; 6]) };

    #[test]
    fn setup_frames_round_trip() {
        let elements =
            [&LINK.to_bytes()[..], &TimeoutIntervalRepr { interval_type: 2, value: 3600 }.to_bytes()].concat();
        for (action, status, capability) in
            [(SetupAction::Request, 0, 0x0401), (SetupAction::Response, 0, 0x0401), (SetupAction::Confirm, 85, 0)]
        {
            let repr = SetupRepr { action, status, dialog_token: 7, capability, elements: Elements::new(&elements) };
            let mut buf = vec![0u8; repr.buffer_len()];
            assert_eq!(repr.emit(&mut buf), Ok(buf.len()));
            assert_eq!(&buf[..3], &[2, 12, action.code()]);
            let frame = TdlsFrame::new_checked(&buf[..]).unwrap();
            assert_eq!(SetupRepr::parse(&frame), Ok(repr));
            for cut in 0..buf.len() - elements.len() {
                let parsed = TdlsFrame::new_checked(&buf[..cut]).and_then(|f| SetupRepr::parse(&f));
                assert!(parsed.is_err(), "{action:?} cut at {cut}");
            }
            assert!(matches!(repr.emit(&mut buf[..4]), Err(Error::BufferTooSmall { .. })));
        }
    }

    #[test]
    fn other_payloads_and_actions_are_refused() {
        assert!(matches!(TdlsFrame::new_checked(&[1u8, 12, 0][..]), Err(Error::Malformed(_))));
        assert!(matches!(TdlsFrame::new_checked(&[2u8, 4, 0][..]), Err(Error::Malformed(_))));
        let teardown = TdlsFrame::new_checked(&[2u8, 12, 3, 3, 0][..]).unwrap();
        assert_eq!(teardown.action(), 3);
        assert_eq!(teardown.fields(), &[3, 0]);
        assert!(SetupRepr::parse(&teardown).is_err());
    }

    #[test]
    fn link_identifier_and_timeout_interval_round_trip_and_check_their_length() {
        let bytes = LINK.to_bytes();
        assert_eq!(bytes[..2], [101, 18]);
        assert_eq!(LinkIdRepr::parse(&bytes), Ok(LINK));
        assert!(LinkIdRepr::parse(&bytes[..19]).is_err());
        let mut long = bytes.to_vec();
        long[1] = 19;
        long.push(0);
        assert!(LinkIdRepr::parse(&long).is_err());
        let timeout = TimeoutIntervalRepr { interval_type: TIMEOUT_KEY_LIFETIME, value: 0x0102_0304 };
        let bytes = timeout.to_bytes();
        assert_eq!(bytes, [56, 5, 2, 4, 3, 2, 1]);
        assert_eq!(TimeoutIntervalRepr::parse(&bytes), Ok(timeout));
        assert!(matches!(TimeoutIntervalRepr::parse(&LINK.to_bytes()), Err(Error::Malformed(_))));
        assert!(TimeoutIntervalRepr::parse(&bytes[..6]).is_err());
    }
}
