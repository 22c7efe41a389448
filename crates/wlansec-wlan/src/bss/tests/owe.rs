//! OWE on the emulated access point and stations: stations join an open network by OWE
//! (the Diffie-Hellman Parameter elements in the association) and pass data under their
//! own PMKs; a request whose element is of a group not offered (status 77) or whose public
//! key is no point on the curve (status 1) is refused, and nothing associates.

use wlansec_core::rsn::element::owe::DhParameterRepr;
use wlansec_core::rsn::element::rsn_capabilities;
use wlansec_core::rsn::owe::OweStation;
use wlansec_core::rsn::sae::Group;
use wlansec_core::rsn::{Akm, RsnElementRepr};
use wlansec_core::wire::mgmt::{Elements, ManagementBody};
use wlansec_core::wire::{Frame, Rules};

use super::group::air;
use super::*;
use crate::node::{elements, fresh_rng};
use crate::pmf::Pmf;
use crate::security::{owe_dh_element, KeyManagement, OweSettings};

fn owe_network() -> NetworkConfig {
    NetworkConfig {
        pmf: Pmf::Required,
        key_management: KeyManagement::Owe(OweSettings::default()),
        ..config("ccmp", "")
    }
}

/// The management body of an MPDU, with what to do with it.
fn association_frames(mpdu: &[u8], seen: &mut Vec<(u8, Vec<u8>)>) {
    let Ok(frame) = Frame::new_checked(mpdu, Rules::default()) else { return };
    let subtype = frame.frame_control().subtype();
    match ManagementBody::parse(subtype, frame.body()) {
        Ok(ManagementBody::AssociationRequest(r)) => seen.push((subtype, r.elements.as_bytes().to_vec())),
        Ok(ManagementBody::AssociationResponse(r)) => seen.push((subtype, r.elements.as_bytes().to_vec())),
        _ => {}
    }
}

#[test]
fn two_stations_join_by_owe_each_with_its_own_pmk_and_pass_data() {
    let ap = AccessPoint::new(owe_network()).unwrap().with_pmk_log();
    let (mut ap, mut stas) = join_ap(ap, owe_network(), Defences::ALL);
    let states: Vec<_> = stas.iter().map(|s| s.state().clone()).collect();
    assert!(states.iter().all(|s| *s == StationState::Connected), "{states:?}");
    let frame = ethernet(sta_mac(2), sta_mac(1), b"over an OWE link");
    let (_, hosts, air) = send(&mut ap, &mut stas, 0, &frame);
    assert!(!air[0].windows(8).any(|w| w == b"over an "), "sent in the clear");
    assert_eq!(hosts[1], vec![frame]);
    let logged = ap.take_pmks();
    assert_eq!(logged.len(), 2);
    assert!(logged.iter().all(|p| p.akm == Akm::Owe && p.pmk.as_bytes().len() == 32));
    assert_ne!(logged[0].pmk.as_bytes(), logged[1].pmk.as_bytes());
}

#[test]
fn an_owe_association_carries_akm_18_pmf_required_and_both_dh_elements() {
    let mut ap = AccessPoint::new(owe_network()).unwrap();
    let mut stas = [Station::new(owe_network(), sta_mac(1)).unwrap()];
    let mut out = Vec::new();
    stas[0].start(&mut out).unwrap();
    let (mut air_now, mut seen) = (air(out), Vec::new());
    for _ in 0..16 {
        let mut next = Vec::new();
        for mpdu in air_now.drain(..) {
            association_frames(&mpdu, &mut seen);
            let mut out = Vec::new();
            let _ = ap.from_air(&mpdu, &mut out);
            let _ = stas[0].from_air(&mpdu, &mut out);
            next.extend(air(out));
        }
        air_now = next;
    }
    assert_eq!(*stas[0].state(), StationState::Connected);
    let [(0, request), (1, response)] = &seen[..] else { panic!("{seen:?}") };
    let rsne = Elements::new(request).rsn().expect("an RSN element").to_vec();
    let (_, rsne) = RsnElementRepr::parse(&rsne).unwrap();
    assert_eq!(rsne.akms, vec![Akm::Owe]);
    assert_ne!(rsne.capabilities & rsn_capabilities::MFPR, 0);
    for elements in [request, response] {
        let element = owe_dh_element(&Elements::new(elements)).expect("a DH Parameter element");
        let dh = DhParameterRepr::parse(element).unwrap();
        assert_eq!((dh.group, dh.public_key.len()), (19, 32));
    }
}

/// An association request from station 1 carrying the DH Parameter element `dh`; the
/// access point's answer's status.
fn associate_with(ap: &mut AccessPoint, dh: &[u8]) -> u16 {
    let rsne = owe_network().rsn_element().unwrap();
    let mut body = elements("wlansec", rsne.as_deref()).unwrap();
    body.extend_from_slice(dh);
    association_status(ap, &body)
}

#[test]
fn an_invalid_owe_dh_element_is_refused_with_its_status_and_nothing_associates() {
    let mut ap = AccessPoint::new(owe_network()).unwrap();
    // Group 20 where only 19 is offered: status 77, the station may try another.
    let p384 = OweStation::new(Group::P384, &mut fresh_rng()).request_element();
    assert_eq!(associate_with(&mut ap, &p384), 77);
    // An x-coordinate past the field's prime, and one with no point on the curve (x = 1
    // gives no square on P-256): status 1.
    let mut not_on_curve = [0u8; 32];
    not_on_curve[31] = 1;
    for x in [[0xff; 32], not_on_curve] {
        let dh = DhParameterRepr { group: 19, public_key: &x }.to_bytes().unwrap();
        assert_eq!(associate_with(&mut ap, &dh), 1, "{x:02x?}");
    }
    // No element at all: the AKM's key exchange is missing (status 43).
    assert_eq!(associate_with(&mut ap, &[]), 43);
    assert!(ap.associations().iter().all(|a| a.aid == 0), "{:?}", ap.associations());
    assert_eq!(ap.counters.refused_owe, 3);
    // A valid element from the same station is then accepted.
    let p256 = OweStation::new(Group::P256, &mut fresh_rng()).request_element();
    assert_eq!(associate_with(&mut ap, &p256), 0);
}

#[test]
fn an_owe_network_without_pmf_required_is_refused() {
    for pmf in [Pmf::Off, Pmf::Optional] {
        let config = NetworkConfig { pmf, ..owe_network() };
        assert!(matches!(AccessPoint::new(config.clone()), Err(crate::Error::OweWithoutPmf)), "{pmf}");
        assert!(matches!(Station::new(config, sta_mac(1)), Err(crate::Error::OweWithoutPmf)), "{pmf}");
    }
}

fn owe_groups(groups: &[Group]) -> NetworkConfig {
    NetworkConfig { key_management: KeyManagement::Owe(OweSettings { groups: groups.to_vec() }), ..owe_network() }
}

/// Start `sta` (after `ap`'s beacon) and run, the clock ticking whenever the air is quiet
/// (an old protected link ends by an SA Query), until it connects or gives up: the
/// association requests' and responses' elements.
fn start_and_watch(ap: &mut AccessPoint, sta: &mut Station) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    sta.from_air(&ap.beacon().unwrap(), &mut out).unwrap();
    sta.start(&mut out).unwrap();
    let (mut air_now, mut seen) = (air(out), Vec::new());
    for _ in 0..64 {
        if air_now.is_empty() {
            if *sta.state() == StationState::Connected || matches!(sta.state(), StationState::Rejoining(_)) {
                break;
            }
            let mut out = Vec::new();
            ap.tick(&mut out).unwrap();
            sta.tick(&mut out).unwrap();
            air_now = air(out);
        }
        let mut next = Vec::new();
        for mpdu in air_now.drain(..) {
            association_frames(&mpdu, &mut seen);
            let mut out = Vec::new();
            let _ = ap.from_air(&mpdu, &mut out);
            let _ = sta.from_air(&mpdu, &mut out);
            next.extend(air(out));
        }
        air_now = next;
    }
    seen
}

#[test]
fn an_owe_station_refused_with_status_77_asks_again_on_its_next_group() {
    let mut ap = AccessPoint::new(owe_groups(&[Group::P384])).unwrap().with_pmk_log();
    let mut sta = Station::new(owe_groups(&[Group::P256, Group::P384]), sta_mac(1)).unwrap();
    let seen = start_and_watch(&mut ap, &mut sta);
    assert_eq!(*sta.state(), StationState::Connected);
    let groups: Vec<_> = seen
        .iter()
        .filter(|(subtype, _)| *subtype == 0)
        .map(|(_, e)| DhParameterRepr::parse(owe_dh_element(&Elements::new(e)).unwrap()).unwrap().group)
        .collect();
    assert_eq!(groups, vec![19, 20]);
    let logged = ap.take_pmks();
    assert_eq!((logged.len(), logged[0].pmk.as_bytes().len()), (1, 48), "a group 20 PMK (SHA-384)");
    // A station none of whose groups the access point takes says so.
    let mut sta = Station::new(owe_groups(&[Group::P256, Group::P521]), sta_mac(2)).unwrap();
    start_and_watch(&mut ap, &mut sta);
    let StationState::Rejoining(why) = sta.state() else { panic!("{:?}", sta.state()) };
    assert!(why.contains("refused every configured group"), "{why}");
}

#[test]
fn an_owe_station_joins_again_by_its_pmksa_without_a_diffie_hellman() {
    let mut ap = AccessPoint::new(owe_network()).unwrap().with_pmk_log();
    let mut sta = Station::new(owe_network(), sta_mac(1)).unwrap();
    start_and_watch(&mut ap, &mut sta);
    assert_eq!(*sta.state(), StationState::Connected);
    let first = ap.take_pmks();
    // Again: the request names the PMKID (beside a fresh element, in case the access point
    // forgot), and the answer carries no element: no Diffie-Hellman, no new PMK.
    let seen = start_and_watch(&mut ap, &mut sta);
    assert_eq!(*sta.state(), StationState::Connected);
    // The first request met the old link (refused until an SA Query ended it).
    let [.., (0, request), (1, response)] = &seen[..] else { panic!("{seen:?}") };
    let (_, rsne) = RsnElementRepr::parse(Elements::new(request).rsn().unwrap()).unwrap();
    assert_eq!(rsne.pmkids, vec![first[0].pmkid]);
    assert!(owe_dh_element(&Elements::new(request)).is_some());
    assert!(owe_dh_element(&Elements::new(response)).is_none(), "the cached PMKSA");
    assert!(ap.take_pmks().is_empty());
    let frame = ethernet(AP, sta_mac(1), b"under the cached PMK");
    let mut out = Vec::new();
    sta.from_host(&frame, &mut out).unwrap();
    let mut host = Vec::new();
    for mpdu in air(out) {
        let mut from_ap = Vec::new();
        ap.from_air(&mpdu, &mut from_ap).unwrap();
        host.extend(from_ap.into_iter().filter_map(|o| if let Output::Ethernet(e) = o { Some(e) } else { None }));
    }
    assert_eq!(host, vec![frame]);
    // An access point that forgot the PMKSA answers the fresh element.
    let mut forgetful = AccessPoint::new(owe_network()).unwrap().with_pmk_log();
    let seen = start_and_watch(&mut forgetful, &mut sta);
    assert_eq!(*sta.state(), StationState::Connected);
    assert!(owe_dh_element(&Elements::new(&seen.last().unwrap().1)).is_some());
    assert_eq!(forgetful.take_pmks().len(), 1);
}

/// An association request is not proof of anything under OWE: whoever sends one in a
/// station's name gets a Diffie-Hellman answer. The PMKSA is cached only once the 4-way
/// handshake shows the station holds its PMK, so an outsider's requests (or a flood of
/// them under many addresses) neither replace a station's cached PMKSA nor fill the
/// bounded cache and evict it.
#[test]
fn an_owe_pmksa_is_cached_only_once_the_4_way_handshake_completes() {
    let mut ap = AccessPoint::new(owe_network()).unwrap();
    let p256 = OweStation::new(Group::P256, &mut fresh_rng()).request_element();
    assert_eq!(associate_with(&mut ap, &p256), 0);
    assert_eq!(ap.owe_pmksas(), 0, "an association request alone cached a PMKSA");
    let mut sta = Station::new(owe_network(), sta_mac(1)).unwrap();
    start_and_watch(&mut ap, &mut sta);
    assert_eq!(*sta.state(), StationState::Connected);
    assert_eq!(ap.owe_pmksas(), 1);
}
