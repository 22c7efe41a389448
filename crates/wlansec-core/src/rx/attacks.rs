//! The FragAttacks (Vanhoef, USENIX Security 2021) against the receive pipeline, one test per
//! CVE: each runs the attacker's frames, really protected under CCMP-128, through a pipeline
//! with every defence and asserts the attack fails, then through one with only that defence
//! switched off and asserts the attack succeeds there (so the test cannot pass by accident).

use super::{Defences, Pipeline, RxKey};
use crate::error::{Attack, Error};
use crate::registry::SuiteId;
use crate::suite::{FrameSuite, Pn};
use crate::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

const TK: [u8; 16] = *b"fragattacks-tk-1";
const OTHER_TK: [u8; 16] = *b"fragattacks-tk-2";
const AP: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
const STA: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);
/// Octet of QoS Control that holds the A-MSDU Present bit, in a three-address QoS data frame.
const QOS_CONTROL_AT: usize = 24;

fn rules() -> Rules {
    Rules::default()
}

/// A plaintext QoS data MPDU from the AP to `to` (From DS).
fn mpdu(to: MacAddr, sequence: u16, fragment: u8, more: bool, body: &[u8]) -> Vec<u8> {
    let fc = FrameControl::new(FrameType::Data, 8)
        .with_flag(FrameControl::FROM_DS, true)
        .with_flag(FrameControl::MORE_FRAGMENTS, more);
    let header = HeaderRepr {
        frame_control: fc,
        duration: 0,
        addr1: to,
        addr2: AP,
        addr3: AP,
        sequence_control: SequenceControl::new(sequence, fragment),
        addr4: None,
        qos_control: Some(QosControl(0)),
        ht_control: None,
    };
    let mut out = vec![0u8; header.header_len()];
    header.emit(&mut out, rules()).unwrap();
    out.extend_from_slice(body);
    out
}

fn protect(tk: &[u8], plain: &[u8], pn: u64) -> Vec<u8> {
    let suite = SuiteId::Ccmp128.keyed(tk, rules()).unwrap();
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + suite.overhead(), 0);
    let len = suite.encapsulate(&mut buf, plain.len(), Pn::new(pn).unwrap(), 0).unwrap();
    buf.truncate(len);
    buf
}

fn key(tk: &[u8]) -> RxKey {
    RxKey::new(SuiteId::Ccmp128, tk, rules()).unwrap()
}

/// An MSDU: RFC 1042 header, IPv4 EtherType, payload.
fn msdu(payload: &[u8]) -> Vec<u8> {
    [&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00][..], payload].concat()
}

/// `attack(pipeline)` returns whether the attacker's frame was delivered; it must not be
/// with every defence, and must be once `off` is switched off.
fn blocked_only_by(off: fn(&mut Defences), attack: impl Fn(&mut Pipeline) -> bool) {
    assert!(!attack(&mut Pipeline::new(rules())), "the attack succeeded with every defence on");
    let mut defences = Defences::ALL;
    off(&mut defences);
    assert!(attack(&mut Pipeline::with_defences(rules(), defences)), "the attack needs this defence to fail");
}

/// How the attacker sends the second fragment of an MSDU whose first came under `TK`.
enum SecondFragment {
    UnderAnotherKey,
    Plaintext,
}

/// Whether the pipeline joined the two fragments into one delivered MSDU.
fn joined(rx: &mut Pipeline, second: SecondFragment) -> bool {
    let body = msdu(b"first half, second half");
    let frag0 = protect(&TK, &mpdu(STA, 7, 0, true, &body[..12]), 5);
    assert!(rx.receive(&frag0, Some(&mut key(&TK))).unwrap().is_none());
    let plain1 = mpdu(STA, 7, 1, false, &body[12..]);
    let received = match second {
        SecondFragment::UnderAnotherKey => rx.receive(&protect(&OTHER_TK, &plain1, 6), Some(&mut key(&OTHER_TK))),
        SecondFragment::Plaintext => rx.receive(&plain1, None),
    };
    matches!(received, Ok(Some(_)))
}

#[test]
fn cve_2020_24587_fragments_under_two_keys_are_not_joined() {
    blocked_only_by(|d| d.fragments_under_one_key = false, |rx| joined(rx, SecondFragment::UnderAnotherKey));
}

#[test]
fn cve_2020_26146_fragments_with_a_pn_gap_are_not_joined() {
    blocked_only_by(
        |d| d.consecutive_fragment_pns = false,
        |rx| {
            let mut k = key(&TK);
            let body = msdu(b"first half, second half");
            let frag0 = protect(&TK, &mpdu(STA, 7, 0, true, &body[..12]), 5);
            assert!(rx.receive(&frag0, Some(&mut k)).unwrap().is_none());
            let frag1 = protect(&TK, &mpdu(STA, 7, 1, false, &body[12..]), 9);
            matches!(rx.receive(&frag1, Some(&mut k)), Ok(Some(_)))
        },
    );
}

#[test]
fn consecutive_fragments_under_one_key_are_joined() {
    let mut rx = Pipeline::new(rules());
    let mut k = key(&TK);
    let body = msdu(b"first half, second half");
    let frag0 = protect(&TK, &mpdu(STA, 7, 0, true, &body[..12]), 5);
    assert!(rx.receive(&frag0, Some(&mut k)).unwrap().is_none());
    let frag1 = protect(&TK, &mpdu(STA, 7, 1, false, &body[12..]), 6);
    let delivered = rx.receive(&frag1, Some(&mut k)).unwrap().unwrap();
    assert_eq!(&delivered.mpdu()[delivered.header_len..], &body[..]);
}

#[test]
fn cve_2020_26147_plaintext_fragments_never_join_protected_ones() {
    blocked_only_by(|d| d.no_mixed_plaintext_fragments = false, |rx| joined(rx, SecondFragment::Plaintext));
}

#[test]
fn cve_2020_26145_broadcast_fragments_are_refused() {
    blocked_only_by(
        |d| d.no_group_fragments = false,
        |rx| {
            let body = msdu(b"a broadcast, fragmented");
            let mut k = key(&TK);
            let frag0 = protect(&TK, &mpdu(MacAddr::BROADCAST, 3, 0, true, &body[..10]), 1);
            let frag1 = protect(&TK, &mpdu(MacAddr::BROADCAST, 3, 1, false, &body[10..]), 2);
            rx.receive(&frag0, Some(&mut k)).is_ok_and(|d| d.is_none())
                && matches!(rx.receive(&frag1, Some(&mut k)), Ok(Some(_)))
        },
    );
}

#[test]
fn cve_2020_24588_a_normal_msdu_flipped_into_an_amsdu_is_refused() {
    blocked_only_by(
        |d| d.amsdu_first_subframe_check = false,
        |rx| {
            // The A-MSDU Present bit is not authenticated without SPP A-MSDU: the attacker
            // flips it on a protected frame, and the MIC still verifies.
            let mut frame = protect(&TK, &mpdu(STA, 1, 0, false, &msdu(b"an ordinary IPv4 packet......")), 1);
            frame[QOS_CONTROL_AT] |= QosControl::AMSDU_PRESENT as u8;
            match rx.receive(&frame, Some(&mut key(&TK))) {
                Ok(Some(delivered)) => delivered.is_amsdu(),
                Ok(None) => false,
                Err(Error::Attack(Attack::AmsduInjection)) => false,
                Err(e) => panic!("refused for another reason: {e}"),
            }
        },
    );
}

#[test]
fn cve_2020_24586_fragments_from_before_a_rekey_are_not_joined() {
    let body = msdu(b"first half, second half");
    let frag0 = protect(&TK, &mpdu(STA, 7, 0, true, &body[..12]), 5);
    let frag1 = protect(&TK, &mpdu(STA, 7, 1, false, &body[12..]), 6);
    // The cache is cleared when a key is installed (the station and access point call
    // `clear_fragments`/`forget`); the key-tag check is off here to see the clearing alone.
    let attack = |clear: bool| {
        let defences = Defences { fragments_under_one_key: false, ..Defences::ALL };
        let mut rx = Pipeline::with_defences(rules(), defences);
        let mut k = key(&TK);
        assert!(rx.receive(&frag0, Some(&mut k)).unwrap().is_none());
        if clear {
            rx.clear_fragments();
        }
        matches!(rx.receive(&frag1, Some(&mut k)), Ok(Some(_)))
    };
    assert!(!attack(true));
    assert!(attack(false));
    // With every defence on, a key installed again (even with the same octets, as a
    // reassociation may) has a new tag, so the old fragment stays out without clearing too.
    let mut rx = Pipeline::new(rules());
    assert!(rx.receive(&frag0, Some(&mut key(&TK))).unwrap().is_none());
    assert!(rx.receive(&frag1, Some(&mut key(&TK))).is_err());
}
