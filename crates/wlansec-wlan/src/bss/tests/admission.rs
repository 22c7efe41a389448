//! Admission under attack: a flood of forged association requests stays within the table's
//! bounds while a station joins; AIDs are unique and reused only after release; a full table
//! refuses with status 17; unproven and failed entries expire; and a station that a forger
//! deauthenticates on a link without 802.11w joins again.

use wlansec_core::wire::mgmt::{
    DeauthenticationRepr, ManagementBody, REASON_FOUR_WAY_HANDSHAKE_TIMEOUT, REASON_LEAVING,
};
use wlansec_core::wire::{Frame, MacAddr, Rules, SequenceControl};

use super::group::{air, tick};
use super::*;
use crate::bss::access_point::MAX_UNPROVEN;

const PASS: &str = "correct horse";

/// An association request from `sta` with the CCMP network's RSN element (no 802.11w).
pub(super) fn association_request(sta: MacAddr) -> Vec<u8> {
    super::pmf::association_request_from(sta, crate::pmf::Pmf::Off)
}

/// A Deauthentication from `sa` to `da`.
pub(super) fn deauthentication(da: MacAddr, sa: MacAddr) -> Vec<u8> {
    let body = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING });
    body.to_mpdu(da, sa, AP, SequenceControl::new(9, 0)).unwrap()
}

/// The `i`th forged address (locally administered, never a test station's).
pub(super) fn forged(i: u32) -> MacAddr {
    let b = i.to_be_bytes();
    MacAddr([0x06, 0xee, b[0], b[1], b[2], b[3]])
}

/// The status of the last association response to `sta` among `frames`.
fn association_status(frames: &[Vec<u8>], sta: MacAddr) -> Option<(u16, u16)> {
    frames.iter().rev().find_map(|m| {
        let f = Frame::new_checked(&m[..], Rules::default()).ok()?;
        if f.addr1() != sta || !f.frame_control().is_management() {
            return None;
        }
        match ManagementBody::parse(f.frame_control().subtype(), f.body()).ok()? {
            ManagementBody::AssociationResponse(r) => Some((r.status, r.aid)),
            _ => None,
        }
    })
}

/// The AIDs in the table: unique and within 1..=`max`.
pub(super) fn assert_aids(ap: &AccessPoint, max: u16) {
    let aids: Vec<u16> = ap.associations().iter().filter(|a| a.aid != 0).map(|a| a.aid).collect();
    let unique: std::collections::BTreeSet<u16> = aids.iter().copied().collect();
    assert_eq!(unique.len(), aids.len(), "AIDs repeat: {aids:?}");
    assert!(aids.iter().all(|&aid| (1..=max).contains(&aid)), "AID out of 1..={max}: {aids:?}");
}

/// One hop of a station's exchange: its frames to the access point, the answers to it.
fn hop(ap: &mut AccessPoint, sta: &mut Station, frames: Frames) -> Frames {
    let mut answers = Vec::new();
    for f in frames {
        let mut out = Vec::new();
        let _ = ap.from_air(&f, &mut out);
        answers.extend(air(out));
    }
    deliver(sta, answers)
}

/// Frames to a station; what it sends.
fn deliver(sta: &mut Station, frames: Frames) -> Frames {
    let mut out = Vec::new();
    for f in frames {
        let _ = sta.from_air(&f, &mut out);
    }
    air(out)
}

/// 100,000 forged association requests from distinct addresses over 10 s of simulated
/// time, 25 between each hop of a station's own exchange: the table, its unproven part and
/// the clock's work stay within their bounds, the station is never sent away and joins.
#[test]
fn an_association_flood_stays_bounded_and_a_station_joins_within_10_s() {
    let mut ap = AccessPoint::new(config("ccmp", PASS)).unwrap();
    let mut sta = Station::new(config("ccmp", PASS), sta_mac(1)).unwrap();
    let mut out = Vec::new();
    sta.start(&mut out).unwrap();
    let mut legit = air(out);
    let (mut sent, mut joined_at_ms) = (0u32, None);
    let mut sink = Vec::new();
    for t in 1..=40u64 {
        for _ in 0..100 {
            for _ in 0..25 {
                let _ = ap.from_air(&association_request(forged(sent)), &mut sink);
                sent += 1;
                sink.clear();
            }
            legit = hop(&mut ap, &mut sta, legit);
            let admission = ap.admission();
            assert!(admission.unproven <= MAX_UNPROVEN, "{admission:?}");
            assert!(admission.stations <= MAX_UNPROVEN + 1, "{admission:?}");
            assert!(!matches!(sta.state(), StationState::Rejoining(_) | StationState::Failed(_)), "{:?}", sta.state());
        }
        let mut out = Vec::new();
        ap.tick(&mut out).unwrap();
        assert!(ap.admission().ticked <= MAX_UNPROVEN + 1, "{:?}", ap.admission());
        legit.extend(deliver(&mut sta, air(out)));
        let mut out = Vec::new();
        sta.tick(&mut out).unwrap();
        legit.extend(air(out));
        if *sta.state() == StationState::Connected && joined_at_ms.is_none() {
            joined_at_ms = Some(t * TICK_MS);
        }
        assert_aids(&ap, crate::node::MAX_AID);
    }
    assert_eq!(sent, 100_000);
    let joined = joined_at_ms.expect("the station joined within 10 s");
    assert!(joined <= 10_000, "joined after {joined} ms");
    assert_eq!(*sta.state(), StationState::Connected);
    assert!(ap.counters.evicted_unproven > 99_000, "{}", ap.counters.evicted_unproven);
    // Once the flood stops, its entries go with their handshakes.
    let mut stas = vec![sta];
    tick(&mut ap, &mut stas, 8);
    assert_eq!(ap.admission().stations, 1, "{:?}", ap.admission());
}

/// AIDs come from a free set: unique while in use, and an AID comes back only after its
/// station left.
#[test]
fn aids_are_unique_and_reused_only_after_release() {
    let mut ap = AccessPoint::new(config("ccmp", PASS)).unwrap();
    let mut stas: Vec<Station> = (1..=3).map(|i| Station::new(config("ccmp", PASS), sta_mac(i)).unwrap()).collect();
    for i in 0..3 {
        super::group::start(&mut ap, &mut stas, i);
    }
    let aid_of =
        |ap: &AccessPoint, i: u8| ap.associations().iter().find(|a| a.mac == sta_mac(i).to_string()).map(|a| a.aid);
    assert_eq!([aid_of(&ap, 1), aid_of(&ap, 2), aid_of(&ap, 3)], [Some(1), Some(2), Some(3)]);
    // Station 2 leaves: its AID is free, and the next station takes it; no other repeats.
    run(&mut ap, &mut stas, vec![deauthentication(AP, sta_mac(2))]);
    assert_eq!(aid_of(&ap, 2), None);
    let mut out = Vec::new();
    ap.from_air(&association_request(sta_mac(4)), &mut out).unwrap();
    assert_eq!(association_status(&air(out), sta_mac(4)), Some((0, 2)));
    let mut out = Vec::new();
    ap.from_air(&association_request(sta_mac(5)), &mut out).unwrap();
    assert_eq!(association_status(&air(out), sta_mac(5)), Some((0, 4)));
    assert_aids(&ap, crate::node::MAX_AID);
    // A station that associates again keeps its AID.
    let mut out = Vec::new();
    ap.from_air(&association_request(sta_mac(5)), &mut out).unwrap();
    assert_eq!(association_status(&air(out), sta_mac(5)), Some((0, 4)));
    assert_aids(&ap, crate::node::MAX_AID);
}

/// Every AID held by a station that proved its key: the next request is refused with
/// status 17 (not dropped), the refused station tries again later and gets in once a
/// station left.
#[test]
fn a_full_table_refuses_with_status_17() {
    let network = NetworkConfig { max_stations: 2, ..config("ccmp", PASS) };
    let mut ap = AccessPoint::new(network.clone()).unwrap();
    let mut stas: Vec<Station> = (1..=3).map(|i| Station::new(network.clone(), sta_mac(i)).unwrap()).collect();
    super::group::start(&mut ap, &mut stas, 0);
    super::group::start(&mut ap, &mut stas, 1);
    let mut out = Vec::new();
    ap.from_air(&association_request(sta_mac(3)), &mut out).unwrap();
    assert_eq!(association_status(&air(out), sta_mac(3)), Some((STATUS_AP_FULL, 0)));
    assert_eq!(ap.counters.refused_table_full, 1);
    let mut out = Vec::new();
    stas[2].start(&mut out).unwrap();
    run(&mut ap, &mut stas, air(out));
    assert!(
        matches!(stas[2].state(), StationState::Rejoining(why) if why.contains("status 17")),
        "{:?}",
        stas[2].state()
    );
    assert!(stas[..2].iter().all(|s| *s.state() == StationState::Connected));
    assert_aids(&ap, 2);
    // Station 1 leaves (says so); station 3 gets in on its next attempt.
    let mut out = Vec::new();
    ap.from_air(&deauthentication(AP, sta_mac(1)), &mut out).unwrap();
    tick(&mut ap, &mut stas[1..], 12);
    assert_eq!(*stas[2].state(), StationState::Connected);
    assert_aids(&ap, 2);
}

/// Unproven entries (a forged request nobody answers) and failed ones (a wrong passphrase)
/// leave the table once their handshake gives up; only a few failure reasons stay, a while.
#[test]
fn failed_and_unproven_entries_expire() {
    let mut ap = AccessPoint::new(config("ccmp", PASS)).unwrap();
    let mut wrong = vec![Station::new(config("ccmp", "battery staple"), sta_mac(1)).unwrap()];
    let mut out = Vec::new();
    wrong[0].start(&mut out).unwrap();
    run(&mut ap, &mut wrong, air(out));
    let mut sink = Vec::new();
    for i in 0..100 {
        ap.from_air(&association_request(forged(i)), &mut sink).unwrap();
    }
    assert_eq!(ap.admission().stations, 101);
    let mut out = Vec::new();
    for _ in 0..8 {
        ap.tick(&mut out).unwrap();
    }
    assert_eq!(ap.admission(), Admission { stations: 0, unproven: 0, ticked: 0 });
    let reported = ap.associations();
    assert!(reported.len() <= 16 && reported.iter().all(|a| a.failure.is_some() && a.aid == 0), "{reported:?}");
    // The reasons go too, after a while; every AID is free again.
    for _ in 0..(10_000 / TICK_MS) {
        ap.tick(&mut out).unwrap();
    }
    assert!(ap.associations().is_empty());
    let mut out = Vec::new();
    ap.from_air(&association_request(sta_mac(9)), &mut out).unwrap();
    assert_eq!(association_status(&air(out), sta_mac(9)), Some((0, 1)));
}

/// Without 802.11w a forged Deauthentication ends a station's link, at the station or at
/// the access point: the station joins again (after a backoff, or told by the access point
/// when its data finds no association) and traffic flows again.
#[test]
fn a_forged_deauthentication_on_a_link_without_pmf_is_followed_by_a_rejoin() {
    let (mut ap, mut stas) = join_with(config("ccmp", PASS), config("ccmp", PASS), Defences::ALL);
    let to_ap = |ap: &mut AccessPoint, stas: &mut [Station]| {
        let frame = ethernet(AP, sta_mac(1), b"to the access point's host");
        let mut out = Vec::new();
        let _ = stas[0].from_host(&frame, &mut out);
        let (host, _) = run(ap, stas, air(out));
        host == vec![frame]
    };
    assert!(to_ap(&mut ap, &mut stas));
    // To the station, in the access point's name.
    run(&mut ap, &mut stas, vec![deauthentication(sta_mac(1), AP)]);
    assert!(matches!(stas[0].state(), StationState::Rejoining(_)), "{:?}", stas[0].state());
    tick(&mut ap, &mut stas, 8);
    assert_eq!(*stas[0].state(), StationState::Connected);
    assert!(to_ap(&mut ap, &mut stas));
    // To the access point, in the station's name: the station's next frame finds no
    // association, the access point says so (reason 7) and the station joins again.
    run(&mut ap, &mut stas, vec![deauthentication(AP, sta_mac(1))]);
    assert!(!to_ap(&mut ap, &mut stas));
    assert!(
        matches!(stas[0].state(), StationState::Rejoining(why) if why.contains("reason 7")),
        "{:?}",
        stas[0].state()
    );
    tick(&mut ap, &mut stas, 8);
    assert!(to_ap(&mut ap, &mut stas));
}

/// Reason 15 (4-way handshake timeout) is what an access point says to a station with a
/// wrong passphrase, but the frame is not authenticated (no key exists yet): a forger who
/// sends it whenever the station starts its handshake must not end the station. After the
/// third it says it probably has a wrong passphrase, and keeps trying; once the forger stops,
/// it joins.
#[test]
fn forged_handshake_failures_never_end_a_joining_station() {
    const FORGERIES: usize = 5;
    let mut ap = AccessPoint::new(config("ccmp", PASS)).unwrap();
    let mut sta = Station::new(config("ccmp", PASS), sta_mac(1)).unwrap();
    let body = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_FOUR_WAY_HANDSHAKE_TIMEOUT });
    let forged = body.to_mpdu(sta_mac(1), AP, AP, SequenceControl::new(11, 0)).unwrap();
    let (mut forgeries, mut reported) = (0, false);
    let (mut to_ap, mut to_sta) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    sta.start(&mut out).unwrap();
    to_ap.extend(air(out));
    for _ in 0..(120_000 / super::super::TICK_MS) {
        while !to_ap.is_empty() || !to_sta.is_empty() {
            let mut out = Vec::new();
            for f in std::mem::take(&mut to_ap) {
                let _ = ap.from_air(&f, &mut out);
            }
            to_sta.extend(air(out));
            let mut out = Vec::new();
            for f in std::mem::take(&mut to_sta) {
                let _ = sta.from_air(&f, &mut out);
                if *sta.state() == StationState::Handshaking && forgeries < FORGERIES {
                    let _ = sta.from_air(&forged, &mut out);
                    forgeries += 1;
                }
            }
            to_ap.extend(air(out));
        }
        reported |= matches!(sta.state(), StationState::Failed(why) if why.contains("reason 15"));
        if forgeries == FORGERIES && *sta.state() == StationState::Connected {
            break;
        }
        let mut out = Vec::new();
        ap.tick(&mut out).unwrap();
        to_sta.extend(air(out));
        let mut out = Vec::new();
        sta.tick(&mut out).unwrap();
        to_ap.extend(air(out));
    }
    assert_eq!(forgeries, FORGERIES);
    assert!(reported, "the station says it probably has a wrong passphrase");
    assert_eq!(*sta.state(), StationState::Connected);
}
