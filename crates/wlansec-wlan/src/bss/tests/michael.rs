//! TKIP countermeasures (IEEE 802.11-2016 12.5.2.4): a Michael MIC failure the access point
//! sees, or one a station reports, counts; two within 60 s send every station away and
//! admit none for 60 s.

use wlansec_core::suite::wep::crc32_icv;

use super::group::{air, tick};
use super::*;

/// QoS data header and TKIP IV/Ext IV.
const DATA_START: usize = 26 + 8;
const ICV_LEN: usize = 4;
const MICHAEL_LEN: usize = 8;

/// What an attacker without the key does to a TKIP MPDU (as in Beck-Tews): flip a bit of
/// the encrypted MSDU and fix the encrypted ICV (CRC-32 is affine), so the frame passes the
/// ICV check and fails only Michael.
fn forge(mpdu: &[u8]) -> Vec<u8> {
    let mut forged = mpdu.to_vec();
    let icv_at = forged.len() - ICV_LEN;
    let mut delta = vec![0u8; icv_at - DATA_START];
    let last_msdu_octet = delta.len() - MICHAEL_LEN - 1;
    delta[last_msdu_octet] = 0x01;
    let fix = crc32_icv(&delta).into_iter().zip(crc32_icv(&vec![0u8; delta.len()])).map(|(a, b)| a ^ b);
    for (octet, d) in forged[DATA_START..icv_at].iter_mut().zip(&delta) {
        *octet ^= d;
    }
    for (octet, f) in forged[icv_at..].iter_mut().zip(fix) {
        *octet ^= f;
    }
    forged
}

/// Station 1 sends the AP's host a frame; the AP gets it forged.
fn forged_to_ap(ap: &mut AccessPoint, stas: &mut [Station]) {
    let mut out = Vec::new();
    stas[0].from_host(&ethernet(AP, sta_mac(1), b"to the access point's host"), &mut out).unwrap();
    let genuine = air(out).remove(0);
    let mut out = Vec::new();
    assert!(matches!(ap.from_air(&forge(&genuine), &mut out), Err(crate::Error::Frame(Error::MicFailure))));
    let (_, hosts) = run(ap, stas, air(out));
    assert!(hosts.iter().all(|h| h.is_empty()));
}

/// The AP sends station 2 a frame; the station gets it forged and reports it.
fn forged_to_station(ap: &mut AccessPoint, stas: &mut [Station]) {
    let mut out = Vec::new();
    ap.from_host(&ethernet(sta_mac(2), AP, b"to station two"), &mut out).unwrap();
    let genuine = air(out).remove(0);
    let mut out = Vec::new();
    assert!(matches!(stas[1].from_air(&forge(&genuine), &mut out), Err(crate::Error::Frame(Error::MicFailure))));
    let report = air(out);
    assert_eq!(report.len(), 1, "one Michael MIC failure report");
    let (ap_host, _) = run(ap, stas, report);
    assert!(ap_host.is_empty(), "the report is the authenticator's, not the host's");
}

fn traffic_flows(ap: &mut AccessPoint, stas: &mut [Station]) {
    let frame = ethernet(sta_mac(2), sta_mac(1), b"legitimate traffic");
    let (_, sta_host, _) = send(ap, stas, 0, &frame);
    assert_eq!(sta_host[1], vec![frame]);
}

#[test]
fn one_michael_failure_does_not_trigger_countermeasures() {
    let (mut ap, mut stas) = join("tkip", "correct horse");
    forged_to_station(&mut ap, &mut stas);
    assert_eq!((stas[1].counters.mic_failures, ap.counters.mic_failures), (1, 1));
    assert_eq!(ap.counters.countermeasure_activations, 0);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    traffic_flows(&mut ap, &mut stas);
    // A second failure 61 s later is again only one within the window.
    tick(&mut ap, &mut stas, (61_000 / TICK_MS) as usize);
    forged_to_ap(&mut ap, &mut stas);
    assert_eq!(ap.counters.mic_failures, 2);
    assert_eq!(ap.counters.countermeasure_activations, 0);
    assert!(!ap.counters.countermeasures_active);
    traffic_flows(&mut ap, &mut stas);
}

#[test]
fn michael_double_failure_triggers_countermeasures() {
    let (mut ap, mut stas) = join("tkip", "correct horse");
    forged_to_ap(&mut ap, &mut stas);
    assert_eq!((ap.counters.mic_failures, ap.counters.countermeasure_activations), (1, 0));
    forged_to_station(&mut ap, &mut stas);
    assert_eq!((ap.counters.mic_failures, ap.counters.countermeasure_activations), (2, 1));
    assert!(ap.counters.countermeasures_active);
    assert_eq!(ap.counters.group_rekeys, 1, "a new GTK");
    assert!(ap.associations().is_empty(), "every station sent away");
    assert!(stas.iter().all(|s| *s.state() == StationState::Authenticating));

    // For 60 s no station is admitted, however often it asks.
    tick(&mut ap, &mut stas, (59_000 / TICK_MS) as usize);
    assert!(ap.counters.countermeasures_active);
    assert!(ap.associations().is_empty());
    assert!(stas.iter().all(|s| *s.state() != StationState::Connected));
    tick(&mut ap, &mut stas, (2_000 / TICK_MS) as usize);
    assert!(!ap.counters.countermeasures_active);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    traffic_flows(&mut ap, &mut stas);
}

/// The station runs countermeasures too: its own second failure within 60 s makes it
/// deauthenticate and stay away for 60 s (the access point, told of both, sends the others
/// away as well), then it joins again.
#[test]
fn a_station_that_sees_two_michael_failures_leaves_for_60_s() {
    let (mut ap, mut stas) = join("tkip", "correct horse");
    forged_to_station(&mut ap, &mut stas);
    assert_eq!(*stas[1].state(), StationState::Connected);
    let mut out = Vec::new();
    ap.from_host(&ethernet(sta_mac(2), AP, b"to station two, again"), &mut out).unwrap();
    let genuine = air(out).remove(0);
    let mut out = Vec::new();
    assert!(stas[1].from_air(&forge(&genuine), &mut out).is_err());
    assert_eq!(stas[1].counters.countermeasure_activations, 1);
    assert_eq!(*stas[1].state(), StationState::Countermeasures);
    run(&mut ap, &mut stas, air(out));
    assert!(!ap.associations().iter().any(|a| a.mac == sta_mac(2).to_string()), "station two left");

    tick(&mut ap, &mut stas, (59_000 / TICK_MS) as usize);
    assert_eq!(*stas[1].state(), StationState::Countermeasures);
    assert!(stas[1].counters.countermeasures_active);
    tick(&mut ap, &mut stas, (2_000 / TICK_MS) as usize);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    traffic_flows(&mut ap, &mut stas);
}
