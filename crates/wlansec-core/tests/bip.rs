//! BIP (802.11w): every vector of tests/vectors/bip.json (published and computed-only, by
//! its own labels) through `Igtk::protect` and `Igtk::verify`, one test per variant; then
//! tampering, replay and bad input.

use serde_json::Value;
use wlansec_core::rsn::CipherSuite;
use wlansec_core::suite::bip::{aad, BipAlgorithm, BipReceiver, Igtk};
use wlansec_core::suite::Pn;
use wlansec_core::wire::mgmt::{subtype, DeauthenticationRepr, ManagementBody, MmeRepr};
use wlansec_core::wire::{Frame, FrameControl, MacAddr, Rules, SequenceControl};
use wlansec_core::Error;

fn vectors() -> Vec<Value> {
    let doc: Value = serde_json::from_str(include_str!("../../../tests/vectors/bip.json")).unwrap();
    doc["vectors"].as_array().unwrap().clone()
}

fn hex(v: &Value, name: &str) -> Vec<u8> {
    hex::decode(v[name].as_str().unwrap()).unwrap()
}

/// Protect the vector's plaintext frame and compare every published field; verify the
/// result back. `id_prefix` picks the vector(s) of one variant by their own label.
fn check_vectors(algorithm: BipAlgorithm, label: &str) {
    let mut checked = 0;
    for v in vectors().iter().filter(|v| v["id"].as_str().unwrap().contains(label)) {
        let id = v["id"].as_str().unwrap();
        let igtk = Igtk::new(algorithm, v["key_id"].as_u64().unwrap() as u16, &hex(v, "igtk")).unwrap();
        let ipn = Pn::new(u64::from_str_radix(v["ipn"].as_str().unwrap(), 16).unwrap()).unwrap();
        let plain = hex(v, "plaintext_frame");
        let frame = Frame::new_checked(&plain[..], Rules::default()).unwrap();
        assert_eq!(aad(&frame).unwrap().to_vec(), hex(v, "aad"), "{id}: AAD");
        let mut buf = plain.clone();
        buf.resize(plain.len() + igtk.overhead(), 0);
        let len = igtk.protect(&mut buf, plain.len(), ipn).unwrap();
        assert_eq!(hex::encode(&buf[..len]), v["protected_frame"].as_str().unwrap(), "{id}: protected frame");
        let (_, mme) = MmeRepr::split_last(&buf[24..len], algorithm.mic_len()).unwrap();
        assert_eq!(mme.mic, hex(v, "mic"), "{id}: MIC");
        assert_eq!(igtk.verify(&buf[..len]), Ok(ipn), "{id}: verify");
        let published = v["verified"].as_bool().unwrap();
        println!("{id}: {}", if published { "published" } else { "computed-only" });
        checked += 1;
    }
    assert_eq!(checked, 1, "one vector labelled {label}");
}

#[test]
fn bip_cmac_128_vector() {
    check_vectors(BipAlgorithm::Cmac128, "BIP-CMAC-128");
}

#[test]
fn bip_cmac_256_vector() {
    check_vectors(BipAlgorithm::Cmac256, "BIP-CMAC-256");
}

#[test]
fn bip_gmac_128_vector() {
    check_vectors(BipAlgorithm::Gmac128, "BIP-GMAC-128");
}

#[test]
fn bip_gmac_256_vector() {
    check_vectors(BipAlgorithm::Gmac256, "BIP-GMAC-256");
}

#[test]
fn every_vector_is_checked() {
    let labels = ["BIP-CMAC-128", "BIP-CMAC-256", "BIP-GMAC-128", "BIP-GMAC-256"];
    for v in vectors() {
        let id = v["id"].as_str().unwrap();
        assert_eq!(labels.iter().filter(|l| id.contains(*l)).count(), 1, "{id}");
    }
}

fn mac(last: u8) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 0, last])
}

/// A broadcast Deauthentication from the AP `mac(1)`, BIP-protected with `ipn`.
fn protected_deauth(igtk: &Igtk, ipn: u64) -> Vec<u8> {
    let body = ManagementBody::Deauthentication(DeauthenticationRepr { reason: 7 });
    let mut mpdu = body.to_mpdu(MacAddr::BROADCAST, mac(1), mac(1), SequenceControl::new(9, 0)).unwrap();
    let len = mpdu.len();
    mpdu.resize(len + igtk.overhead(), 0);
    igtk.protect(&mut mpdu, len, Pn::new(ipn).unwrap()).unwrap();
    mpdu
}

fn keys() -> Vec<Igtk> {
    BipAlgorithm::ALL.iter().map(|&a| Igtk::new(a, 4, &[0x5a; 32][..a.key_len()]).unwrap()).collect()
}

#[test]
fn bip_tampering_is_detected_and_unprotected_fields_are_not_covered() {
    for igtk in keys() {
        let frame = protected_deauth(&igtk, 10);
        assert_eq!(igtk.verify(&frame), Ok(Pn::new(10).unwrap()));
        for i in 0..frame.len() {
            for bit in 0..8 {
                let mut tampered = frame.clone();
                tampered[i] ^= 1 << bit;
                let fc_bit = (i < 2).then(|| 1u16 << (8 * i + bit));
                let masked = [FrameControl::RETRY, FrameControl::POWER_MANAGEMENT, FrameControl::MORE_DATA];
                // Duration and Sequence Control are not covered (a retransmission verifies);
                // neither are Retry, Power Management and More Data.
                let uncovered =
                    (2..4).contains(&i) || (22..24).contains(&i) || fc_bit.is_some_and(|b| masked.contains(&b));
                let result = igtk.verify(&tampered);
                assert_eq!(result.is_ok(), uncovered, "{:?} octet {i} bit {bit}: {result:?}", igtk.algorithm());
            }
        }
    }
}

#[test]
fn bip_replays_and_unknown_keys_are_refused() {
    for igtk in keys() {
        let mut rx = BipReceiver::new();
        assert_eq!(rx.verify(&protected_deauth(&igtk, 5)), Err(Error::NoKey { group: true }));
        rx.install(igtk.clone(), Pn::new(4).unwrap());
        assert_eq!(rx.verify(&protected_deauth(&igtk, 4)), Err(Error::Replay { pn: 4, last: 4 }));
        let mut forged = protected_deauth(&igtk, 100);
        *forged.last_mut().unwrap() ^= 1;
        assert_eq!(rx.verify(&forged), Err(Error::MicFailure));
        assert_eq!(rx.last_ipn(4), Some(4), "a forged frame does not advance the counter");
        let first = protected_deauth(&igtk, 5);
        assert_eq!(rx.verify(&first), Ok(Pn::new(5).unwrap()));
        assert_eq!(rx.verify(&first), Err(Error::Replay { pn: 5, last: 5 }));
        assert_eq!(rx.verify(&protected_deauth(&igtk, 7)), Ok(Pn::new(7).unwrap()));
        assert_eq!(rx.verify(&protected_deauth(&igtk, 6)), Err(Error::Replay { pn: 6, last: 7 }));
        // Reinstalling the same key (a retransmitted message 3) keeps the counter.
        rx.install(igtk.clone(), Pn::new(0).unwrap());
        assert_eq!(rx.last_ipn(4), Some(7));
        let other = Igtk::new(igtk.algorithm(), 5, &[0x33; 32][..igtk.algorithm().key_len()]).unwrap();
        assert_eq!(rx.verify(&protected_deauth(&other, 8)), Err(Error::NoKey { group: true }));
        rx.install(other.clone(), Pn::new(0).unwrap());
        assert_eq!(rx.verify(&protected_deauth(&other, 1)), Ok(Pn::new(1).unwrap()));
        assert_eq!(rx.igtk(5), Some(&other));
    }
}

#[test]
fn bip_refuses_bad_input_with_typed_errors() {
    let igtk = &keys()[0];
    assert!(matches!(Igtk::new(BipAlgorithm::Cmac128, 3, &[1; 16]), Err(Error::Malformed(_))));
    assert_eq!(Igtk::new(BipAlgorithm::Gmac256, 4, &[1; 16]), Err(Error::KeyLength { expected: 32, got: 16 }));
    assert_eq!(BipAlgorithm::from_cipher_suite(CipherSuite::BipGmac256), Ok(BipAlgorithm::Gmac256));
    assert!(BipAlgorithm::from_cipher_suite(CipherSuite::Ccmp128).is_err());
    for a in BipAlgorithm::ALL {
        assert_eq!(BipAlgorithm::from_cipher_suite(a.cipher_suite()), Ok(a));
    }
    let frame = protected_deauth(igtk, 3);
    // Unicast, protected, data: not BIP's.
    let mut unicast = frame.clone();
    unicast[4] = 0x02;
    assert!(matches!(igtk.verify(&unicast), Err(Error::Unsupported(_))));
    let mut protected = frame.clone();
    protected[1] |= 0x40;
    assert!(matches!(igtk.verify(&protected), Err(Error::Malformed(_))));
    let mut key5 = frame.clone();
    let at = frame.len() - 16;
    key5[at] = 5;
    assert_eq!(igtk.verify(&key5), Err(Error::KeyId { expected: 4, got: 5 }));
    key5[at + 1] = 1;
    assert_eq!(igtk.verify(&key5), Err(Error::KeyId { expected: 4, got: 255 }));
    let mut short = vec![0u8; frame.len() - 1];
    assert!(matches!(
        igtk.protect(&mut short, frame.len() - 18, Pn::new(1).unwrap()),
        Err(Error::BufferTooSmall { .. })
    ));
    let mut data = frame.clone();
    data[0] = 0x08;
    assert!(igtk.protect(&mut data, frame.len() - 18, Pn::new(1).unwrap()).is_err());
    // Every truncation and a frame's worth of random bytes: errors, never a panic.
    let mut rx = BipReceiver::new();
    rx.install(igtk.clone(), Pn::new(0).unwrap());
    for cut in 0..frame.len() {
        assert!(igtk.verify(&frame[..cut]).is_err(), "cut {cut}");
        assert!(rx.verify(&frame[..cut]).is_err(), "cut {cut}");
    }
    let mut state = 0x1234_5678u32;
    for _ in 0..2000 {
        let mut bytes = frame.clone();
        for b in bytes.iter_mut().skip(24) {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *b = (state >> 24) as u8;
        }
        assert!(rx.verify(&bytes).is_err());
    }
    assert_eq!(
        subtype::DEAUTHENTICATION,
        Frame::new_checked(&frame[..], Rules::default()).unwrap().frame_control().subtype()
    );
}
