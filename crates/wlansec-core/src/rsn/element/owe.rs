//! The elements of OWE (RFC 8110): the Diffie-Hellman Parameter element an OWE association
//! request and response carry (element ID extension 32: group, then the public key as its
//! x-coordinate), and the OWE Transition Mode element (Wi-Fi Alliance vendor element, OUI
//! 50-6F-9A type 28) by which an open BSS names its paired OWE BSS and the OWE BSS names it.
//!
//! As for the other elements: a checked view ([`DhParameter`]) and a representation with
//! parse and emit; bad input is a typed error, never a panic.

use super::split_element;
use crate::error::{Error, Result};
use crate::wire::MacAddr;

/// Element ID of the elements with an Element ID Extension.
pub const EXTENSION_ID: u8 = 255;
/// Element ID Extension of the OWE Diffie-Hellman Parameter element.
pub const OWE_DH_PARAMETER_EXT_ID: u8 = 32;
/// The Wi-Fi Alliance OUI and the vendor type of the OWE Transition Mode element.
pub const WFA_OUI: [u8; 3] = [0x50, 0x6f, 0x9a];
pub const OWE_TRANSITION_VENDOR_TYPE: u8 = 28;

/// The group of an OWE Diffie-Hellman Parameter element given its data after the Element
/// ID (Extension, group, ...): the two octets after the extension, little-endian.
pub fn owe_group(ext_body: &[u8]) -> Option<u16> {
    match ext_body {
        [OWE_DH_PARAMETER_EXT_ID, a, b, ..] => Some(u16::from_le_bytes([*a, *b])),
        _ => None,
    }
}

/// A checked view of a whole Diffie-Hellman Parameter element: `255 | Length | 32 | group
/// (LE) | public key`. The public key's length is not checked here: its group says it.
#[derive(Clone, Copy, Debug)]
pub struct DhParameter<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> DhParameter<T> {
    /// Check that `buffer` starts with a whole Diffie-Hellman Parameter element (trailing
    /// octets are ignored).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let (id, body) = split_element(buffer.as_ref())?;
        if id != EXTENSION_ID || body.first() != Some(&OWE_DH_PARAMETER_EXT_ID) {
            return Err(Error::Malformed("not an OWE Diffie-Hellman Parameter element"));
        }
        if body.len() < 3 {
            return Err(Error::Truncated { what: "Diffie-Hellman Parameter element", needed: 5, got: body.len() + 2 });
        }
        Ok(DhParameter { buffer })
    }

    fn body(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        &b[2..2 + usize::from(b[1])]
    }

    /// The finite cyclic group (IANA number: 19, 20 or 21 for OWE's curves).
    pub fn group(&self) -> u16 {
        let b = self.body();
        u16::from_le_bytes([b[1], b[2]])
    }

    /// The public key: the x-coordinate of the sender's point.
    pub fn public_key(&self) -> &[u8] {
        &self.body()[3..]
    }
}

/// The content of a Diffie-Hellman Parameter element.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DhParameterRepr<'a> {
    pub group: u16,
    pub public_key: &'a [u8],
}

impl<'a> DhParameterRepr<'a> {
    pub fn parse(element: &'a [u8]) -> Result<Self> {
        let view = DhParameter::new_checked(element)?;
        let end = 2 + usize::from(element[1]);
        Ok(DhParameterRepr { group: view.group(), public_key: &element[5..end] })
    }

    /// Octets of the whole element.
    pub fn buffer_len(&self) -> usize {
        2 + 3 + self.public_key.len()
    }

    /// The whole element.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let len = u8::try_from(self.buffer_len() - 2)
            .map_err(|_| Error::Malformed("Diffie-Hellman Parameter element longer than 255 octets"))?;
        let mut out = Vec::with_capacity(self.buffer_len());
        out.extend_from_slice(&[EXTENSION_ID, len, OWE_DH_PARAMETER_EXT_ID]);
        out.extend_from_slice(&self.group.to_le_bytes());
        out.extend_from_slice(self.public_key);
        Ok(out)
    }
}

/// The content of an OWE Transition Mode element (Wi-Fi Alliance OWE specification 2.3.1):
/// the other BSS of the pair, its SSID, and optionally its band and channel.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OweTransitionRepr<'a> {
    pub bssid: MacAddr,
    /// 0 to 32 octets.
    pub ssid: &'a [u8],
    /// Operating class and channel, when the other BSS is on another one.
    pub band_channel: Option<(u8, u8)>,
}

const OWE_TRANSITION_HEADER: [u8; 4] = [WFA_OUI[0], WFA_OUI[1], WFA_OUI[2], OWE_TRANSITION_VENDOR_TYPE];

impl<'a> OweTransitionRepr<'a> {
    /// Parse a whole vendor element; another vendor element is refused.
    pub fn parse(element: &'a [u8]) -> Result<Self> {
        let (id, body) = split_element(element)?;
        if id != super::VENDOR_ELEMENT_ID || !body.starts_with(&OWE_TRANSITION_HEADER) {
            return Err(Error::Malformed("not an OWE Transition Mode element"));
        }
        let rest = &body[4..];
        let Some((bssid, rest)) = rest.split_first_chunk::<6>() else {
            return Err(Error::Truncated { what: "OWE Transition Mode element", needed: 13, got: element.len() });
        };
        let Some((&ssid_len, rest)) = rest.split_first() else {
            return Err(Error::Truncated { what: "OWE Transition Mode element", needed: 13, got: element.len() });
        };
        let ssid_len = usize::from(ssid_len);
        if ssid_len > 32 {
            return Err(Error::Malformed("OWE Transition Mode element with an SSID over 32 octets"));
        }
        let ssid = rest.get(..ssid_len).ok_or(Error::Malformed("OWE Transition Mode SSID runs past the element"))?;
        let band_channel = match &rest[ssid_len..] {
            [] => None,
            [band, channel] => Some((*band, *channel)),
            _ => return Err(Error::Malformed("OWE Transition Mode element with a partial band and channel")),
        };
        Ok(OweTransitionRepr { bssid: MacAddr(*bssid), ssid, band_channel })
    }

    /// The whole element.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        if self.ssid.len() > 32 {
            return Err(Error::Malformed("OWE Transition Mode element with an SSID over 32 octets"));
        }
        let body_len = 4 + 6 + 1 + self.ssid.len() + if self.band_channel.is_some() { 2 } else { 0 };
        let mut out = Vec::with_capacity(2 + body_len);
        out.extend_from_slice(&[super::VENDOR_ELEMENT_ID, body_len as u8]);
        out.extend_from_slice(&OWE_TRANSITION_HEADER);
        out.extend_from_slice(&self.bssid.0);
        out.push(self.ssid.len() as u8);
        out.extend_from_slice(self.ssid);
        if let Some((band, channel)) = self.band_channel {
            out.extend_from_slice(&[band, channel]);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dh_parameter_element_round_trips_and_bad_ones_are_refused() {
        let key = [7u8; 32];
        let repr = DhParameterRepr { group: 19, public_key: &key };
        let bytes = repr.to_bytes().unwrap();
        assert_eq!(&bytes[..5], &[255, 35, 32, 19, 0]);
        assert_eq!(DhParameterRepr::parse(&bytes).unwrap(), repr);
        let view = DhParameter::new_checked(&bytes[..]).unwrap();
        assert_eq!((view.group(), view.public_key()), (19, &key[..]));
        assert_eq!(owe_group(&bytes[2..]), Some(19));
        assert!(DhParameterRepr::parse(&bytes[..bytes.len() - 1]).is_err());
        assert!(DhParameterRepr::parse(&[255, 2, 32, 19]).is_err());
        assert!(DhParameterRepr::parse(&[255, 3, 33, 19, 0]).is_err());
        assert!(DhParameterRepr { group: 21, public_key: &[1; 253] }.to_bytes().is_err());
        for len in 0..bytes.len() {
            let _ = DhParameterRepr::parse(&bytes[..len]);
        }
    }

    #[test]
    fn an_owe_transition_element_round_trips_and_bad_ones_are_refused() {
        let bssid = MacAddr([2, 0, 0, 0, 0, 9]);
        for band_channel in [None, Some((81, 6))] {
            let repr = OweTransitionRepr { bssid, ssid: b"owe-hidden", band_channel };
            let bytes = repr.to_bytes().unwrap();
            assert_eq!(&bytes[2..6], &[0x50, 0x6f, 0x9a, 28]);
            assert_eq!(OweTransitionRepr::parse(&bytes).unwrap(), repr);
            for len in 0..bytes.len() {
                assert!(OweTransitionRepr::parse(&bytes[..len]).is_err());
            }
        }
        let mut long = OweTransitionRepr { bssid, ssid: b"x", band_channel: None }.to_bytes().unwrap();
        long[12] = 33;
        assert!(OweTransitionRepr::parse(&long).is_err());
        assert!(OweTransitionRepr { bssid, ssid: &[0; 33], band_channel: None }.to_bytes().is_err());
        assert!(OweTransitionRepr::parse(&[221, 4, 0x50, 0x6f, 0x9a, 27]).is_err());
    }
}
