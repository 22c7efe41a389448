use super::*;

/// The RSN element of the illustrative M3 key data in aes_keywrap.json.
const RSNE: &str = "30140100000fac040100000fac040100000fac020000";

#[test]
fn rsn_element_round_trips() {
    let bytes = hex::decode(RSNE).unwrap();
    let (kind, repr) = RsnElementRepr::parse(&bytes).unwrap();
    assert_eq!(kind, ElementKind::Rsn);
    assert_eq!(repr, RsnElementRepr::personal(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::Psk));
    assert_eq!(repr.to_bytes(ElementKind::Rsn).unwrap(), bytes);
}

#[test]
fn vendor_selectors_are_kept() {
    let vendor = CipherSuite::Other { oui: [0x02, 0x11, 0x22], suite_type: 7 };
    let mut repr = RsnElementRepr::personal(CipherSuite::Ccmp128, vendor, Akm::Psk);
    repr.group_mgmt_cipher = Some(CipherSuite::BipCmac128);
    let bytes = repr.to_bytes(ElementKind::Rsn).unwrap();
    assert_eq!(RsnElementRepr::parse(&bytes).unwrap(), (ElementKind::Rsn, repr.clone()));
    let wpa = repr.to_bytes(ElementKind::Wpa).unwrap();
    let (kind, back) = RsnElementRepr::parse(&wpa).unwrap();
    assert_eq!(kind, ElementKind::Wpa);
    assert_eq!(back.pairwise_ciphers, vec![vendor]);
}

#[test]
fn truncated_elements_are_refused() {
    let bytes = hex::decode(RSNE).unwrap();
    for cut in 0..bytes.len() {
        assert!(RsnElementRepr::parse(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut short_count = bytes.clone();
    short_count[1] = 11; // Length ends inside the pairwise list.
    assert!(RsnElementRepr::parse(&short_count[..13]).is_err());
}

#[test]
fn key_data_items_and_gtk_kde() {
    let gtk: Vec<u8> = (0..16).collect();
    let rsne = hex::decode(RSNE).unwrap();
    let data = KeyDataBuilder::new().element(&rsne).gtk(1, true, &gtk).unwrap().build();
    let mut padded = data.to_vec();
    padded.extend_from_slice(&[0xdd, 0, 0]);
    let items: Vec<_> = key_data_items(&padded).collect::<Result<_>>().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0], KeyDataItem::Element { id: 48, element: &rsne });
    let KeyDataItem::Kde { oui, data_type, data } = items[1] else { panic!("not a KDE") };
    assert_eq!((oui, data_type), (IEEE_OUI, kde_type::GTK));
    assert_eq!(GtkKde::parse(data).unwrap(), GtkKde { key_id: 1, tx: true, gtk: &gtk });
    assert!(key_data_items(&[0x30, 0x05, 0x01]).any(|i| i.is_err()));
}

#[test]
fn mfp_capabilities_and_group_management_cipher() {
    let base = RsnElementRepr::personal(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::PskSha256);
    assert_eq!((rsn_capabilities::MFPR, rsn_capabilities::MFPC), (0x40, 0x80));
    for (policy, caps) in [(MfpPolicy::Disabled, 0), (MfpPolicy::Optional, 0x80), (MfpPolicy::Required, 0xc0)] {
        for cipher in
            [CipherSuite::BipCmac128, CipherSuite::BipGmac128, CipherSuite::BipGmac256, CipherSuite::BipCmac256]
        {
            let repr = base.clone().with_mfp(policy, cipher);
            assert_eq!(repr.capabilities, caps);
            let bytes = repr.to_bytes(ElementKind::Rsn).unwrap();
            let (_, back) = RsnElementRepr::parse(&bytes).unwrap();
            assert_eq!(back, repr);
            assert_eq!(back.mfp(), Ok(policy));
            if policy != MfpPolicy::Disabled {
                assert_eq!(back.group_mgmt_cipher_or_default(), cipher);
            }
        }
    }
    // BIP-GMAC-256 (00-0F-AC:12) after an empty PMKID list; Capabilities 0x00c0 (LE).
    let gmac = base.clone().with_mfp(MfpPolicy::Required, CipherSuite::BipGmac256).to_bytes(ElementKind::Rsn).unwrap();
    assert_eq!(hex::encode(&gmac[20..]), "c0000000000fac0c");
    // BIP-CMAC-128 is the default and left out, as hostapd does.
    let cmac = base.clone().with_mfp(MfpPolicy::Optional, CipherSuite::BipCmac128).to_bytes(ElementKind::Rsn).unwrap();
    assert_eq!(hex::encode(&cmac[20..]), "8000");
    let mut bad = base.clone();
    bad.capabilities = rsn_capabilities::MFPR;
    assert!(matches!(bad.mfp(), Err(Error::Malformed(_))));
}

#[test]
fn mfp_negotiation_follows_both_policies() {
    let base = RsnElementRepr::personal(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::PskSha256);
    let side = |p| base.clone().with_mfp(p, CipherSuite::BipCmac128);
    use MfpPolicy::{Disabled, Optional, Required};
    for (ap, sta, want) in [
        (Disabled, Disabled, Some(false)),
        (Disabled, Optional, Some(false)),
        (Optional, Disabled, Some(false)),
        (Optional, Optional, Some(true)),
        (Required, Optional, Some(true)),
        (Optional, Required, Some(true)),
        (Required, Disabled, None),
        (Disabled, Required, None),
    ] {
        assert_eq!(negotiate_mfp(&side(ap), &side(sta)).ok(), want, "{ap:?} {sta:?}");
    }
    let gmac = base.clone().with_mfp(Optional, CipherSuite::BipGmac128);
    assert!(negotiate_mfp(&side(Optional), &gmac).is_err());
}

#[test]
fn igtk_kde_round_trips_and_refuses_bad_input() {
    let igtk: Vec<u8> = (0..16).collect();
    let data = KeyDataBuilder::new().igtk(4, 0x0102_0304_0506, &igtk).unwrap().build();
    assert_eq!(hex::encode(&data[..14]), "dd1c000fac090400060504030201");
    let items: Vec<_> = key_data_items(&data).collect::<Result<_>>().unwrap();
    let [KeyDataItem::Kde { oui: IEEE_OUI, data_type: kde_type::IGTK, data }] = items[..] else { panic!("{items:?}") };
    assert_eq!(IgtkKde::parse(data).unwrap(), IgtkKde { key_id: 4, ipn: 0x0102_0304_0506, igtk: &igtk });
    for cut in 0..24 {
        assert!(IgtkKde::parse(&data[..cut]).is_err());
    }
    assert!(IgtkKde::parse(&[0; 8 + 33]).is_err());
    assert!(KeyDataBuilder::new().igtk(1, 0, &igtk).is_err());
    assert!(KeyDataBuilder::new().igtk(5, 1 << 48, &igtk).is_err());
}

#[test]
fn debug_of_the_key_kdes_never_shows_the_key() {
    let gtk = [0xabu8; 16];
    let mut data = vec![0x01, 0x00];
    data.extend_from_slice(&gtk);
    let igtk_data = [&[4u8, 0, 1, 0, 0, 0, 0, 0][..], &gtk].concat();
    let shown = format!("{:?} {:?}", GtkKde::parse(&data).unwrap(), IgtkKde::parse(&igtk_data).unwrap());
    assert!(!shown.contains("171") && !shown.to_lowercase().contains("ab, ab"), "{shown}");
    assert!(shown.contains("redacted") && shown.contains("key_id"), "{shown}");
}
