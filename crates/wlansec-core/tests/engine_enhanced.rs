//! Enhanced CCMP-N (reference model): N = 1 is CCMP-128 byte for byte, N > 1 round-trips,
//! keeps CCMP's ciphertext and rejects every tamper the MIC covers, and the naive variant's
//! sub-chain swap forgery works on the naive variant and fails on the default one.

use wlansec_core::engine::{EnhancedCcmp, Variant, Ways};
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes, MAX_MSDU_LEN};
use wlansec_core::suite::{Ccmp128, FrameSuite, Pn};
use wlansec_core::wire::{Frame, Rules};
use wlansec_core::Error;

const OVERHEAD: usize = 16;
const PN_HEADER: usize = 8;

fn protect(suite: &dyn FrameSuite, plain: &[u8], pn: u64) -> Vec<u8> {
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + OVERHEAD, 0);
    let len = suite.encapsulate(&mut buf, plain.len(), Pn::new(pn).unwrap(), 1).unwrap();
    buf.truncate(len);
    buf
}

fn header_len(mpdu: &[u8]) -> usize {
    Frame::new_checked(mpdu, Rules::default()).unwrap().header_len()
}

fn random_case(rng: &mut ChaCha8Rng, max_body: usize) -> ([u8; 16], Vec<u8>, u64) {
    let mut tk = [0u8; 16];
    rng.fill_bytes(&mut tk);
    let body = gen::below(rng, max_body as u64 + 1) as usize;
    let mut plain = Vec::new();
    gen::random_mpdu(rng, Shapes::default(), body, &mut plain);
    (tk, plain, 1 + gen::below(rng, Pn::MAX))
}

#[test]
fn one_way_enhanced_is_ccmp128() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    for _ in 0..300 {
        let (tk, plain, pn) = random_case(&mut rng, MAX_MSDU_LEN);
        let golden = protect(&Ccmp128::new(&tk).unwrap(), &plain, pn);
        for variant in [Variant::DomainSeparated, Variant::Naive] {
            let enhanced = EnhancedCcmp::keyed(&tk, Ways::N1, variant).unwrap();
            assert_eq!(protect(&enhanced, &plain, pn), golden);
        }
    }
}

#[test]
fn enhanced_keeps_ccmp_ciphertext_and_changes_only_the_mic() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    for _ in 0..100 {
        let (tk, plain, pn) = random_case(&mut rng, MAX_MSDU_LEN);
        let golden = protect(&Ccmp128::new(&tk).unwrap(), &plain, pn);
        let mut mics = Vec::new();
        for ways in [Ways::N2, Ways::N4, Ways::N8] {
            for variant in [Variant::DomainSeparated, Variant::Naive] {
                let out = protect(&EnhancedCcmp::keyed(&tk, ways, variant).unwrap(), &plain, pn);
                assert_eq!(out[..out.len() - 8], golden[..golden.len() - 8]);
                if variant == Variant::DomainSeparated {
                    mics.push(out[out.len() - 8..].to_vec());
                }
            }
        }
        // Distinct MICs for N = 2, 4, 8, none CCMP-128's: the settings are never confused.
        // (The naive variant's identical sub-chains cancel in pairs, so its N = 4 and N = 8
        // MICs coincide on short frames: one more reason it is never negotiated.)
        for (i, mic) in mics.iter().enumerate() {
            assert_ne!(mic[..], golden[golden.len() - 8..]);
            assert!(mics[i + 1..].iter().all(|other| other != mic));
        }
    }
}

#[test]
fn enhanced_round_trips_and_rejects_every_covered_tamper() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    for ways in [Ways::N2, Ways::N4, Ways::N8] {
        for _ in 0..12 {
            let (tk, plain, pn) = random_case(&mut rng, 200);
            let suite = EnhancedCcmp::keyed(&tk, ways, Variant::DomainSeparated).unwrap();
            let protected = protect(&suite, &plain, pn);
            let mut buf = protected.clone();
            let done = suite.decapsulate(&mut buf).unwrap();
            assert_eq!(&buf[..done.mpdu_len], &plain[..]);

            // Covered: A1..A3 (AAD), PN (nonce), ciphertext and MIC. Not covered by CCMP
            // either: Duration, sequence number bits, the CCMP header's reserved/Key ID octets.
            let h = header_len(&protected);
            let covered = (4..22).chain([h, h + 1]).chain(h + 4..protected.len());
            for pos in covered {
                let mut tampered = protected.clone();
                tampered[pos] ^= 1 << (pos % 8);
                let result = suite.decapsulate(&mut tampered);
                assert_eq!(result, Err(Error::MicFailure), "{ways:?} tamper at {pos} accepted");
            }
            // A different N or the naive variant never accepts the frame.
            for other in Ways::ALL.into_iter().filter(|&w| w != ways) {
                let wrong = EnhancedCcmp::keyed(&tk, other, Variant::DomainSeparated).unwrap();
                assert_eq!(wrong.decapsulate(&mut protected.clone()), Err(Error::MicFailure));
            }
            let naive = EnhancedCcmp::keyed(&tk, ways, Variant::Naive).unwrap();
            assert_eq!(naive.decapsulate(&mut protected.clone()), Err(Error::MicFailure));
        }
    }
}

/// The attack of docs/enhanced-ccmp.md: with a known plaintext, XOR each ciphertext block of
/// sub-chain 0 and its partner in sub-chain 1 with the difference of their plaintexts. The
/// receiver decrypts the two sub-chains' data swapped; under the naive variant both
/// sub-chains start from the same state, so the XOR of their outputs (the MIC) is unchanged.
fn swap_sub_chains_0_and_1(protected: &[u8], plain_body: &[u8], ways: Ways) -> Vec<u8> {
    let n = ways.count();
    let body = header_len(protected) + PN_HEADER;
    let mut forged = protected.to_vec();
    for round in 0..plain_body.len() / (16 * n) {
        let (a, b) = (round * n * 16, (round * n + 1) * 16);
        for k in 0..16 {
            let delta = plain_body[a + k] ^ plain_body[b + k];
            forged[body + a + k] ^= delta;
            forged[body + b + k] ^= delta;
        }
    }
    forged
}

#[test]
fn naive_variant_falls_to_the_sub_chain_swap_and_the_default_does_not() {
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    for ways in [Ways::N2, Ways::N4, Ways::N8] {
        for rounds in 1..=4 {
            let mut tk = [0u8; 16];
            rng.fill_bytes(&mut tk);
            let mut plain = Vec::new();
            let header = gen::random_mpdu(&mut rng, Shapes::default(), 16 * ways.count() * rounds, &mut plain);
            let plain_body = plain[header.header_len()..].to_vec();

            let naive = EnhancedCcmp::keyed(&tk, ways, Variant::Naive).unwrap();
            let forged = swap_sub_chains_0_and_1(&protect(&naive, &plain, 7), &plain_body, ways);
            let mut buf = forged.clone();
            let done = naive.decapsulate(&mut buf).expect("naive variant accepts the forgery");
            let received = &buf[header.header_len()..done.mpdu_len];
            assert_ne!(received, &plain_body[..], "the forgery changed the data");
            assert_eq!(received[..16], plain_body[16..32], "sub-chains 0 and 1 arrive swapped");

            let default = EnhancedCcmp::keyed(&tk, ways, Variant::DomainSeparated).unwrap();
            let forged = swap_sub_chains_0_and_1(&protect(&default, &plain, 7), &plain_body, ways);
            assert_eq!(default.decapsulate(&mut forged.clone()), Err(Error::MicFailure));
        }
    }
}

#[test]
fn enhanced_refuses_bad_input_with_typed_errors() {
    assert!(matches!(
        EnhancedCcmp::keyed(&[0; 15], Ways::N2, Variant::DomainSeparated),
        Err(Error::KeyLength { expected: 16, got: 15 })
    ));
    assert!(Ways::new(3).is_err());
    let suite = EnhancedCcmp::keyed(&[1; 16], Ways::N4, Variant::DomainSeparated).unwrap();
    let mut plain = Vec::new();
    gen::random_mpdu(&mut ChaCha8Rng::seed_from_u64(5), Shapes::default(), 40, &mut plain);
    let protected = protect(&suite, &plain, 9);
    assert!(matches!(suite.decapsulate(&mut protected[..30].to_vec()), Err(Error::Truncated { .. })));
    assert_eq!(suite.decapsulate(&mut plain.clone()), Err(Error::NotProtected));
}
