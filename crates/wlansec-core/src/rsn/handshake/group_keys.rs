//! The group keys the handshakes carry and their checks: the GTK, and the IGTK of 802.11w
//! (IEEE 802.11-2016 12.7.6.4, 12.7.7.2), which the authenticator adds to message 3 and group
//! message 1 as an IGTK KDE when it has one.

use crate::error::{HandshakeError, Result};
use crate::rsn::element::{kde_type, key_data_items, GtkKde, IgtkKde, KeyDataBuilder, KeyDataItem, IEEE_OUI};
use crate::rsn::kdf::Secret;

/// An all-zero key is never installed or sent: the mark of a key-reinstallation attack.
pub(super) fn refuse_zero(key: &Secret) -> Result<()> {
    if key.is_all_zero() {
        return Err(HandshakeError::AllZeroKey.into());
    }
    Ok(())
}

pub(super) fn check_gtk_key_id(key_id: u8) -> Result<()> {
    if key_id == 0 || key_id > 3 {
        return Err(HandshakeError::GtkKeyId(key_id).into());
    }
    Ok(())
}

/// The GTK KDE in decrypted Key Data: Key ID and GTK.
pub(super) fn find_gtk(key_data: &[u8]) -> Result<Option<(u8, Secret)>> {
    for item in key_data_items(key_data) {
        if let KeyDataItem::Kde { oui: IEEE_OUI, data_type: kde_type::GTK, data } = item? {
            let kde = GtkKde::parse(data)?;
            return Ok(Some((kde.key_id, Secret::from_slice(kde.gtk)?)));
        }
    }
    Ok(None)
}

/// An IGTK with its Key ID and current IPN, as an IGTK KDE carries it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct IgtkKey {
    pub key_id: u16,
    pub igtk: Secret,
    pub ipn: u64,
}

impl IgtkKey {
    /// Checked as both sides need it: Key ID 4 or 5, a 16- or 32-octet key, not all zero, a
    /// 48-bit IPN.
    pub fn new(key_id: u16, igtk: Secret, ipn: u64) -> Result<Self> {
        if key_id != 4 && key_id != 5 {
            return Err(HandshakeError::IgtkKeyId(key_id).into());
        }
        if ipn >= 1 << 48 {
            return Err(crate::Error::Malformed("IPN wider than 48 bits"));
        }
        if igtk.len() != 16 && igtk.len() != 32 {
            return Err(crate::Error::KeyLength { expected: 16, got: igtk.len() });
        }
        refuse_zero(&igtk)?;
        Ok(IgtkKey { key_id, igtk, ipn })
    }

    /// Add the IGTK KDE of `igtk`, if there is one, to Key Data being built.
    pub fn add_to(igtk: Option<&Self>, builder: KeyDataBuilder) -> Result<KeyDataBuilder> {
        match igtk {
            Some(k) => builder.igtk(k.key_id, k.ipn, k.igtk.as_bytes()),
            None => Ok(builder),
        }
    }

    /// The IGTK KDE in decrypted Key Data, checked; `None` if there is none.
    pub fn find(key_data: &[u8]) -> Result<Option<Self>> {
        for item in key_data_items(key_data) {
            if let KeyDataItem::Kde { oui: IEEE_OUI, data_type: kde_type::IGTK, data } = item? {
                let kde = IgtkKde::parse(data)?;
                return Ok(Some(IgtkKey::new(kde.key_id, Secret::from_slice(kde.igtk)?, kde.ipn)?));
            }
        }
        Ok(None)
    }
}
