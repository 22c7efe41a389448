//! 802.11w on the emulated access point and stations: what the two policies negotiate,
//! and the management-frame attacks it stops (spoofed Deauthentication and Disassociation,
//! unicast and broadcast, towards a station and towards the access point, and a forged
//! association request), each also run without PMF to show the attack then succeeds.

use wlansec_core::wire::mgmt::{
    AssociationRequestRepr, DeauthenticationRepr, Elements, ManagementBody, REASON_LEAVING,
};
use wlansec_core::wire::{MacAddr, SequenceControl};

use super::group::{air, tick};
use super::*;
use crate::node::elements;
use crate::pmf::{self, Pmf};
use crate::security::LinkKeys;

const PASS: &str = "correct horse";

fn network(mode: &str, pmf: Pmf) -> NetworkConfig {
    NetworkConfig { pmf, ..config(mode, PASS) }
}

/// A BSS of two stations, both sides with `pmf`, joined.
fn joined(pmf: Pmf) -> (AccessPoint, Vec<Station>) {
    let (ap, stas) = join_with(network("ccmp", pmf), network("ccmp", pmf), Defences::ALL);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected), "{pmf}");
    (ap, stas)
}

/// Whether station 1 still reaches station 2 through the access point.
fn flows(ap: &mut AccessPoint, stas: &mut [Station]) -> bool {
    let frame = ethernet(sta_mac(2), sta_mac(1), b"legitimate traffic");
    if *stas[0].state() != StationState::Connected {
        return false;
    }
    let (_, hosts, _) = send(ap, stas, 0, &frame);
    hosts[1] == vec![frame]
}

fn deauth(da: MacAddr, sa: MacAddr) -> Vec<u8> {
    let body = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING });
    body.to_mpdu(da, sa, AP, SequenceControl::new(2000, 0)).unwrap()
}

fn disassoc(da: MacAddr, sa: MacAddr) -> Vec<u8> {
    let body = ManagementBody::Disassociation(DeauthenticationRepr { reason: REASON_LEAVING });
    body.to_mpdu(da, sa, AP, SequenceControl::new(2000, 0)).unwrap()
}

#[test]
fn the_two_policies_negotiate_as_the_standard_says() {
    use Pmf::*;
    for (ap, sta, joins) in [
        (Off, Off, true),
        (Optional, Off, true),
        (Off, Optional, true),
        (Optional, Optional, true),
        (Required, Optional, true),
        (Optional, Required, true),
        (Required, Required, true),
        (Required, Off, false),
        (Off, Required, false),
    ] {
        let (mut ap_, mut stas) = join_with(network("ccmp", ap), network("ccmp", sta), Defences::ALL);
        // A refusal for a policy is final the third time in a row (1 s, then 2 s, apart).
        tick(&mut ap_, &mut stas, 16);
        for s in &stas {
            match s.state() {
                StationState::Connected => assert!(joins, "AP {ap}, station {sta}: joined"),
                StationState::Failed(why) => {
                    assert!(!joins, "AP {ap}, station {sta}: {why}");
                    assert!(why.contains("status 31"), "{why}");
                }
                other => panic!("AP {ap}, station {sta}: {other:?}"),
            }
        }
    }
}

/// Spoofed Deauthentication and Disassociation "from the access point" to station 1,
/// unicast and broadcast.
#[test]
fn spoofed_deauthentication_and_disassociation_to_a_station_are_ignored_with_pmf() {
    for forge in [deauth, disassoc] {
        for to in [sta_mac(1), MacAddr::BROADCAST] {
            let (mut ap, mut stas) = joined(Pmf::Required);
            run(&mut ap, &mut stas, vec![forge(to, AP)]);
            assert!(flows(&mut ap, &mut stas), "to {to}");
            assert_eq!(stas[0].counters.refused_unprotected_management, 1, "to {to}");

            let (mut ap, mut stas) = joined(Pmf::Off);
            run(&mut ap, &mut stas, vec![forge(to, AP)]);
            assert!(!flows(&mut ap, &mut stas), "without PMF the forgery (to {to}) works");
        }
    }
}

/// A Deauthentication the access point really sends under the link's keys is obeyed.
#[test]
fn a_protected_deauthentication_from_the_access_point_is_obeyed() {
    let (mut ap, mut stas) = joined(Pmf::Required);
    let tk = stas[0].pairwise_tk().unwrap();
    let mut keys = LinkKeys::pairwise(crate::security::SecurityMode::Ccmp, tk.as_bytes()).unwrap();
    let protected = pmf::protect_unicast(&mut keys, deauth(sta_mac(1), AP)).unwrap();
    run(&mut ap, &mut stas, vec![protected]);
    assert!(matches!(stas[0].state(), StationState::Rejoining(why) if why.contains("deauthenticated")));
    // It joins again after its backoff (once the access point's SA Query to its old link
    // went unanswered).
    tick(&mut ap, &mut stas, 20);
    assert!(flows(&mut ap, &mut stas));
}

/// Spoofed Deauthentication and Disassociation "from station 1" to the access point.
#[test]
fn spoofed_deauthentication_and_disassociation_to_the_access_point_are_ignored_with_pmf() {
    for forge in [deauth, disassoc] {
        let (mut ap, mut stas) = joined(Pmf::Required);
        run(&mut ap, &mut stas, vec![forge(AP, sta_mac(1))]);
        assert!(flows(&mut ap, &mut stas));
        assert_eq!(ap.counters.refused_unprotected_management, 1);

        let (mut ap, mut stas) = joined(Pmf::Off);
        run(&mut ap, &mut stas, vec![forge(AP, sta_mac(1))]);
        assert!(!flows(&mut ap, &mut stas), "without PMF the access point drops station 1");
    }
}

/// An association request from `sta` with the CCMP network's RSN element under `pmf`.
pub(super) fn association_request_from(sta: MacAddr, pmf: Pmf) -> Vec<u8> {
    let rsne =
        crate::security::SecurityMode::Ccmp.rsn_element(wlansec_core::rsn::Akm::Psk, pmf.policy(), true).unwrap();
    let elements = elements("wlansec", rsne.as_deref()).unwrap();
    let request = AssociationRequestRepr {
        capability: wlansec_core::wire::mgmt::capability::ESS,
        listen_interval: 10,
        current_ap: None,
        elements: Elements::new(&elements),
    };
    ManagementBody::AssociationRequest(request).to_mpdu(AP, sta, AP, SequenceControl::new(2001, 0)).unwrap()
}

/// Someone sends an association request in station 1's name: with PMF the access point
/// answers "later" and asks station 1 (SA Query, under their keys), which answers, so the
/// link stays; without PMF the request replaces station 1's association and keys.
#[test]
fn a_forged_association_request_is_answered_by_an_sa_query_and_the_link_stays() {
    let (mut ap, mut stas) = joined(Pmf::Required);
    let mut out = Vec::new();
    ap.from_air(&association_request_from(sta_mac(1), Pmf::Required), &mut out).unwrap();
    assert_eq!(ap.counters.sa_queries, 1);
    run(&mut ap, &mut stas, air(out));
    tick(&mut ap, &mut stas, 8);
    assert!(flows(&mut ap, &mut stas));
    assert!(ap.associations().iter().any(|a| a.mac == sta_mac(1).to_string() && a.port_open));

    let (mut ap, mut stas) = joined(Pmf::Off);
    run(&mut ap, &mut stas, vec![association_request_from(sta_mac(1), Pmf::Off)]);
    assert!(!flows(&mut ap, &mut stas), "without PMF the forged request takes the association");
}

/// A station that really restarted (it lost its keys) cannot answer the SA Query: after its
/// timeout the access point lets the link go and the station joins again.
#[test]
fn a_restarted_station_rejoins_once_the_sa_query_times_out() {
    let (mut ap, mut stas) = joined(Pmf::Required);
    let mut out = Vec::new();
    stas[0].start(&mut out).unwrap();
    run(&mut ap, &mut stas, air(out));
    assert_eq!(*stas[0].state(), StationState::Associating);
    assert_eq!(ap.counters.sa_queries, 1);
    tick(&mut ap, &mut stas, 12);
    assert_eq!(*stas[0].state(), StationState::Connected);
    assert!(flows(&mut ap, &mut stas));
}

/// The access point restarted, its table and keys gone: it answers the station's data with
/// an unprotected Deauthentication (reason 7), which a station on a PMF link must not obey
/// (anyone can send one). The station asks the access point by an SA Query under the link's
/// keys, hears no answer within its timeout, and joins again; without the query it would
/// stay "connected" to an access point that drops all its frames.
#[test]
fn a_station_whose_access_point_forgot_it_finds_out_by_an_sa_query_and_joins_again() {
    let (_, mut stas) = joined(Pmf::Required);
    let mut ap = AccessPoint::new(network("ccmp", Pmf::Required)).unwrap();
    for (from, me, peer) in [(0, 1, 2), (1, 2, 1)] {
        let frame = ethernet(sta_mac(peer), sta_mac(me), b"to a forgetful access point");
        send(&mut ap, &mut stas, from, &frame);
    }
    assert!(stas.iter().all(|s| s.counters.refused_unprotected_management > 0), "reason 7, unprotected");
    tick(&mut ap, &mut stas, 40);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    assert!(flows(&mut ap, &mut stas));
}
