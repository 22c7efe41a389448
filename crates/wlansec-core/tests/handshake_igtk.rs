//! The IGTK in the 4-way and group key handshakes (802.11w): the authenticator's IGTK KDE in
//! message 3 and group message 1, the supplicant's `InstallIntegrityGroup`, and its KRACK
//! defences (no reinstallation, no rollback, no all-zero key).

use wlansec_core::gen::{ChaCha8Rng, SeedableRng};
use wlansec_core::rsn::eapol::{self, EapolKey, KeyDescriptorVersion};
use wlansec_core::rsn::element::{ElementKind, KeyDataBuilder, RsnElementRepr};
use wlansec_core::rsn::kdf::{derive_ptk, pmk_from_passphrase, Secret};
use wlansec_core::rsn::{Akm, Authenticator, CipherSuite, Event, HandshakeError, MfpPolicy, Params, Supplicant};
use wlansec_core::suite::bip::{BipAlgorithm, BipReceiver, Igtk};
use wlansec_core::suite::Pn;
use wlansec_core::wire::mgmt::{DeauthenticationRepr, ManagementBody};
use wlansec_core::wire::{MacAddr, SequenceControl};
use wlansec_core::Error;

const AA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 1]);

fn params() -> Params {
    let rsne = RsnElementRepr::personal(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::PskSha256)
        .with_mfp(MfpPolicy::Required, CipherSuite::BipCmac128)
        .to_bytes(ElementKind::Rsn)
        .unwrap();
    Params {
        akm: Akm::PskSha256,
        pairwise: CipherSuite::Ccmp128,
        group: CipherSuite::Ccmp128,
        aa: AA,
        spa: MacAddr([0x02, 0, 0, 0, 0, 2]),
        ap_rsne: rsne.clone(),
        sta_rsne: rsne,
    }
}

fn secret(byte: u8) -> Secret {
    Secret::from_slice(&[byte; 16]).unwrap()
}

fn pair(igtk: Option<(u16, Secret, u64)>) -> (Authenticator, Supplicant) {
    let pmk = pmk_from_passphrase("correct horse battery", b"wlansec").unwrap();
    let a = Authenticator::new(params(), pmk.clone(), 1, secret(0x5a)).unwrap();
    let a = match igtk {
        Some((key_id, igtk, ipn)) => a.with_igtk(key_id, igtk, ipn).unwrap(),
        None => a,
    };
    (a, Supplicant::new(params(), pmk).unwrap())
}

fn sends(events: &[Event]) -> Vec<Vec<u8>> {
    events.iter().filter_map(|e| if let Event::Send(b) = e { Some(b.clone()) } else { None }).collect()
}

fn igtk_installs(events: &[Event]) -> Vec<(u16, Secret, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::InstallIntegrityGroup { key_id, igtk, ipn } => Some((*key_id, igtk.clone(), *ipn)),
            _ => None,
        })
        .collect()
}

/// Messages 1 to 3; returns message 3 and the supplicant's events for it.
fn up_to_message_3(a: &mut Authenticator, s: &mut Supplicant, rng: &mut ChaCha8Rng) -> (Vec<u8>, Vec<Event>) {
    let m1 = sends(&a.start(rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], rng).unwrap());
    let m3 = sends(&a.receive(&m2[0]).unwrap()).remove(0);
    let events = s.receive(&m3, rng).unwrap();
    (m3, events)
}

#[test]
fn igtk_is_sent_in_message_3_and_group_message_1_and_protects_deauthentication() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (mut a, mut s) = pair(Some((4, secret(0x11), 17)));
    let (_, events) = up_to_message_3(&mut a, &mut s, &mut rng);
    assert_eq!(igtk_installs(&events), vec![(4, secret(0x11), 17)]);
    a.receive(&sends(&events)[0]).unwrap();

    // The installed IGTK verifies what the AP protects with it, from IPN 18 on.
    let mut rx = BipReceiver::new();
    let (key_id, igtk, ipn) = igtk_installs(&events).remove(0);
    rx.install(Igtk::new(BipAlgorithm::Cmac128, key_id, igtk.as_bytes()).unwrap(), Pn::new(ipn).unwrap());
    let ap_igtk = Igtk::new(BipAlgorithm::Cmac128, 4, &[0x11; 16]).unwrap();
    let deauth = |ipn: u64| {
        let body = ManagementBody::Deauthentication(DeauthenticationRepr { reason: 3 });
        let mut mpdu = body.to_mpdu(MacAddr::BROADCAST, AA, AA, SequenceControl::new(1, 0)).unwrap();
        let len = mpdu.len();
        mpdu.resize(len + ap_igtk.overhead(), 0);
        ap_igtk.protect(&mut mpdu, len, Pn::new(ipn).unwrap()).unwrap();
        mpdu
    };
    assert_eq!(rx.verify(&deauth(17)), Err(Error::Replay { pn: 17, last: 17 }));
    assert_eq!(rx.verify(&deauth(18)), Ok(Pn::new(18).unwrap()));

    // Rotate both group keys: the IGTK goes to Key ID 5.
    a.set_igtk(5, secret(0x22), 0).unwrap();
    let g1 = sends(&a.rekey_group(2, secret(0x77), 9).unwrap());
    let events = s.receive(&g1[0], &mut rng).unwrap();
    assert_eq!(igtk_installs(&events), vec![(5, secret(0x22), 0)]);
    assert!(events.iter().any(|e| matches!(e, Event::InstallGroup { key_id: 2, rsc: 9, .. })));
    assert_eq!(events.last(), Some(&Event::GroupComplete));
    assert_eq!(a.receive(&sends(&events)[0]).unwrap(), vec![Event::GroupComplete]);
}

#[test]
fn no_igtk_without_protected_management_frames() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (mut a, mut s) = pair(None);
    let (m3, events) = up_to_message_3(&mut a, &mut s, &mut rng);
    assert!(igtk_installs(&events).is_empty());
    let view = EapolKey::new_checked(&m3[..]).unwrap();
    assert_eq!(view.key_data().len(), 56, "RSN element (26) and GTK KDE (22), wrapped: no IGTK KDE");
}

#[test]
fn an_igtk_is_never_reinstalled_nor_rolled_back() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut a, mut s) = pair(Some((4, secret(0x11), 0)));
    let (_, events) = up_to_message_3(&mut a, &mut s, &mut rng);
    assert_eq!(igtk_installs(&events).len(), 1);
    // M4 lost: the retransmitted M3 is answered but installs nothing (KRACK).
    let again = s.receive(&sends(&a.tick().unwrap())[0], &mut rng).unwrap();
    assert_eq!(sends(&again).len(), 1);
    assert!(igtk_installs(&again).is_empty());
    a.receive(&sends(&again)[0]).unwrap();
    // A new IGTK installs once; the old one (a rollback) and the new one again never.
    for (igtk, installs) in [(secret(0x33), 1), (secret(0x11), 0), (secret(0x33), 0)] {
        a.set_igtk(5, igtk, 0).unwrap();
        let events = s.receive(&sends(&a.rekey_group(1, secret(0x5a), 0).unwrap())[0], &mut rng).unwrap();
        assert_eq!(igtk_installs(&events).len(), installs);
        a.receive(&sends(&events)[0]).unwrap();
    }
}

#[test]
fn bad_igtks_are_refused_on_both_sides() {
    let (mut a, _) = pair(None);
    let refused = |r: Result<(), Error>| r.unwrap_err();
    assert_eq!(refused(a.set_igtk(3, secret(1), 0)), Error::Handshake(HandshakeError::IgtkKeyId(3)));
    assert_eq!(refused(a.set_igtk(4, secret(0), 0)), Error::Handshake(HandshakeError::AllZeroKey));
    assert!(matches!(refused(a.set_igtk(4, Secret::from_slice(&[1; 20]).unwrap(), 0)), Error::KeyLength { .. }));
    assert!(matches!(refused(a.set_igtk(4, secret(1), 1 << 48)), Error::Malformed(_)));
    assert_eq!(Error::Handshake(HandshakeError::IgtkKeyId(3)).to_string(), "handshake: IGTK Key ID 3 (must be 4 or 5)");

    // A message 3 whose IGTK is all zero (as an attacker who had the PTK would send it) is
    // refused whole: no key is installed and no message 4 sent.
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let (mut a, mut s) = pair(Some((4, secret(0x11), 0)));
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    let m3 = sends(&a.receive(&m2[0]).unwrap()).remove(0);
    let pmk = pmk_from_passphrase("correct horse battery", b"wlansec").unwrap();
    let (anonce, snonce) =
        (EapolKey::new_checked(&m1[0][..]).unwrap().nonce(), EapolKey::new_checked(&m2[0][..]).unwrap().nonce());
    let p = params();
    let ptk = derive_ptk(&pmk, p.akm, p.pairwise, p.aa, p.spa, &anonce, &snonce).unwrap();
    let version = KeyDescriptorVersion::AesCmac;
    let view = EapolKey::new_checked(&m3[..]).unwrap();
    let iv = view.key_iv();
    let plain = eapol::decrypt_key_data(version, ptk.kek.as_bytes(), &iv, view.key_data()).unwrap();
    let zero_igtk = KeyDataBuilder::new()
        .element(&p.ap_rsne)
        .gtk(1, true, &[0x5a; 16])
        .unwrap()
        .igtk(4, 0, &[0; 16])
        .unwrap()
        .build();
    assert_eq!(plain[..zero_igtk.len() - 16], zero_igtk[..zero_igtk.len() - 16], "the same Key Data but the IGTK");
    let encrypted = eapol::encrypt_key_data(version, ptk.kek.as_bytes(), &iv, &zero_igtk).unwrap();
    assert_eq!(encrypted.len(), view.key_data().len());
    let mut forged = m3.clone();
    let at = forged.len() - encrypted.len();
    forged[at..].copy_from_slice(&encrypted);
    EapolKey::new_checked(&mut forged[..]).unwrap().sign(ptk.kck.as_bytes()).unwrap();
    assert_eq!(s.receive(&forged, &mut rng), Err(Error::Handshake(HandshakeError::AllZeroKey)));
    assert!(s.ptk().is_none(), "nothing installed");
    // The genuine message 3 still completes the handshake.
    assert_eq!(igtk_installs(&s.receive(&m3, &mut rng).unwrap()), vec![(4, secret(0x11), 0)]);
}
