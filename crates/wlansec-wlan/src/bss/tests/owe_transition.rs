//! OWE transition mode: an open BSS and a hidden OWE BSS, each beacon naming the other in
//! its OWE Transition Mode element (here two access points on one air, as two BSSIDs of one
//! radio are on it). A station that can do OWE follows the open BSS's element to the OWE
//! BSS; one that cannot joins the open BSS; an OWE station never associates with an open
//! BSS, of the pair or a forger's.

use wlansec_core::rsn::element::owe::OweTransitionRepr;
use wlansec_core::wire::mgmt::ManagementBody;
use wlansec_core::wire::{Frame, MacAddr, Rules};

use super::group::air;
use super::*;
use crate::node::OweTransitionPeer;
use crate::pmf::Pmf;
use crate::security::{KeyManagement, OweSettings};

const OPEN_BSSID: MacAddr = AP;
const OWE_BSSID: MacAddr = MacAddr([0x02, 0x77, 0, 0, 0, 0xfd]);
const OWE_SSID: &str = "wlansec-owe";

/// The open BSS of the pair, or (`paired` false) a forger's open BSS of the same name.
fn open_bss(paired: bool) -> NetworkConfig {
    let owe_transition = paired.then(|| OweTransitionPeer { bssid: OWE_BSSID, ssid: OWE_SSID.into() });
    NetworkConfig { owe_transition, ..config("open", "") }
}

/// The hidden OWE BSS of the pair.
fn owe_bss() -> NetworkConfig {
    NetworkConfig {
        ssid: OWE_SSID.into(),
        bssid: OWE_BSSID,
        pmf: Pmf::Required,
        key_management: KeyManagement::Owe(OweSettings::default()),
        owe_transition: Some(OweTransitionPeer { bssid: OPEN_BSSID, ssid: "wlansec".into() }),
        ..config("ccmp", "")
    }
}

/// A station that can do OWE, told (as a user picks it from a scan) the open BSS.
fn owe_station() -> NetworkConfig {
    NetworkConfig {
        pmf: Pmf::Required,
        key_management: KeyManagement::Owe(OweSettings::default()),
        ..config("ccmp", "")
    }
}

/// Every access point beacons, then every station starts; frames go to every machine
/// until the air is quiet.
fn run_on_one_air(aps: &mut [AccessPoint], stas: &mut [Station]) {
    let mut now: Frames = aps.iter_mut().map(|ap| ap.beacon().unwrap()).collect();
    let mut out = Vec::new();
    for s in stas.iter_mut() {
        for beacon in &now {
            s.from_air(beacon, &mut out).unwrap();
        }
        s.start(&mut out).unwrap();
    }
    now = air(out);
    for _ in 0..64 {
        let mut next = Vec::new();
        for mpdu in now.drain(..) {
            let mut out = Vec::new();
            for ap in aps.iter_mut() {
                let _ = ap.from_air(&mpdu, &mut out);
            }
            for s in stas.iter_mut() {
                let _ = s.from_air(&mpdu, &mut out);
            }
            next.extend(air(out));
        }
        now = next;
    }
}

fn associated(ap: &AccessPoint) -> Vec<String> {
    ap.associations().into_iter().filter(|a| a.aid != 0).map(|a| a.mac).collect()
}

/// The SSID and OWE Transition Mode element of a beacon.
fn ssid_and_transition(beacon: &[u8]) -> (Vec<u8>, (MacAddr, Vec<u8>)) {
    let frame = Frame::new_checked(beacon, Rules::default()).unwrap();
    let Ok(ManagementBody::Beacon(body)) = ManagementBody::parse(frame.frame_control().subtype(), frame.body()) else {
        panic!("not a beacon")
    };
    let ssid = body.elements.find(0).unwrap().data().to_vec();
    let transition = body
        .elements
        .iter()
        .map_while(core::result::Result::ok)
        .find_map(|e| OweTransitionRepr::parse(e.as_bytes()).ok().map(|t| (t.bssid, t.ssid.to_vec())))
        .expect("an OWE Transition Mode element");
    (ssid, transition)
}

#[test]
fn owe_stations_join_the_hidden_owe_bss_of_a_transition_pair_and_open_ones_the_open_bss() {
    let mut aps = [AccessPoint::new(open_bss(true)).unwrap(), AccessPoint::new(owe_bss()).unwrap()];
    // Each beacon names the other BSS; the OWE BSS's carries no SSID.
    let (open_ssid, to_owe) = ssid_and_transition(&aps[0].beacon().unwrap());
    assert_eq!((open_ssid, to_owe), (b"wlansec".to_vec(), (OWE_BSSID, OWE_SSID.as_bytes().to_vec())));
    let (owe_ssid, to_open) = ssid_and_transition(&aps[1].beacon().unwrap());
    assert_eq!((owe_ssid, to_open), (Vec::new(), (OPEN_BSSID, b"wlansec".to_vec())));
    let mut stas =
        [Station::new(owe_station(), sta_mac(1)).unwrap(), Station::new(open_bss(false), sta_mac(2)).unwrap()];
    run_on_one_air(&mut aps, &mut stas);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected), "{:?}", stas.each_ref().map(Station::state));
    assert_eq!(associated(&aps[0]), vec![sta_mac(2).to_string()], "the open BSS: the station without OWE");
    assert_eq!(associated(&aps[1]), vec![sta_mac(1).to_string()], "the OWE BSS: the OWE station");
    // The OWE station's frames are protected.
    let mut out = Vec::new();
    stas[0].from_host(&ethernet(OWE_BSSID, sta_mac(1), b"over the OWE BSS"), &mut out).unwrap();
    assert!(air(out).iter().all(|m| !m.windows(8).any(|w| w == b"over the")));
}

#[test]
fn an_owe_station_never_associates_with_an_open_bss() {
    // A forger's open BSS of the same name, without the element: not joined at all.
    let mut aps = [AccessPoint::new(open_bss(false)).unwrap()];
    let mut stas = [Station::new(owe_station(), sta_mac(1)).unwrap()];
    run_on_one_air(&mut aps, &mut stas);
    assert!(associated(&aps[0]).is_empty(), "associated with the open BSS");
    let StationState::Rejoining(why) = stas[0].state() else { panic!("{:?}", stas[0].state()) };
    assert!(why.contains("offers no OWE"), "{why}");
    // The pair's open BSS, its OWE BSS out of reach: followed, never joined.
    let mut aps = [AccessPoint::new(open_bss(true)).unwrap()];
    let mut stas = [Station::new(owe_station(), sta_mac(1)).unwrap()];
    run_on_one_air(&mut aps, &mut stas);
    assert!(associated(&aps[0]).is_empty(), "associated with the pair's open BSS");
}

#[test]
fn a_forged_open_beacon_naming_another_owe_bss_does_not_move_a_connected_station() {
    let mut aps = [AccessPoint::new(open_bss(true)).unwrap(), AccessPoint::new(owe_bss()).unwrap()];
    let mut stas = [Station::new(owe_station(), sta_mac(1)).unwrap()];
    run_on_one_air(&mut aps, &mut stas);
    assert_eq!(*stas[0].state(), StationState::Connected);
    // In the OWE BSS's name, no RSN element, an element naming the forger's BSS.
    let forger = MacAddr([0x02, 0x66, 0, 0, 0, 1]);
    let forged = NetworkConfig {
        bssid: OWE_BSSID,
        owe_transition: Some(OweTransitionPeer { bssid: forger, ssid: "elsewhere".into() }),
        ..config("open", "")
    };
    let mut out = Vec::new();
    let beacon = crate::node::beacon(&forged, wlansec_core::wire::mgmt::capability::ESS, OWE_BSSID, Default::default());
    stas[0].from_air(&beacon.unwrap(), &mut out).unwrap();
    assert!(out.is_empty() && *stas[0].state() == StationState::Connected);
    let mut out = Vec::new();
    stas[0].from_host(&ethernet(OWE_BSSID, sta_mac(1), b"still here"), &mut out).unwrap();
    let mut delivered = Vec::new();
    for mpdu in air(out) {
        aps[1].from_air(&mpdu, &mut delivered).unwrap();
    }
    assert!(delivered.iter().any(|o| matches!(o, Output::Ethernet(_))), "the link still carries frames");
}
