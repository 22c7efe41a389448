//! Attacks on the capture decryptor's state, not its bytes: a forged beacon after the
//! handshake, an old handshake replayed after a rekey (then its data frames), 802.1X
//! re-authentications under several PMKs, floods of stations that would fill memory; and a
//! sequence property test mixing genuine, replayed, forged and garbage frames. Each defence
//! named here was seen to make its test fail when switched off.

use proptest::prelude::*;
use wlansec_core::decrypt::{Decryptor, Keys, OutputForm};
use wlansec_core::rsn::element::ElementKind;
use wlansec_core::rsn::{pmk_from_passphrase, Akm, CipherSuite, Pmk, RsnElementRepr};
use wlansec_core::synth::{generated_traffic, Config, Synth};
use wlansec_core::wire::mgmt::{capability, BeaconRepr, Elements, ElementsBuilder, ManagementBody};
use wlansec_core::wire::{MacAddr, SequenceControl};

const SSID: &[u8] = b"wlansec-test";
const PASSPHRASE: &str = "correct horse battery";
const SNAP_EAPOL: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e];

/// The PMK of the test network's passphrase, given as it is (no SSID it proves).
fn pmk_keys() -> Keys {
    Keys::pmk(pmk_from_passphrase(PASSPHRASE, SSID).unwrap())
}

/// The same PMK from the passphrase and SSID (`-p` with `-e`): a handshake under it proves
/// the SSID.
fn passphrase_keys() -> Keys {
    let mut keys = Keys::default();
    keys.push_passphrase(PASSPHRASE, SSID).unwrap();
    keys
}

/// One station, reassociating halfway with a fresh handshake: (MPDUs, frames carried).
fn rekeyed_capture(seed: u64) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, MacAddr) {
    let config = Config { rekey: true, seed, ..Config::personal(SSID, PASSPHRASE, CipherSuite::Ccmp128) };
    let synth = Synth::new(config).unwrap();
    let bssid = synth.bssid();
    let frames = generated_traffic(120, &synth.station_macs(), seed);
    let mpdus = synth.run(&frames).unwrap().into_iter().map(|r| r.mpdu).collect();
    (mpdus, frames, bssid)
}

/// An unprotected data frame carrying EAPOL (a handshake message in the clear).
fn is_plain_eapol(mpdu: &[u8]) -> bool {
    mpdu[0] & 0x0c == 0x08 && mpdu[1] & 0x40 == 0 && mpdu.windows(8).any(|w| w == SNAP_EAPOL)
}

/// Where the plain EAPOL frames are: the 4-way handshakes, four each.
fn handshake_positions(mpdus: &[Vec<u8>]) -> Vec<usize> {
    (0..mpdus.len()).filter(|&i| is_plain_eapol(&mpdus[i])).collect()
}

/// Decrypt as the CLI does (windows of 64 through the engine batches); the frames written,
/// EAPOL left out.
fn decrypt(d: &mut Decryptor, mpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for window in mpdus.chunks(64) {
        let refs: Vec<&[u8]> = window.iter().map(Vec::as_slice).collect();
        d.process_batch(&refs, |_, f| -> Result<(), ()> {
            out.push(f.to_vec());
            Ok(())
        })
        .unwrap();
    }
    out.retain(|f| f[12..14] != [0x88, 0x8e]);
    out
}

/// A beacon of `bssid` announcing `ssid` and another network's RSN element (TKIP, SAE).
fn forged_beacon(bssid: MacAddr, ssid: &[u8]) -> Vec<u8> {
    let rsn = RsnElementRepr::personal(CipherSuite::Tkip, CipherSuite::Tkip, Akm::Sae).to_bytes(ElementKind::Rsn);
    let elements = ElementsBuilder::new().ssid(ssid).unwrap().encoded(&rsn.unwrap()).unwrap().build();
    let beacon = BeaconRepr {
        timestamp: 0,
        beacon_interval: 100,
        capability: capability::ESS | capability::PRIVACY,
        elements: Elements::new(&elements),
    };
    ManagementBody::Beacon(beacon).to_mpdu(MacAddr::BROADCAST, bssid, bssid, SequenceControl::new(0, 0)).unwrap()
}

// (a) Defence: a verified handshake fixes its BSS's SSID and suites.
#[test]
fn a_forged_beacon_after_the_handshake_changes_neither_ssid_nor_suites() {
    let (mut mpdus, frames, bssid) = rekeyed_capture(11);
    let after_first_handshake = handshake_positions(&mpdus)[3] + 1;
    mpdus.insert(after_first_handshake, forged_beacon(bssid, b"another network"));
    let mut d = Decryptor::new(pmk_keys(), Some(SSID), None, OutputForm::Ethernet).unwrap();
    let out = decrypt(&mut d, &mpdus);
    assert!(out == frames, "{} of {}, {:?}", out.len(), frames.len(), d.stats());
    assert_eq!(d.stats().other_network, 0);
}

// (a) Defence: the SSID a verified handshake proves is its PMK's (a passphrase's SSID).
#[test]
fn a_forged_beacon_before_the_handshake_loses_to_the_ssid_the_pmk_proves() {
    let (mut mpdus, frames, bssid) = rekeyed_capture(12);
    let first_message = handshake_positions(&mpdus)[0];
    mpdus.insert(first_message, forged_beacon(bssid, b"another network"));
    let mut d = Decryptor::new(passphrase_keys(), Some(SSID), None, OutputForm::Ethernet).unwrap();
    let out = decrypt(&mut d, &mpdus);
    assert!(out == frames, "{} of {}, {:?}", out.len(), frames.len(), d.stats());
}

/// The capture with, after the first frames under the second handshake's key, the first
/// handshake's messages 1 and 2 replayed verbatim and then every protected frame sent under
/// the first key.
fn with_old_handshake_replayed(mpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let h = handshake_positions(mpdus);
    assert_eq!(h.len(), 8, "two handshakes");
    let (first, second) = (&h[..4], &h[4..]);
    let old_data: Vec<Vec<u8>> = mpdus[first[3] + 1..second[0]].iter().filter(|m| m[1] & 0x40 != 0).cloned().collect();
    assert!(old_data.len() > 20);
    let at = second[3] + 10;
    let mut attacked = mpdus[..at].to_vec();
    attacked.push(mpdus[first[0]].clone());
    attacked.push(mpdus[first[1]].clone());
    attacked.extend(old_data);
    attacked.extend_from_slice(&mpdus[at..]);
    attacked
}

// (b) Defence: a key is replaced only by a fresh handshake (a TK new to the link, a Replay
// Counter above the last verified one); the live key and its counters stay.
#[test]
fn a_replayed_old_handshake_after_a_rekey_installs_nothing_and_old_frames_are_written_once() {
    let (mpdus, frames, _) = rekeyed_capture(13);
    let attacked = with_old_handshake_replayed(&mpdus);
    let mut d = Decryptor::new(pmk_keys(), Some(SSID), None, OutputForm::Ethernet).unwrap();
    let out = decrypt(&mut d, &attacked);
    assert!(out == frames, "every frame once, the live key kept: {} of {}, {:?}", out.len(), frames.len(), d.stats());
    assert_eq!(d.stats().replayed_handshakes, 1);
}

// (b) The same within one association: a PTK rekey (Extended Key ID off) followed by the
// replay; the retired key keeps its replay counters.
#[test]
fn a_replayed_handshake_within_the_association_reinstalls_no_key() {
    let (mpdus, frames, _) = reauthenticated_capture(14);
    let h = handshake_positions(&mpdus);
    let at = mpdus.len() - 30;
    let mut attacked = mpdus[..at].to_vec();
    attacked.push(mpdus[h[0]].clone());
    attacked.push(mpdus[h[1]].clone());
    // Every protected frame up to here again: none of them may be written twice.
    attacked.extend(mpdus[..at].iter().filter(|m| m[1] & 0x40 != 0).cloned());
    attacked.extend_from_slice(&mpdus[at..]);
    let mut d = Decryptor::new(reauth_keys(), None, None, OutputForm::Ethernet).unwrap();
    let out = decrypt(&mut d, &attacked);
    assert!(out == frames, "{} of {}, {:?}", out.len(), frames.len(), d.stats());
}

const REAUTH_PMKS: [[u8; 32]; 3] = [[0x11; 32], [0x22; 32], [0x33; 32]];

fn reauth_keys() -> Keys {
    Keys { pmks: REAUTH_PMKS.iter().map(|p| Pmk::from_bytes(p).unwrap()).collect(), ..Keys::default() }
}

/// An 802.1X network whose two stations re-authenticate twice (three PMKs), each with a
/// fresh 4-way handshake protected under the PTK before it.
fn reauthenticated_capture(seed: u64) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, MacAddr) {
    let config = Config {
        akm: Akm::Ieee8021x,
        pmk: Some(REAUTH_PMKS[0].to_vec()),
        stations: 2,
        seed,
        ..Config::personal(SSID, PASSPHRASE, CipherSuite::Ccmp128)
    };
    let synth = Synth::new(config).unwrap().with_reauthentications(&[REAUTH_PMKS[1].to_vec(), REAUTH_PMKS[2].to_vec()]);
    let synth = synth.unwrap();
    let bssid = synth.bssid();
    let frames = generated_traffic(600, &synth.station_macs(), seed);
    let mpdus = synth.run(&frames).unwrap().into_iter().map(|r| r.mpdu).collect();
    (mpdus, frames, bssid)
}

// (c) Defence: a frame of a batch opened under a key a later handshake of the same batch
// replaced is checked against its own key's replay counters (not the new key's), and frames
// still sent under the replaced key open under it.
#[test]
fn reauthentication_under_three_pmks_writes_every_frame() {
    let (mpdus, frames, _) = reauthenticated_capture(15);
    let mut d = Decryptor::new(reauth_keys(), None, None, OutputForm::Ethernet).unwrap();
    let out = decrypt(&mut d, &mpdus);
    let s = d.stats();
    assert_eq!(s.handshakes, 6, "two stations, three handshakes each");
    assert_eq!((s.replays, s.bad_integrity), (0, 0));
    assert!(out == frames, "{} of {}, {s:?}", out.len(), frames.len());
}

/// `mpdu` with its address `n` (1..=3) replaced by a distinct one per `i`.
fn readdressed(mpdu: &[u8], n: usize, i: u32) -> Vec<u8> {
    let mut m = mpdu.to_vec();
    let at = 4 + 6 * (n - 1);
    m[at..at + 6].copy_from_slice(&[0x02, 0xee, (i >> 24) as u8, (i >> 16) as u8, (i >> 8) as u8, i as u8]);
    m
}

// (d) Defence: at most a set number of links, handshakes, networks, group transmitters,
// per-station counts and MSDUs in reassembly, the least recently used evicted; at most a few
// messages 2 waiting per handshake.
#[test]
fn floods_of_stations_stay_within_the_bound() {
    const MAX: usize = 64;
    let (mpdus, _, _) = rekeyed_capture(16);
    let h = handshake_positions(&mpdus);
    let (m1, m2) = (&mpdus[h[0]], &mpdus[h[1]]);
    let protected = mpdus.iter().find(|m| m[0] & 0x0c == 0x08 && m[1] & 0x40 != 0 && m[1] & 0x01 != 0).unwrap();
    let beacon = &mpdus[0];
    // The data frame in the clear with More Fragments set: a first fragment to hold.
    let mut fragment = protected.clone();
    fragment[1] = (fragment[1] & !0x40) | 0x04;
    for keys in [pmk_keys(), Keys::tk(wlansec_core::rsn::Secret::from_slice(&[7; 16]).unwrap())] {
        let mut d = Decryptor::new(keys, None, None, OutputForm::Ethernet).unwrap().with_max_state(MAX);
        let mut flood: Vec<Vec<u8>> = Vec::new();
        for i in 0..2_000u32 {
            flood.push(readdressed(m1, 1, i)); // message 1 to station i
            flood.push(readdressed(m2, 2, i + 1_000_000)); // message 2 without message 1
            flood.push(readdressed(protected, 2, i + 2_000_000)); // garbage CCMP from station i
            flood.push(readdressed(&readdressed(beacon, 2, i), 3, i)); // a beacon of BSS i
            flood.push(m2.clone()); // the same message 2, again and again
            flood.push(readdressed(&fragment, 2, i + 3_000_000)); // a first fragment from station i
        }
        for window in flood.chunks(64) {
            decrypt(&mut d, window);
            let size = d.state_size();
            assert!(size.within(MAX + 64 * 2), "{size:?}");
            assert!(size.pending_m2 <= 4 * size.handshakes);
        }
        let e = d.stats().evicted;
        assert!(e.links > 0 && e.networks > 0 && e.stations > 0 && e.fragments > 0, "{e:?}");
        assert!(e.handshakes > 0 || d.stats().handshakes == 0, "{e:?}");
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// The next genuine frame.
    Genuine,
    /// A genuine data frame already sent, again.
    Replay(prop::sample::Index),
    /// A beacon of the BSS announcing another SSID.
    ForgedBeacon,
    /// The first handshake's messages 1 and 2 again.
    OldHandshake,
    /// A protected frame readdressed as from a new station.
    Garbage(u32),
    /// A handshake message 1 to a new station.
    NewStation(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => Just(Op::Genuine),
        3 => any::<prop::sample::Index>().prop_map(Op::Replay),
        1 => Just(Op::ForgedBeacon),
        1 => Just(Op::OldHandshake),
        2 => any::<u32>().prop_map(Op::Garbage),
        2 => any::<u32>().prop_map(Op::NewStation),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    // Invariants after every step: no frame written twice, only genuine frames written,
    // the live key never replaced by a replayed handshake (every genuine frame is written,
    // in order), the state within its bound.
    #[test]
    fn genuine_replayed_forged_and_garbage_frames_in_any_mix(ops in prop::collection::vec(op(), 50..400)) {
        const MAX: usize = 16;
        let (mpdus, frames, bssid) = rekeyed_capture(17);
        let h = handshake_positions(&mpdus);
        let protected = mpdus.iter().find(|m| m[1] & 0x40 != 0 && m[0] & 0x0c == 0x08).unwrap().clone();
        // The passphrase's SSID: a forged beacon before the first handshake loses to it.
        let d = Decryptor::new(passphrase_keys(), Some(SSID), None, OutputForm::Ethernet).unwrap();
        let mut d = d.with_max_state(MAX);
        let mut next = 0;
        let mut written: Vec<Vec<u8>> = Vec::new();
        let step = |d: &mut Decryptor, mpdu: &[u8], written: &mut Vec<Vec<u8>>| {
            written.extend(decrypt(d, &[mpdu.to_vec()]));
        };
        for op in ops.iter().map(Some).chain(std::iter::repeat_n(None, mpdus.len())) {
            match op {
                Some(Op::Genuine) | None if next < mpdus.len() => {
                    step(&mut d, &mpdus[next], &mut written);
                    next += 1;
                }
                None => break,
                Some(Op::Genuine) => {}
                // Data frames only: an unprotected Deauthentication replayed does end the link
                // of a network without 802.11w, as it does on the air.
                Some(Op::Replay(i)) if next > 0 && mpdus[i.index(next)][0] & 0x0c == 0x08 => {
                    step(&mut d, &mpdus[i.index(next)], &mut written)
                }
                Some(Op::Replay(_)) => {}
                Some(Op::ForgedBeacon) => step(&mut d, &forged_beacon(bssid, b"evil twin"), &mut written),
                Some(Op::OldHandshake) => {
                    step(&mut d, &mpdus[h[0]], &mut written);
                    step(&mut d, &mpdus[h[1]], &mut written);
                }
                Some(Op::Garbage(i)) => step(&mut d, &readdressed(&protected, 2, *i), &mut written),
                Some(Op::NewStation(i)) => step(&mut d, &readdressed(&mpdus[h[0]], 1, *i), &mut written),
            }
            let mut seen = written.clone();
            seen.sort();
            seen.dedup();
            prop_assert_eq!(seen.len(), written.len(), "a frame written twice");
            prop_assert!(written.iter().all(|w| frames.contains(w)), "a frame never sent written");
            prop_assert!(d.state_size().within(MAX + 1));
        }
        prop_assert!(written == frames, "{} of {} written, {:?}", written.len(), frames.len(), d.stats());
    }
}
