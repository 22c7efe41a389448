//! Published attacks on the air against the emulated access point and stations, in memory.
//! Each test injects the attacker's frames into a joined BSS and asserts that the attack
//! fails and legitimate traffic keeps flowing, then runs it again with only the defence
//! that stops it switched off and asserts that it succeeds there, so no test passes by
//! accident. The FragAttacks cases that need no network (mixed keys, PN gaps, the fragment
//! cache, broadcast fragments) are run against the shared receive pipeline in
//! `wlansec_core::rx::attacks`.

use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::eapol::ETHERTYPE_EAPOL;
use wlansec_core::rx::Defences;
use wlansec_core::suite::tkip::Role;
use wlansec_core::suite::{Tkip, Transmitter};
use wlansec_core::tx::{self, FragmentationThreshold};
use wlansec_core::wire::llc::{self, SNAP_HEADER_LEN};
use wlansec_core::wire::{FrameControl, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

use super::tests::{config, ethernet, join_with, run, send, sta_mac, Frames, AP};
use super::*;
use crate::node::Counters;
use crate::node::{data_mpdus, qos_header};

/// Octet of QoS Control that holds the A-MSDU Present bit in a three-address data frame.
const QOS_CONTROL_AT: usize = 24;

/// `attack(defences)` joins a BSS whose machines have `defences`, attacks it and returns
/// whether the attack succeeded. It must fail with every defence, and succeed once `off`
/// has switched its defences off.
fn blocked_only_by(off: fn(&mut Defences), attack: impl Fn(Defences) -> bool) {
    assert!(!attack(Defences::ALL), "the attack succeeded with every defence on");
    let mut defences = Defences::ALL;
    off(&mut defences);
    assert!(attack(defences), "the attack needs these defences to fail");
}

fn joined(mode: &str, defences: Defences) -> (AccessPoint, Vec<Station>) {
    let (ap, stas) = join_with(config(mode, "correct horse"), config(mode, "correct horse"), defences);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    (ap, stas)
}

/// After an attack: station 1 still reaches station 2 through the access point.
fn traffic_flows(ap: &mut AccessPoint, stas: &mut [Station]) {
    let frame = ethernet(sta_mac(2), sta_mac(1), b"legitimate traffic, after the attack");
    let (_, hosts, _) = send(ap, stas, 0, &frame);
    assert_eq!(hosts[1], vec![frame], "legitimate traffic stopped");
}

/// Whether any Ethernet frame a host received carries `needle`.
fn reached(hosts: &[Frames], needle: &[u8]) -> bool {
    hosts.iter().flatten().any(|f| f.windows(needle.len()).any(|w| w == needle))
}

/// An unprotected frame "from the access point" to station 1 (From DS), as anyone can
/// transmit it: `body` behind `header`'s QoS data header.
fn forged(header: HeaderRepr, body: &[u8]) -> Vec<u8> {
    let mut mpdu = vec![0u8; header.header_len()];
    header.emit(&mut mpdu, Rules::default()).unwrap();
    mpdu.extend_from_slice(body);
    mpdu
}

fn from_ap(sequence: u16, fragment: u8) -> HeaderRepr {
    qos_header(FrameControl::FROM_DS, sta_mac(1), AP, AP, SequenceControl::new(sequence, fragment))
}

fn snap(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut msdu = vec![0u8; SNAP_HEADER_LEN];
    llc::emit_snap(ethertype, &mut msdu).unwrap();
    msdu.extend_from_slice(payload);
    msdu
}

/// An A-MSDU subframe: DA, SA, length, MSDU, padded to 4 octets unless it is the last.
fn subframe(da: MacAddr, sa: MacAddr, msdu: &[u8], last: bool) -> Vec<u8> {
    let mut s = [&da.0[..], &sa.0[..], &(msdu.len() as u16).to_be_bytes()[..], msdu].concat();
    while !last && s.len() % 4 != 0 {
        s.push(0);
    }
    s
}

#[test]
fn cve_2020_26140_plaintext_data_reaches_no_host() {
    blocked_only_by(
        |d| d.plaintext_only_eapol = false,
        |defences| {
            let (mut ap, mut stas) = joined("ccmp", defences);
            let frame = forged(from_ap(100, 0), &snap(0x0800, b"injected in the clear"));
            let (_, hosts) = run(&mut ap, &mut stas, vec![frame]);
            let hit = reached(&hosts, b"injected in the clear");
            if !hit {
                assert_eq!(stas[0].counters.refused_attacks, 1);
                traffic_flows(&mut ap, &mut stas);
            }
            hit
        },
    );
}

#[test]
fn cve_2020_26143_plaintext_fragments_reach_no_host() {
    blocked_only_by(
        |d| d.plaintext_only_eapol = false,
        |defences| {
            let (mut ap, mut stas) = joined("ccmp", defences);
            let msdu = snap(0x0800, b"injected as two plaintext fragments");
            let mut first = from_ap(101, 0);
            first.frame_control = first.frame_control.with_flag(FrameControl::MORE_FRAGMENTS, true);
            let air = vec![forged(first, &msdu[..16]), forged(from_ap(101, 1), &msdu[16..])];
            let (_, hosts) = run(&mut ap, &mut stas, air);
            let hit = reached(&hosts, b"two plaintext fragments");
            if !hit {
                traffic_flows(&mut ap, &mut stas);
            }
            hit
        },
    );
}

/// A plaintext A-MSDU whose first octets read as an LLC/SNAP header with the EAPOL
/// EtherType, so a receiver that lets plaintext EAPOL in by its first octets takes it;
/// its second subframe is the attacker's packet. Two layers stop it: the port (plaintext
/// passes only as one whole EAPOL frame) and the A-MSDU first-subframe check of
/// CVE-2020-24588; only with both off does it get through.
/// A plaintext A-MSDU whose first octets read as an LLC/SNAP header with the EAPOL
/// EtherType, so a receiver that lets plaintext EAPOL in by its first octets takes it; its
/// second subframe is the attacker's packet. Returns whether that packet reached a host.
fn amsdu_behind_an_eapol_header(defences: Defences) -> bool {
    let (mut ap, mut stas) = joined("ccmp", defences);
    let eapol_like = MacAddr([0xaa, 0xaa, 0x03, 0, 0, 0]);
    let sa = MacAddr([0x88, 0x8e, 1, 0, 0, 0]);
    let body = [
        subframe(eapol_like, sa, &snap(0x0800, b"pad"), false),
        subframe(sta_mac(1), AP, &snap(0x0800, b"injected behind EAPOL"), true),
    ]
    .concat();
    let mut header = from_ap(102, 0);
    header.qos_control = Some(QosControl(QosControl::AMSDU_PRESENT));
    let (_, hosts) = run(&mut ap, &mut stas, vec![forged(header, &body)]);
    let hit = reached(&hosts, b"injected behind EAPOL");
    if !hit {
        traffic_flows(&mut ap, &mut stas);
    }
    hit
}

/// Two layers stop CVE-2020-26144: the port (plaintext passes only as one whole EAPOL
/// frame) and the A-MSDU first-subframe check of CVE-2020-24588. Each holds alone; only
/// with both off does the attack get through.
#[test]
fn cve_2020_26144_plaintext_amsdu_behind_an_eapol_header_reaches_no_host() {
    blocked_only_by(
        |d| {
            d.plaintext_only_eapol = false;
            d.amsdu_first_subframe_check = false;
        },
        amsdu_behind_an_eapol_header,
    );
    let port_only = Defences { amsdu_first_subframe_check: false, ..Defences::ALL };
    let amsdu_check_only = Defences { plaintext_only_eapol: false, ..Defences::ALL };
    assert!(!amsdu_behind_an_eapol_header(port_only));
    assert!(!amsdu_behind_an_eapol_header(amsdu_check_only));
}

/// A station whose keys are installed (an insider) sends an EAPOL frame addressed to
/// another station; the access point must not forward it. Before its keys, a plaintext
/// EAPOL frame addressed elsewhere is refused too.
#[test]
fn cve_2020_26139_eapol_is_never_forwarded() {
    blocked_only_by(
        |d| d.eapol_only_to_its_receiver = false,
        |defences| {
            let (mut ap, mut stas) = joined("ccmp", defences);
            let mut eapol = ethernet(sta_mac(2), sta_mac(1), b"\x02\x03\x00\x05 forwarded EAPOL");
            eapol[12..14].copy_from_slice(&ETHERTYPE_EAPOL.to_be_bytes());
            let mut out = Vec::new();
            stas[0].from_host(&eapol, &mut out).unwrap();
            let Some(Output::Air(mpdu)) = out.pop() else { panic!("station sent nothing") };
            let mut forwarded = Vec::new();
            let _ = ap.from_air(&mpdu, &mut forwarded);
            let hit = forwarded.iter().any(|o| matches!(o, Output::Air(m) if m[4..10] == sta_mac(2).0));
            if !hit {
                assert_eq!(ap.counters.refused_attacks, 1);
                traffic_flows(&mut ap, &mut stas);
            }
            hit
        },
    );
}

/// The FragAttacks aggregation attack through the access point: the attacker flips the
/// A-MSDU Present bit of a protected frame whose payload it chose (a packet it had sent to
/// the station, e.g. from a server), so the station would parse the frame as subframes and
/// deliver the one hidden inside the payload. Returns whether that one reached a host, and
/// station 1's counters after the attack.
fn amsdu_injection(ap: NetworkConfig, sta: NetworkConfig, defences: Defences) -> (bool, Counters) {
    let (mut ap, mut stas) = join_with(ap, sta, defences);
    // Read as an A-MSDU, the frame body (LLC/SNAP header, then this payload) is a first
    // subframe from AA-AA-03-00-00-00 whose length field (payload octets 4-5) is 10, then
    // the attacker's subframe to station 1.
    let injected = subframe(sta_mac(1), AP, &snap(0x0800, b"injected by aggregation"), true);
    let payload = [&[0, 0, 0, 0, 0, 10][..], &snap(0x0800, &[0, 0]), &injected].concat();
    let mut out = Vec::new();
    ap.from_host(&ethernet(sta_mac(1), AP, &payload), &mut out).unwrap();
    let Some(Output::Air(mut mpdu)) = out.pop() else { panic!("access point sent nothing") };
    mpdu[QOS_CONTROL_AT] |= QosControl::AMSDU_PRESENT as u8;
    let (_, hosts) = run(&mut ap, &mut stas, vec![mpdu]);
    let hit = reached(&hosts, b"injected by aggregation");
    if !hit {
        traffic_flows(&mut ap, &mut stas);
    }
    (hit, stas[0].counters)
}

/// CVE-2020-24588 on a link without SPP A-MSDU (a peer that does not advertise it), where
/// the A-MSDU Present bit is not authenticated: the first-subframe check stops it.
#[test]
fn cve_2020_24588_amsdu_injection_through_the_access_point_reaches_no_host() {
    let without_spp = NetworkConfig { spp_amsdu: false, ..config("ccmp", "correct horse") };
    blocked_only_by(
        |d| d.amsdu_first_subframe_check = false,
        |defences| {
            let (hit, counters) = amsdu_injection(without_spp.clone(), without_spp.clone(), defences);
            assert!(hit || counters.refused_attacks == 1);
            hit
        },
    );
}

/// With SPP A-MSDU negotiated (both sides advertise it, the default), the A-MSDU Present
/// bit is in the AAD: the flipped frame fails its MIC even with the first-subframe check off.
#[test]
fn spp_amsdu_makes_the_flipped_amsdu_bit_fail_the_mic() {
    let check_off = Defences { amsdu_first_subframe_check: false, ..Defences::ALL };
    let with_spp = config("ccmp", "correct horse");
    let (hit, counters) = amsdu_injection(with_spp.clone(), with_spp.clone(), check_off);
    assert!(!hit);
    assert_eq!(counters.dropped_integrity, 1);
    // SPP is used only where both advertise it: a station that does not leaves the bit
    // unauthenticated, and then only the first-subframe check stands between.
    let without_spp = NetworkConfig { spp_amsdu: false, ..with_spp.clone() };
    let (hit, _) = amsdu_injection(with_spp, without_spp, check_off);
    assert!(hit);
}

/// CVE-2020-26142 (fragments taken as whole frames) is closed by reassembly: with a
/// fragmentation threshold, every mode carries long MSDUs as fragments no longer than the
/// threshold, and each arrives once, whole.
#[test]
fn fragmented_msdus_arrive_once_and_whole_in_every_mode() {
    let threshold = FragmentationThreshold::new(400).unwrap();
    for mode in ["open", "wep", "tkip", "ccmp", "gcmp256", "enhanced:4"] {
        let pass = if mode == "wep" { "abcdefghijklm" } else { "correct horse" };
        let network = NetworkConfig { fragment_threshold: Some(threshold), ..config(mode, pass) };
        let (mut ap, mut stas) = join_with(network.clone(), network, Defences::ALL);
        let payload: Vec<u8> = (0..1400u32).map(|i| (i * 7) as u8).collect();
        let frame = ethernet(sta_mac(2), sta_mac(1), &payload);
        let (_, hosts, air) = send(&mut ap, &mut stas, 0, &frame);
        assert!(air.len() >= 4, "{mode}: {} MPDUs", air.len());
        assert!(air.iter().all(|m| m.len() + tx::FCS_LEN <= 400), "{mode}");
        assert_eq!(hosts[1], vec![frame], "{mode}");
        assert!(hosts[0].is_empty(), "{mode}");
    }
}

/// CVE-2020-26141: the Michael MIC of a fragmented TKIP MSDU is checked once it is
/// reassembled. Fragments under the right TK (good ICVs) whose MSDU carries a Michael MIC
/// made with the other direction's key are refused as an integrity failure.
#[test]
fn cve_2020_26141_michael_of_reassembled_tkip_fragments_is_checked() {
    let (mut ap, mut stas) = joined("tkip", Defences::ALL);
    let tk = stas[0].pairwise_tk().expect("station 1 has its keys");
    // From DS frames are the authenticator's: a "supplicant" transmitter picks the
    // other Michael key, as a forger without the right one would get it wrong.
    let wrong_direction = Tkip::new(tk.as_bytes()).unwrap().with_role(Role::Supplicant);
    let mut tx = Transmitter::new(Box::new(wrong_direction) as Box<dyn wlansec_core::suite::FrameSuite>, 0)
        .with_pn_counter(wlansec_core::suite::PnCounter::starting_at(1 << 20));
    let msdu = snap(0x0800, &[0x5a; 600]);
    let header = from_ap(103, 0);
    let frags = tx::fragments(header, &msdu, Some(&mut tx), 256, Rules::default()).unwrap();
    let before = stas[0].counters.dropped_integrity;
    let (_, hosts) = run(&mut ap, &mut stas, frags);
    assert!(hosts.iter().all(|h| h.is_empty()));
    assert_eq!(stas[0].counters.dropped_integrity, before + 1);
    traffic_flows(&mut ap, &mut stas);
    // The same fragments with the right Michael key arrive: the refusal was the MIC's.
    let right = SuiteId::Tkip.keyed(tk.as_bytes(), Rules::default()).unwrap();
    let mut tx = Transmitter::new(right, 0).with_pn_counter(wlansec_core::suite::PnCounter::starting_at(1 << 21));
    let frags = tx::fragments(from_ap(104, 0), &msdu, Some(&mut tx), 256, Rules::default()).unwrap();
    let (_, hosts) = run(&mut ap, &mut stas, frags);
    assert_eq!(hosts[0].len(), 1);
}

#[test]
fn data_mpdus_without_a_threshold_are_whole() {
    let header = qos_header(FrameControl::TO_DS, AP, sta_mac(1), AP, SequenceControl::new(1, 0));
    assert_eq!(data_mpdus(header, 0x0800, &[0; 2000], None, None).unwrap().len(), 1);
}
