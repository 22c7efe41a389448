//! The group keys the handshakes carry and their checks: the GTK, the IGTK of 802.11w
//! (IEEE 802.11-2016 12.7.6.4, 12.7.7.2) and the BIGTK of beacon protection (IEEE
//! 802.11-2020 12.7.6.4), which the authenticator adds to message 3 and group message 1 as
//! an IGTK or BIGTK KDE when it has one.

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

/// Which integrity group key: the IGTK of group-addressed robust management frames or the
/// BIGTK of beacons. Both are BIP keys with a 48-bit packet number; their Key IDs and KDEs
/// differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum IntegrityKind {
    Igtk,
    Bigtk,
}

impl IntegrityKind {
    fn key_ids(self) -> [u16; 2] {
        match self {
            IntegrityKind::Igtk => [4, 5],
            IntegrityKind::Bigtk => [6, 7],
        }
    }

    fn kde_type(self) -> u8 {
        match self {
            IntegrityKind::Igtk => kde_type::IGTK,
            IntegrityKind::Bigtk => kde_type::BIGTK,
        }
    }

    fn bad_key_id(self, key_id: u16) -> HandshakeError {
        match self {
            IntegrityKind::Igtk => HandshakeError::IgtkKeyId(key_id),
            IntegrityKind::Bigtk => HandshakeError::BigtkKeyId(key_id),
        }
    }
}

/// An IGTK or BIGTK with its Key ID and current packet number (IPN or BIPN), as its KDE
/// carries it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct IntegrityKey {
    pub kind: IntegrityKind,
    pub key_id: u16,
    pub key: Secret,
    pub ipn: u64,
}

impl IntegrityKey {
    /// Checked as both sides need it: the kind's Key IDs, a 16- or 32-octet key, not all
    /// zero, a 48-bit packet number.
    pub fn new(kind: IntegrityKind, key_id: u16, key: Secret, ipn: u64) -> Result<Self> {
        if !kind.key_ids().contains(&key_id) {
            return Err(kind.bad_key_id(key_id).into());
        }
        if ipn >= 1 << 48 {
            return Err(crate::Error::Malformed("IPN wider than 48 bits"));
        }
        if key.len() != 16 && key.len() != 32 {
            return Err(crate::Error::KeyLength { expected: 16, got: key.len() });
        }
        refuse_zero(&key)?;
        Ok(IntegrityKey { kind, key_id, key, ipn })
    }

    /// Add the KDE of `key`, if there is one, to Key Data being built.
    pub fn add_to(key: Option<&Self>, builder: KeyDataBuilder) -> Result<KeyDataBuilder> {
        match key {
            Some(k) if k.kind == IntegrityKind::Igtk => builder.igtk(k.key_id, k.ipn, k.key.as_bytes()),
            Some(k) => builder.bigtk(k.key_id, k.ipn, k.key.as_bytes()),
            None => Ok(builder),
        }
    }

    /// The `kind`'s KDE in decrypted Key Data, checked; `None` if there is none.
    pub fn find(kind: IntegrityKind, key_data: &[u8]) -> Result<Option<Self>> {
        for item in key_data_items(key_data) {
            match item? {
                KeyDataItem::Kde { oui: IEEE_OUI, data_type, data } if data_type == kind.kde_type() => {
                    let kde = IgtkKde::parse(data)?;
                    return Ok(Some(IntegrityKey::new(kind, kde.key_id, Secret::from_slice(kde.igtk)?, kde.ipn)?));
                }
                _ => {}
            }
        }
        Ok(None)
    }
}
