//! Management frame bodies (IEEE 802.11-2016 9.3.3) and their elements (9.4.2).
//!
//! Each body is a `Repr` that borrows its elements: `parse` checks the fixed fields and
//! `emit` writes them back. Elements are walked lazily by [`Elements`]: a malformed element
//! ends the walk with one error and the ones before it stay usable, since real beacons
//! sometimes end in a truncated vendor element. [`ManagementBody`] dispatches on the
//! subtype, and [`management_mpdu`] puts a header in front of a body. [`MmeRepr`] is the
//! Management MIC element of BIP (802.11w), and [`is_robust`] says which frames 802.11w
//! protects.

mod element;
mod mme;

pub use element::{
    element_id, Element, ElementIter, Elements, ElementsBuilder, SUPPORTED_RATES_BG, WPA_OUI, WPA_VENDOR_TYPE,
};
pub use mme::MmeRepr;

use crate::error::{Error, Result};
use crate::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, Rules, SequenceControl};

/// Management frame subtypes (Table 9-1).
pub mod subtype {
    pub const ASSOCIATION_REQUEST: u8 = 0;
    pub const ASSOCIATION_RESPONSE: u8 = 1;
    pub const REASSOCIATION_REQUEST: u8 = 2;
    pub const REASSOCIATION_RESPONSE: u8 = 3;
    pub const PROBE_REQUEST: u8 = 4;
    pub const PROBE_RESPONSE: u8 = 5;
    pub const BEACON: u8 = 8;
    pub const DISASSOCIATION: u8 = 10;
    pub const AUTHENTICATION: u8 = 11;
    pub const DEAUTHENTICATION: u8 = 12;
    pub const ACTION: u8 = 13;
}

/// Bits of the Capability Information field (9.4.1.4).
pub mod capability {
    pub const ESS: u16 = 1 << 0;
    pub const IBSS: u16 = 1 << 1;
    pub const PRIVACY: u16 = 1 << 4;
}

/// Authentication Algorithm Number: Open System (9.4.1.1).
pub const OPEN_SYSTEM: u16 = 0;
/// Status code: success (9.4.1.9).
pub const STATUS_SUCCESS: u16 = 0;
/// Status code: unspecified failure (refused, e.g. during TKIP countermeasures).
pub const STATUS_UNSPECIFIED_FAILURE: u16 = 1;
/// Reason code: the sender leaves the BSS (9.4.1.7).
pub const REASON_LEAVING: u16 = 3;
/// Reason code: Michael MIC failure (TKIP countermeasures).
pub const REASON_MICHAEL_MIC_FAILURE: u16 = 14;
/// Reason code: the 4-way handshake timed out.
pub const REASON_FOUR_WAY_HANDSHAKE_TIMEOUT: u16 = 15;
/// Reason code: the group key handshake timed out.
pub const REASON_GROUP_KEY_HANDSHAKE_TIMEOUT: u16 = 16;

/// What a Deauthentication or Disassociation reason code means (Table 9-45), for messages;
/// codes this project does not send are named by number only.
pub fn reason_text(reason: u16) -> &'static str {
    match reason {
        1 => "unspecified",
        2 => "previous authentication no longer valid",
        REASON_LEAVING => "leaving",
        4 => "inactivity",
        6 | 7 => "frame from a station not authenticated or associated",
        REASON_MICHAEL_MIC_FAILURE => "Michael MIC failure (TKIP countermeasures)",
        REASON_FOUR_WAY_HANDSHAKE_TIMEOUT => "4-way handshake timeout, often a wrong passphrase",
        REASON_GROUP_KEY_HANDSHAKE_TIMEOUT => "group key handshake timeout",
        _ => "see IEEE 802.11-2016 Table 9-45",
    }
}

/// Action categories that are not robust (Table 9-76): Public, HT, Unprotected WNM, TDLS,
/// Self-protected, Unprotected DMG, VHT, Unprotected S1G and Vendor-specific. Every other
/// category, reserved ones included, is robust, as the table's default says.
const NON_ROBUST_ACTION_CATEGORIES: [u8; 9] = [4, 7, 11, 12, 15, 20, 21, 22, 127];
/// Bit 7 of an Action frame's category: the frame is an error return of that category.
const ACTION_ERROR_BIT: u8 = 0x80;

/// Whether a management frame of this subtype and body is a robust management frame
/// (802.11-2016 3.2, 11.13): Disassociation, Deauthentication, and Action frames of a
/// robust category. These are the frames PMF protects: with CCMP/GCMP when individually
/// addressed, with BIP when group addressed.
pub fn is_robust(subtype: u8, body: &[u8]) -> bool {
    match subtype {
        subtype::DISASSOCIATION | subtype::DEAUTHENTICATION => true,
        subtype::ACTION => {
            body.first().is_some_and(|c| !NON_ROBUST_ACTION_CATEGORIES.contains(&(c & !ACTION_ERROR_BIT)))
        }
        _ => false,
    }
}

/// The two high bits an AID carries in the Association ID field (9.4.1.8).
const AID_FIELD_BITS: u16 = 0xc000;
const BEACON_FIXED_LEN: usize = 12;
const AUTHENTICATION_FIXED_LEN: usize = 6;
const ASSOCIATION_REQUEST_FIXED_LEN: usize = 4;
const ASSOCIATION_RESPONSE_FIXED_LEN: usize = 6;
const REASON_CODE_LEN: usize = 2;

/// The fixed fields at the front of `body` and the rest, or a `Truncated` error naming `what`.
fn split_fixed<'a, const N: usize>(body: &'a [u8], what: &'static str) -> Result<(&'a [u8; N], &'a [u8])> {
    body.split_first_chunk::<N>().ok_or(Error::Truncated { what, needed: N, got: body.len() })
}

fn le16(b: [u8; 2]) -> u16 {
    u16::from_le_bytes(b)
}

/// Write `parts` back to back at the front of `buf`; returns the length written.
fn emit_parts(buf: &mut [u8], parts: &[&[u8]]) -> Result<usize> {
    let needed = parts.iter().map(|p| p.len()).sum();
    let got = buf.len();
    let mut out = buf.get_mut(..needed).ok_or(Error::BufferTooSmall { needed, got })?;
    for part in parts {
        let (head, tail) = out.split_at_mut(part.len());
        head.copy_from_slice(part);
        out = tail;
    }
    Ok(needed)
}

/// A Beacon or Probe Response body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BeaconRepr<'a> {
    /// The TSF timer, in microseconds.
    pub timestamp: u64,
    /// In time units of 1024 microseconds.
    pub beacon_interval: u16,
    pub capability: u16,
    pub elements: Elements<'a>,
}

impl<'a> BeaconRepr<'a> {
    pub fn parse(body: &'a [u8]) -> Result<Self> {
        let (f, elements) = split_fixed::<BEACON_FIXED_LEN>(body, "beacon fixed fields")?;
        Ok(BeaconRepr {
            timestamp: u64::from_le_bytes([f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]]),
            beacon_interval: le16([f[8], f[9]]),
            capability: le16([f[10], f[11]]),
            elements: Elements::new(elements),
        })
    }

    pub fn buffer_len(&self) -> usize {
        BEACON_FIXED_LEN + self.elements.as_bytes().len()
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let parts: [&[u8]; 4] = [
            &self.timestamp.to_le_bytes(),
            &self.beacon_interval.to_le_bytes(),
            &self.capability.to_le_bytes(),
            self.elements.as_bytes(),
        ];
        emit_parts(buf, &parts)
    }
}

/// A Probe Request body: elements only.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ProbeRequestRepr<'a> {
    pub elements: Elements<'a>,
}

impl<'a> ProbeRequestRepr<'a> {
    pub fn parse(body: &'a [u8]) -> Result<Self> {
        Ok(ProbeRequestRepr { elements: Elements::new(body) })
    }

    pub fn buffer_len(&self) -> usize {
        self.elements.as_bytes().len()
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        emit_parts(buf, &[self.elements.as_bytes()])
    }
}

/// An Authentication body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AuthenticationRepr<'a> {
    pub algorithm: u16,
    pub transaction_sequence: u16,
    pub status: u16,
    pub elements: Elements<'a>,
}

impl<'a> AuthenticationRepr<'a> {
    /// Open System authentication, message `transaction_sequence` (1 request, 2 response).
    pub fn open_system(transaction_sequence: u16, status: u16) -> Self {
        AuthenticationRepr { algorithm: OPEN_SYSTEM, transaction_sequence, status, elements: Elements::default() }
    }

    pub fn parse(body: &'a [u8]) -> Result<Self> {
        let (f, elements) = split_fixed::<AUTHENTICATION_FIXED_LEN>(body, "authentication fixed fields")?;
        Ok(AuthenticationRepr {
            algorithm: le16([f[0], f[1]]),
            transaction_sequence: le16([f[2], f[3]]),
            status: le16([f[4], f[5]]),
            elements: Elements::new(elements),
        })
    }

    pub fn buffer_len(&self) -> usize {
        AUTHENTICATION_FIXED_LEN + self.elements.as_bytes().len()
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let parts: [&[u8]; 4] = [
            &self.algorithm.to_le_bytes(),
            &self.transaction_sequence.to_le_bytes(),
            &self.status.to_le_bytes(),
            self.elements.as_bytes(),
        ];
        emit_parts(buf, &parts)
    }
}

/// An Association Request body, or a Reassociation Request one (with the current AP).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AssociationRequestRepr<'a> {
    pub capability: u16,
    /// In beacon intervals.
    pub listen_interval: u16,
    /// The AP the station is associated with: present in Reassociation Requests only.
    pub current_ap: Option<MacAddr>,
    pub elements: Elements<'a>,
}

impl<'a> AssociationRequestRepr<'a> {
    pub fn parse_association(body: &'a [u8]) -> Result<Self> {
        let (f, elements) = split_fixed::<ASSOCIATION_REQUEST_FIXED_LEN>(body, "association request fixed fields")?;
        Ok(AssociationRequestRepr {
            capability: le16([f[0], f[1]]),
            listen_interval: le16([f[2], f[3]]),
            current_ap: None,
            elements: Elements::new(elements),
        })
    }

    pub fn parse_reassociation(body: &'a [u8]) -> Result<Self> {
        let (f, elements) =
            split_fixed::<{ ASSOCIATION_REQUEST_FIXED_LEN + 6 }>(body, "reassociation request fixed fields")?;
        Ok(AssociationRequestRepr {
            capability: le16([f[0], f[1]]),
            listen_interval: le16([f[2], f[3]]),
            current_ap: Some(MacAddr([f[4], f[5], f[6], f[7], f[8], f[9]])),
            elements: Elements::new(elements),
        })
    }

    pub fn buffer_len(&self) -> usize {
        ASSOCIATION_REQUEST_FIXED_LEN + self.current_ap.map_or(0, |_| 6) + self.elements.as_bytes().len()
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let current_ap = self.current_ap.map(|a| a.0);
        let parts: [&[u8]; 4] = [
            &self.capability.to_le_bytes(),
            &self.listen_interval.to_le_bytes(),
            current_ap.as_ref().map_or(&[], |a| &a[..]),
            self.elements.as_bytes(),
        ];
        emit_parts(buf, &parts)
    }
}

/// An Association or Reassociation Response body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AssociationResponseRepr<'a> {
    pub capability: u16,
    pub status: u16,
    /// The association ID (1..=2007), without the two high bits the field sets.
    pub aid: u16,
    pub elements: Elements<'a>,
}

impl<'a> AssociationResponseRepr<'a> {
    pub fn parse(body: &'a [u8]) -> Result<Self> {
        let (f, elements) = split_fixed::<ASSOCIATION_RESPONSE_FIXED_LEN>(body, "association response fixed fields")?;
        Ok(AssociationResponseRepr {
            capability: le16([f[0], f[1]]),
            status: le16([f[2], f[3]]),
            aid: le16([f[4], f[5]]) & !AID_FIELD_BITS,
            elements: Elements::new(elements),
        })
    }

    pub fn buffer_len(&self) -> usize {
        ASSOCIATION_RESPONSE_FIXED_LEN + self.elements.as_bytes().len()
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        if self.aid & AID_FIELD_BITS != 0 {
            return Err(Error::Malformed("association ID above 16383"));
        }
        let parts: [&[u8]; 4] = [
            &self.capability.to_le_bytes(),
            &self.status.to_le_bytes(),
            &(self.aid | AID_FIELD_BITS).to_le_bytes(),
            self.elements.as_bytes(),
        ];
        emit_parts(buf, &parts)
    }
}

/// A Deauthentication or Disassociation body: the reason code (vendor elements that may
/// follow are ignored).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DeauthenticationRepr {
    pub reason: u16,
}

impl DeauthenticationRepr {
    pub fn parse(body: &[u8]) -> Result<Self> {
        let (f, _) = split_fixed::<REASON_CODE_LEN>(body, "reason code")?;
        Ok(DeauthenticationRepr { reason: le16(*f) })
    }

    pub fn buffer_len(&self) -> usize {
        REASON_CODE_LEN
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        emit_parts(buf, &[&self.reason.to_le_bytes()])
    }
}

/// An Action body: the category and what follows it (action code and its fields).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ActionRepr<'a> {
    pub category: u8,
    pub details: &'a [u8],
}

impl<'a> ActionRepr<'a> {
    pub fn parse(body: &'a [u8]) -> Result<Self> {
        let (&[category], details) = split_fixed::<1>(body, "action category")?;
        Ok(ActionRepr { category, details })
    }

    pub fn buffer_len(&self) -> usize {
        1 + self.details.len()
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        emit_parts(buf, &[&[self.category], self.details])
    }
}

/// The body of a management frame, by subtype.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ManagementBody<'a> {
    AssociationRequest(AssociationRequestRepr<'a>),
    AssociationResponse(AssociationResponseRepr<'a>),
    ReassociationRequest(AssociationRequestRepr<'a>),
    ReassociationResponse(AssociationResponseRepr<'a>),
    ProbeRequest(ProbeRequestRepr<'a>),
    ProbeResponse(BeaconRepr<'a>),
    Beacon(BeaconRepr<'a>),
    Disassociation(DeauthenticationRepr),
    Authentication(AuthenticationRepr<'a>),
    Deauthentication(DeauthenticationRepr),
    Action(ActionRepr<'a>),
}

impl<'a> ManagementBody<'a> {
    pub fn parse(subtype: u8, body: &'a [u8]) -> Result<Self> {
        use ManagementBody as B;
        Ok(match subtype {
            subtype::ASSOCIATION_REQUEST => B::AssociationRequest(AssociationRequestRepr::parse_association(body)?),
            subtype::ASSOCIATION_RESPONSE => B::AssociationResponse(AssociationResponseRepr::parse(body)?),
            subtype::REASSOCIATION_REQUEST => {
                B::ReassociationRequest(AssociationRequestRepr::parse_reassociation(body)?)
            }
            subtype::REASSOCIATION_RESPONSE => B::ReassociationResponse(AssociationResponseRepr::parse(body)?),
            subtype::PROBE_REQUEST => B::ProbeRequest(ProbeRequestRepr::parse(body)?),
            subtype::PROBE_RESPONSE => B::ProbeResponse(BeaconRepr::parse(body)?),
            subtype::BEACON => B::Beacon(BeaconRepr::parse(body)?),
            subtype::DISASSOCIATION => B::Disassociation(DeauthenticationRepr::parse(body)?),
            subtype::AUTHENTICATION => B::Authentication(AuthenticationRepr::parse(body)?),
            subtype::DEAUTHENTICATION => B::Deauthentication(DeauthenticationRepr::parse(body)?),
            subtype::ACTION => B::Action(ActionRepr::parse(body)?),
            _ => return Err(Error::Unsupported("management subtype without a body format here (ATIM, reserved)")),
        })
    }

    pub fn subtype(&self) -> u8 {
        match self {
            ManagementBody::AssociationRequest(_) => subtype::ASSOCIATION_REQUEST,
            ManagementBody::AssociationResponse(_) => subtype::ASSOCIATION_RESPONSE,
            ManagementBody::ReassociationRequest(_) => subtype::REASSOCIATION_REQUEST,
            ManagementBody::ReassociationResponse(_) => subtype::REASSOCIATION_RESPONSE,
            ManagementBody::ProbeRequest(_) => subtype::PROBE_REQUEST,
            ManagementBody::ProbeResponse(_) => subtype::PROBE_RESPONSE,
            ManagementBody::Beacon(_) => subtype::BEACON,
            ManagementBody::Disassociation(_) => subtype::DISASSOCIATION,
            ManagementBody::Authentication(_) => subtype::AUTHENTICATION,
            ManagementBody::Deauthentication(_) => subtype::DEAUTHENTICATION,
            ManagementBody::Action(_) => subtype::ACTION,
        }
    }

    /// The body's elements, for the subtypes that carry some.
    pub fn elements(&self) -> Option<Elements<'a>> {
        match self {
            ManagementBody::AssociationRequest(r) | ManagementBody::ReassociationRequest(r) => Some(r.elements),
            ManagementBody::AssociationResponse(r) | ManagementBody::ReassociationResponse(r) => Some(r.elements),
            ManagementBody::ProbeRequest(r) => Some(r.elements),
            ManagementBody::ProbeResponse(r) | ManagementBody::Beacon(r) => Some(r.elements),
            ManagementBody::Authentication(r) => Some(r.elements),
            ManagementBody::Disassociation(_) | ManagementBody::Deauthentication(_) | ManagementBody::Action(_) => None,
        }
    }

    pub fn buffer_len(&self) -> usize {
        match self {
            ManagementBody::AssociationRequest(r) | ManagementBody::ReassociationRequest(r) => r.buffer_len(),
            ManagementBody::AssociationResponse(r) | ManagementBody::ReassociationResponse(r) => r.buffer_len(),
            ManagementBody::ProbeRequest(r) => r.buffer_len(),
            ManagementBody::ProbeResponse(r) | ManagementBody::Beacon(r) => r.buffer_len(),
            ManagementBody::Authentication(r) => r.buffer_len(),
            ManagementBody::Disassociation(r) | ManagementBody::Deauthentication(r) => r.buffer_len(),
            ManagementBody::Action(r) => r.buffer_len(),
        }
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        match self {
            ManagementBody::AssociationRequest(r) | ManagementBody::ReassociationRequest(r) => r.emit(buf),
            ManagementBody::AssociationResponse(r) | ManagementBody::ReassociationResponse(r) => r.emit(buf),
            ManagementBody::ProbeRequest(r) => r.emit(buf),
            ManagementBody::ProbeResponse(r) | ManagementBody::Beacon(r) => r.emit(buf),
            ManagementBody::Authentication(r) => r.emit(buf),
            ManagementBody::Disassociation(r) | ManagementBody::Deauthentication(r) => r.emit(buf),
            ManagementBody::Action(r) => r.emit(buf),
        }
    }

    /// The whole MPDU: a management header with these addresses, then this body.
    pub fn to_mpdu(
        &self,
        da: MacAddr,
        sa: MacAddr,
        bssid: MacAddr,
        sequence_control: SequenceControl,
    ) -> Result<Vec<u8>> {
        let mut body = vec![0u8; self.buffer_len()];
        self.emit(&mut body)?;
        management_mpdu(self.subtype(), da, sa, bssid, sequence_control, &body)
    }
}

/// A management MPDU: header (Duration 0, no HT Control) with `body` behind it.
pub fn management_mpdu(
    subtype: u8,
    da: MacAddr,
    sa: MacAddr,
    bssid: MacAddr,
    sequence_control: SequenceControl,
    body: &[u8],
) -> Result<Vec<u8>> {
    let header = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Management, subtype),
        duration: 0,
        addr1: da,
        addr2: sa,
        addr3: bssid,
        sequence_control,
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let mut mpdu = vec![0u8; header.header_len() + body.len()];
    let header_len = header.emit(&mut mpdu, Rules::default())?;
    mpdu[header_len..].copy_from_slice(body);
    Ok(mpdu)
}

#[cfg(test)]
mod tests;
