//! The peer table under attack: a flood of forged beacons from distinct addresses stays
//! within the table's bounds while a genuine peer keys its link and its data gets through;
//! proven peers fill the table and no forger gets in; a peer whose handshake fails is
//! removed, its reason kept a while, and learned again later.

use super::*;
use crate::bss::Admission;
use crate::ibss::admission::{FAILURE_RECORD_TICKS, MAX_PEERS, MAX_UNPROVEN};

const PASS: &str = "ibss-passphrase";
/// 64 hex digits are the PSK itself: no PBKDF2 per station.
const PSK: &str = "776c616e7365632d697373732d706565722d7461626c652d746573742d6b6579";

/// The `i`th forged address (locally administered, never a test station's).
fn forged(i: u32) -> MacAddr {
    let b = i.to_be_bytes();
    MacAddr([0x06, 0xee, b[0], b[1], b[2], b[3]])
}

/// `beacon` as if sent by `sa`.
fn beacon_from(beacon: &[u8], sa: MacAddr) -> Vec<u8> {
    let mut b = beacon.to_vec();
    b[10..16].copy_from_slice(&sa.0);
    b
}

/// The frames of `out` on the air addressed to `to` or to everyone; the Ethernet frames.
fn split(out: Vec<Output>, to: MacAddr) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let (mut air, mut host) = (Vec::new(), Vec::new());
    for o in out {
        match o {
            Output::Air(m) => {
                let a1 = Frame::new_checked(&m[..], Rules::default()).unwrap().addr1();
                if a1 == to || a1.is_group() {
                    air.push(m);
                }
            }
            Output::Ethernet(e) => host.push(e),
            Output::Peer(_) => {}
        }
    }
    (air, host)
}

/// Deliver `frames` to `sta`: what it sends to `peer` (or everyone), what reaches its host.
fn deliver(sta: &mut IbssStation, frames: Vec<Vec<u8>>, peer: MacAddr) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut out = Vec::new();
    for f in frames {
        let _ = sta.from_air(&f, &mut out);
    }
    split(out, peer)
}

fn keyed(sta: &IbssStation, peer: MacAddr) -> bool {
    sta.peers().iter().any(|p| p.mac == peer.to_string() && p.port_open)
}

fn failures(sta: &IbssStation) -> usize {
    sta.peers().iter().filter(|p| p.failure.is_some()).count()
}

/// 100,000 forged beacons from distinct addresses over 10 s of simulated time (40 ticks),
/// 25 between each hop of a genuine peer's exchange with the station: the peer table, its
/// unproven part and the clock's work stay within their bounds; the genuine peer keys the
/// link in the first tick, keeps it through the flood, and each of its unicast frames (one
/// per hop from then on) reaches the station's host, and back.
#[test]
fn a_beacon_flood_stays_bounded_and_a_genuine_peer_keys_the_link_and_its_data_gets_through() {
    let mut stas = stations("ccmp", &[PASS, PASS]);
    let [peer, sta] = &mut stas[..] else { unreachable!() };
    let (peer_mac, sta_mac) = (peer.mac(), sta.mac());
    let template = sta.beacon().unwrap();
    let mut out = Vec::new();
    peer.start(&mut out).unwrap();
    let (mut to_sta, _) = split(out, sta_mac);
    let mut out = Vec::new();
    sta.start(&mut out).unwrap();
    let (mut to_peer, _) = split(out, peer_mac);
    let (mut sent, mut keyed_at, mut data) = (0u32, None, 0usize);
    let mut sink = Vec::new();
    for t in 1..=40u32 {
        for _ in 0..100 {
            for _ in 0..25 {
                let _ = sta.from_air(&beacon_from(&template, forged(sent)), &mut sink);
                sent += 1;
                sink.clear();
            }
            let (air, _) = deliver(sta, std::mem::take(&mut to_sta), peer_mac);
            to_peer.extend(air);
            let (air, _) = deliver(peer, std::mem::take(&mut to_peer), sta_mac);
            to_sta.extend(air);
            let admission = sta.admission();
            assert!(admission.unproven <= MAX_UNPROVEN, "{admission:?}");
            assert!(admission.stations <= MAX_UNPROVEN + 1, "{admission:?}");
            if keyed_at.is_none() && keyed(sta, peer_mac) && keyed(peer, sta_mac) {
                keyed_at = Some(t);
            }
            if keyed_at.is_some() {
                assert!(keyed(sta, peer_mac), "the genuine peer lost its link in tick {t}");
                let frame = ethernet(sta_mac, peer_mac, format!("ping {data}").as_bytes());
                let mut out = Vec::new();
                peer.from_host(&frame, &mut out).unwrap();
                let (air, _) = split(out, sta_mac);
                let (_, host) = deliver(sta, air, peer_mac);
                assert_eq!(host, vec![frame], "tick {t}");
                let reply = ethernet(peer_mac, sta_mac, format!("pong {data}").as_bytes());
                let mut out = Vec::new();
                sta.from_host(&reply, &mut out).unwrap();
                let (air, _) = split(out, peer_mac);
                let (_, host) = deliver(peer, air, sta_mac);
                assert_eq!(host, vec![reply], "tick {t}");
                data += 1;
            }
        }
        for (from, to, queue) in [(&mut *sta, peer_mac, &mut to_peer), (&mut *peer, sta_mac, &mut to_sta)] {
            let mut out = Vec::new();
            from.tick(&mut out).unwrap();
            queue.extend(split(out, to).0);
        }
        assert!(sta.admission().ticked <= MAX_UNPROVEN + 1, "{:?}", sta.admission());
    }
    assert_eq!(sent, 100_000);
    assert_eq!(keyed_at, Some(1), "the genuine peer keyed the link only in tick {keyed_at:?}");
    assert!(data >= 3_900, "{data}");
    assert!(sta.counters.evicted_unproven >= 100_000 - MAX_UNPROVEN as u64, "{:?}", sta.counters);
    // Quiet again: the forged peers' handshakes time out and are gone, a bounded few of
    // their failures kept; the clock visits no one (the genuine link is done).
    for _ in 0..4 {
        sta.tick(&mut Vec::new()).unwrap();
    }
    assert_eq!(sta.admission(), Admission { stations: 1, unproven: 0, ticked: 0 });
    assert!(failures(sta) <= 16, "{} failure records", failures(sta));
    assert!(keyed(sta, peer_mac));
}

/// The station keys links with `MAX_PEERS` genuine peers (each in its own pairwise
/// exchange): the table is full of proven peers, none is evicted for a forger's beacon, which
/// is refused and counted; the clock visits none of them (no handshake in flight).
#[test]
fn proven_peers_fill_the_table_and_a_forger_is_refused_and_the_clock_visits_none() {
    let config = |mac| IbssStation::new(NetworkConfig::new("adhoc", BSSID, "ccmp".parse().unwrap(), PSK), mac);
    let mut sta = config(mac(1)).unwrap();
    let template = sta.beacon().unwrap();
    for i in 0..MAX_PEERS as u32 {
        let peer_mac = MacAddr([0x02, 0x77, 1, 0, (i >> 8) as u8, i as u8]);
        let mut peer = config(peer_mac).unwrap();
        let mut out = Vec::new();
        peer.start(&mut out).unwrap();
        let mut to_sta = split(out, sta.mac()).0;
        for _ in 0..8 {
            let (to_peer, _) = deliver(&mut sta, std::mem::take(&mut to_sta), peer_mac);
            to_sta = deliver(&mut peer, to_peer, sta.mac()).0;
        }
        assert!(keyed(&sta, peer_mac) && keyed(&peer, sta.mac()), "peer {i}");
    }
    let full = Admission { stations: MAX_PEERS, unproven: 0, ticked: 0 };
    assert_eq!(sta.admission(), full);
    let mut out = Vec::new();
    assert!(sta.from_air(&beacon_from(&template, forged(1)), &mut out).is_ok());
    assert!(out.is_empty(), "a message 1 to the forger");
    assert_eq!(sta.counters.refused_table_full, 1);
    sta.tick(&mut out).unwrap();
    assert_eq!(sta.admission(), full);
}

/// A peer that never answers is removed when its handshake times out, its reason kept for
/// status; while kept, its beacons do not bring it back; once expired, it is learned again.
/// A wrong passphrase's peer is removed the same way, the reason saying so.
#[test]
fn a_failed_peer_is_removed_its_reason_kept_a_while_then_it_is_learned_again() {
    let mut stas = stations("ccmp", &[PASS]);
    let sta = &mut stas[0];
    let template = sta.beacon().unwrap();
    let ghost = beacon_from(&template, forged(7));
    let mut out = Vec::new();
    sta.from_air(&ghost, &mut out).unwrap();
    assert_eq!(sta.admission(), Admission { stations: 1, unproven: 1, ticked: 0 });
    for _ in 0..4 {
        sta.tick(&mut out).unwrap();
    }
    assert_eq!(sta.admission(), Admission { stations: 0, unproven: 0, ticked: 1 });
    let peers = sta.peers();
    assert_eq!(peers.len(), 1, "{peers:?}");
    assert_eq!(peers[0].mac, forged(7).to_string());
    assert_eq!(peers[0].failure.as_deref(), Some("4-way handshake failed: no answer from the peer"));
    sta.from_air(&ghost, &mut out).unwrap();
    assert_eq!(sta.admission().stations, 0, "learned again while its failure is on record");
    for _ in 0..FAILURE_RECORD_TICKS {
        sta.tick(&mut out).unwrap();
    }
    assert!(sta.peers().is_empty(), "{:?}", sta.peers());
    assert_eq!(sta.admission().ticked, 0);
    sta.from_air(&ghost, &mut out).unwrap();
    assert_eq!(sta.admission(), Admission { stations: 1, unproven: 1, ticked: 0 });

    let mut stas = stations("ccmp", &[PASS, "another-passphrase"]);
    join(&mut stas, 16);
    for s in &stas {
        assert_eq!(s.admission(), Admission { stations: 0, unproven: 0, ticked: 0 });
        let failure = s.peers()[0].failure.clone().unwrap_or_default();
        assert!(failure.contains("wrong passphrase"), "{failure}");
    }
}
