//! WPA3-Personal transition mode (the PSK's AKM 2 beside SAE's AKM 8 on one BSS): an SAE
//! station takes SAE with management frame protection, a PSK-only station the PSK; and the
//! downgrade defences: a beacon stripped of SAE (or of the RSNXE's hash-to-element) fails
//! the 4-way handshake on message 3's elements, Transition Disable keeps a station off the
//! PSK for good, a station configured for SAE alone never takes the PSK, and an SAE link
//! without management frame protection is refused by either side.

use wlansec_core::rsn::element::{rsn_capabilities, transition_disable};
use wlansec_core::rsn::{Akm, RsnElementRepr};
use wlansec_core::wire::mgmt::{capability, Elements, ManagementBody};
use wlansec_core::wire::{Frame, Rules, SequenceControl};

use super::group::air;
use super::*;
use crate::node::{beacon, elements};
use crate::pmf::Pmf;
use crate::security::{KeyManagement, SaePwe, SaeSettings};

const PASS: &str = "correct horse";

/// The transition network (hostapd `wpa_key_mgmt=WPA-PSK SAE`, `ieee80211w=1`), as its
/// access point and an SAE-capable station in transition mode configure it.
fn transition_network() -> NetworkConfig {
    NetworkConfig {
        pmf: Pmf::Optional,
        key_management: KeyManagement::Sae(SaeSettings::default()),
        sae_transition: true,
        ..config("ccmp", PASS)
    }
}

/// A station of WPA2-Personal only (`key_mgmt=WPA-PSK`, `ieee80211w=1`).
fn psk_station() -> NetworkConfig {
    NetworkConfig { pmf: Pmf::Optional, ..config("ccmp", PASS) }
}

/// A station configured for SAE alone (`key_mgmt=SAE`, `ieee80211w=2`).
fn sae_only(pwe: SaePwe) -> NetworkConfig {
    NetworkConfig {
        pmf: Pmf::Required,
        key_management: KeyManagement::Sae(SaeSettings { pwe, ..SaeSettings::default() }),
        ..config("ccmp", PASS)
    }
}

/// The beacon of `network` at the access point's address: a forger's, when it is not the
/// access point's own network.
fn beacon_of(network: &NetworkConfig) -> Vec<u8> {
    beacon(network, capability::ESS, AP, SequenceControl::new(0, 0)).unwrap()
}

/// `beacon` with its RSN element replaced by `rsne` (the rest, the RSNXE too, kept).
fn with_rsne(beacon: &[u8], rsne: &[u8]) -> Vec<u8> {
    let own = Elements::new(&beacon[BEACON_ELEMENTS..]).rsn().unwrap();
    let at = beacon.windows(own.len()).position(|w| w == own).unwrap();
    [&beacon[..at], rsne, &beacon[at + own.len()..]].concat()
}

/// Where a beacon's elements begin: after its header and fixed fields (timestamp, beacon
/// interval, capability).
const BEACON_ELEMENTS: usize = 24 + 12;

/// Hear `beacon` at every station, then start them all and run until the air is quiet;
/// the RSN element of every association request sent meanwhile.
fn join_after(ap: &mut AccessPoint, stas: &mut [Station], beacon: &[u8]) -> Vec<RsnElementRepr> {
    let mut out = Vec::new();
    for s in stas.iter_mut() {
        s.from_air(beacon, &mut out).unwrap();
        s.start(&mut out).unwrap();
    }
    let (mut now, mut requests) = (air(out), Vec::new());
    for _ in 0..32 {
        let mut next = Vec::new();
        for mpdu in now.drain(..) {
            let frame = Frame::new_checked(&mpdu[..], Rules::default()).unwrap();
            if let Ok(ManagementBody::AssociationRequest(r)) =
                ManagementBody::parse(frame.frame_control().subtype(), frame.body())
            {
                requests.extend(r.elements.rsn().map(|e| RsnElementRepr::parse(e).unwrap().1));
            }
            let mut out = Vec::new();
            let _ = ap.from_air(&mpdu, &mut out);
            for s in stas.iter_mut() {
                let _ = s.from_air(&mpdu, &mut out);
            }
            next.extend(air(out));
        }
        now = next;
    }
    requests
}

fn connected(stas: &[Station]) -> Vec<bool> {
    stas.iter().map(|s| *s.state() == StationState::Connected).collect()
}

#[test]
fn a_transition_network_takes_sae_stations_by_sae_with_pmf_and_psk_stations_by_the_psk() {
    let mut ap = AccessPoint::new(transition_network()).unwrap().with_pmk_log();
    let genuine = ap.beacon().unwrap();
    let (_, offered) = RsnElementRepr::parse(Elements::new(&genuine[BEACON_ELEMENTS..]).rsn().unwrap()).unwrap();
    assert_eq!(offered.akms, vec![Akm::Psk, Akm::Sae]);
    assert_eq!(offered.capabilities & (rsn_capabilities::MFPC | rsn_capabilities::MFPR), rsn_capabilities::MFPC);
    let mut stas =
        vec![Station::new(transition_network(), sta_mac(1)).unwrap(), Station::new(psk_station(), sta_mac(2)).unwrap()];
    let requests = join_after(&mut ap, &mut stas, &genuine);
    assert_eq!(connected(&stas), [true, true]);
    let akms: Vec<_> = requests.iter().map(|r| r.akms.clone()).collect();
    assert_eq!(akms, vec![vec![Akm::Sae], vec![Akm::Psk]]);
    assert_ne!(requests[0].capabilities & rsn_capabilities::MFPC, 0, "the SAE station offers PMF");
    // Only the SAE link has a PMK of its own.
    let logged = ap.take_pmks();
    assert_eq!((logged.len(), logged[0].station, logged[0].akm), (1, sta_mac(1), Akm::Sae));
    let frame = ethernet(sta_mac(2), sta_mac(1), b"from the SAE station to the PSK one");
    let (_, hosts, _) = send(&mut ap, &mut stas, 0, &frame);
    assert_eq!(hosts[1], vec![frame]);
}

#[test]
fn a_beacon_stripped_of_sae_fails_the_transition_handshake_on_message_3s_rsne() {
    // The forger's beacon is the genuine one with the PSK alone in its RSN element; the
    // transition station takes it, and the genuine access point (which offers both)
    // repeats its own RSN element in message 3.
    let mut ap = AccessPoint::new(transition_network()).unwrap();
    let genuine = ap.beacon().unwrap();
    let psk_only = transition_network().rsn_element_of(&[Akm::Psk]).unwrap().unwrap();
    let stripped = with_rsne(&genuine, &psk_only);
    let mut stas = vec![Station::new(transition_network(), sta_mac(1)).unwrap()];
    let requests = join_after(&mut ap, &mut stas, &stripped);
    assert_eq!(requests[0].akms, vec![Akm::Psk], "the forger steered it to the PSK");
    assert_eq!(connected(&stas), [false], "downgraded to the PSK");
    assert!(stas[0].counters.handshake_errors > 0);
}

#[test]
fn a_beacon_stripped_of_hash_to_element_fails_the_handshake_on_message_3s_rsnxe() {
    // sae_pwe=2 at both ends; the forger's beacon lacks the RSNXE, so the station hunts and
    // pecks (which the access point also takes), and message 3 carries the genuine RSNXE.
    let mut ap = AccessPoint::new(sae_only(SaePwe::Both)).unwrap();
    let stripped = beacon_of(&sae_only(SaePwe::HuntingAndPecking));
    assert_ne!(stripped, ap.beacon().unwrap());
    let mut stas = vec![Station::new(sae_only(SaePwe::Both), sta_mac(1)).unwrap()];
    join_after(&mut ap, &mut stas, &stripped);
    assert_eq!(connected(&stas), [false], "downgraded to hunting-and-pecking");
    assert!(stas[0].counters.handshake_errors > 0);
    // The genuine beacon's station joins.
    let mut ap = AccessPoint::new(sae_only(SaePwe::Both)).unwrap();
    let genuine = ap.beacon().unwrap();
    join_after(&mut ap, &mut stas, &genuine);
    assert_eq!(connected(&stas), [true]);
}

#[test]
fn after_transition_disable_a_station_never_takes_the_psk_of_a_rogue_access_point() {
    for bits in [0, transition_disable::WPA3_PERSONAL] {
        let genuine_network = NetworkConfig { transition_disable: bits, ..transition_network() };
        let mut ap = AccessPoint::new(genuine_network).unwrap();
        let mut stas = vec![Station::new(transition_network(), sta_mac(1)).unwrap()];
        let genuine = ap.beacon().unwrap();
        join_after(&mut ap, &mut stas, &genuine);
        assert_eq!(connected(&stas), [true]);
        // A rogue access point of the same name and address that knows the passphrase but
        // offers the PSK alone.
        let mut rogue = AccessPoint::new(psk_station()).unwrap();
        let rogue_beacon = rogue.beacon().unwrap();
        let requests = join_after(&mut rogue, &mut stas, &rogue_beacon);
        let took_psk = requests.iter().any(|r| r.akms.contains(&Akm::Psk));
        assert_eq!((took_psk, connected(&stas)[0]), (bits == 0, bits == 0), "Transition Disable {bits:#x}");
        if bits != 0 {
            let StationState::Rejoining(why) = stas[0].state() else { panic!("{:?}", stas[0].state()) };
            assert!(why.contains("Transition Disable"), "{why}");
        }
    }
}

#[test]
fn a_station_configured_for_sae_alone_never_takes_the_psk_of_a_transition_network() {
    let mut ap = AccessPoint::new(transition_network()).unwrap();
    let mut stas = vec![Station::new(sae_only(SaePwe::HashToElement), sta_mac(1)).unwrap()];
    // A beacon stripped of SAE does not move it to the PSK (and its handshake fails).
    let stripped = beacon_of(&psk_station());
    let mut requests = join_after(&mut ap, &mut stas, &stripped);
    let genuine = ap.beacon().unwrap();
    requests.extend(join_after(&mut ap, &mut stas, &genuine));
    assert_eq!(connected(&stas), [true]);
    assert!(requests.iter().all(|r| r.akms == [Akm::Sae]), "{requests:?}");
    assert!(requests.iter().all(|r| r.capabilities & rsn_capabilities::MFPR != 0));
}

/// Station 1's association request with `rsne`, once it has run SAE: the access point's
/// answer's status.
fn associate_with(ap: &mut AccessPoint, rsne: &[u8]) -> u16 {
    let body = elements(&transition_network().ssid, Some(rsne)).unwrap();
    association_status(ap, &body)
}

#[test]
fn an_sae_link_without_management_frame_protection_is_refused_by_either_side() {
    // The access point: an SAE request without MFPC is refused (status 31), the same
    // request for the PSK is taken.
    let mut ap = AccessPoint::new(transition_network()).unwrap();
    let without_pmf = |akm| {
        let network = NetworkConfig { pmf: Pmf::Off, ..transition_network() };
        network.rsn_element_of(&[akm]).unwrap().unwrap()
    };
    assert_eq!(associate_with(&mut ap, &without_pmf(Akm::Sae)), 31);
    assert_eq!(associate_with(&mut ap, &without_pmf(Akm::Psk)), 0);
    // The station: a beacon whose RSN element offers SAE without MFPC gets no SAE link.
    let mut ap = AccessPoint::new(transition_network()).unwrap();
    let forged = beacon_of(&NetworkConfig { pmf: Pmf::Off, ..transition_network() });
    let mut stas = vec![Station::new(transition_network(), sta_mac(1)).unwrap()];
    join_after(&mut ap, &mut stas, &forged);
    let StationState::Rejoining(why) = stas[0].state() else { panic!("{:?}", stas[0].state()) };
    assert!(why.contains("without management frame protection"), "{why}");
}

#[test]
fn a_psk_station_that_heard_no_beacon_joins_a_transition_network() {
    // Over the UDP air no beacon comes before the association: the station's own element
    // stands for the access point's, and message 3's need only offer the PSK's AKM.
    let mut ap = AccessPoint::new(transition_network()).unwrap();
    let mut stas = vec![Station::new(psk_station(), sta_mac(1)).unwrap()];
    let mut out = Vec::new();
    stas[0].start(&mut out).unwrap();
    run(&mut ap, &mut stas, air(out));
    assert_eq!(connected(&stas), [true]);
}
