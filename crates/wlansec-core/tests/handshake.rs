//! The 4-way and group key handshakes, authenticator against supplicant in memory, over a
//! channel that drops, duplicates, reorders and forges messages; and the KRACK defences.

use proptest::prelude::*;
use wlansec_core::gen::{ChaCha8Rng, Rng, SeedableRng};
use wlansec_core::rsn::eapol::{EapolKey, Message};
use wlansec_core::rsn::element::{ElementKind, RsnElementRepr};
use wlansec_core::rsn::kdf::{derive_ptk, pmk_from_passphrase, Secret};
use wlansec_core::rsn::{Akm, Authenticator, CipherSuite, Event, HandshakeError, Params, Supplicant};
use wlansec_core::wire::MacAddr;
use wlansec_core::Error;

fn params(akm: Akm, pairwise: CipherSuite) -> Params {
    let rsne = RsnElementRepr::personal(CipherSuite::Ccmp128, pairwise, akm).to_bytes(ElementKind::Rsn).unwrap();
    Params {
        akm,
        pairwise,
        group: CipherSuite::Ccmp128,
        aa: MacAddr([0x02, 0, 0, 0, 0, 1]),
        spa: MacAddr([0x02, 0, 0, 0, 0, 2]),
        ap_rsne: rsne.clone(),
        sta_rsne: rsne,
    }
}

fn pair(akm: Akm, pairwise: CipherSuite) -> (Authenticator, Supplicant) {
    let pmk = pmk_from_passphrase("correct horse battery", b"wlansec").unwrap();
    let gtk = Secret::from_slice(&[0x5a; 16]).unwrap();
    let p = params(akm, pairwise);
    (Authenticator::new(p.clone(), pmk.clone(), 1, gtk).unwrap(), Supplicant::new(p, pmk).unwrap())
}

fn sends(events: &[Event]) -> Vec<Vec<u8>> {
    events.iter().filter_map(|e| if let Event::Send(b) = e { Some(b.clone()) } else { None }).collect()
}

fn count(events: &[Event], pred: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| pred(e)).count()
}

#[test]
fn clean_handshakes_for_every_descriptor_version() {
    for (akm, cipher) in [
        (Akm::Psk, CipherSuite::Ccmp128),
        (Akm::Psk, CipherSuite::Tkip),
        (Akm::PskSha256, CipherSuite::Ccmp128),
        (Akm::Psk, CipherSuite::Gcmp256),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (mut a, mut s) = pair(akm, cipher);
        let m1 = sends(&a.start(&mut rng).unwrap());
        let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
        let m3 = sends(&a.receive(&m2[0]).unwrap());
        let ev = s.receive(&m3[0], &mut rng).unwrap();
        assert_eq!(count(&ev, |e| matches!(e, Event::InstallPairwise { .. })), 1);
        assert_eq!(count(&ev, |e| matches!(e, Event::InstallGroup { key_id: 1, .. })), 1);
        let ev_a = a.receive(&sends(&ev)[0]).unwrap();
        assert!(ev_a.contains(&Event::PairwiseComplete));
        assert_eq!(a.ptk(), s.ptk(), "{akm:?} {cipher:?}");
        assert_eq!(a.ptk().unwrap().tk.len(), cipher.tk_len().unwrap());

        // Group rekey, then a replay of the old group message 1.
        let g1 = sends(&a.rekey_group(2, Secret::from_slice(&[0x77; 16]).unwrap(), 5).unwrap());
        let ev = s.receive(&g1[0], &mut rng).unwrap();
        assert!(ev.iter().any(|e| matches!(e, Event::InstallGroup { key_id: 2, rsc: 5, .. })));
        assert_eq!(a.receive(&sends(&ev)[0]).unwrap(), vec![Event::GroupComplete]);
        assert!(matches!(s.receive(&g1[0], &mut rng), Err(Error::Replay { .. })));
    }
}

#[test]
fn retransmitted_message_3_never_reinstalls_keys() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (mut a, mut s) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    let m3 = sends(&a.receive(&m2[0]).unwrap());
    let first = s.receive(&m3[0], &mut rng).unwrap();
    assert_eq!(count(&first, |e| matches!(e, Event::InstallPairwise { .. })), 1);
    // M4 is lost; the authenticator retransmits M3 with a new replay counter.
    let m3_again = sends(&a.tick().unwrap());
    let second = s.receive(&m3_again[0], &mut rng).unwrap();
    assert_eq!(sends(&second).len(), 1, "M4 is sent again");
    assert_eq!(count(&second, |e| matches!(e, Event::InstallPairwise { .. } | Event::InstallGroup { .. })), 0);
    // The captured first M3, replayed by an attacker, is refused outright.
    assert!(matches!(s.receive(&m3[0], &mut rng), Err(Error::Replay { .. })));
    assert!(a.receive(&sends(&second)[0]).unwrap().contains(&Event::PairwiseComplete));
}

#[test]
fn gtk_is_never_rolled_back_and_zero_keys_are_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut a, mut s) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    let m3 = sends(&a.receive(&m2[0]).unwrap());
    let m4 = sends(&s.receive(&m3[0], &mut rng).unwrap());
    a.receive(&m4[0]).unwrap();
    let old = Secret::from_slice(&[0x5a; 16]).unwrap();
    let new = Secret::from_slice(&[0x66; 16]).unwrap();
    for (gtk, installs) in [(new.clone(), 1), (old, 0), (new, 0)] {
        let g1 = sends(&a.rekey_group(1, gtk, 0).unwrap());
        let ev = s.receive(&g1[0], &mut rng).unwrap();
        assert_eq!(count(&ev, |e| matches!(e, Event::InstallGroup { .. })), installs);
        a.receive(&sends(&ev)[0]).unwrap();
    }
    assert!(a.rekey_group(1, Secret::from_slice(&[0; 16]).unwrap(), 0).is_err());
    assert!(Authenticator::new(
        params(Akm::Psk, CipherSuite::Ccmp128),
        pmk_from_passphrase("abcdefgh", b"x").unwrap(),
        1,
        Secret::from_slice(&[0; 16]).unwrap()
    )
    .is_err());
}

#[test]
fn forged_and_wrong_key_messages_change_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let (mut a, mut s) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    // A supplicant with the wrong passphrase: its M2 fails the MIC check.
    let p = params(Akm::Psk, CipherSuite::Ccmp128);
    let mut wrong = Supplicant::new(p, pmk_from_passphrase("wrong passphrase", b"wlansec").unwrap()).unwrap();
    let bad_m2 = sends(&wrong.receive(&m1[0], &mut rng).unwrap());
    assert_eq!(a.receive(&bad_m2[0]), Err(Error::MicFailure));
    let m3 = sends(&a.receive(&m2[0]).unwrap());
    for at in [17, 60, 100, m3[0].len() - 1] {
        let mut forged = m3[0].clone();
        forged[at] ^= 0x10;
        assert!(s.receive(&forged, &mut rng).is_err(), "forged byte {at}");
    }
    for cut in 0..m3[0].len() {
        assert!(s.receive(&m3[0][..cut], &mut rng).is_err());
    }
    // Message 3 without message 1's ANonce binding (a fresh supplicant) is refused.
    let (_, mut fresh) = pair(Akm::Psk, CipherSuite::Ccmp128);
    assert!(fresh.receive(&m3[0], &mut rng).is_err());
    let ev = s.receive(&m3[0], &mut rng).unwrap();
    assert!(a.receive(&sends(&ev)[0]).unwrap().contains(&Event::PairwiseComplete));
}

#[test]
fn a_forged_message_1_cannot_wedge_the_handshake() {
    // Message 1 has no MIC: anyone (or a bit error) can send one with another ANonce after
    // the real one. The supplicant keeps its SNonce for the handshake and takes the PTK from
    // message 3's ANonce, which that message's MIC authenticates.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut a, mut s) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    let mut forged = m1[0].clone();
    forged[17] ^= 0x01; // first ANonce octet: 4 (EAPOL) + 1 + 2 + 2 + 8 (replay counter)
    let forged_m2 = sends(&s.receive(&forged, &mut rng).unwrap());
    assert!(a.receive(&forged_m2[0]).is_err(), "the authenticator takes no M2 for a forged ANonce");
    let m3 = sends(&a.receive(&m2[0]).unwrap());
    let ev = s.receive(&m3[0], &mut rng).unwrap();
    assert_eq!(count(&ev, |e| matches!(e, Event::PairwiseComplete)), 1);
    assert!(a.receive(&sends(&ev)[0]).unwrap().contains(&Event::PairwiseComplete));
    assert_eq!(a.ptk(), s.ptk());
}

#[test]
fn message_3_with_its_mic_bit_cleared_is_not_a_message_1() {
    // A corrupted M3 without the MIC flag would parse as message 1; answered, its M2 (with
    // M3's replay counter) could pass for message 4 and complete the authenticator alone.
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (mut a, mut s) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    let mut m3 = sends(&a.receive(&m2[0]).unwrap()).remove(0);
    m3[5] &= !0x01; // Key Information, high octet: the MIC flag (0x0100)
    let refused = s.receive(&m3, &mut rng);
    let flags = HandshakeError::Flags { message: Message::FourWay1, why: "with Install or Secure set" };
    assert_eq!(refused, Err(Error::Handshake(flags)));
    // ... and an M2 never passes for message 4.
    assert!(matches!(a.receive(&m2[0]), Err(Error::Replay { .. }) | Err(Error::Handshake(_))));
}

#[test]
fn refusals_are_typed_and_name_the_messages() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let (mut a, mut s) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let gtk = Secret::from_slice(&[9u8; 16]).unwrap();
    assert_eq!(a.rekey_group(2, gtk.clone(), 0), Err(Error::Handshake(HandshakeError::NotEstablished)));
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    let m3 = sends(&a.receive(&m2[0]).unwrap());
    // Message 2 again, with the counter message 3 carries and signed under the PTK: a
    // well-formed message that this state does not take (message 4 is expected).
    let p = params(Akm::Psk, CipherSuite::Ccmp128);
    let pmk = pmk_from_passphrase("correct horse battery", b"wlansec").unwrap();
    let anonce = EapolKey::new_checked(&m1[0][..]).unwrap().nonce();
    let snonce = EapolKey::new_checked(&m2[0][..]).unwrap().nonce();
    let ptk = derive_ptk(&pmk, p.akm, p.pairwise, p.aa, p.spa, &anonce, &snonce).unwrap();
    let mut late_m2 = m2[0].clone();
    let counter = EapolKey::new_checked(&m3[0][..]).unwrap().replay_counter();
    late_m2[9..17].copy_from_slice(&counter.to_be_bytes());
    EapolKey::new_checked(&mut late_m2[..]).unwrap().sign(ptk.kck.as_bytes()).unwrap();
    let unexpected = HandshakeError::Unexpected { expected: Some(Message::FourWay4), got: Message::FourWay2 };
    assert_eq!(a.receive(&late_m2), Err(Error::Handshake(unexpected)));
    let m4 = sends(&s.receive(&m3[0], &mut rng).unwrap());
    a.receive(&m4[0]).unwrap();
    assert_eq!(a.rekey_group(0, gtk, 0), Err(Error::Handshake(HandshakeError::GtkKeyId(0))));
    assert_eq!(Error::Handshake(unexpected).to_string(), "handshake: message 2 where message 4 was expected");
    assert_eq!(
        Error::Handshake(HandshakeError::RsnElementMismatch { message: Message::FourWay3 }).to_string(),
        "handshake: RSN element in message 3 differs from the beacon (downgrade)"
    );
}

#[test]
fn the_authenticator_gives_up_after_its_retransmissions() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (a, _) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let mut a = a.with_max_sends(3);
    a.start(&mut rng).unwrap();
    assert_eq!(sends(&a.tick().unwrap()).len(), 1);
    assert_eq!(sends(&a.tick().unwrap()).len(), 1);
    assert_eq!(a.tick().unwrap(), vec![Event::TimedOut]);
}

/// Run both machines over a channel that loses, duplicates, reorders and corrupts frames,
/// with the authenticator's timer ticking when the channel is idle.
fn run_lossy(seed: u64, loss: u32, rekeys: u32) -> (Authenticator, Supplicant, Vec<Event>, bool) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (a, mut s) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let mut a = a.with_max_sends(50);
    let mut to_sta: Vec<Vec<u8>> = sends(&a.start(&mut rng).unwrap());
    let mut to_ap: Vec<Vec<u8>> = Vec::new();
    let mut sta_events = Vec::new();
    let mut done = false;
    let mut group_rounds = 0;
    for _ in 0..2000 {
        let idle = to_sta.is_empty() && to_ap.is_empty();
        if idle {
            let ev = a.tick().unwrap();
            if ev.contains(&Event::TimedOut) {
                return (a, s, sta_events, false);
            }
            if ev.is_empty() {
                if done && group_rounds < rekeys {
                    group_rounds += 1;
                    let gtk = Secret::from_slice(&[0x10 + group_rounds as u8; 16]).unwrap();
                    to_sta.extend(sends(&a.rekey_group(1 + (group_rounds % 2) as u8, gtk, 0).unwrap()));
                    continue;
                }
                if done {
                    break;
                }
            }
            to_sta.extend(sends(&ev));
            continue;
        }
        let toward_sta = !to_sta.is_empty() && (to_ap.is_empty() || rng.next_u32() % 2 == 0);
        let queue = if toward_sta { &mut to_sta } else { &mut to_ap };
        let mut frame = queue.remove((rng.next_u32() as usize) % queue.len());
        match rng.next_u32() % 100 {
            r if r < loss => continue,
            r if r < loss + 10 => queue.push(frame.clone()),
            r if r < loss + 15 => {
                let at = rng.next_u32() as usize % frame.len();
                frame[at] ^= 1 << (rng.next_u32() % 8);
            }
            _ => {}
        }
        if toward_sta {
            if let Ok(ev) = s.receive(&frame, &mut rng) {
                to_ap.extend(sends(&ev));
                sta_events.extend(ev.into_iter().filter(|e| !matches!(e, Event::Send(_))));
            }
        } else if let Ok(ev) = a.receive(&frame) {
            done |= ev.contains(&Event::PairwiseComplete);
            to_sta.extend(sends(&ev));
        }
    }
    (a, s, sta_events, done)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn handshakes_survive_a_hostile_channel(seed in any::<u64>(), loss in 0u32..40, rekeys in 0u32..4) {
        let (a, s, events, done) = run_lossy(seed, loss, rekeys);
        prop_assert!(done, "handshake did not complete");
        prop_assert_eq!(a.ptk(), s.ptk());
        let tk = a.ptk().unwrap().tk.clone();
        // The pairwise key is installed exactly once, and it is the authenticator's.
        let installs: Vec<_> = events.iter().filter_map(|e| if let Event::InstallPairwise { tk } = e { Some(tk.clone()) } else { None }).collect();
        prop_assert_eq!(installs, vec![tk]);
        // No GTK is ever installed twice.
        let gtks: Vec<_> = events.iter().filter_map(|e| if let Event::InstallGroup { gtk, .. } = e { Some(gtk.clone()) } else { None }).collect();
        for (i, g) in gtks.iter().enumerate() {
            prop_assert!(!gtks[..i].contains(g), "GTK installed twice");
        }
    }
}

/// Message 3 of a handshake whose authenticator repeats `rsnxe` and sends Transition
/// Disable `bits`, into `s`: what the supplicant says.
fn message_3_into(rsnxe: Option<&[u8]>, bits: u8, s: Supplicant) -> (Supplicant, Result<Vec<Event>, Error>) {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (a, _) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let mut a = a.with_transition_disable(bits);
    if let Some(rsnxe) = rsnxe {
        a = a.with_rsnxe(rsnxe.to_vec());
    }
    let mut s = s;
    let m1 = sends(&a.start(&mut rng).unwrap());
    let m2 = sends(&s.receive(&m1[0], &mut rng).unwrap());
    let m3 = sends(&a.receive(&m2[0]).unwrap());
    let result = s.receive(&m3[0], &mut rng);
    (s, result)
}

#[test]
fn message_3_repeats_the_beacons_rsnxe_exactly_and_carries_transition_disable() {
    const H2E: [u8; 3] = [244, 1, 1 << 5];
    let supplicant =
        |rsnxe: Option<&[u8]>| pair(Akm::Psk, CipherSuite::Ccmp128).1.with_ap_rsnxe(rsnxe.map(<[u8]>::to_vec));
    let (s, ok) = message_3_into(Some(&H2E), 0x01, supplicant(Some(&H2E)));
    assert!(ok.unwrap().contains(&Event::PairwiseComplete));
    assert_eq!(s.transition_disable(), 0x01);
    // A beacon without the RSNXE (stripped), one with another, or an RSNXE the access point
    // never had: each a downgrade, refused.
    for (beacon, message_3) in
        [(None, Some(&H2E[..])), (Some(&[244, 1, 0][..]), Some(&H2E[..])), (Some(&H2E[..]), None)]
    {
        let (s, refused) = message_3_into(message_3, 0, supplicant(beacon));
        assert!(matches!(refused, Err(Error::Handshake(HandshakeError::RsnxeMismatch))), "{beacon:?} {message_3:?}");
        assert!(s.ptk().is_none());
    }
    // No beacon heard: message 3's elements are not compared, only its RSN element's AKM.
    let unknown = pair(Akm::Psk, CipherSuite::Ccmp128).1.with_ap_elements_unknown();
    let (s, ok) = message_3_into(Some(&H2E), 0, unknown);
    assert!(ok.is_ok() && s.transition_disable() == 0);
}
