//! The access point on its Verilog card: the stations (host engine) open what the RTL
//! sealed, the RTL opens what they sealed, and its verdict on a forged frame is the
//! engine's MIC failure, dropped and counted by the receive pipeline.

use super::*;
use crate::verilog::{self, CcmpOn};

/// The card, or None (after saying so) where verilator was not installed at build time and
/// the environment allows a skip.
fn card() -> Option<verilog::Card> {
    match verilog::open_card() {
        Ok(card) => Some(card),
        Err(e) if std::env::var("WLANSEC_REQUIRE_ALL").as_deref() != Ok("1") => {
            println!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn an_access_point_on_its_verilog_card_carries_frames_and_refuses_forgeries_with_verilator() {
    let Some(card) = card() else { return };
    let ap = AccessPoint::with_ccmp_on(config("ccmp", "correct horse"), CcmpOn::Card(card.clone())).unwrap();
    let (mut ap, mut stas) = join_ap(ap, config("ccmp", "correct horse"), Defences::ALL);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    let opened_before = verilog::open_cycles(&card);

    // Station 1 to station 2: opened by the RTL, sealed again by it, opened by station 2.
    let unicast = ethernet(sta_mac(2), sta_mac(1), b"through the access point's RTL");
    let (_, sta_host, _) = send(&mut ap, &mut stas, 0, &unicast);
    assert_eq!(sta_host[1], vec![unicast]);
    assert!(verilog::open_cycles(&card) > opened_before, "the RTL opened nothing");
    // A group frame: sealed by the RTL under the GTK.
    let group = ethernet(MacAddr::BROADCAST, sta_mac(1), b"who has 10.77.0.2?");
    let (ap_host, sta_host, _) = send(&mut ap, &mut stas, 0, &group);
    assert_eq!((ap_host, &sta_host[1]), (vec![group.clone()], &vec![group]));

    // One bit of the MIC flipped: the RTL's verdict is the engine's MIC failure.
    let frame = ethernet(AP, sta_mac(1), b"to the access point's host");
    let mut sent = Vec::new();
    stas[0].from_host(&frame, &mut sent).unwrap();
    let Some(Output::Air(mut tampered)) = sent.pop() else { panic!("nothing sent") };
    let genuine = tampered.clone();
    let n = tampered.len();
    tampered[n - 1] ^= 0x80;
    let mut out = Vec::new();
    assert!(matches!(ap.from_air(&tampered, &mut out), Err(crate::Error::Frame(Error::MicFailure))));
    assert_eq!(ap.counters.dropped_integrity, 1);
    assert!(out.is_empty());
    ap.from_air(&genuine, &mut out).unwrap();
    assert!(matches!(&out[..], [Output::Peer(_), Output::Ethernet(e)] if *e == frame), "{out:?}");
    // And its replay is refused before the RTL sees it.
    assert!(matches!(ap.from_air(&genuine, &mut out), Err(crate::Error::Frame(Error::Replay { .. }))));
}

#[test]
fn a_one_bit_mutation_of_the_rtl_breaks_the_link_with_verilator() {
    if card().is_none() {
        return;
    }
    // ccmp_axi with its Protected bit left clear: the stations take its frames as forged
    // plaintext.
    let mutant = wlansec_rtl::Card::with_encapsulation(wlansec_rtl::Design::EncapMutant).unwrap().shared();
    let ap = AccessPoint::with_ccmp_on(config("ccmp", "correct horse"), CcmpOn::Card(mutant)).unwrap();
    let (mut ap, mut stas) = join_ap(ap, config("ccmp", "correct horse"), Defences::ALL);
    let unicast = ethernet(sta_mac(2), sta_mac(1), b"through the mutant");
    let (_, sta_host, _) = send(&mut ap, &mut stas, 0, &unicast);
    assert!(sta_host[1].is_empty(), "a frame of the mutant RTL reached station 2");
    assert!(stas[1].counters.refused_attacks > 0);
}
