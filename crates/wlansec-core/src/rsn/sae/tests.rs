//! Exchanges on every group and method, the Dragonblood-class defences (each test names the
//! attack it stops), the RFC 9380 map vectors and frame parsing on arbitrary bytes.

use proptest::prelude::*;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use super::group::{self, field_from_wide, sswu};
use super::*;
use crate::wire::MacAddr;

const AP: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x02]);
const SSID: &[u8] = b"wlansec";

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn password() -> Password {
    Password::new(b"correct horse battery staple", None)
}

fn pwe(group: Group, method: PweMethod, own: MacAddr, peer: MacAddr, password: &Password) -> PasswordElement {
    match method {
        PweMethod::HashToElement => {
            let pt = PasswordToken::derive(group, SSID, password).unwrap();
            PasswordElement::from_token(&pt, own, peer).unwrap()
        }
        PweMethod::HuntingAndPecking => {
            PasswordElement::hunting_and_pecking(group, password, own, peer, &mut rng(7), &mut LoopCost::default())
                .unwrap()
        }
    }
}

fn station(group: Group, method: PweMethod, addr: MacAddr, seed: u64) -> Instance {
    Instance::new(Role::Station, pwe(group, method, addr, AP, &password()), None, &mut rng(seed)).unwrap()
}

fn responder(method: PweMethod, groups: &[Group]) -> Responder {
    let mut config = ResponderConfig::new(AP, SSID, password(), method);
    config.groups = groups.to_vec();
    Responder::new(config, &mut rng(99)).unwrap()
}

fn sent(events: &[SaeEvent]) -> Vec<Vec<u8>> {
    events
        .iter()
        .filter_map(|e| match e {
            SaeEvent::Send(frame) => Some(frame.clone()),
            SaeEvent::Accepted { .. } => None,
        })
        .collect()
}

fn accepted(events: &[SaeEvent]) -> Option<(crate::rsn::kdf::Pmk, [u8; 16])> {
    events.iter().find_map(|e| match e {
        SaeEvent::Accepted { pmk, pmkid } => Some((pmk.clone(), *pmkid)),
        SaeEvent::Send(_) => None,
    })
}

/// A whole exchange: station commit → AP commit + confirm → station confirm → both accept.
fn run_exchange(sta: &mut Instance, ap: &mut Responder, r: &mut ChaCha8Rng) -> ([u8; 16], [u8; 16]) {
    let answer = ap.handle(STA, &sta.commit_frame(), r).unwrap();
    let [ap_commit, ap_confirm] = <[Vec<u8>; 2]>::try_from(sent(&answer)).unwrap();
    let sta_confirm = sent(&sta.handle(&ap_commit).unwrap()).remove(0);
    // The station's commit again (our answer was lost): the same commit and a new confirm.
    let again = sent(&ap.handle(STA, &sta.commit_frame(), r).unwrap());
    assert_eq!(again[0], ap_commit);
    assert_ne!(again[1], ap_confirm);
    let ap_confirm = again[1].clone();
    let (sta_pmk, sta_pmkid) = accepted(&sta.handle(&ap_confirm).unwrap()).unwrap();
    let (ap_pmk, ap_pmkid) = accepted(&ap.handle(STA, &sta_confirm, r).unwrap()).unwrap();
    assert_eq!(sta_pmk, ap_pmk);
    (sta_pmkid, ap_pmkid)
}

#[test]
fn exchange_completes_on_every_group_and_method() {
    for group in Group::ALL {
        for method in [PweMethod::HashToElement, PweMethod::HuntingAndPecking] {
            let mut sta = station(group, method, STA, 1);
            let mut ap = responder(method, &[group]);
            let (sta_pmkid, ap_pmkid) = run_exchange(&mut sta, &mut ap, &mut rng(3));
            assert_eq!(sta_pmkid, ap_pmkid, "{group:?} {method:?}");
            let kck_len = match method {
                PweMethod::HuntingAndPecking => 32,
                PweMethod::HashToElement => group.hash().output_len(),
            };
            assert_eq!(sta.keys().unwrap().kck().len(), kck_len);
            let entry = ap.pmksa().get(STA, &ap_pmkid, 0).unwrap();
            assert_eq!(entry.group, group);
            assert!(ap.pmksa().get(STA, &ap_pmkid, PmksaCache::DEFAULT_LIFETIME).is_none());
        }
    }
}

#[test]
fn sae_ext_key_pmk_is_one_hash_long_and_sae_pmk_256_bits() {
    for group in Group::ALL {
        for method in [PweMethod::HashToElement, PweMethod::HuntingAndPecking] {
            let hash_len = match method {
                PweMethod::HuntingAndPecking => 32,
                PweMethod::HashToElement => group.hash().output_len(),
            };
            for (ext_key, pmk_len) in [(false, 32), (true, hash_len)] {
                let mut sta = station(group, method, STA, 1);
                let mut config = ResponderConfig::new(AP, SSID, password(), method);
                config.groups = vec![group];
                config.ext_key = ext_key;
                if ext_key {
                    sta = sta.with_ext_key();
                }
                let mut ap = Responder::new(config, &mut rng(99)).unwrap();
                let (_, pmkid) = run_exchange(&mut sta, &mut ap, &mut rng(3));
                assert_eq!(sta.keys().unwrap().pmk().as_bytes().len(), pmk_len, "{group:?} {method:?} {ext_key}");
                assert_eq!(ap.pmksa().get(STA, &pmkid, 0).unwrap().pmk.as_bytes().len(), pmk_len);
            }
        }
    }
}

#[test]
fn wrong_password_fails_at_the_confirm() {
    let other = Password::new(b"incorrect horse", None);
    let pwe = pwe(Group::P256, PweMethod::HashToElement, STA, AP, &other);
    let mut sta = Instance::new(Role::Station, pwe, None, &mut rng(1)).unwrap();
    let mut ap = responder(PweMethod::HashToElement, &[Group::P256]);
    let r = &mut rng(2);
    let answer = sent(&ap.handle(STA, &sta.commit_frame(), r).unwrap());
    let sta_confirm = sent(&sta.handle(&answer[0]).unwrap()).remove(0);
    assert_eq!(sta.handle(&answer[1]), Err(SaeError::ConfirmMismatch));
    assert_eq!(ap.handle(STA, &sta_confirm, r), Err(SaeError::ConfirmMismatch));
    assert_eq!(SaeError::ConfirmMismatch.status(), Some(StatusCode::CHALLENGE_FAILURE));
}

#[test]
fn unsupported_group_is_answered_with_status_77() {
    let mut sta = station(Group::P384, PweMethod::HashToElement, STA, 1);
    let mut ap = responder(PweMethod::HashToElement, &[Group::P256]);
    let err = ap.handle(STA, &sta.commit_frame(), &mut rng(2)).unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::UNSUPPORTED_FINITE_CYCLIC_GROUP));
    let mut frame = sta.commit_frame();
    frame[6..8].copy_from_slice(&22u16.to_le_bytes());
    assert_eq!(sta.handle(&frame), Err(SaeError::UnsupportedGroup(22)));
}

#[test]
fn password_identifier_must_match() {
    let mut sta = Instance::new(
        Role::Station,
        pwe(Group::P256, PweMethod::HashToElement, STA, AP, &password()),
        Some(b"guest"),
        &mut rng(1),
    )
    .unwrap();
    let mut ap = responder(PweMethod::HashToElement, &[Group::P256]);
    let err = ap.handle(STA, &sta.commit_frame(), &mut rng(2)).unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::UNKNOWN_PASSWORD_IDENTIFIER));
    assert_eq!(
        sta.handle(&sta.commit_frame()[..7]).unwrap_err().status(),
        Some(StatusCode::REFUSED_REASON_UNSPECIFIED)
    );
}

/// A peer commit with `scalar` and `element` in place of the station's.
fn forged_commit(group: Group, scalar: &[u8], element: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    CommitRepr { group, h2e: true, token: None, scalar, element, password_identifier: None, rejected_groups: None }
        .emit(&mut out);
    out
}

/// CVE-2019-9498/9499 (invalid-curve attack): a COMMIT-ELEMENT off the curve, with a
/// coordinate not below p, or the all-zero string (no point; the point at infinity has no
/// x || y form) is refused, and the instance keeps waiting for a valid commit.
#[test]
fn dragonblood_invalid_curve_point_refused() {
    for group in Group::ALL {
        let mut sta = station(group, PweMethod::HashToElement, STA, 1);
        let peer = station(group, PweMethod::HashToElement, AP, 2);
        let (scalar, element) = peer.own_commit();
        let len = group.prime_len();
        let mut off_curve = element.to_vec();
        off_curve[2 * len - 1] ^= 1;
        let mut x_above_p = element.to_vec();
        x_above_p[..len].fill(0xff);
        let zero = vec![0u8; 2 * len];
        for bad in [off_curve, x_above_p, zero] {
            assert_eq!(sta.handle(&forged_commit(group, scalar, &bad)), Err(SaeError::InvalidElement), "{group:?}");
            assert!(sta.keys().is_none());
        }
        let peer_commit = forged_commit(group, scalar, element);
        assert!(sta.handle(&peer_commit).is_ok());
    }
}

/// CVE-2019-9498/9499 class: a commit-scalar of 0, 1, r or above is refused (with 0 or 1,
/// or an element chosen with them, an attacker can fix K without the password).
#[test]
fn dragonblood_scalar_out_of_range_refused() {
    for group in Group::ALL {
        let mut sta = station(group, PweMethod::HashToElement, STA, 1);
        let peer = station(group, PweMethod::HashToElement, AP, 2);
        let (_, element) = peer.own_commit();
        let len = group.prime_len();
        let mut zero = vec![0u8; len];
        let mut one = vec![0u8; len];
        one[len - 1] = 1;
        let order = order_bytes(group);
        let mut above = order.clone();
        above[len - 1] = above[len - 1].wrapping_add(1);
        let all_ones = vec![0xffu8; len];
        for bad in [&zero, &one, &order, &above, &all_ones] {
            assert_eq!(sta.handle(&forged_commit(group, bad, element)), Err(SaeError::ScalarOutOfRange), "{group:?}");
            assert!(sta.keys().is_none());
        }
        zero[len - 1] = 2;
        assert!(sta.handle(&forged_commit(group, &zero, element)).is_ok());
    }
}

/// r as `prime_len` octets: r - 1 is the scalar -1, so r is that plus one (r is odd).
fn order_bytes(group: Group) -> Vec<u8> {
    use elliptic_curve::PrimeField;
    let minus_one = match group {
        Group::P256 => (-p256::Scalar::ONE).to_repr().to_vec(),
        Group::P384 => (-p384::Scalar::ONE).to_repr().to_vec(),
        Group::P521 => (-p521::Scalar::ONE).to_repr().to_vec(),
    };
    let mut order = minus_one;
    let last = order.len() - 1;
    order[last] += 1;
    order
}

/// Reflection: our own commit sent back to us is dropped silently and changes nothing (an
/// attacker who reflected it would otherwise finish the exchange without the password's
/// second half: it can reflect our confirm too).
#[test]
fn dragonblood_reflected_commit_refused() {
    for group in Group::ALL {
        let mut sta = station(group, PweMethod::HuntingAndPecking, STA, 1);
        let reflected = sta.commit_frame();
        assert_eq!(sta.handle(&reflected), Err(SaeError::Reflection));
        assert_eq!(SaeError::Reflection.status(), None);
        assert!(sta.keys().is_none());
    }
}

/// A commit flood (CVE-2019-9497 class denial of service): past the threshold of open
/// commits, commits without a valid token get ANTI_CLOGGING_TOKEN_REQUIRED and no password
/// element is derived for them; a token is bound to its address, and a legitimate station
/// that resends its commit with its token still completes.
#[test]
fn dragonblood_commit_flood_demands_token_and_legitimate_station_completes() {
    let mut ap = responder(PweMethod::HashToElement, &[Group::P256]);
    let r = &mut rng(5);
    let threshold = AntiClogging::DEFAULT_THRESHOLD;
    let mut demanded = 0;
    let mut stolen_token = None;
    for i in 0..30u8 {
        let forged = MacAddr([0x06, 0, 0, 0, 1, i]);
        let mut attacker = station(Group::P256, PweMethod::HashToElement, forged, u64::from(i) + 10);
        let events = ap.handle(forged, &attacker.commit_frame(), r).unwrap();
        if let [SaeEvent::Send(frame)] = events.as_slice() {
            if let Ok(SaeMessage::TokenRequired { token, .. }) = SaeMessage::parse(frame) {
                demanded += 1;
                stolen_token = Some(frame.clone());
                // The attacker's own token makes its commit valid: it needs its address.
                assert!(sent(&attacker.handle(frame).unwrap()).len() == 1);
                assert!(!token.is_empty());
            }
        }
    }
    assert_eq!(demanded, 30 - threshold);
    assert_eq!(ap.open_commits(), threshold);

    let mut sta = station(Group::P256, PweMethod::HashToElement, STA, 1);
    // Another address's token is worth nothing.
    sta.handle(&stolen_token.unwrap()).unwrap();
    let events = ap.handle(STA, &sta.commit_frame(), r).unwrap();
    let [request] = <[Vec<u8>; 1]>::try_from(sent(&events)).unwrap();
    assert!(matches!(SaeMessage::parse(&request), Ok(SaeMessage::TokenRequired { .. })));
    // The station answers with its own token and completes.
    let resent = sent(&sta.handle(&request).unwrap()).remove(0);
    assert_eq!(resent, sta.commit_frame());
    let answer = sent(&ap.handle(STA, &resent, r).unwrap());
    let sta_confirm = sent(&sta.handle(&answer[0]).unwrap()).remove(0);
    assert!(accepted(&sta.handle(&answer[1]).unwrap()).is_some());
    assert!(accepted(&ap.handle(STA, &sta_confirm, r).unwrap()).is_some());
}

/// A token request carries the token bare (hunting-and-pecking) or in its container element
/// (hash-to-element); either way the station gets the token back whole, whatever its octets.
#[test]
fn token_requests_round_trip_in_both_forms() {
    for token in [vec![0xffu8, 0x40, 0x5d, 1, 2, 3], vec![7u8; 32], vec![0x01, 0xff]] {
        for h2e in [false, true] {
            let mut frame = Vec::new();
            message::emit_token_request(19, &token, h2e, &mut frame);
            assert_eq!(SaeMessage::parse(&frame), Ok(SaeMessage::TokenRequired { group: 19, token: &token }));
        }
    }
}

#[test]
fn anti_clogging_token_outlives_one_rotation_not_two() {
    let r = &mut rng(1);
    let mut clogging = AntiClogging::new(0, r);
    let token = clogging.token(STA);
    assert!(clogging.check(STA, &token) && !clogging.check(AP, &token));
    clogging.tick(AntiClogging::ROTATION_PERIOD, r);
    assert!(clogging.check(STA, &token));
    clogging.tick(2 * AntiClogging::ROTATION_PERIOD, r);
    assert!(!clogging.check(STA, &token));
}

/// A forged or corrupted confirm is refused with CHALLENGE_FAILURE and leaves the instance
/// as it was: the genuine confirm still completes it.
#[test]
fn dragonblood_wrong_confirm_refused_without_state_change() {
    let mut sta = station(Group::P256, PweMethod::HashToElement, STA, 1);
    let mut ap = responder(PweMethod::HashToElement, &[Group::P256]);
    let r = &mut rng(2);
    let answer = sent(&ap.handle(STA, &sta.commit_frame(), r).unwrap());
    let sta_confirm = sent(&sta.handle(&answer[0]).unwrap()).remove(0);
    let pmkid = sta.keys().unwrap().pmkid();
    for at in [8, answer[1].len() - 1] {
        let mut forged = answer[1].clone();
        forged[at] ^= 0x80;
        assert_eq!(sta.handle(&forged), Err(SaeError::ConfirmMismatch));
        assert!(!sta.is_accepted());
        assert_eq!(sta.keys().unwrap().pmkid(), pmkid);
    }
    assert_eq!(sta.handle(&answer[1][..answer[1].len() - 1]), Err(SaeError::ConfirmMismatch));
    assert!(accepted(&sta.handle(&answer[1]).unwrap()).is_some());
    assert!(accepted(&ap.handle(STA, &sta_confirm, r).unwrap()).is_some());
}

/// Dragonblood's timing and cache attacks on hunting-and-pecking (CVE-2019-9494): the work
/// of the loop — iterations, hashes, residue tests — is the same for every password and
/// every pair of addresses, counted rather than timed. The passwords here find their
/// element at different iterations.
#[test]
fn dragonblood_hunting_and_pecking_work_independent_of_password() {
    for group in Group::ALL {
        let mut costs = Vec::new();
        for i in 0..24u32 {
            let password = Password::new(format!("password {i} {}", "x".repeat(i as usize)).as_bytes(), None);
            let peer = MacAddr([0x02, 0, 0, 0, 9, i as u8]);
            let mut cost = LoopCost::default();
            PasswordElement::hunting_and_pecking(group, &password, STA, peer, &mut rng(u64::from(i)), &mut cost)
                .unwrap();
            costs.push(cost);
        }
        let blocks = group.prime_len().div_ceil(32) as u32;
        let expected = LoopCost {
            iterations: u32::from(HUNTING_AND_PECKING_ITERATIONS),
            hashes: u32::from(HUNTING_AND_PECKING_ITERATIONS) * (1 + blocks),
            residue_tests: u32::from(HUNTING_AND_PECKING_ITERATIONS),
        };
        assert!(costs.iter().all(|c| *c == expected), "{group:?}: {costs:?}");
    }
}

/// Group downgrade: a hash-to-element commit that lists as rejected a group the access point
/// offers (an attacker answered UNSUPPORTED_FINITE_CYCLIC_GROUP in its name) is refused; a
/// true list salts the keyseed on both sides and the exchange completes.
#[test]
fn rejected_groups_downgrade_refused() {
    let mut ap = responder(PweMethod::HashToElement, &[Group::P384, Group::P256]);
    let r = &mut rng(2);
    let mut sta = station(Group::P256, PweMethod::HashToElement, STA, 1);
    sta.reject_groups(&[20]);
    assert_eq!(ap.handle(STA, &sta.commit_frame(), r), Err(SaeError::RejectedGroupOffered(20)));

    let mut sta = station(Group::P256, PweMethod::HashToElement, STA, 1);
    sta.reject_groups(&[21]);
    let plain = station(Group::P256, PweMethod::HashToElement, STA, 1);
    assert_ne!(sta.commit_frame(), plain.commit_frame());
    let (sta_pmkid, ap_pmkid) = run_exchange(&mut sta, &mut ap, r);
    assert_eq!(sta_pmkid, ap_pmkid);
}

/// Secrets never reach Debug output.
#[test]
fn debug_redacts_secrets() {
    let sta = station(Group::P256, PweMethod::HashToElement, STA, 1);
    let pwe = pwe(Group::P256, PweMethod::HashToElement, STA, AP, &password());
    let text = format!("{sta:?} {pwe:?} {:?}", password());
    assert!(!text.contains("horse"));
    let hex_pwe: String = pwe.as_bytes()[..8].iter().map(|b| format!("{b:02x}")).collect();
    assert!(!text.contains(&hex_pwe) && !text.contains(&format!("{:?}", &pwe.as_bytes()[..4])));
}

/// RFC 9380 J.1.1 (P256_XMD:SHA-256_SSWU_RO_): u0, u1 → Q0, Q1 by the simplified SWU map and
/// P = Q0 + Q1, the map hash-to-element uses for PT (tests/vectors/sae.json).
#[test]
fn rfc9380_sswu_map_p256() {
    use elliptic_curve::point::AffineCoordinates;
    let path = format!("{}/../../tests/vectors/sae.json", env!("CARGO_MANIFEST_DIR"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases: Vec<&Value> =
        doc["vectors"].as_array().unwrap().iter().filter(|v| v["kind"] == "rfc9380_hash_to_curve").collect();
    assert_eq!(cases.len(), 5);
    for case in cases {
        let e = &case["expected"];
        let hex = |name: &str| hex::decode(e[name].as_str().unwrap()).unwrap();
        let q0 = sswu::<p256::NistP256>(&field_from_wide::<p256::NistP256>(&hex("u0")));
        let q1 = sswu::<p256::NistP256>(&field_from_wide::<p256::NistP256>(&hex("u1")));
        assert_eq!((q0.x().to_vec(), q0.y().to_vec()), (hex("q0_x"), hex("q0_y")));
        assert_eq!((q1.x().to_vec(), q1.y().to_vec()), (hex("q1_x"), hex("q1_y")));
        let p = group::pt_from_values::<p256::NistP256>(&hex("u0"), &hex("u1")).unwrap();
        assert_eq!(p.to_vec(), [hex("p_x"), hex("p_y")].concat());
    }
}

proptest! {
    /// Arbitrary bytes as a frame: a typed error or a message, never a panic, and an
    /// instance's state is untouched by what it refuses.
    #[test]
    fn arbitrary_frames_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), header in 0u8..4) {
        let mut frame = match header {
            0 => vec![3, 0, 1, 0, 0, 0],
            1 => vec![3, 0, 1, 0, 126, 0],
            2 => vec![3, 0, 2, 0, 0, 0],
            _ => Vec::new(),
        };
        frame.extend_from_slice(&bytes);
        let _ = SaeMessage::parse(&frame);
        let mut sta = station(Group::P256, PweMethod::HashToElement, STA, 1);
        if sta.handle(&frame).is_err() {
            prop_assert!(sta.keys().is_none());
        }
    }
}

#[test]
fn a_bounded_pmksa_cache_drops_the_expired_then_the_first_to_expire() {
    let entry = |i: u8, expires_at| PmksaEntry {
        peer: MacAddr([2, 0, 0, 0, 0, i]),
        group: Group::P256,
        pmk: crate::rsn::kdf::Pmk::from_bytes(&[i; 32]).unwrap(),
        pmkid: [i; 16],
        expires_at,
    };
    let mut cache = PmksaCache::default();
    for (i, expires_at) in [(1, 50), (2, 10), (3, 40)] {
        cache.insert_bounded(entry(i, expires_at), 3, 0);
    }
    // Full: the one expiring first goes, the new one stays.
    cache.insert_bounded(entry(4, 30), 3, 0);
    let peer = |i| MacAddr([2, 0, 0, 0, 0, i]);
    assert_eq!(cache.len(), 3);
    assert!(cache.get(peer(2), &[2; 16], 0).is_none() && cache.get(peer(4), &[4; 16], 0).is_some());
    // A peer already held is replaced, nothing evicted.
    cache.insert_bounded(entry(1, 60), 3, 0);
    assert_eq!(cache.len(), 3);
    // At 45 two have expired: both go before anyone alive.
    cache.insert_bounded(entry(5, 90), 3, 45);
    assert_eq!(cache.len(), 2);
    assert!(cache.get(peer(1), &[1; 16], 45).is_some() && cache.get(peer(5), &[5; 16], 45).is_some());
}
