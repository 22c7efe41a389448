//! Key Data items of EAPOL-Key frames (IEEE 802.11-2016 12.7.2): elements and KDEs, read
//! with [`key_data_items`] and written with [`KeyDataBuilder`]; the GTK and IGTK KDEs.

use super::{split_element, IEEE_OUI, VENDOR_ELEMENT_ID};
use crate::error::{Error, Result};

/// KDE data types under the 00-0F-AC OUI (Table 12-6).
pub mod kde_type {
    pub const GTK: u8 = 1;
    pub const MAC_ADDRESS: u8 = 3;
    pub const PMKID: u8 = 4;
    pub const NONCE: u8 = 6;
    pub const LIFETIME: u8 = 7;
    pub const ERROR: u8 = 8;
    pub const IGTK: u8 = 9;
    /// Key ID KDE: which Key ID (0 or 1) a PTK is installed under with Extended Key ID.
    pub const KEY_ID: u8 = 10;
    /// BIGTK KDE: the beacon integrity group key (IEEE 802.11-2020 Table 12-10), laid out
    /// as the IGTK KDE (Key ID 6 or 7, BIPN, BIGTK).
    pub const BIGTK: u8 = 14;
}

/// The Transition Disable KDE (WPA3 specification 3.1, hostapd's
/// `WFA_KEY_DATA_TRANSITION_DISABLE`): the Wi-Fi Alliance OUI 50-6F-9A, data type 0x20, one
/// octet of bits, each telling the station to stop using a transition mode's weaker half
/// on this network.
pub mod transition_disable {
    pub const OUI: [u8; 3] = [0x50, 0x6f, 0x9a];
    pub const DATA_TYPE: u8 = 0x20;
    /// WPA3-Personal: SAE only, never the PSK again.
    pub const WPA3_PERSONAL: u8 = 1 << 0;
    pub const SAE_PK: u8 = 1 << 1;
    pub const WPA3_ENTERPRISE: u8 = 1 << 2;
    /// Enhanced Open: OWE only, never the open BSS of an OWE transition pair.
    pub const ENHANCED_OPEN: u8 = 1 << 3;
}

/// One item of an EAPOL-Key frame's Key Data field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyDataItem<'a> {
    /// An ordinary element (e.g. the RSN element), `ID | Length | body`, whole.
    Element { id: u8, element: &'a [u8] },
    /// A key data encapsulation: `0xDD | Length | OUI | Data Type | data`.
    Kde { oui: [u8; 3], data_type: u8, data: &'a [u8] },
}

/// Iterate the items of decrypted Key Data, stopping at the `0xDD 0x00...` padding.
/// Malformed lengths end the iteration with an error item.
pub fn key_data_items(key_data: &[u8]) -> impl Iterator<Item = Result<KeyDataItem<'_>>> {
    let mut rest = key_data;
    core::iter::from_fn(move || {
        if rest.is_empty() || (rest[0] == VENDOR_ELEMENT_ID && rest[1..].iter().all(|&b| b == 0)) {
            return None;
        }
        let item = split_element(rest).map(|(id, body)| {
            let whole = &rest[..2 + body.len()];
            if id == VENDOR_ELEMENT_ID && body.len() >= 4 {
                KeyDataItem::Kde { oui: [body[0], body[1], body[2]], data_type: body[3], data: &body[4..] }
            } else {
                KeyDataItem::Element { id, element: whole }
            }
        });
        match item {
            Ok(i) => {
                let consumed = match i {
                    KeyDataItem::Element { element, .. } => element.len(),
                    KeyDataItem::Kde { data, .. } => 6 + data.len(),
                };
                rest = &rest[consumed..];
                Some(Ok(i))
            }
            Err(e) => {
                rest = &[];
                Some(Err(e))
            }
        }
    })
}

/// The GTK KDE (12.7.2 Figure 12-35): Key ID, Tx flag and the GTK. Debug leaves the key out.
#[derive(Clone, PartialEq, Eq)]
pub struct GtkKde<'a> {
    pub key_id: u8,
    pub tx: bool,
    pub gtk: &'a [u8],
}

impl<'a> GtkKde<'a> {
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        if data.len() < 2 + 5 {
            return Err(Error::Truncated { what: "GTK KDE", needed: 7, got: data.len() });
        }
        if data.len() - 2 > 32 {
            return Err(Error::Malformed("GTK KDE holds a key longer than 32 octets"));
        }
        Ok(GtkKde { key_id: data[0] & 0x03, tx: data[0] & 0x04 != 0, gtk: &data[2..] })
    }
}

/// The IGTK KDE (12.7.2 Figure 12-42): Key ID (2 octets), IPN (6 octets, IPN0 first) and
/// the IGTK (16 or 32 octets); the BIGTK KDE has the same fields (BIPN for IPN). Debug
/// leaves the key out.
#[derive(Clone, PartialEq, Eq)]
pub struct IgtkKde<'a> {
    pub key_id: u16,
    /// The IGTK's current packet number: receivers accept frames with a higher one.
    pub ipn: u64,
    pub igtk: &'a [u8],
}

impl core::fmt::Debug for GtkKde<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GtkKde")
            .field("key_id", &self.key_id)
            .field("tx", &self.tx)
            .field("gtk", &"<redacted>")
            .finish()
    }
}

impl core::fmt::Debug for IgtkKde<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IgtkKde")
            .field("key_id", &self.key_id)
            .field("ipn", &self.ipn)
            .field("igtk", &"<redacted>")
            .finish()
    }
}

/// Octets of the IGTK KDE's Key ID and IPN.
const IGTK_KDE_FIXED_LEN: usize = 8;
const IPN_MAX: u64 = (1 << 48) - 1;

impl<'a> IgtkKde<'a> {
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let Some((&[k0, k1, i0, i1, i2, i3, i4, i5], igtk)) = data.split_first_chunk::<IGTK_KDE_FIXED_LEN>() else {
            return Err(Error::Truncated { what: "IGTK KDE", needed: IGTK_KDE_FIXED_LEN + 16, got: data.len() });
        };
        if igtk.len() < 16 {
            return Err(Error::Truncated { what: "IGTK KDE", needed: IGTK_KDE_FIXED_LEN + 16, got: data.len() });
        }
        if igtk.len() > 32 {
            return Err(Error::Malformed("IGTK KDE holds a key longer than 32 octets"));
        }
        let ipn = u64::from_le_bytes([i0, i1, i2, i3, i4, i5, 0, 0]);
        Ok(IgtkKde { key_id: u16::from_le_bytes([k0, k1]), ipn, igtk })
    }
}

/// Builds plaintext Key Data: elements and KDEs in order (padding is added by encryption).
#[derive(Default)]
pub struct KeyDataBuilder {
    bytes: zeroize::Zeroizing<Vec<u8>>,
}

impl KeyDataBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Append a whole element (e.g. from [`RsnElementRepr::to_bytes`](super::RsnElementRepr::to_bytes)).
    pub fn element(mut self, element: &[u8]) -> Self {
        self.bytes.extend_from_slice(element);
        self
    }

    /// Append a KDE under the 00-0F-AC OUI.
    pub fn kde(self, data_type: u8, data: &[u8]) -> Result<Self> {
        self.kde_of(IEEE_OUI, data_type, data)
    }

    /// Append a KDE under another `oui` (the Wi-Fi Alliance's, say).
    pub fn kde_of(mut self, oui: [u8; 3], data_type: u8, data: &[u8]) -> Result<Self> {
        if data.len() + 4 > 255 {
            return Err(Error::Malformed("KDE longer than 255 octets"));
        }
        self.bytes.extend_from_slice(&[VENDOR_ELEMENT_ID, (data.len() + 4) as u8]);
        self.bytes.extend_from_slice(&oui);
        self.bytes.push(data_type);
        self.bytes.extend_from_slice(data);
        Ok(self)
    }

    /// Append a GTK KDE.
    pub fn gtk(self, key_id: u8, tx: bool, gtk: &[u8]) -> Result<Self> {
        if key_id > 3 {
            return Err(Error::Malformed("GTK Key ID must be 0..=3"));
        }
        let mut data = zeroize::Zeroizing::new(vec![key_id | if tx { 0x04 } else { 0 }, 0]);
        data.extend_from_slice(gtk);
        self.kde(kde_type::GTK, &data)
    }

    /// Append an IGTK KDE: Key ID 4 or 5, the IGTK's current IPN (48 bits), the IGTK.
    pub fn igtk(self, key_id: u16, ipn: u64, igtk: &[u8]) -> Result<Self> {
        if key_id != 4 && key_id != 5 {
            return Err(Error::Malformed("IGTK Key ID must be 4 or 5"));
        }
        self.integrity_kde(kde_type::IGTK, key_id, ipn, igtk)
    }

    /// Append a BIGTK KDE: Key ID 6 or 7, the BIGTK's current BIPN (48 bits), the BIGTK.
    pub fn bigtk(self, key_id: u16, bipn: u64, bigtk: &[u8]) -> Result<Self> {
        if key_id != 6 && key_id != 7 {
            return Err(Error::Malformed("BIGTK Key ID must be 6 or 7"));
        }
        self.integrity_kde(kde_type::BIGTK, key_id, bipn, bigtk)
    }

    fn integrity_kde(self, data_type: u8, key_id: u16, ipn: u64, key: &[u8]) -> Result<Self> {
        if ipn > IPN_MAX {
            return Err(Error::Malformed("IPN wider than 48 bits"));
        }
        let mut data = zeroize::Zeroizing::new(key_id.to_le_bytes().to_vec());
        data.extend_from_slice(&ipn.to_le_bytes()[..6]);
        data.extend_from_slice(key);
        self.kde(data_type, &data)
    }

    pub fn build(self) -> zeroize::Zeroizing<Vec<u8>> {
        self.bytes
    }
}
