//! Synthetic captures of every suite decrypted back into exactly the Ethernet frames that
//! went in (the interop tests check the same captures against tshark and airdecap-ng);
//! and damaged captures: decryption never panics and never outputs a frame that was not sent.

use wlansec_core::decrypt::{Decryptor, Keys, OutputForm};
use wlansec_core::gen::{ChaCha8Rng, Rng, SeedableRng};
use wlansec_core::rsn::{pmk_from_passphrase, CipherSuite, Secret};
use wlansec_core::synth::{generated_traffic, Config, Synth};

const SSID: &[u8] = b"wlansec-test";
const PASSPHRASE: &str = "correct horse battery";
const WEP_KEY: [u8; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

fn config(cipher: CipherSuite) -> Config {
    Config {
        wep_key: match cipher {
            CipherSuite::Wep40 => Some(WEP_KEY[..5].to_vec()),
            CipherSuite::Wep104 => Some(WEP_KEY.to_vec()),
            _ => None,
        },
        stations: 3,
        rekey: true,
        fragment_every: 4,
        seed: 5,
        ..Config::personal(SSID, PASSPHRASE, cipher)
    }
}

fn keys(cipher: CipherSuite) -> Keys {
    match cipher {
        CipherSuite::Wep40 => Keys::wep(Secret::from_slice(&WEP_KEY[..5]).unwrap()),
        CipherSuite::Wep104 => Keys::wep(Secret::from_slice(&WEP_KEY).unwrap()),
        _ => Keys::pmk(pmk_from_passphrase(PASSPHRASE, SSID).unwrap()),
    }
}

/// (the MPDUs on the air, the Ethernet frames carried)
fn capture(cipher: CipherSuite) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let synth = Synth::new(config(cipher)).unwrap();
    let frames = generated_traffic(250, &synth.station_macs(), 5);
    let records = synth.run(&frames).unwrap();
    (records.into_iter().map(|r| r.mpdu).collect(), frames)
}

/// Every frame `d` writes for `mpdus`, one MPDU at a time.
fn outputs(d: &mut Decryptor, mpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for m in mpdus {
        let _ = d.process(m, |f| -> Result<(), ()> {
            out.push(f.to_vec());
            Ok(())
        });
    }
    out
}

fn decrypt_all(cipher: CipherSuite, mpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut d = Decryptor::new(keys(cipher), Some(SSID), None, OutputForm::Ethernet).unwrap();
    outputs(&mut d, mpdus).into_iter().filter(|f| f[12..14] != [0x88, 0x8e]).collect()
}

const SUITES: [CipherSuite; 7] = [
    CipherSuite::Ccmp128,
    CipherSuite::Ccmp256,
    CipherSuite::Gcmp128,
    CipherSuite::Gcmp256,
    CipherSuite::Tkip,
    CipherSuite::Wep40,
    CipherSuite::Wep104,
];

#[test]
fn every_suite_round_trips_through_a_capture() {
    for cipher in SUITES {
        let (mpdus, frames) = capture(cipher);
        assert_eq!(decrypt_all(cipher, &mpdus), frames, "{cipher:?}");
    }
}

#[test]
fn the_wrong_passphrase_decrypts_nothing() {
    let (mpdus, _) = capture(CipherSuite::Ccmp128);
    let wrong = Keys::pmk(pmk_from_passphrase("not the passphrase", SSID).unwrap());
    let mut d = Decryptor::new(wrong, Some(SSID), None, OutputForm::Ethernet).unwrap();
    assert!(outputs(&mut d, &mpdus).is_empty());
    let stats = d.stats();
    assert_eq!((stats.handshakes, stats.decrypted_wpa), (0, 0));
    assert!(stats.mic_mismatches >= 3);
}

/// The rekey deauthenticates station 0 (unprotected) before its new 4-way handshake: the
/// last frame of its link before the Deauthentication, moved after it, is under a key the
/// Deauthentication ended (without 802.11w), or still in use (with it: an unprotected
/// Deauthentication may be forged, and the stations ignore it).
#[test]
fn a_deauthentication_ends_the_links_keys_unless_802_11w_protects_the_link() {
    for pmf in [false, true] {
        let synth = Synth::new(Config { pmf, ..config(CipherSuite::Ccmp128) }).unwrap();
        let frames = generated_traffic(250, &synth.station_macs(), 5);
        let mut mpdus: Vec<_> = synth.run(&frames).unwrap().into_iter().map(|r| r.mpdu).collect();
        let deauth = mpdus.iter().position(|m| m[0] == 0xc0 && m[1] & 0x40 == 0).unwrap();
        let ends = [&mpdus[deauth][4..10], &mpdus[deauth][10..16]];
        let last = (0..deauth)
            .rev()
            .find(|&i| {
                let m = &mpdus[i];
                m[0] & 0x0c == 0x08 && m[1] & 0x40 != 0 && ends.contains(&&m[4..10]) && ends.contains(&&m[10..16])
            })
            .unwrap();
        // (The moved frame is the group key handshake's message 2, under the PTK: written too.)
        let decryptor = || Decryptor::new(keys(CipherSuite::Ccmp128), Some(SSID), None, OutputForm::Ethernet).unwrap();
        let before = outputs(&mut decryptor(), &mpdus).len();
        let moved = mpdus.remove(last);
        mpdus.insert(deauth, moved);
        let mut d = decryptor();
        let after = outputs(&mut d, &mpdus).len();
        let stats = d.stats();
        let dropped = u64::from(!pmf);
        // With 802.11w the protected Deauthentication at the end of the capture ends a link.
        assert_eq!((stats.links_ended, stats.after_link_ended), (1, dropped), "pmf {pmf}");
        assert_eq!(after as u64, before as u64 - dropped, "pmf {pmf}");
        // The new handshake keyed the link again: nothing else lost.
        assert_eq!((stats.no_key, stats.bad_integrity, stats.replays), (0, 0, 0));
    }
}

#[test]
fn another_ssid_is_left_alone() {
    let (mpdus, _) = capture(CipherSuite::Ccmp128);
    let mut d = Decryptor::new(keys(CipherSuite::Ccmp128), Some(b"other"), None, OutputForm::Ethernet).unwrap();
    assert!(outputs(&mut d, &mpdus).is_empty());
}

/// A data frame seen before its network's beacon (the SSID not yet known) is taken; once
/// the beacon tells another SSID, the network's frames are left alone (what the decryptor
/// remembers of the last SSID check is forgotten at the beacon).
#[test]
fn an_ssid_told_after_the_first_data_frame_still_filters() {
    let (mpdus, _) = capture(CipherSuite::Ccmp128);
    let is_protected_data = |m: &&Vec<u8>| (m[0] >> 2) & 3 == 2 && m[1] & 0x40 != 0;
    let early = mpdus.iter().find(is_protected_data).unwrap().clone();
    let stats_of = |mpdus: &[Vec<u8>]| {
        let mut d = Decryptor::new(keys(CipherSuite::Ccmp128), Some(b"other"), None, OutputForm::Ethernet).unwrap();
        assert!(outputs(&mut d, mpdus).is_empty());
        d.stats()
    };
    let as_captured = stats_of(&mpdus);
    let with_early = stats_of(&[vec![early], mpdus.clone()].concat());
    assert!(as_captured.other_network > 0);
    assert_eq!(with_early.other_network, as_captured.other_network);
    assert_eq!((with_early.wpa_data, with_early.no_key), (as_captured.wpa_data + 1, as_captured.no_key + 1));
}

/// Flip, truncate and drop bytes of every frame at random: no panic, and whatever comes
/// out is one of the frames that went in (integrity checks catch every change; WEP's only
/// in the body, its MAC header is not protected).
#[test]
fn damaged_captures_never_panic_or_output_a_frame_not_sent() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for cipher in SUITES {
        let (mpdus, frames) = capture(cipher);
        for _ in 0..3 {
            let damaged: Vec<Vec<u8>> = mpdus
                .iter()
                .map(|m| {
                    let mut m = m.clone();
                    match rng.next_u32() % 8 {
                        0 => {
                            // WEP does not protect the MAC header: damage only its body.
                            let protected_from = if matches!(cipher, CipherSuite::Wep40 | CipherSuite::Wep104) {
                                32.min(m.len() - 1)
                            } else {
                                0
                            };
                            let i = protected_from + rng.next_u32() as usize % (m.len() - protected_from);
                            m[i] ^= 1 << (rng.next_u32() % 8);
                        }
                        1 => m.truncate(rng.next_u32() as usize % m.len()),
                        _ => {}
                    }
                    m
                })
                .collect();
            for f in decrypt_all(cipher, &damaged) {
                assert!(frames.contains(&f), "{cipher:?}: a frame that was never sent came out");
            }
        }
    }
}

/// Batched decryption (engine lanes for CCMP-128) gives the same frames and counts as one
/// frame at a time, damaged frames included.
#[test]
fn batches_agree_with_one_frame_at_a_time() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for cipher in SUITES {
        let (mut mpdus, _) = capture(cipher);
        for m in mpdus.iter_mut().skip(40).step_by(17) {
            let i = m.len() - 1 - rng.next_u32() as usize % 8;
            m[i] ^= 0x40;
        }
        let mut one = Decryptor::new(keys(cipher), Some(SSID), None, OutputForm::Ethernet).unwrap();
        let singles = outputs(&mut one, &mpdus);
        let mut many = Decryptor::new(keys(cipher), Some(SSID), None, OutputForm::Ethernet).unwrap();
        let mut batched = Vec::new();
        for window in mpdus.chunks(29) {
            let refs: Vec<&[u8]> = window.iter().map(Vec::as_slice).collect();
            many.process_batch(&refs, |_, f| -> Result<(), ()> {
                batched.push(f.to_vec());
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(batched, singles, "{cipher:?}");
        assert_eq!(many.stats(), one.stats(), "{cipher:?}");
        assert_eq!(many.links(), one.links(), "{cipher:?}");
    }
}

/// An IBSS pair on the air: two interleaved 4-way handshakes (each station authenticator
/// of one, with its own GTK), then unicast both ways under the PTK of the handshake whose
/// authenticator has the larger address, and each station's broadcasts under its GTK.
/// Returns (the MPDUs on the air, the Ethernet frames carried).
fn ibss_capture(cipher: CipherSuite) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    use std::collections::VecDeque;
    use wlansec_core::registry::SuiteId;
    use wlansec_core::rsn::element::ElementKind;
    use wlansec_core::rsn::{Akm, Authenticator, Event, Params, RsnElementRepr, Supplicant};
    use wlansec_core::suite::tkip::{Role, Tkip};
    use wlansec_core::suite::{FrameSuite, Transmitter};
    use wlansec_core::wire::{llc, FrameControl, FrameType, HeaderRepr, MacAddr, Rules, SequenceControl};

    let mut rng = ChaCha8Rng::seed_from_u64(11);
    // Station 1 has the larger address, so its handshake keys the pair.
    let macs = [MacAddr([2, 0, 0, 0, 0, 9]), MacAddr([2, 0, 0, 0, 0, 3])];
    let bssid = MacAddr([2, 0, 0, 0, 0, 0xfe]);
    let pmk = pmk_from_passphrase(PASSPHRASE, SSID).unwrap();
    let rsne = RsnElementRepr::personal(cipher, cipher, Akm::Psk).to_bytes(ElementKind::Rsn).unwrap();
    let gtks: Vec<Secret> = (0..2)
        .map(|_| {
            let mut gtk = vec![0u8; if cipher == CipherSuite::Tkip { 32 } else { 16 }];
            rng.fill_bytes(&mut gtk);
            Secret::from_slice(&gtk).unwrap()
        })
        .collect();
    let params = |a: usize| Params {
        akm: Akm::Psk,
        pairwise: cipher,
        group: cipher,
        aa: macs[a],
        spa: macs[1 - a],
        ap_rsne: rsne.clone(),
        sta_rsne: rsne.clone(),
    };
    let mut auths: Vec<Authenticator> =
        (0..2).map(|a| Authenticator::new(params(a), pmk.clone(), 1, gtks[a].clone()).unwrap()).collect();
    let mut supps: Vec<Supplicant> = (0..2).map(|a| Supplicant::new(params(a), pmk.clone()).unwrap()).collect();

    let mut air = Vec::new();
    let mut sequence = [0u16; 2];
    let mut on_air = |from: usize, da: MacAddr, msdu: &[u8], tx: Option<&mut Transmitter<Box<dyn FrameSuite>>>| {
        let header = HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, 0),
            duration: 0,
            addr1: da,
            addr2: macs[from],
            addr3: bssid,
            sequence_control: SequenceControl::new(sequence[from], 0),
            addr4: None,
            qos_control: None,
            ht_control: None,
        };
        sequence[from] += 1;
        let mut mpdu = vec![0u8; header.header_len() + msdu.len() + 32];
        header.emit(&mut mpdu, Rules::default()).unwrap();
        mpdu[header.header_len()..][..msdu.len()].copy_from_slice(msdu);
        let len = match tx {
            Some(tx) => tx.protect(&mut mpdu, header.header_len() + msdu.len()).unwrap(),
            None => header.header_len() + msdu.len(),
        };
        mpdu.truncate(len);
        air.push(mpdu);
    };

    // Handshake `a` has station `a` as authenticator; its messages alternate with the
    // other handshake's, as two stations starting at once send them.
    let mut queue: VecDeque<(usize, bool, Vec<u8>)> = VecDeque::new();
    for (a, auth) in auths.iter_mut().enumerate() {
        for event in auth.start(&mut rng).unwrap() {
            if let Event::Send(eapol) = event {
                queue.push_back((a, true, eapol));
            }
        }
    }
    while let Some((a, from_authenticator, eapol)) = queue.pop_front() {
        let sender = if from_authenticator { a } else { 1 - a };
        let mut msdu = vec![0u8; llc::SNAP_HEADER_LEN];
        llc::emit_snap(0x888e, &mut msdu).unwrap();
        msdu.extend_from_slice(&eapol);
        on_air(sender, macs[1 - sender], &msdu, None);
        let events = if from_authenticator {
            supps[a].receive(&eapol, &mut rng).unwrap()
        } else {
            auths[a].receive(&eapol).unwrap()
        };
        for event in events {
            if let Event::Send(reply) = event {
                queue.push_back((a, !from_authenticator, reply));
            }
        }
    }
    let tk = auths[0].ptk().expect("handshake 0 completed").tk.clone();
    assert!(auths[1].ptk().is_some());
    assert_ne!(auths[1].ptk().unwrap().tk, tk, "the two handshakes give different keys");

    let suite = |key: &Secret, role: Option<Role>| -> Box<dyn FrameSuite> {
        match (cipher, role) {
            (CipherSuite::Tkip, Some(role)) => Box::new(Tkip::new(key.as_bytes()).unwrap().with_role(role)),
            _ => SuiteId::from_cipher(cipher).unwrap().keyed(key.as_bytes(), Rules::default()).unwrap(),
        }
    };
    let mut unicast: Vec<_> = [Role::Authenticator, Role::Supplicant]
        .into_iter()
        .map(|role| Transmitter::new(suite(&tk, Some(role)), 0))
        .collect();
    let mut group: Vec<_> = gtks.iter().map(|gtk| Transmitter::new(suite(gtk, None), 1)).collect();
    let mut frames = Vec::new();
    for n in 0..40usize {
        let from = n % 2;
        let da = if n % 5 == 4 { MacAddr::BROADCAST } else { macs[1 - from] };
        let mut ethernet = da.0.to_vec();
        ethernet.extend_from_slice(&macs[from].0);
        ethernet.extend_from_slice(&[0x08, 0x00]);
        ethernet.extend((0..60 + n).map(|_| rng.next_u32() as u8));
        let mut msdu = vec![0u8; ethernet.len()];
        let (_, len) = llc::ethernet_to_msdu(&ethernet, &mut msdu).unwrap();
        let tx = if da == MacAddr::BROADCAST { &mut group[from] } else { &mut unicast[from] };
        on_air(from, da, &msdu[..len], Some(tx));
        frames.push(ethernet);
    }
    (air, frames)
}

#[test]
fn ibss_pairs_decrypt_both_ways_and_each_stations_group_frames() {
    for cipher in [CipherSuite::Ccmp128, CipherSuite::Tkip] {
        let (mpdus, frames) = ibss_capture(cipher);
        let mut d = Decryptor::new(keys(cipher), Some(SSID), None, OutputForm::Ethernet).unwrap();
        let out = outputs(&mut d, &mpdus);
        assert_eq!(out, frames, "{cipher:?}");
        let stats = d.stats();
        assert_eq!((stats.handshakes, stats.group_keys, stats.bad_integrity), (2, 2, 0), "{cipher:?}");
    }
}
