//! A station's GTK comes with the Key RSC its group frames have reached: a station that
//! meets it later refuses those earlier group frames as replays.

use wlansec_core::Error;

use super::*;

#[test]
fn group_frames_sent_before_a_peer_joined_are_replays() {
    let mut stas = stations("ccmp", &["ibss-passphrase"; 3]);
    join(&mut stas[..2], 1);
    let early = ethernet(MacAddr::BROADCAST, mac(1), b"before station three joined");
    let (hosts, air) = send(&mut stas[..2], 0, &early);
    assert_eq!(hosts[1], vec![early]);
    let captured = air[0].clone();

    let mut out = Vec::new();
    stas[2].start(&mut out).unwrap();
    let beacon = out.into_iter().map(|o| match o {
        Output::Air(m) => (2, m),
        Output::Ethernet(_) | Output::Peer(_) => unreachable!(),
    });
    run(&mut stas, beacon.collect(), 2);
    assert!(stas[2].peers().iter().all(|p| p.port_open), "{:?}", stas[2].peers());

    let replays = stas[2].counters.dropped_replay;
    let mut out = Vec::new();
    let refused = stas[2].from_air(&captured, &mut out);
    assert!(matches!(refused, Err(crate::Error::Frame(Error::Replay { .. }))), "{refused:?}");
    assert!(out.is_empty());
    assert_eq!(stas[2].counters.dropped_replay, replays + 1);
    let later = ethernet(MacAddr::BROADCAST, mac(1), b"after station three joined");
    let (hosts, _) = send(&mut stas, 0, &later);
    assert_eq!(hosts[2], vec![later]);
}
