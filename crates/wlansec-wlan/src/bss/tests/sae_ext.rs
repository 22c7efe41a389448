//! GCMP-256 and SAE-EXT-KEY (AKM 24) on the emulated access point and stations: stations
//! of a WPA2-PSK GCMP-256 network and of an SAE-EXT-KEY network join and pass data; the
//! SAE-EXT-KEY association names AKM 24, GCMP-256 as pairwise and group cipher and
//! BIP-GMAC-256 as group management cipher, its EAPOL-Key frames are of key descriptor
//! version 0 with the MIC of the group's hash (24 octets on group 20) and its PMK is one
//! hash long; a wrong password fails; a GCMP frame with a bad tag and a replayed one are
//! dropped and counted (an open network takes both); beacons carry a BIP-GMAC-256 MME and a
//! forged one changes nothing (without beacon protection it moves the station).

use wlansec_core::rsn::eapol::EapolKey;
use wlansec_core::rsn::element::rsn_capabilities;
use wlansec_core::rsn::{Akm, CipherSuite, RsnElementRepr};
use wlansec_core::wire::mgmt::{BeaconRepr, Elements, ElementsBuilder, ManagementBody, MmeRepr};
use wlansec_core::wire::{Frame, Rules};

use super::group::air;
use super::*;
use crate::pmf::Pmf;
use crate::security::{SaePwe, Security, SecurityMode};

const PASS: &str = "correct horse";
/// The LLC/SNAP header of an EAPOL frame.
const EAPOL_SNAP: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e];
/// Octets of a QoS data header without addresses 4 (the emulator's data frames).
const QOS_HEADER_LEN: usize = 26;

/// An SAE-EXT-KEY network on `groups` (none: the default, 19 then 20) with `password`, as
/// `--security sae-ext` makes it.
fn sae_ext_network(groups: &[u16], password: &str, beacon_protection: bool) -> NetworkConfig {
    let security: Security = "sae-ext".parse().unwrap();
    NetworkConfig {
        pmf: Pmf::Required,
        beacon_protection,
        key_management: security.key_management(SaePwe::HashToElement, groups).unwrap(),
        ..config("gcmp256", password)
    }
}

/// Join `ap` and two stations of `sta`, recording every frame on the air.
fn join_recorded(mut ap: AccessPoint, sta: NetworkConfig) -> (AccessPoint, Vec<Station>, Frames) {
    let mut stas: Vec<Station> = (1..=2).map(|i| Station::new(sta.clone(), sta_mac(i)).unwrap()).collect();
    let mut out = Vec::new();
    for s in stas.iter_mut() {
        s.start(&mut out).unwrap();
    }
    let mut now = vec![ap.beacon().unwrap()];
    now.extend(air(out));
    let mut seen = Vec::new();
    for _ in 0..64 {
        let mut next = Vec::new();
        for mpdu in now.drain(..) {
            let mut out = Vec::new();
            let _ = ap.from_air(&mpdu, &mut out);
            for s in stas.iter_mut() {
                let _ = s.from_air(&mpdu, &mut out);
            }
            next.extend(air(out));
            seen.push(mpdu);
        }
        now = next;
    }
    (ap, stas, seen)
}

fn connected(stas: &[Station]) -> bool {
    stas.iter().all(|s| *s.state() == StationState::Connected)
}

/// Station 1 reaches station 2 through the access point, unicast and broadcast, and the
/// air never shows the payload.
fn passes_data(ap: &mut AccessPoint, stas: &mut [Station]) {
    let unicast = ethernet(sta_mac(2), sta_mac(1), b"under GCMP-256, through the AP");
    let (_, hosts, on_air) = send(ap, stas, 0, &unicast);
    assert_eq!(hosts[1], vec![unicast]);
    assert!(!on_air[0].windows(8).any(|w| w == b"under GC"), "plaintext on the air");
    let group = ethernet(MacAddr::BROADCAST, sta_mac(1), b"who has 10.77.0.2?");
    let (ap_host, hosts, _) = send(ap, stas, 0, &group);
    assert_eq!((ap_host, hosts[1].clone()), (vec![group.clone()], vec![group]));
}

/// The EAPOL frames among `frames` (unprotected data frames with the EAPOL LLC/SNAP header).
fn eapol_frames(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    frames
        .iter()
        .filter(|m| m.get(QOS_HEADER_LEN..QOS_HEADER_LEN + 8) == Some(&EAPOL_SNAP[..]))
        .map(|m| m[QOS_HEADER_LEN + 8..].to_vec())
        .collect()
}

/// The RSN element of the first association request among `frames`.
fn association_rsne(frames: &[Vec<u8>]) -> RsnElementRepr {
    let rsne = frames
        .iter()
        .find_map(|mpdu| {
            let frame = Frame::new_checked(&mpdu[..], Rules::default()).ok()?;
            match ManagementBody::parse(frame.frame_control().subtype(), frame.body()).ok()? {
                ManagementBody::AssociationRequest(r) => r.elements.rsn().map(<[u8]>::to_vec),
                _ => None,
            }
        })
        .expect("an association request with an RSN element");
    RsnElementRepr::parse(&rsne).unwrap().1
}

#[test]
fn gcmp256_stations_join_by_psk_and_pass_data_with_and_without_pmf() {
    for pmf in [Pmf::Off, Pmf::Required] {
        let network = NetworkConfig { pmf, ..config("gcmp256", PASS) };
        let (mut ap, mut stas, seen) = join_recorded(AccessPoint::new(network.clone()).unwrap(), network);
        assert!(connected(&stas), "{pmf}");
        let rsne = association_rsne(&seen);
        assert_eq!(rsne.akms, vec![Akm::Psk]);
        assert_eq!(
            (rsne.pairwise_ciphers.clone(), rsne.group_cipher),
            (vec![CipherSuite::Gcmp256], CipherSuite::Gcmp256)
        );
        let bip = (pmf == Pmf::Required).then_some(CipherSuite::BipGmac256);
        assert_eq!(rsne.group_mgmt_cipher, bip, "{pmf}");
        // AKM 2 with a cipher other than TKIP: key descriptor version 2, a 16-octet MIC.
        for eapol in eapol_frames(&seen) {
            let key = EapolKey::new_checked(&eapol[..]).unwrap();
            assert_eq!(key.key_info().0 & 0x7, 2);
        }
        passes_data(&mut ap, &mut stas);
    }
}

#[test]
fn a_gcmp256_data_frame_is_a_gcmp_mpdu_with_a_24_octet_overhead() {
    let network = config("gcmp256", PASS);
    let (mut ap, mut stas) = join_with(network.clone(), network, Defences::ALL);
    let payload = b"sixteen octets!!";
    let frame = ethernet(AP, sta_mac(1), payload);
    let (ap_host, _, on_air) = send(&mut ap, &mut stas, 0, &frame);
    assert_eq!(ap_host, vec![frame]);
    let mpdu = &on_air[0];
    // QoS data header, the 8-octet GCMP header (Ext IV set), LLC/SNAP, payload, 16-octet MIC.
    assert_eq!(mpdu.len(), QOS_HEADER_LEN + 8 + 8 + payload.len() + 16);
    assert_eq!(SecurityMode::Gcmp256.overhead(), 8 + 16);
    assert_ne!(mpdu[QOS_HEADER_LEN + 3] & 0x20, 0, "Ext IV");
}

#[test]
fn sae_ext_stations_join_with_akm_24_gcmp_256_and_bip_gmac_256() {
    for (groups, mic_len, pmk_len) in [(&[20][..], 24, 48), (&[][..], 16, 32), (&[21][..], 32, 64)] {
        let network = sae_ext_network(groups, PASS, true);
        let ap = AccessPoint::new(network.clone()).unwrap().with_pmk_log();
        let (mut ap, mut stas, seen) = join_recorded(ap, network);
        assert!(connected(&stas), "{groups:?}");
        let rsne = association_rsne(&seen);
        assert_eq!(rsne.akms, vec![Akm::SaeExtKey]);
        assert_eq!(
            (rsne.pairwise_ciphers.clone(), rsne.group_cipher),
            (vec![CipherSuite::Gcmp256], CipherSuite::Gcmp256)
        );
        assert_eq!(rsne.group_mgmt_cipher, Some(CipherSuite::BipGmac256));
        assert_ne!(rsne.capabilities & rsn_capabilities::MFPR, 0);
        assert_eq!(rsne.pmkids.len(), 1);
        // Four EAPOL-Key frames per station, each of descriptor version 0 (AKM-defined) whose
        // Key MIC field is exactly the group's: the body ends where its Key Data does.
        let eapol = eapol_frames(&seen);
        assert!(eapol.len() >= 8, "{groups:?}: {} EAPOL frames", eapol.len());
        for frame in &eapol {
            let key = EapolKey::new_checked_with_mic_len(&frame[..], mic_len).unwrap();
            assert_eq!(key.key_info().0 & 0x7, 0, "{groups:?}");
            let body_len = usize::from(u16::from_be_bytes([frame[2], frame[3]]));
            let key_data_at = 4 + 77 + mic_len;
            let key_data_len = usize::from(u16::from_be_bytes([frame[key_data_at], frame[key_data_at + 1]]));
            assert_eq!(4 + body_len, key_data_at + 2 + key_data_len, "{groups:?}: a {mic_len}-octet MIC");
        }
        let pmks = ap.take_pmks();
        assert_eq!(pmks.len(), 2);
        assert!(pmks.iter().all(|p| p.akm == Akm::SaeExtKey && p.pmk.as_bytes().len() == pmk_len), "{groups:?}");
        passes_data(&mut ap, &mut stas);
    }
}

#[test]
fn sae_ext_by_hunting_and_pecking_alone_is_refused() {
    let security: Security = "sae-ext".parse().unwrap();
    assert_eq!((security.mode, security.to_string()), ("gcmp256".parse().unwrap(), "sae-ext".to_string()));
    assert!(matches!(security.key_management(SaePwe::HuntingAndPecking, &[]), Err(crate::Error::SaeExtKeyWithoutH2e)));
    let km = security.key_management(SaePwe::Both, &[]).unwrap();
    assert_eq!(km.akm(), Akm::SaeExtKey);
}

#[test]
fn a_wrong_sae_ext_password_fails_and_never_associates() {
    let (mut ap, mut stas) =
        join_with(sae_ext_network(&[20], PASS, true), sae_ext_network(&[20], "battery staple", true), Defences::ALL);
    assert!(ap.associations().iter().all(|a| a.aid == 0));
    assert!(ap.counters.refused_sae >= 2);
    assert!(stas.iter().all(|s| matches!(s.state(), StationState::Rejoining(why) if why.contains("SAE confirm"))));
    let frame = ethernet(sta_mac(2), sta_mac(1), b"data");
    let (ap_host, sta_host, on_air) = send(&mut ap, &mut stas, 0, &frame);
    assert!(on_air.is_empty() && ap_host.is_empty() && sta_host.iter().all(|h| h.is_empty()));
}

#[test]
fn a_gcmp_frame_with_a_bad_tag_or_replayed_is_dropped_and_counted() {
    for network in [config("gcmp256", PASS), sae_ext_network(&[20], PASS, true)] {
        let (mut ap, mut stas) = join_with(network.clone(), network, Defences::ALL);
        let frame = ethernet(AP, sta_mac(1), b"to the access point's host");
        let (ap_host, _, on_air) = send(&mut ap, &mut stas, 0, &frame);
        assert_eq!(ap_host.len(), 1);
        let mut out = Vec::new();
        let replayed = ap.from_air(&on_air[0], &mut out);
        assert!(matches!(replayed, Err(crate::Error::Frame(wlansec_core::Error::Replay { .. }))), "{replayed:?}");
        assert_eq!(ap.counters.dropped_replay, 1);
        let mut sent = Vec::new();
        stas[0].from_host(&frame, &mut sent).unwrap();
        let Some(Output::Air(mut tampered)) = sent.pop() else { panic!("nothing sent") };
        let n = tampered.len();
        tampered[n - 1] ^= 0x01; // the last octet of the GCMP tag
        assert!(ap.from_air(&tampered, &mut out).is_err());
        assert_eq!(ap.counters.dropped_integrity, 1);
        assert!(out.is_empty());
        assert_eq!(ap.counters.rx_msdus, 1);
    }
    // Unprotected, the same replay is taken twice: what the packet number check stops.
    let (mut ap, mut stas) = join("open", "");
    let frame = ethernet(AP, sta_mac(1), b"to the access point's host");
    let (_, _, on_air) = send(&mut ap, &mut stas, 0, &frame);
    let mut out = Vec::new();
    ap.from_air(&on_air[0], &mut out).unwrap();
    assert_eq!(ap.counters.rx_msdus, 2);
}

/// Octets of the MME of BIP-GMAC-256 (ID, Length, Key ID, IPN, 16-octet MIC).
const GMAC_MME_LEN: usize = MmeRepr::len_with_mic(16);

/// A beacon "from the access point" that announces a switch to channel 11, unsigned.
fn channel_switch_beacon() -> Vec<u8> {
    let elements = ElementsBuilder::new().ssid(b"wlansec").unwrap().element(37, &[1, 11, 3]).unwrap().build();
    let beacon =
        BeaconRepr { timestamp: 7, beacon_interval: 100, capability: 0x11, elements: Elements::new(&elements) };
    ManagementBody::Beacon(beacon).to_mpdu(MacAddr::BROADCAST, AP, AP, SequenceControl::new(3000, 0)).unwrap()
}

/// Hand `mpdu` to station 0 alone; its refused-beacon count after.
fn deliver(stas: &mut [Station], mpdu: &[u8]) -> u64 {
    let mut out = Vec::new();
    let _ = stas[0].from_air(mpdu, &mut out);
    stas[0].counters.refused_beacons
}

#[test]
fn sae_ext_beacons_carry_bip_gmac_256_and_a_forged_one_changes_nothing() {
    let (mut ap, mut stas) =
        join_with(sae_ext_network(&[20], PASS, true), sae_ext_network(&[20], PASS, true), Defences::ALL);
    assert!(connected(&stas));
    let beacon = ap.beacon().unwrap();
    let mme = &beacon[beacon.len() - GMAC_MME_LEN..];
    assert_eq!(&mme[..4], &[76, 24, 6, 0], "a BIP-GMAC-256 MME under Key ID 6");
    assert_eq!(deliver(&mut stas, &beacon), 0);
    let mut forged = ap.beacon().unwrap();
    forged[24 + 12 + 2] ^= 0x20;
    assert_eq!(deliver(&mut stas, &forged), 1, "a bad MIC");
    assert_eq!(deliver(&mut stas, &beacon), 2, "a replayed BIPN");
    assert_eq!(deliver(&mut stas, &channel_switch_beacon()), 3, "no MME");
    assert_eq!(stas[0].channel(), None, "a forged announcement moved the station");

    // Without beacon protection the forged channel switch moves the station.
    let (_, mut open_stas) =
        join_with(sae_ext_network(&[20], PASS, false), sae_ext_network(&[20], PASS, false), Defences::ALL);
    assert!(connected(&open_stas));
    deliver(&mut open_stas, &channel_switch_beacon());
    assert_eq!(open_stas[0].channel(), Some(11));
}

#[test]
fn beacon_protection_without_pmf_is_refused() {
    for (mode, pmf) in [("ccmp", Pmf::Off), ("gcmp256", Pmf::Off), ("tkip", Pmf::Optional)] {
        let network = NetworkConfig { pmf, beacon_protection: true, ..config(mode, PASS) };
        assert!(matches!(AccessPoint::new(network.clone()), Err(crate::Error::BeaconProtectionWithoutPmf)), "{mode}");
        assert!(matches!(Station::new(network, sta_mac(1)), Err(crate::Error::BeaconProtectionWithoutPmf)), "{mode}");
    }
}

#[test]
fn a_capture_of_sae_ext_on_group_20_decrypts_with_its_pmks() {
    use wlansec_core::decrypt::{Decryptor, Keys, OutputForm};
    let ap = AccessPoint::new(sae_ext_network(&[20], PASS, true)).unwrap().with_pmk_log();
    let (mut ap, mut stas, mut seen) = join_recorded(ap, sae_ext_network(&[20], PASS, true));
    let frame = ethernet(sta_mac(2), sta_mac(1), b"decrypted from the capture");
    let (_, _, on_air) = send(&mut ap, &mut stas, 0, &frame);
    seen.extend(on_air);
    // The PMKs alone: the commits' group (20) tells the decryptor SAE-EXT-KEY's hash.
    let keys = Keys { pmks: ap.take_pmks().into_iter().map(|p| p.pmk).collect(), ..Keys::default() };
    let mut decryptor = Decryptor::new(keys, None, None, OutputForm::Ethernet).unwrap();
    let mut out = Vec::new();
    for mpdu in &seen {
        let _ = decryptor.process(mpdu, |f| -> Result<(), ()> {
            out.push(f.to_vec());
            Ok(())
        });
    }
    assert!(out.contains(&frame), "{:?}", decryptor.stats());
}
