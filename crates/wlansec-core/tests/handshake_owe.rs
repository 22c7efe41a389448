//! OWE end to end in the engine: the Diffie-Hellman exchange of the association gives both
//! sides one PMK, which keys a 4-way handshake of AKM 18 with the group's hash (SHA-256,
//! -384, -512), KCK/KEK lengths and Key MIC length; and the BIGTK of beacon protection
//! carried in message 3 and group message 1 (BIGTK KDE, Key ID 6 or 7) and installed once.

use wlansec_core::gen::{ChaCha8Rng, SeedableRng};
use wlansec_core::rsn::eapol::{EapolKey, KeyDescriptorVersion};
use wlansec_core::rsn::element::{ElementKind, RsnElementRepr};
use wlansec_core::rsn::kdf::{pmk_from_passphrase, Pmk, Secret};
use wlansec_core::rsn::owe::{respond, Group, OweStation};
use wlansec_core::rsn::{Akm, Authenticator, CipherSuite, Event, HandshakeError, MfpPolicy, Params, Supplicant};
use wlansec_core::wire::MacAddr;
use wlansec_core::Error;

fn params(akm: Akm, pairwise: CipherSuite) -> Params {
    let rsne = RsnElementRepr::personal(pairwise, pairwise, akm)
        .with_mfp(MfpPolicy::Required, CipherSuite::BipCmac128)
        .to_bytes(ElementKind::Rsn)
        .unwrap();
    Params {
        akm,
        pairwise,
        group: pairwise,
        aa: MacAddr([0x02, 0, 0, 0, 0, 1]),
        spa: MacAddr([0x02, 0, 0, 0, 0, 2]),
        ap_rsne: rsne.clone(),
        sta_rsne: rsne,
    }
}

fn sends(events: &[Event]) -> Vec<Vec<u8>> {
    events.iter().filter_map(|e| if let Event::Send(b) = e { Some(b.clone()) } else { None }).collect()
}

fn secret(byte: u8) -> Secret {
    Secret::from_slice(&[byte; 16]).unwrap()
}

/// The whole 4-way handshake; the supplicant's events for message 3.
fn four_way(
    a: &mut Authenticator,
    s: &mut Supplicant,
    rng: &mut ChaCha8Rng,
    (version, mic_len): (KeyDescriptorVersion, usize),
) -> Vec<Event> {
    let m1 = sends(&a.start(rng).unwrap()).remove(0);
    assert_eq!(EapolKey::new_checked_with_mic_len(&m1[..], mic_len).unwrap().mic_len(), mic_len);
    let m2 = sends(&s.receive(&m1, rng).unwrap()).remove(0);
    let m3 = sends(&a.receive(&m2).unwrap()).remove(0);
    let view = EapolKey::new_checked_with_mic_len(&m3[..], mic_len).unwrap();
    assert_eq!(view.key_info().version().unwrap(), version);
    let events = s.receive(&m3, rng).unwrap();
    let m4 = sends(&events).remove(0);
    assert!(a.receive(&m4).unwrap().contains(&Event::PairwiseComplete));
    events
}

#[test]
fn an_owe_association_keys_a_four_way_handshake_on_each_group() {
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    for (group, mic_len, kck_len, kek_len) in
        [(Group::P256, 16, 16, 16), (Group::P384, 24, 24, 32), (Group::P521, 32, 32, 32)]
    {
        let sta = OweStation::new(group, &mut rng);
        let (ap_element, ap_keys) = respond(&sta.request_element(), &Group::ALL, &mut rng).unwrap();
        let sta_keys = sta.complete(&ap_element).unwrap();
        let p = params(Akm::Owe, CipherSuite::Ccmp128);
        let mut a = Authenticator::new(p.clone(), ap_keys.pmk, 1, secret(0x5a)).unwrap();
        let mut s = Supplicant::new(p, sta_keys.pmk).unwrap();
        let events = four_way(&mut a, &mut s, &mut rng, (KeyDescriptorVersion::AkmDefined, mic_len));
        assert!(events.contains(&Event::PairwiseComplete), "{group:?}");
        let (ap_ptk, sta_ptk) = (a.ptk().unwrap(), s.ptk().unwrap());
        assert_eq!(ap_ptk, sta_ptk);
        assert_eq!((sta_ptk.kck.len(), sta_ptk.kek.len(), sta_ptk.tk.len()), (kck_len, kek_len, 16), "{group:?}");
    }
}

#[test]
fn a_different_owe_pmk_fails_message_2() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let p = params(Akm::Owe, CipherSuite::Gcmp256);
    let mut a = Authenticator::new(p.clone(), Pmk::from_bytes(&[1; 48]).unwrap(), 1, secret(0x5a)).unwrap();
    let mut s = Supplicant::new(p, Pmk::from_bytes(&[2; 48]).unwrap()).unwrap();
    let m1 = sends(&a.start(&mut rng).unwrap()).remove(0);
    let m2 = sends(&s.receive(&m1, &mut rng).unwrap()).remove(0);
    assert_eq!(a.receive(&m2), Err(Error::MicFailure));
}

fn bigtk_installs(events: &[Event]) -> Vec<(u16, Secret, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::InstallBeaconIntegrity { key_id, bigtk, bipn } => Some((*key_id, bigtk.clone(), *bipn)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_bigtk_is_sent_in_message_3_and_group_message_1_and_installed_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let pmk = pmk_from_passphrase("correct horse battery", b"wlansec").unwrap();
    let p = params(Akm::PskSha256, CipherSuite::Ccmp128);
    let mut a = Authenticator::new(p.clone(), pmk.clone(), 1, secret(0x5a))
        .unwrap()
        .with_igtk(4, secret(0x11), 5)
        .unwrap()
        .with_bigtk(6, secret(0x22), 40)
        .unwrap();
    let mut s = Supplicant::new(p, pmk).unwrap();
    let events = four_way(&mut a, &mut s, &mut rng, (KeyDescriptorVersion::AesCmac, 16));
    assert_eq!(bigtk_installs(&events), vec![(6, secret(0x22), 40)]);
    assert!(events.iter().any(|e| matches!(e, Event::InstallIntegrityGroup { key_id: 4, .. })));

    // A rotation hands over the next BIGTK under Key ID 7; a repeated group message 1 does
    // not install it again (no rollback of its replay counter).
    a.set_bigtk(7, secret(0x33), 90).unwrap();
    let g1 = sends(&a.rekey_group(2, secret(0x6b), 0).unwrap()).remove(0);
    let events = s.receive(&g1, &mut rng).unwrap();
    assert_eq!(bigtk_installs(&events), vec![(7, secret(0x33), 90)]);
    let g1_again = sends(&a.tick().unwrap()).remove(0);
    assert!(bigtk_installs(&s.receive(&g1_again, &mut rng).unwrap()).is_empty());
}

#[test]
fn a_bigtk_with_an_igtk_key_id_or_all_zero_is_refused() {
    let pmk = Pmk::from_bytes(&[7; 32]).unwrap();
    let mut a = Authenticator::new(params(Akm::PskSha256, CipherSuite::Ccmp128), pmk, 1, secret(0x5a)).unwrap();
    assert_eq!(a.set_bigtk(4, secret(1), 0), Err(Error::Handshake(HandshakeError::BigtkKeyId(4))));
    assert_eq!(a.set_bigtk(6, Secret::from_slice(&[0; 16]).unwrap(), 0), Err(HandshakeError::AllZeroKey.into()));
    assert!(a.set_bigtk(7, secret(1), 1 << 48).is_err());
}
