use wlansec_core::rx::Defences;
use wlansec_core::wire::llc;
use wlansec_core::wire::{FrameControl, MacAddr, SequenceControl};
use wlansec_core::Error;

use super::*;
use crate::node::{data_mpdus, qos_header};

mod admission;
mod beacon_protection;
mod group;
mod michael;
mod model;
mod owe;
mod owe_transition;
mod pmf;
mod sae;
mod sae_ext;
mod transition;
#[cfg(feature = "verilog")]
mod verilog;

pub(super) const AP: MacAddr = MacAddr([0x02, 0x77, 0, 0, 0, 0xfe]);

pub(super) fn config(mode: &str, passphrase: &str) -> NetworkConfig {
    NetworkConfig::new("wlansec", AP, mode.parse().unwrap(), passphrase)
}

pub(super) fn sta_mac(i: u8) -> MacAddr {
    MacAddr([0x02, 0x77, 0, 0, 0, i])
}

/// Frames as byte vectors: Ethernet frames handed to a host, or MPDUs on the air.
pub(super) type Frames = Vec<Vec<u8>>;

/// Deliver every air frame to every machine until nothing more is sent; returns the
/// Ethernet frames each host received.
pub(super) fn run(ap: &mut AccessPoint, stas: &mut [Station], mut air: Frames) -> (Frames, Vec<Frames>) {
    let mut ap_host = Vec::new();
    let mut sta_host = vec![Vec::new(); stas.len()];
    for _ in 0..64 {
        if air.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for mpdu in air.drain(..) {
            let mut out = Vec::new();
            let _ = ap.from_air(&mpdu, &mut out);
            for o in out.drain(..) {
                match o {
                    Output::Air(m) => next.push(m),
                    Output::Ethernet(e) => ap_host.push(e),
                    Output::Peer(_) => {}
                }
            }
            for (i, s) in stas.iter_mut().enumerate() {
                let _ = s.from_air(&mpdu, &mut out);
                for o in out.drain(..) {
                    match o {
                        Output::Air(m) => next.push(m),
                        Output::Ethernet(e) => sta_host[i].push(e),
                        Output::Peer(_) => {}
                    }
                }
            }
        }
        air = next;
    }
    (ap_host, sta_host)
}

fn join(mode: &str, sta_passphrase: &str) -> (AccessPoint, Vec<Station>) {
    join_with(config(mode, "correct horse"), config(mode, sta_passphrase), Defences::ALL)
}

/// An access point and two stations of the given networks, joined, every machine with
/// `defences`.
pub(super) fn join_with(ap: NetworkConfig, sta: NetworkConfig, defences: Defences) -> (AccessPoint, Vec<Station>) {
    join_ap(AccessPoint::new(ap).unwrap(), sta, defences)
}

/// `ap` and two stations of network `sta`, joined, every machine with `defences`.
pub(super) fn join_ap(ap: AccessPoint, sta: NetworkConfig, defences: Defences) -> (AccessPoint, Vec<Station>) {
    let mut ap = ap.with_defences(defences);
    let mut stas: Vec<Station> =
        (1..=2).map(|i| Station::new(sta.clone(), sta_mac(i)).unwrap().with_defences(defences)).collect();
    // The access point beacons first, as it does in the emulator: the stations learn its
    // RSN element (and management frame protection policy) from it.
    let mut air = vec![ap.beacon().unwrap()];
    let mut out = Vec::new();
    for s in stas.iter_mut() {
        s.start(&mut out).unwrap();
    }
    air.extend(out.into_iter().map(|o| match o {
        Output::Air(m) => m,
        Output::Ethernet(_) | Output::Peer(_) => unreachable!(),
    }));
    run(&mut ap, &mut stas, air);
    (ap, stas)
}

/// Station 1's association request with the elements `body`: the status of the access
/// point's answer.
pub(super) fn association_status(ap: &mut AccessPoint, body: &[u8]) -> u16 {
    use wlansec_core::wire::mgmt::{capability, AssociationRequestRepr, Elements, ManagementBody};
    use wlansec_core::wire::{Frame, Rules};
    let request = AssociationRequestRepr {
        capability: capability::ESS,
        listen_interval: 10,
        current_ap: None,
        elements: Elements::new(body),
    };
    let mpdu =
        ManagementBody::AssociationRequest(request).to_mpdu(AP, sta_mac(1), AP, SequenceControl::new(1, 0)).unwrap();
    let mut out = Vec::new();
    let _ = ap.from_air(&mpdu, &mut out);
    group::air(out)
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

pub(super) fn ethernet(dst: MacAddr, src: MacAddr, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 14];
    llc::EthernetRepr { dst, src, ethertype: 0x0800 }.emit(&mut f).unwrap();
    f.extend_from_slice(payload);
    f
}

pub(super) fn send(
    ap: &mut AccessPoint,
    stas: &mut [Station],
    from: usize,
    frame: &[u8],
) -> (Frames, Vec<Frames>, Frames) {
    let mut out = Vec::new();
    stas[from].from_host(frame, &mut out).unwrap();
    let air: Vec<Vec<u8>> =
        out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }).collect();
    let (a, s) = run(ap, stas, air.clone());
    (a, s, air)
}

#[test]
fn every_mode_carries_unicast_and_group_frames_between_stations() {
    for mode in ["open", "wep", "tkip", "ccmp", "gcmp256", "enhanced:1", "enhanced:4"] {
        let pass = if mode == "wep" { "abcdefghijklm" } else { "correct horse" };
        let mut ap = AccessPoint::new(config(mode, pass)).unwrap();
        let mut stas: Vec<Station> = (1..=2).map(|i| Station::new(config(mode, pass), sta_mac(i)).unwrap()).collect();
        let mut out = Vec::new();
        for s in stas.iter_mut() {
            s.start(&mut out).unwrap();
        }
        let air = out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }).collect();
        run(&mut ap, &mut stas, air);
        assert!(
            stas.iter().all(|s| *s.state() == StationState::Connected),
            "{mode}: {:?}",
            stas.iter().map(|s| s.state().clone()).collect::<Vec<_>>()
        );

        let unicast = ethernet(sta_mac(2), sta_mac(1), b"hello station two, through the AP");
        let (ap_host, sta_host, air) = send(&mut ap, &mut stas, 0, &unicast);
        assert_eq!(sta_host[1], vec![unicast.clone()], "{mode}");
        assert!(ap_host.is_empty() && sta_host[0].is_empty(), "{mode}");
        if mode != "open" {
            assert!(!air[0].windows(8).any(|w| w == b"hello st"), "{mode}: plaintext on the air");
        }

        let group = ethernet(MacAddr::BROADCAST, sta_mac(1), b"who has 10.77.0.2?");
        let (ap_host, sta_host, _) = send(&mut ap, &mut stas, 0, &group);
        assert_eq!(ap_host, vec![group.clone()], "{mode}");
        assert_eq!(sta_host[1], vec![group.clone()], "{mode}");
        assert!(sta_host[0].is_empty(), "{mode}: own group frame came back");
    }
}

#[test]
fn wrong_passphrase_fails_the_handshake_and_passes_no_data() {
    let (mut ap, mut stas) = join("ccmp", "battery staple");
    assert!(stas.iter().all(|s| *s.state() == StationState::Handshaking));
    let mut out = Vec::new();
    for _ in 0..4 {
        ap.tick(&mut out).unwrap();
    }
    let air = out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }).collect();
    run(&mut ap, &mut stas, air);
    for a in ap.associations() {
        let failure = a.failure.expect("failure recorded");
        assert!(failure.contains("MIC") && failure.contains("wrong passphrase"), "{failure}");
        assert!(!a.port_open);
    }
    // A station tries again (the access point's word alone could be a forger's), and after
    // three 4-way handshakes in a row ended with reason 15 it gives up: a wrong passphrase.
    assert!(stas.iter().all(|s| matches!(s.state(), StationState::Rejoining(_))));
    group::tick(&mut ap, &mut stas, 40);
    for s in &stas {
        let StationState::Failed(why) = s.state() else { panic!("{:?}", s.state()) };
        assert!(why.contains("reason 15") && why.contains("wrong passphrase"), "{why}");
    }
    let frame = ethernet(sta_mac(2), sta_mac(1), b"data");
    let (ap_host, sta_host, air) = send(&mut ap, &mut stas, 0, &frame);
    assert!(air.is_empty() && ap_host.is_empty() && sta_host.iter().all(|h| h.is_empty()));
    assert_eq!(stas[0].counters.dropped_port_closed, 1);
}

#[test]
fn replayed_and_tampered_frames_are_dropped_and_counted() {
    for mode in ["ccmp", "tkip", "enhanced:2"] {
        let (mut ap, mut stas) = join(mode, "correct horse");
        let frame = ethernet(AP, sta_mac(1), b"to the access point's host");
        let (ap_host, _, air) = send(&mut ap, &mut stas, 0, &frame);
        assert_eq!(ap_host.len(), 1);
        let mut out = Vec::new();
        assert!(matches!(ap.from_air(&air[0], &mut out), Err(crate::Error::Frame(Error::Replay { .. }))), "{mode}");
        assert_eq!(ap.counters.dropped_replay, 1, "{mode}");
        let mut sent = Vec::new();
        stas[0].from_host(&frame, &mut sent).unwrap();
        let Some(Output::Air(mut tampered)) = sent.pop() else { panic!("nothing sent") };
        let n = tampered.len();
        tampered[n - 12] ^= 0x01;
        assert!(ap.from_air(&tampered, &mut out).is_err(), "{mode}");
        assert_eq!(ap.counters.dropped_integrity, 1, "{mode}");
        assert!(out.is_empty());
        assert_eq!(ap.counters.rx_msdus, 1, "{mode}");
    }
}

#[test]
fn unprotected_data_is_refused_on_a_protected_network() {
    let (mut ap, mut stas) = join("ccmp", "correct horse");
    let plain = |ds, a1, a2| {
        let header = qos_header(ds, a1, a2, AP, SequenceControl::new(1, 0));
        data_mpdus(header, 0x0800, b"forged", None, None).unwrap().remove(0)
    };
    let mut out = Vec::new();
    assert!(ap.from_air(&plain(FrameControl::TO_DS, AP, sta_mac(1)), &mut out).is_err());
    assert!(out.is_empty());
    assert_eq!(ap.counters.refused_attacks, 1);
    assert!(stas[0].from_air(&plain(FrameControl::FROM_DS, sta_mac(1), AP), &mut out).is_err());
    assert!(out.is_empty());
}

#[test]
fn a_refused_passphrase_is_not_repeated() {
    let e = AccessPoint::new(config("wep", "secret")).err().expect("a 6-character WEP key is refused");
    assert!(!format!("{e} {e:?}").contains("secret"), "{e:?}");
}
