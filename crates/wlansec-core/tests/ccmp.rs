//! CCMP-128 beyond the published vectors: cross-check against RustCrypto's `ccm`, round
//! trips over every header shape, which bit flips must be rejected and which the standard
//! leaves unprotected, replay per TID, PN exhaustion, and malformed input.

use aes::cipher::consts::{U13, U8};
use aes::Aes128;
use ccm::aead::{AeadInOut, KeyInit as _};
use proptest::prelude::*;
use wlansec_core::ccm::Ccm;
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes};
use wlansec_core::suite::{Ccmp128, FrameSuite, Pn, PnCounter, Receiver, Transmitter};
use wlansec_core::wire::{Frame, FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};
use wlansec_core::Error;

const TK: [u8; 16] = [0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c];
const OVERHEAD: usize = 16;

fn protect(plain: &[u8], pn: u64, key_id: u8) -> Vec<u8> {
    let suite = Ccmp128::new(&TK).unwrap();
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + OVERHEAD, 0);
    let len = suite.encapsulate(&mut buf, plain.len(), Pn::new(pn).unwrap(), key_id).unwrap();
    buf.truncate(len);
    buf
}

fn receiver() -> Receiver<Ccmp128> {
    Receiver::new(Ccmp128::new(&TK).unwrap()).with_key_id(1)
}

fn random_frame(seed: u64, body_len: usize) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    gen::random_mpdu(&mut rng, Shapes::default(), body_len, &mut out);
    out
}

fn without_protected_bit(mpdu: &[u8]) -> Vec<u8> {
    let mut out = mpdu.to_vec();
    out[1] &= !0x40;
    out
}

#[test]
fn our_ccm_matches_rustcrypto_ccm() {
    type Reference = ccm::Ccm<Aes128, U8, U13>;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..500 {
        let mut key = [0u8; 16];
        let mut nonce = [0u8; 13];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut nonce);
        let mut aad = vec![0u8; gen::below(&mut rng, 40) as usize];
        let mut data = vec![0u8; gen::below(&mut rng, 2400) as usize];
        rng.fill_bytes(&mut aad);
        rng.fill_bytes(&mut data);

        let ours = Ccm::new(<Aes128 as aes::cipher::KeyInit>::new(&key.into()));
        let mut mine = data.clone();
        let mut tag = [0u8; 8];
        ours.seal(&nonce, &aad, &mut mine, &mut tag).unwrap();

        let reference = Reference::new(&key.into());
        let mut theirs = data.clone();
        let their_tag = reference.encrypt_inout_detached(&nonce.into(), &aad, theirs.as_mut_slice().into()).unwrap();
        assert_eq!(mine, theirs);
        assert_eq!(&tag[..], &their_tag[..]);

        ours.open(&nonce, &aad, &mut mine, &tag).unwrap();
        assert_eq!(mine, data);
    }
}

#[test]
fn failed_open_leaves_the_ciphertext_untouched() {
    let ours = Ccm::new(<Aes128 as aes::cipher::KeyInit>::new(&TK.into()));
    let mut data = *b"some secret data that is longer than a block";
    let mut tag = [0u8; 8];
    ours.seal(&[7; 13], b"aad", &mut data, &mut tag).unwrap();
    let ciphertext = data;
    tag[0] ^= 1;
    assert_eq!(ours.open(&[7; 13], b"aad", &mut data, &tag), Err(Error::MicFailure));
    assert_eq!(data, ciphertext);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn round_trip_every_shape(seed in any::<u64>(), body_len in 0usize..=2304, pn in 1u64..=Pn::MAX) {
        let plain = random_frame(seed, body_len);
        let protected = protect(&plain, pn, 1);
        prop_assert_eq!(protected.len(), plain.len() + OVERHEAD);
        let mut buf = protected.clone();
        let done = receiver().unprotect(&mut buf).unwrap();
        prop_assert_eq!(done.pn.value(), pn);
        prop_assert_eq!(&buf[..done.mpdu_len], &without_protected_bit(&plain)[..]);
    }

    #[test]
    fn tampering_is_rejected_unprotected_fields_are_not(seed in any::<u64>(), body_len in 0usize..64) {
        let plain = random_frame(seed, body_len);
        let protected = protect(&plain, 1000, 1);
        let frame = Frame::new_checked(&plain[..], Rules::default()).unwrap();
        let repr = HeaderRepr::parse(&frame).unwrap();
        let h = frame.header_len();
        for bit in 0..protected.len() * 8 {
            let mut tampered = protected.clone();
            tampered[bit / 8] ^= 1 << (bit % 8);
            let accepted = receiver().unprotect(&mut tampered).is_ok();
            let expected = unprotected_bit(&repr, h, bit);
            prop_assert_eq!(accepted, expected, "bit {} (octet {}) of a {}-octet header", bit, bit / 8, h);
        }
    }
}

/// Whether IEEE 802.11-2016 12.5.3.3.3 leaves this bit of a protected MPDU outside the
/// MIC, so flipping it must not cause the frame to be rejected.
fn unprotected_bit(repr: &HeaderRepr, header_len: usize, bit: usize) -> bool {
    let (octet, b) = (bit / 8, bit % 8);
    let fc = repr.frame_control;
    let qos_at = 24 + if fc.has_addr4() { 6 } else { 0 };
    match octet {
        // Data subtype bits 4-6 are masked; management subtypes are not.
        0 => fc.is_data() && (4..=6).contains(&b),
        // Retry, Power Management, More Data.
        1 => (3..=5).contains(&b),
        2 | 3 => true,                                            // Duration
        22 => b >= 4,                                             // sequence number, low nibble
        23 => true,                                               // sequence number, high octet
        o if repr.qos_control.is_some() && o == qos_at => b >= 4, // TID kept; A-MSDU (no SPP) masked
        o if repr.qos_control.is_some() && o == qos_at + 1 => true,
        o if repr.ht_control.is_some() && (header_len - 4..header_len).contains(&o) => true,
        o if o == header_len + 2 => true,  // CCMP header reserved octet
        o if o == header_len + 3 => b < 5, // KeyID octet: reserved bits 0-4
        _ => false,
    }
}

#[test]
fn replay_and_reordering_are_rejected_per_tid() {
    let qos = |tid: u8| -> Vec<u8> {
        let repr = HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, 8).with_flag(FrameControl::TO_DS, true),
            duration: 0,
            addr1: MacAddr([2, 0, 0, 0, 0, 1]),
            addr2: MacAddr([2, 0, 0, 0, 0, 2]),
            addr3: MacAddr([2, 0, 0, 0, 0, 3]),
            sequence_control: SequenceControl::new(1, 0),
            addr4: None,
            qos_control: Some(QosControl(u16::from(tid))),
            ht_control: None,
        };
        let mut buf = vec![0u8; 26 + 10];
        repr.emit(&mut buf, Rules::default()).unwrap();
        buf
    };
    let non_qos = {
        let mut f = qos(0);
        f[0] = 0x08;
        f.drain(24..26);
        f
    };
    let mut rx = receiver();
    let mut accept = |mpdu: &[u8], pn: u64| rx.unprotect(&mut protect(mpdu, pn, 1));

    assert!(accept(&qos(1), 5).is_ok());
    assert!(accept(&qos(2), 3).is_ok(), "TID 2 has its own counter");
    assert!(accept(&non_qos, 2).is_ok(), "non-QoS data has its own counter");
    assert_eq!(accept(&qos(1), 5), Err(Error::Replay { pn: 5, last: 5 }));
    assert_eq!(accept(&qos(1), 4), Err(Error::Replay { pn: 4, last: 5 }), "reordered");
    assert_eq!(accept(&qos(2), 3), Err(Error::Replay { pn: 3, last: 3 }));
    assert!(accept(&qos(1), 6).is_ok());
    assert!(accept(&non_qos, 3).is_ok());
}

#[test]
fn a_forged_frame_does_not_advance_the_replay_counter() {
    let plain = random_frame(3, 100);
    let mut rx = receiver();
    let mut forged = protect(&plain, 1_000_000, 1);
    let last = forged.len() - 1;
    forged[last] ^= 0x80;
    assert_eq!(rx.unprotect(&mut forged), Err(Error::MicFailure));
    assert!(rx.unprotect(&mut protect(&plain, 7, 1)).is_ok());
}

#[test]
fn transmit_pn_starts_at_one_increases_and_refuses_to_wrap() {
    let plain = random_frame(4, 20);
    let mut tx = Transmitter::new(Ccmp128::new(&TK).unwrap(), 1);
    let mut rx = receiver();
    for expected in 1..=3 {
        let mut buf = plain.clone();
        buf.resize(plain.len() + OVERHEAD, 0);
        tx.protect(&mut buf, plain.len()).unwrap();
        assert_eq!(rx.unprotect(&mut buf).unwrap().pn.value(), expected);
    }
    let mut tx = Transmitter::new(Ccmp128::new(&TK).unwrap(), 1).with_pn_counter(PnCounter::starting_at(Pn::MAX));
    let mut buf = plain.clone();
    buf.resize(plain.len() + OVERHEAD, 0);
    assert!(tx.protect(&mut buf, plain.len()).is_ok());
    let mut buf = plain.clone();
    buf.resize(plain.len() + OVERHEAD, 0);
    assert_eq!(tx.protect(&mut buf, plain.len()), Err(Error::PnExhausted));
    assert_eq!(tx.protect(&mut buf, plain.len()), Err(Error::PnExhausted), "and stays exhausted");
}

#[test]
fn truncation_at_every_offset_gives_a_typed_error() {
    for (seed, body) in [(10, 0), (11, 1), (12, 100), (13, 2304)] {
        let protected = protect(&random_frame(seed, body), 9, 1);
        for len in 0..protected.len() {
            let mut cut = protected[..len].to_vec();
            match receiver().unprotect(&mut cut) {
                Err(Error::Truncated { .. }) | Err(Error::MicFailure) => {}
                other => panic!("length {len} of {}: {other:?}", protected.len()),
            }
        }
    }
}

#[test]
fn malformed_frames_give_typed_errors() {
    let protected = protect(&random_frame(20, 50), 9, 1);
    let h = Frame::new_checked(&protected[..], Rules::default()).unwrap().header_len();
    let try_rx = |mut f: Vec<u8>| receiver().unprotect(&mut f);

    let mut no_ext_iv = protected.clone();
    no_ext_iv[h + 3] &= !0x20;
    assert_eq!(try_rx(no_ext_iv), Err(Error::ExtIvNotSet));

    let mut wrong_key_id = protected.clone();
    wrong_key_id[h + 3] ^= 0x40;
    assert!(matches!(try_rx(wrong_key_id), Err(Error::KeyId { expected: 1, .. })));

    assert_eq!(try_rx(without_protected_bit(&protected)), Err(Error::NotProtected));

    let mut version = protected.clone();
    version[0] |= 0x01;
    assert!(matches!(try_rx(version), Err(Error::Unsupported(_))));

    let mut control = protected.clone();
    control[0] = 0xd4; // ACK
    assert!(matches!(try_rx(control), Err(Error::Unsupported(_))));

    let mut extension = protected.clone();
    extension[0] = 0x0c;
    assert!(matches!(try_rx(extension), Err(Error::Unsupported(_))));

    assert!(matches!(try_rx(Vec::new()), Err(Error::Truncated { .. })));

    let suite = Ccmp128::new(&TK).unwrap();
    let plain = random_frame(21, 10);
    let mut small = plain.clone();
    assert!(matches!(
        suite.encapsulate(&mut small, plain.len(), Pn::new(1).unwrap(), 0),
        Err(Error::BufferTooSmall { .. })
    ));
    let mut bogus_len = plain.clone();
    bogus_len.resize(plain.len() + OVERHEAD, 0);
    assert!(matches!(suite.encapsulate(&mut bogus_len, 10, Pn::new(1).unwrap(), 0), Err(Error::Truncated { .. })));
    assert!(matches!(Ccmp128::new(&[0u8; 15]), Err(Error::KeyLength { expected: 16, got: 15 })));
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for _ in 0..20_000 {
        let mut junk = vec![0u8; gen::below(&mut rng, 80) as usize];
        rng.fill_bytes(&mut junk);
        if junk.len() > 1 && gen::below(&mut rng, 2) == 0 {
            junk[1] |= 0x40;
        }
        let _ = receiver().unprotect(&mut junk);
        if let Ok(frame) = Frame::new_checked(&junk[..], Rules::default()) {
            let _ = HeaderRepr::parse(&frame);
        }
    }
}
