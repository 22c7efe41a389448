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
