//! 802.11w protection of individually addressed robust management frames (IEEE 802.11-2016
//! 12.5.3.3.2, 12.5.5.3): Deauthentication, Disassociation and Action frames through the
//! pairwise suites as the registry keys them, with the management nonce flag and AAD, the
//! 802.11-2012 M.9.2 example, tampering and the management replay counter.

use serde_json::Value;
use wlansec_core::registry::SuiteId;
use wlansec_core::suite::{ccmp, Ccmp128, FrameSuite, Pn, Receiver, ReplayClass};
use wlansec_core::wire::mgmt::{is_robust, subtype, ActionRepr, DeauthenticationRepr, ManagementBody};
use wlansec_core::wire::{Frame, MacAddr, Rules, SequenceControl};
use wlansec_core::Error;

fn mac(last: u8) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 0, last])
}

/// The three robust frames an AP sends a station: Deauthentication, Disassociation, and an
/// SA Query Request (Action category 8).
fn robust_frames() -> Vec<Vec<u8>> {
    let sa_query = [0u8, 0x12, 0x34];
    let bodies = [
        ManagementBody::Deauthentication(DeauthenticationRepr { reason: 6 }),
        ManagementBody::Disassociation(DeauthenticationRepr { reason: 8 }),
        ManagementBody::Action(ActionRepr { category: 8, details: &sa_query }),
    ];
    bodies.iter().map(|b| b.to_mpdu(mac(2), mac(1), mac(1), SequenceControl::new(77, 0)).unwrap()).collect()
}

fn protect(suite: &dyn FrameSuite, plain: &[u8], pn: u64) -> Vec<u8> {
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + suite.overhead(), 0);
    let len = suite.encapsulate(&mut buf, plain.len(), Pn::new(pn).unwrap(), 0).unwrap();
    buf.truncate(len);
    buf
}

#[test]
fn ccmp_management_frame_vector_m9_2() {
    let doc: Value = serde_json::from_str(include_str!("../../../tests/vectors/ccmp128.json")).unwrap();
    let v = doc["vectors"].as_array().unwrap().iter().find(|v| v["id"].as_str().unwrap().contains("M.9.2")).unwrap();
    let hex = |k: &str| hex::decode(v[k].as_str().unwrap()).unwrap();
    let plain = hex("plaintext_mpdu");
    let frame = Frame::new_checked(&plain[..], Rules::default()).unwrap();
    let pn = Pn::new(u64::from_str_radix(v["pn"].as_str().unwrap(), 16).unwrap()).unwrap();
    assert_eq!(ccmp::nonce(&frame, pn).unwrap().to_vec(), hex("nonce"), "nonce carries the Management flag");
    assert_eq!(ReplayClass::of(&frame), ReplayClass::Management);
    let want = v["encrypted_mpdu_with_protected_bit_set"].as_str().unwrap();
    for suite in
        [SuiteId::Ccmp128.keyed(&hex("tk"), Rules::default()).unwrap(), Box::new(Ccmp128::new(&hex("tk")).unwrap())]
    {
        let mut out = protect(&*suite, &plain, pn.value());
        assert_eq!(hex::encode(&out), want);
        let done = suite.decapsulate(&mut out).unwrap();
        assert_eq!(&out[..done.mpdu_len], &plain[..]);
    }
}

#[test]
fn robust_management_frames_round_trip_under_every_pairwise_suite() {
    for id in [SuiteId::Ccmp128, SuiteId::Ccmp256, SuiteId::Gcmp128, SuiteId::Gcmp256] {
        let tk = vec![0x42; id.key_len()];
        for plain in robust_frames() {
            let frame = Frame::new_checked(&plain[..], Rules::default()).unwrap();
            assert!(is_robust(frame.frame_control().subtype(), frame.body()));
            let suite = id.keyed(&tk, Rules::default()).unwrap();
            let protected = protect(&*suite, &plain, 1);
            assert_eq!(protected[1] & 0x40, 0x40, "{id}: Protected set");
            assert_eq!(&protected[..1], &plain[..1], "{id}: the subtype stays in the clear");
            let mut rx = Receiver::new(suite);
            let mut buf = protected.clone();
            let done = rx.unprotect(&mut buf).unwrap();
            assert_eq!((&buf[..done.mpdu_len], done.class), (&plain[..], ReplayClass::Management), "{id}");
            let mut again = protected.clone();
            assert_eq!(rx.unprotect(&mut again), Err(Error::Replay { pn: 1, last: 1 }), "{id}");
        }
    }
}

#[test]
fn robust_management_tampering_is_rejected() {
    for id in [SuiteId::Ccmp128, SuiteId::Gcmp256] {
        let suite = id.keyed(&vec![7; id.key_len()], Rules::default()).unwrap();
        for plain in robust_frames() {
            let protected = protect(&*suite, &plain, 9);
            // A Deauthentication turned into a Disassociation (the subtype is in the AAD of a
            // management frame), another receiver or sender, a changed body or MIC.
            for (octet, bit) in [(0, 0x20), (4, 0x01), (10, 0x80), (16, 0x04), (32, 0x01), (protected.len() - 1, 0x10)]
            {
                let mut tampered = protected.clone();
                tampered[octet] ^= bit;
                assert_eq!(suite.decapsulate(&mut tampered), Err(Error::MicFailure), "{id} octet {octet}");
            }
            // Retry is masked out of the AAD: a retransmission still verifies.
            let mut retry = protected.clone();
            retry[1] |= 0x08;
            assert!(suite.decapsulate(&mut retry).is_ok(), "{id}");
            // Data frames and management frames never share a nonce: the same PN on a data
            // header of the same addresses gives other ciphertext.
            let mut as_data = plain.clone();
            as_data[0] = 0x08;
            assert_ne!(protect(&*suite, &as_data, 9)[24..], protected[24..], "{id}");
        }
    }
}

#[test]
fn robust_management_frames_are_the_ones_the_standard_names() {
    assert!(is_robust(subtype::DEAUTHENTICATION, &[1, 0]));
    assert!(is_robust(subtype::DISASSOCIATION, &[]));
    assert!(is_robust(subtype::ACTION, &[8, 0]), "SA Query");
    assert!(is_robust(subtype::ACTION, &[3, 0]), "Block Ack");
    assert!(is_robust(subtype::ACTION, &[0x88, 0]), "an SA Query error return");
    for category in [4u8, 7, 15, 127] {
        assert!(!is_robust(subtype::ACTION, &[category]), "category {category}");
    }
    assert!(!is_robust(subtype::ACTION, &[]), "no category");
    for not in [subtype::BEACON, subtype::PROBE_REQUEST, subtype::AUTHENTICATION, subtype::ASSOCIATION_REQUEST] {
        assert!(!is_robust(not, &[0; 8]));
    }
}
