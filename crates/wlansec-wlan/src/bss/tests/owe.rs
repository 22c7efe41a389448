//! OWE on the emulated access point and stations: stations join an open network by OWE
//! (the Diffie-Hellman Parameter elements in the association) and pass data under their
//! own PMKs; a request whose element is of a group not offered (status 77) or whose public
//! key is no point on the curve (status 1) is refused, and nothing associates.

use wlansec_core::rsn::element::owe::DhParameterRepr;
use wlansec_core::rsn::element::rsn_capabilities;
use wlansec_core::rsn::owe::OweStation;
use wlansec_core::rsn::sae::Group;
use wlansec_core::rsn::{Akm, RsnElementRepr};
use wlansec_core::wire::mgmt::{capability, AssociationRequestRepr, Elements, ManagementBody};
use wlansec_core::wire::{Frame, Rules, SequenceControl};

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
    let request = AssociationRequestRepr {
        capability: capability::ESS,
        listen_interval: 10,
        current_ap: None,
        elements: Elements::new(&body),
    };
    let mpdu =
        ManagementBody::AssociationRequest(request).to_mpdu(AP, sta_mac(1), AP, SequenceControl::new(1, 0)).unwrap();
    let mut out = Vec::new();
    let _ = ap.from_air(&mpdu, &mut out);
    air(out)
        .iter()
        .find_map(|m| {
            let frame = Frame::new_checked(&m[..], Rules::default()).ok()?;
            match ManagementBody::parse(frame.frame_control().subtype(), frame.body()).ok()? {
                ManagementBody::AssociationResponse(r) => Some(r.status),
                _ => None,
            }
        })
        .expect("an association response")
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
