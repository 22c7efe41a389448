//! Group keys as hostapd does them: the Key RSC makes group frames sent before a station
//! joined replays to it, the GTK rotates on a timer and when a station leaves, and group
//! traffic switches to a new GTK only once every station has it.

use wlansec_core::rsn::{EapolKey, Message};
use wlansec_core::wire::mgmt::{DeauthenticationRepr, ManagementBody, REASON_LEAVING};
use wlansec_core::wire::{Frame, MacAddr, Rules, SequenceControl};
use wlansec_core::Error;

use super::*;

const PASS: &str = "correct horse";

pub(super) fn air(out: Vec<Output>) -> Frames {
    out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }).collect()
}

pub(super) fn stations(mode: &str, n: u8) -> Vec<Station> {
    (1..=n).map(|i| Station::new(config(mode, PASS), sta_mac(i)).unwrap()).collect()
}

/// Start station `i` and run until the air is quiet.
pub(super) fn start(ap: &mut AccessPoint, stas: &mut [Station], i: usize) {
    let mut out = Vec::new();
    stas[i].start(&mut out).unwrap();
    run(ap, stas, air(out));
    assert_eq!(*stas[i].state(), StationState::Connected, "station {i}");
}

/// An Ethernet frame from the access point's host: what went on the air, what each station's
/// host received.
pub(super) fn from_ap_host(ap: &mut AccessPoint, stas: &mut [Station], frame: &[u8]) -> (Frames, Vec<Frames>) {
    let mut out = Vec::new();
    ap.from_host(frame, &mut out).unwrap();
    let sent = air(out);
    let (_, hosts) = run(ap, stas, sent.clone());
    (sent, hosts)
}

/// `n` timer ticks of every machine, the air run quiet after each.
pub(super) fn tick(ap: &mut AccessPoint, stas: &mut [Station], n: usize) {
    for _ in 0..n {
        let mut out = Vec::new();
        ap.tick(&mut out).unwrap();
        for s in stas.iter_mut() {
            s.tick(&mut out).unwrap();
        }
        run(ap, stas, air(out));
    }
}

/// Like `run`, but frames `hold` picks are kept off the air and returned.
fn run_holding(ap: &mut AccessPoint, stas: &mut [Station], mut air: Frames, hold: impl Fn(&[u8]) -> bool) -> Frames {
    let mut held = Vec::new();
    while !air.is_empty() {
        let mut next = Vec::new();
        for mpdu in air.drain(..) {
            if hold(&mpdu) {
                held.push(mpdu);
                continue;
            }
            let mut out = Vec::new();
            let _ = ap.from_air(&mpdu, &mut out);
            for s in stas.iter_mut() {
                let _ = s.from_air(&mpdu, &mut out);
            }
            next.extend(self::air(out));
        }
        air = next;
    }
    held
}

/// The EAPOL-Key message an unprotected data MPDU to `to` carries, if any.
fn eapol_to(mpdu: &[u8], to: MacAddr) -> Option<Message> {
    let frame = Frame::new_checked(mpdu, Rules::default()).ok()?;
    if frame.addr1() != to || !frame.frame_control().is_data() || frame.frame_control().protected() {
        return None;
    }
    Some(EapolKey::new_checked(frame.body().get(8..)?).ok()?.message())
}

/// Whether an MPDU is a data frame the access point sends `to`.
fn data_to(mpdu: &[u8], to: MacAddr) -> bool {
    Frame::new_checked(mpdu, Rules::default()).is_ok_and(|f| f.addr1() == to && f.frame_control().is_data())
}

/// The Key ID a protected MPDU names.
fn key_id(mpdu: &[u8]) -> u8 {
    Frame::new_checked(mpdu, Rules::default()).unwrap().body()[3] >> 6
}

fn broadcast(payload: &[u8]) -> Vec<u8> {
    ethernet(MacAddr::BROADCAST, AP, payload)
}

#[test]
fn group_frames_sent_before_join_are_replays() {
    for mode in ["ccmp", "tkip", "enhanced:2"] {
        let mut ap = AccessPoint::new(config(mode, PASS)).unwrap();
        let mut stas = stations(mode, 2);
        start(&mut ap, &mut stas, 0);
        let early = broadcast(b"sent before station two joined");
        let (captured, hosts) = from_ap_host(&mut ap, &mut stas, &early);
        assert_eq!(hosts[0], vec![early], "{mode}");
        start(&mut ap, &mut stas, 1);

        // The attacker replays the captured broadcast to the station that joined since.
        let replays = stas[1].counters.dropped_replay;
        let mut out = Vec::new();
        let refused = stas[1].from_air(&captured[0], &mut out);
        assert!(matches!(refused, Err(crate::Error::Frame(Error::Replay { .. }))), "{mode}: {refused:?}");
        assert!(out.is_empty(), "{mode}");
        assert_eq!(stas[1].counters.dropped_replay, replays + 1, "{mode}");

        let later = broadcast(b"sent after station two joined");
        let (_, hosts) = from_ap_host(&mut ap, &mut stas, &later);
        assert_eq!(hosts, vec![vec![later.clone()], vec![later]], "{mode}");
        let unicast = ethernet(sta_mac(1), sta_mac(2), b"station to station");
        let (_, sta_host, _) = send(&mut ap, &mut stas, 1, &unicast);
        assert_eq!(sta_host[0], vec![unicast], "{mode}");
    }
}

#[test]
fn gtk_rekey_rotates_key_and_traffic_flows() {
    let mut ap = AccessPoint::new(config("ccmp", PASS)).unwrap().with_gtk_rekey(2);
    let mut stas = stations("ccmp", 2);
    start(&mut ap, &mut stas, 0);
    start(&mut ap, &mut stas, 1);
    let first = broadcast(b"under the first GTK");
    let (sent, hosts) = from_ap_host(&mut ap, &mut stas, &first);
    assert_eq!((key_id(&sent[0]), hosts), (1, vec![vec![first.clone()], vec![first]]));

    // Two seconds of ticks: the last one starts the rotation. Station two's group message 1
    // is held back, so the switch waits for it.
    tick(&mut ap, &mut stas, 7);
    assert_eq!(ap.counters.group_rekeys, 0);
    let mut out = Vec::new();
    ap.tick(&mut out).unwrap();
    assert_eq!(ap.counters.group_rekeys, 1);
    // Group message 1 goes under the pairwise key: the only frame the AP sends station two here.
    let held = run_holding(&mut ap, &mut stas, air(out), |m| data_to(m, sta_mac(2)));
    assert_eq!(held.len(), 1);
    let during = broadcast(b"while station two lacks the new GTK");
    let (sent, hosts) = from_ap_host(&mut ap, &mut stas, &during);
    assert_eq!(key_id(&sent[0]), 1, "the old GTK until every station has the new one");
    assert_eq!(hosts, vec![vec![during.clone()], vec![during]], "station one keeps the old GTK beside the new");

    run(&mut ap, &mut stas, held);
    let second = broadcast(b"under the second GTK");
    let (sent, hosts) = from_ap_host(&mut ap, &mut stas, &second);
    assert_eq!((key_id(&sent[0]), hosts), (2, vec![vec![second.clone()], vec![second]]));
    let unicast = ethernet(sta_mac(2), sta_mac(1), b"unicast after the rotation");
    let (_, sta_host, _) = send(&mut ap, &mut stas, 0, &unicast);
    assert_eq!(sta_host[1], vec![unicast]);

    // Another interval: back to Key ID 1, with a new key.
    tick(&mut ap, &mut stas, 8);
    assert_eq!(ap.counters.group_rekeys, 2);
    let third = broadcast(b"under the third GTK");
    let (sent, hosts) = from_ap_host(&mut ap, &mut stas, &third);
    assert_eq!((key_id(&sent[0]), hosts), (1, vec![vec![third.clone()], vec![third]]));
    assert!(stas.iter().all(|s| s.counters.dropped_replay + s.counters.dropped_integrity == 0));
}

#[test]
fn gtk_rotates_when_a_station_leaves() {
    let (mut ap, mut stas) = join("ccmp", PASS);
    let leaving = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING })
        .to_mpdu(AP, sta_mac(2), AP, SequenceControl::new(100, 0))
        .unwrap();
    run(&mut ap, &mut stas, vec![leaving]);
    assert_eq!(ap.counters.group_rekeys, 1);
    assert_eq!(ap.associations().len(), 1);
    // The station that left still holds the old GTK: it reads nothing under the new one.
    let after = broadcast(b"after station two left");
    let (sent, hosts) = from_ap_host(&mut ap, &mut stas, &after);
    assert_eq!(key_id(&sent[0]), 2);
    assert_eq!(hosts, vec![vec![after], vec![]]);

    // It comes back: the GTK it is given is the current one, no rotation for an arrival.
    start(&mut ap, &mut stas, 1);
    assert_eq!(ap.counters.group_rekeys, 1);
    let back = broadcast(b"station two is back");
    let (_, hosts) = from_ap_host(&mut ap, &mut stas, &back);
    assert_eq!(hosts, vec![vec![back.clone()], vec![back]]);

    // Starting again (a new Authentication) is leaving too.
    start(&mut ap, &mut stas, 0);
    assert_eq!(ap.counters.group_rekeys, 2);
    let again = broadcast(b"after station one started again");
    let (sent, hosts) = from_ap_host(&mut ap, &mut stas, &again);
    assert_eq!((key_id(&sent[0]), hosts), (1, vec![vec![again.clone()], vec![again]]));
}

#[test]
fn broadcast_replay_after_rekey_refused() {
    let mut ap = AccessPoint::new(config("ccmp", PASS)).unwrap();
    let mut stas = stations("ccmp", 3);
    start(&mut ap, &mut stas, 0);
    start(&mut ap, &mut stas, 2);
    let old = broadcast(b"under the first GTK");
    let (old_frame, _) = from_ap_host(&mut ap, &mut stas, &old);

    // Station two joins, but its message 3 (with the first GTK) is held back while station
    // three leaves: the GTK rotates, station one takes the new one, group traffic switches.
    let mut out = Vec::new();
    stas[1].start(&mut out).unwrap();
    let m3 = run_holding(&mut ap, &mut stas, air(out), |m| eapol_to(m, sta_mac(2)) == Some(Message::FourWay3));
    assert_eq!(m3.len(), 1);
    let leaving = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING })
        .to_mpdu(AP, sta_mac(3), AP, SequenceControl::new(100, 0))
        .unwrap();
    run(&mut ap, &mut stas, vec![leaving]);
    assert_eq!(ap.counters.group_rekeys, 1);
    let new = broadcast(b"under the second GTK, before station two has it");
    let (new_frame, hosts) = from_ap_host(&mut ap, &mut stas, &new);
    assert_eq!(key_id(&new_frame[0]), 2);
    assert_eq!(hosts[0], vec![new]);

    // Message 3 arrives: station two completes with the first GTK, then gets the second in
    // a group key handshake whose Key RSC is the PN that GTK has already reached.
    run(&mut ap, &mut stas, m3);
    assert_eq!(*stas[1].state(), StationState::Connected);
    for (who, replay) in [(1, &new_frame[0]), (1, &old_frame[0]), (0, &new_frame[0]), (0, &old_frame[0])] {
        let replays = stas[who].counters.dropped_replay;
        let mut out = Vec::new();
        let refused = stas[who].from_air(replay, &mut out);
        assert!(matches!(refused, Err(crate::Error::Frame(Error::Replay { .. }))), "station {who}: {refused:?}");
        assert!(out.is_empty());
        assert_eq!(stas[who].counters.dropped_replay, replays + 1);
    }
    let fresh = broadcast(b"after the rotation");
    let (_, hosts) = from_ap_host(&mut ap, &mut stas, &fresh);
    assert_eq!(hosts, vec![vec![fresh.clone()], vec![fresh], vec![]]);
}
