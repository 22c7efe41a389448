use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::rsn::element::owe::DhParameterRepr;

fn exchange(group: Group, rng: &mut ChaCha8Rng) -> (OweKeys, OweKeys) {
    let sta = OweStation::new(group, rng);
    let (ap_element, ap_keys) = respond(&sta.request_element(), &Group::ALL, rng).unwrap();
    (sta.complete(&ap_element).unwrap(), ap_keys)
}

#[test]
fn both_sides_derive_the_same_pmk_and_pmkid_on_each_group() {
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    for (group, pmk_len) in [(Group::P256, 32), (Group::P384, 48), (Group::P521, 64)] {
        let (sta, ap) = exchange(group, &mut rng);
        assert_eq!(sta, ap, "{group:?}");
        assert_eq!(sta.pmk.as_bytes().len(), pmk_len);
        let (again, _) = exchange(group, &mut rng);
        assert_ne!(again.pmk, sta.pmk, "fresh keys each time");
    }
}

#[test]
fn an_unsupported_or_unoffered_group_is_refused_with_status_77() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for id in [0, 14, 18, 22, 0xffff] {
        let element = DhParameterRepr { group: id, public_key: &[1; 32] }.to_bytes().unwrap();
        let e = respond(&element, &Group::ALL, &mut rng).unwrap_err();
        assert_eq!((e, e.status_code().0), (OweError::UnsupportedGroup(id), 77));
    }
    let sta = OweStation::new(Group::P384, &mut rng);
    let e = respond(&sta.request_element(), &[Group::P256], &mut rng).unwrap_err();
    assert_eq!(e.status_code(), StatusCode::UNSUPPORTED_FINITE_CYCLIC_GROUP);
}

#[test]
fn a_public_key_off_the_curve_or_of_the_wrong_length_is_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for group in Group::ALL {
        let len = group.prime_len();
        // An x with no y: about half of all x. Take the first few small ones that fail.
        let mut off_curve = 0;
        for x in 0u8..32 {
            let mut key = vec![0u8; len];
            key[len - 1] = x;
            let element = DhParameterRepr { group: group.id(), public_key: &key }.to_bytes().unwrap();
            match respond(&element, &Group::ALL, &mut rng) {
                Err(OweError::InvalidPublicKey) => off_curve += 1,
                Ok(_) => {}
                Err(e) => panic!("{group:?} x={x}: {e}"),
            }
        }
        assert!(off_curve > 4, "{group:?}: {off_curve} of 32 small x off the curve");
        // x not below p.
        let element = DhParameterRepr { group: group.id(), public_key: &vec![0xff; len] }.to_bytes().unwrap();
        assert_eq!(respond(&element, &Group::ALL, &mut rng).unwrap_err(), OweError::InvalidPublicKey);
        for bad_len in [0, len - 1, len + 1] {
            let element = DhParameterRepr { group: group.id(), public_key: &vec![3; bad_len] }.to_bytes().unwrap();
            assert_eq!(respond(&element, &Group::ALL, &mut rng).unwrap_err(), OweError::InvalidPublicKey);
        }
        // The same checks on the station's side, and a group it did not ask for.
        let sta = OweStation::new(group, &mut rng);
        let element = DhParameterRepr { group: group.id(), public_key: &vec![0xff; len] }.to_bytes().unwrap();
        assert_eq!(sta.complete(&element).unwrap_err(), OweError::InvalidPublicKey);
        let other = if group == Group::P256 { 20 } else { 19 };
        let element = DhParameterRepr { group: other, public_key: &vec![1; len] }.to_bytes().unwrap();
        assert!(matches!(sta.complete(&element), Err(OweError::GroupMismatch { .. })));
        assert_eq!(sta.complete(&[255, 1]).unwrap_err(), OweError::InvalidPublicKey);
    }
}

#[test]
fn a_secret_outside_one_to_r_is_refused() {
    assert_eq!(OweStation::with_secret(Group::P256, &[0; 32]).err(), Some(OweError::InvalidSecret));
    assert_eq!(OweStation::with_secret(Group::P256, &[0xff; 32]).err(), Some(OweError::InvalidSecret));
    assert_eq!(OweStation::with_secret(Group::P256, &[1; 31]).err(), Some(OweError::InvalidSecret));
}

#[test]
fn the_pmkid_is_the_truncated_hash_of_both_public_keys_in_order() {
    let keys = derive(Group::P256, &[9; 32], b"C", b"A");
    assert_eq!(keys.pmkid[..], Sha256::digest(b"CA")[..16]);
    let swapped = derive(Group::P256, &[9; 32], b"A", b"C");
    assert_ne!(keys.pmk, swapped.pmk);
}
