//! Elements (IEEE 802.11-2016 9.4.2): ID, Length, data, one after another at the end of a
//! management body.

use crate::error::{Error, Result};

/// Element IDs (Table 9-77).
pub mod element_id {
    pub const SSID: u8 = 0;
    pub const SUPPORTED_RATES: u8 = 1;
    pub const DS_PARAMETER_SET: u8 = 3;
    pub const RSN: u8 = 48;
    /// Management MIC element (MME), which BIP appends (9.4.2.55).
    pub const MANAGEMENT_MIC: u8 = 76;
    pub const VENDOR_SPECIFIC: u8 = 221;
}

/// The Microsoft OUI of the WPA (version 1) vendor element and its selectors.
pub const WPA_OUI: [u8; 3] = [0x00, 0x50, 0xf2];
/// Vendor element type of the WPA element under [`WPA_OUI`] (others are WMM, WPS...).
pub const WPA_VENDOR_TYPE: u8 = 1;

/// Supported Rates of an 802.11b/g station: 1, 2, 5.5 and 11 Mb/s basic, 6, 9, 12, 18.
pub const SUPPORTED_RATES_BG: [u8; 8] = [0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];

const ELEMENT_HEADER_LEN: usize = 2;

/// One element: ID, Length, data.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Element<'a> {
    whole: &'a [u8],
}

impl<'a> Element<'a> {
    pub fn id(&self) -> u8 {
        self.whole[0]
    }

    pub fn data(&self) -> &'a [u8] {
        &self.whole[ELEMENT_HEADER_LEN..]
    }

    /// The whole element, header included (what `RsnElementRepr::parse` takes).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.whole
    }

    /// The WPA element: vendor-specific, OUI 00-50-F2, type 1.
    pub fn is_wpa(&self) -> bool {
        self.id() == element_id::VENDOR_SPECIFIC
            && self.data().starts_with(&[WPA_OUI[0], WPA_OUI[1], WPA_OUI[2], WPA_VENDOR_TYPE])
    }
}

/// The elements at the end of a management body, walked on demand.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Elements<'a> {
    bytes: &'a [u8],
}

impl<'a> Elements<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Elements { bytes }
    }

    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn iter(&self) -> ElementIter<'a> {
        ElementIter { rest: self.bytes }
    }

    /// The first element with this ID among the well-formed ones.
    pub fn find(&self, id: u8) -> Option<Element<'a>> {
        self.iter().map_while(Result::ok).find(|e| e.id() == id)
    }

    pub fn ssid(&self) -> Option<&'a [u8]> {
        self.find(element_id::SSID).map(|e| e.data())
    }

    pub fn supported_rates(&self) -> Option<&'a [u8]> {
        self.find(element_id::SUPPORTED_RATES).map(|e| e.data())
    }

    /// The whole RSN element (ID 48).
    pub fn rsn(&self) -> Option<&'a [u8]> {
        self.find(element_id::RSN).map(|e| e.as_bytes())
    }

    /// The whole WPA vendor element.
    pub fn wpa(&self) -> Option<&'a [u8]> {
        self.iter().map_while(Result::ok).find(Element::is_wpa).map(|e| e.as_bytes())
    }
}

/// Iterator over [`Elements`]; a truncated element ends it with one error.
#[derive(Clone, Debug)]
pub struct ElementIter<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for ElementIter<'a> {
    type Item = Result<Element<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let [_, len, ..] = *self.rest else {
            if self.rest.is_empty() {
                return None;
            }
            let got = core::mem::take(&mut self.rest).len();
            return Some(Err(Error::Truncated { what: "element header", needed: ELEMENT_HEADER_LEN, got }));
        };
        let end = ELEMENT_HEADER_LEN + usize::from(len);
        let rest = core::mem::take(&mut self.rest);
        if rest.len() < end {
            return Some(Err(Error::Truncated { what: "element", needed: end, got: rest.len() }));
        }
        let (whole, after) = rest.split_at(end);
        self.rest = after;
        Some(Ok(Element { whole }))
    }
}

/// Builds an element list, in the order the elements are added.
#[derive(Clone, Debug, Default)]
pub struct ElementsBuilder {
    bytes: Vec<u8>,
}

impl ElementsBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn element(mut self, id: u8, data: &[u8]) -> Result<Self> {
        let len = u8::try_from(data.len()).map_err(|_| Error::Malformed("element data longer than 255 octets"))?;
        self.bytes.extend_from_slice(&[id, len]);
        self.bytes.extend_from_slice(data);
        Ok(self)
    }

    pub fn ssid(self, ssid: &[u8]) -> Result<Self> {
        self.element(element_id::SSID, ssid)
    }

    pub fn supported_rates(self, rates: &[u8]) -> Result<Self> {
        self.element(element_id::SUPPORTED_RATES, rates)
    }

    pub fn ds_parameter_set(self, channel: u8) -> Result<Self> {
        self.element(element_id::DS_PARAMETER_SET, &[channel])
    }

    /// A whole element already encoded (ID, Length, data), e.g. an RSN element from
    /// `RsnElementRepr::to_bytes`.
    pub fn encoded(mut self, element: &[u8]) -> Result<Self> {
        match element {
            [_, len, data @ ..] if usize::from(*len) == data.len() => {
                self.bytes.extend_from_slice(element);
                Ok(self)
            }
            _ => Err(Error::Malformed("element length differs from its data")),
        }
    }

    pub fn build(self) -> Vec<u8> {
        self.bytes
    }
}
