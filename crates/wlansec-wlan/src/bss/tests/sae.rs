//! SAE on the emulated access point and stations: stations join by SAE (each password
//! element method) and pass data under the SAE PMK; a wrong password fails at the confirm
//! before any association; a flood of commits from forged addresses meets the anti-clogging
//! tokens and the bound on open exchanges and does not keep a station out; a lost commit is
//! sent again; a station joins again by its cached PMKSA.

use wlansec_core::rsn::element::rsn_capabilities;
use wlansec_core::rsn::sae::message::{AuthFrame, SaeMessage};
use wlansec_core::rsn::sae::{
    AntiClogging, Group, Instance, Password, PasswordElement, PasswordToken, Role, StatusCode,
};
use wlansec_core::rsn::{Akm, RsnElementRepr};
use wlansec_core::wire::mgmt::{AuthenticationRepr, ManagementBody};
use wlansec_core::wire::{Frame, MacAddr, Rules, SequenceControl};

use super::group::{air, tick};
use super::*;
use crate::bss::access_point::MAX_SAE_EXCHANGES;
use crate::pmf::Pmf;
use crate::security::{KeyManagement, SaePwe, SaeSettings};

const PASS: &str = "correct horse";

fn sae_network(pwe: SaePwe, password: &str) -> NetworkConfig {
    NetworkConfig {
        pmf: Pmf::Required,
        key_management: KeyManagement::Sae(SaeSettings { pwe, ..SaeSettings::default() }),
        ..config("ccmp", password)
    }
}

/// Whether station 1 reaches station 2 through the access point.
fn flows(ap: &mut AccessPoint, stas: &mut [Station]) -> bool {
    let frame = ethernet(sta_mac(2), sta_mac(1), b"over an SAE link");
    let (_, hosts, air) = send(ap, stas, 0, &frame);
    !air[0].windows(8).any(|w| w == b"over an ") && hosts[1] == vec![frame]
}

/// The authentication algorithm and transaction of an Authentication MPDU, if it is one.
fn authentication(mpdu: &[u8]) -> Option<(u16, u16, StatusCode)> {
    let frame = Frame::new_checked(mpdu, Rules::default()).ok()?;
    match ManagementBody::parse(frame.frame_control().subtype(), frame.body()).ok()? {
        ManagementBody::Authentication(a) => Some((a.algorithm, a.transaction_sequence, StatusCode(a.status))),
        _ => None,
    }
}

#[test]
fn two_stations_join_by_sae_with_each_password_element_method_and_pass_data() {
    for (ap_pwe, sta_pwe) in [
        (SaePwe::HashToElement, SaePwe::HashToElement),
        (SaePwe::HuntingAndPecking, SaePwe::HuntingAndPecking),
        (SaePwe::Both, SaePwe::Both),
        (SaePwe::Both, SaePwe::HuntingAndPecking),
        (SaePwe::HuntingAndPecking, SaePwe::Both),
    ] {
        let (mut ap, mut stas) = join_with(sae_network(ap_pwe, PASS), sae_network(sta_pwe, PASS), Defences::ALL);
        let states: Vec<_> = stas.iter().map(|s| s.state().clone()).collect();
        assert!(states.iter().all(|s| *s == StationState::Connected), "{ap_pwe}/{sta_pwe}: {states:?}");
        assert!(flows(&mut ap, &mut stas), "{ap_pwe}/{sta_pwe}");
        // The exchanges are done; their PMKSAs stay.
        assert_eq!(ap.sae_exchanges(), 0);
    }
}

#[test]
fn an_sae_station_associates_with_akm_8_pmf_required_and_its_pmkid() {
    let mut ap = AccessPoint::new(sae_network(SaePwe::HashToElement, PASS)).unwrap();
    let mut stas = [Station::new(sae_network(SaePwe::HashToElement, PASS), sta_mac(1)).unwrap()];
    let mut out = Vec::new();
    stas[0].start(&mut out).unwrap();
    let mut air_now = air(out);
    let (mut auth_frames, mut request_rsne) = (Vec::new(), None);
    for _ in 0..16 {
        let mut next = Vec::new();
        for mpdu in air_now.drain(..) {
            auth_frames.extend(authentication(&mpdu));
            let frame = Frame::new_checked(&mpdu[..], Rules::default()).unwrap();
            if let Ok(ManagementBody::AssociationRequest(r)) =
                ManagementBody::parse(frame.frame_control().subtype(), frame.body())
            {
                request_rsne = r.elements.rsn().map(<[u8]>::to_vec);
            }
            let mut out = Vec::new();
            let _ = ap.from_air(&mpdu, &mut out);
            let _ = stas[0].from_air(&mpdu, &mut out);
            next.extend(air(out));
        }
        air_now = next;
    }
    assert_eq!(*stas[0].state(), StationState::Connected);
    // Commit (H2E: status 126) and confirm each way, algorithm 3.
    let h2e = StatusCode::SAE_HASH_TO_ELEMENT;
    let ok = StatusCode::SUCCESS;
    assert_eq!(auth_frames, vec![(3, 1, h2e), (3, 1, h2e), (3, 2, ok), (3, 2, ok)]);
    let (_, rsne) = RsnElementRepr::parse(&request_rsne.expect("an RSN element")).unwrap();
    assert_eq!(rsne.akms, vec![Akm::Sae]);
    assert_ne!(rsne.capabilities & rsn_capabilities::MFPR, 0);
    assert_eq!(rsne.pmkids.len(), 1);
}

#[test]
fn an_sae_network_without_pmf_required_is_refused() {
    for pmf in [Pmf::Off, Pmf::Optional] {
        let config = NetworkConfig { pmf, ..sae_network(SaePwe::HashToElement, PASS) };
        assert!(matches!(AccessPoint::new(config.clone()), Err(crate::Error::SaeWithoutPmf)), "{pmf}");
        assert!(matches!(Station::new(config, sta_mac(1)), Err(crate::Error::SaeWithoutPmf)), "{pmf}");
    }
}

#[test]
fn a_wrong_sae_password_fails_at_the_confirm_and_never_associates() {
    let (mut ap, mut stas) = join_with(
        sae_network(SaePwe::HashToElement, PASS),
        sae_network(SaePwe::HashToElement, "battery staple"),
        Defences::ALL,
    );
    // Only the access point's record of why: no station is associated.
    let failures: Vec<_> = ap.associations().into_iter().map(|a| (a.aid, a.failure)).collect();
    let why = Some("SAE confirm failed (wrong password?)".to_string());
    assert_eq!(failures, vec![(0, why.clone()), (0, why)]);
    assert!(ap.counters.refused_sae >= 2);
    assert!(stas.iter().all(|s| matches!(s.state(), StationState::Rejoining(why) if why.contains("SAE confirm"))));
    // It tries again (a refusal is not authenticated), and after three confirms in a row
    // that fail, says it is probably the password.
    tick(&mut ap, &mut stas, 40);
    for s in &stas {
        let StationState::Failed(why) = s.state() else { panic!("{:?}", s.state()) };
        assert!(why.contains("wrong password"), "{why}");
    }
    assert!(ap.associations().iter().all(|a| a.aid == 0));
    let frame = ethernet(sta_mac(2), sta_mac(1), b"data");
    let (ap_host, sta_host, air) = send(&mut ap, &mut stas, 0, &frame);
    assert!(air.is_empty() && ap_host.is_empty() && sta_host.iter().all(|h| h.is_empty()));
}

/// A valid H2E commit of the network's password (an attacker who knows none could send
/// any point; this one gets furthest), as a forged address's Authentication MPDU.
fn forged_commit(commit: &[u8], from: MacAddr) -> Vec<u8> {
    let repr = AuthenticationRepr::parse(commit).unwrap();
    ManagementBody::Authentication(repr).to_mpdu(AP, from, AP, SequenceControl::new(0, 0)).unwrap()
}

fn forged(i: usize) -> MacAddr {
    MacAddr([0x0a, 0xbb, 0, 0, (i >> 8) as u8, i as u8])
}

fn a_commit() -> Vec<u8> {
    let pt = PasswordToken::derive(Group::P256, b"wlansec", &Password::new(b"not the password", None)).unwrap();
    let pwe = PasswordElement::from_token(&pt, forged(0), AP).unwrap();
    let mut rng = crate::node::fresh_rng();
    Instance::new(Role::Station, pwe, None, &mut rng).unwrap().commit_frame()
}

#[test]
fn a_commit_flood_from_forged_addresses_meets_anti_clogging_and_a_station_still_joins() {
    let mut ap = AccessPoint::new(sae_network(SaePwe::HashToElement, PASS)).unwrap();
    let commit = a_commit();
    let flood: Frames = (1..=200).map(|i| forged_commit(&commit, forged(i))).collect();
    let mut out = Vec::new();
    for mpdu in &flood {
        let _ = ap.from_air(mpdu, &mut out);
    }
    // Past the threshold the access point derived nothing: it asked for tokens.
    assert_eq!(ap.sae_exchanges(), AntiClogging::DEFAULT_THRESHOLD);
    assert_eq!(ap.counters.sae_token_requests, 200 - AntiClogging::DEFAULT_THRESHOLD as u64);
    let mut stas = [Station::new(sae_network(SaePwe::HashToElement, PASS), sta_mac(1)).unwrap()];
    let mut out = Vec::new();
    stas[0].start(&mut out).unwrap();
    let before = ap.counters.sae_token_requests;
    run(&mut ap, &mut stas, air(out));
    // The station's commit came back with a token request, and again with the token.
    assert_eq!(ap.counters.sae_token_requests, before + 1);
    assert_eq!(*stas[0].state(), StationState::Connected);
    // The flood's exchanges expire.
    tick(&mut ap, &mut stas, 24);
    assert_eq!(ap.sae_exchanges(), 0);
}

#[test]
fn a_flood_that_answers_the_token_requests_holds_a_bounded_table_and_a_station_still_joins() {
    let mut ap = AccessPoint::new(sae_network(SaePwe::HashToElement, PASS)).unwrap();
    let commit = a_commit();
    let mut out = Vec::new();
    for i in 1..=MAX_SAE_EXCHANGES + 40 {
        let _ = ap.from_air(&forged_commit(&commit, forged(i)), &mut out);
        // The attacker hears the token sent to its forged address, and sends it back.
        for reply in air(std::mem::take(&mut out)) {
            let frame = Frame::new_checked(&reply[..], Rules::default()).unwrap();
            let Ok(SaeMessage::TokenRequired { token, .. }) = SaeMessage::parse(frame.body()) else { continue };
            let (group, rest) = commit[6..].split_at(2);
            let mut with_token = AuthFrame::new_unchecked(&commit[..]).algorithm().to_le_bytes().to_vec();
            with_token.extend_from_slice(&commit[2..6]);
            with_token.extend_from_slice(group);
            with_token.extend_from_slice(rest);
            // H2E: the token in its container element after the scalar and element.
            with_token.extend_from_slice(&[255, token.len() as u8 + 1, 93]);
            with_token.extend_from_slice(token);
            let _ = ap.from_air(&forged_commit(&with_token, forged(i)), &mut Vec::new());
        }
    }
    assert_eq!(ap.sae_exchanges(), MAX_SAE_EXCHANGES);
    assert_eq!(ap.counters.evicted_unproven, 40);
    let mut stas = [Station::new(sae_network(SaePwe::HashToElement, PASS), sta_mac(1)).unwrap()];
    let mut out = Vec::new();
    stas[0].start(&mut out).unwrap();
    run(&mut ap, &mut stas, air(out));
    assert_eq!(*stas[0].state(), StationState::Connected);
    assert!(ap.sae_exchanges() <= MAX_SAE_EXCHANGES);
}

#[test]
fn a_lost_commit_and_a_lost_confirm_are_sent_again() {
    for lost in [1, 2] {
        let mut ap = AccessPoint::new(sae_network(SaePwe::HashToElement, PASS)).unwrap();
        let mut stas = [Station::new(sae_network(SaePwe::HashToElement, PASS), sta_mac(1)).unwrap()];
        let mut out = Vec::new();
        stas[0].start(&mut out).unwrap();
        let mut air_now = air(out);
        let mut dropped = false;
        for _ in 0..32 {
            let mut next = Vec::new();
            for mpdu in air_now.drain(..) {
                // The station's first commit (1) or confirm (2) is lost on the air.
                let from_station = Frame::new_checked(&mpdu[..], Rules::default()).unwrap().addr2() == Some(sta_mac(1));
                if !dropped && from_station && authentication(&mpdu).is_some_and(|(_, t, _)| t == lost) {
                    dropped = true;
                    continue;
                }
                let mut out = Vec::new();
                let _ = ap.from_air(&mpdu, &mut out);
                let _ = stas[0].from_air(&mpdu, &mut out);
                next.extend(air(out));
            }
            air_now = next;
            if air_now.is_empty() {
                let mut out = Vec::new();
                ap.tick(&mut out).unwrap();
                stas[0].tick(&mut out).unwrap();
                air_now = air(out);
            }
        }
        assert!(dropped);
        assert_eq!(*stas[0].state(), StationState::Connected, "lost message {lost}");
    }
}

#[test]
fn a_station_joins_again_by_its_cached_pmksa_without_sae() {
    let (mut ap, mut stas) =
        join_with(sae_network(SaePwe::HashToElement, PASS), sae_network(SaePwe::HashToElement, PASS), Defences::ALL);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    // Station 1 starts again (its old link is checked by an SA Query and ends).
    let mut out = Vec::new();
    stas[0].start(&mut out).unwrap();
    let frames = air(out);
    // Open System, not a commit: the PMKSA is cached.
    assert_eq!(frames.iter().map(|f| authentication(f)).collect::<Vec<_>>(), vec![Some((0, 1, StatusCode::SUCCESS))]);
    let refused = ap.counters.refused_sae;
    run(&mut ap, &mut stas, frames);
    tick(&mut ap, &mut stas, 12);
    assert_eq!(*stas[0].state(), StationState::Connected);
    assert_eq!(ap.counters.refused_sae, refused);
    assert!(flows(&mut ap, &mut stas));
}

#[test]
fn sae_stations_join_with_beacon_protection_and_pass_data() {
    let network = NetworkConfig { beacon_protection: true, ..sae_network(SaePwe::HashToElement, PASS) };
    let (mut ap, mut stas) = join_with(network.clone(), network, Defences::ALL);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    // The beacon carries a Management MIC element (ID 76) under the BIGTK the stations hold.
    let beacon = ap.beacon().unwrap();
    let frame = Frame::new_checked(&beacon[..], Rules::default()).unwrap();
    let Ok(ManagementBody::Beacon(body)) = ManagementBody::parse(frame.frame_control().subtype(), frame.body()) else {
        panic!("not a beacon")
    };
    assert!(body.elements.find(76).is_some());
    let mut out = Vec::new();
    for s in stas.iter_mut() {
        s.from_air(&beacon, &mut out).unwrap();
    }
    assert!(flows(&mut ap, &mut stas));
}
