//! The SAE vectors of tests/vectors/sae.json (IEEE 802.11-2020 Annex J.10 and the
//! P802.11-REVmd/D2.1 one, as public code quotes them), run through `wlansec_core::rsn::sae`.
//! The RFC 9380 map vectors are a unit test of `sae::group` (the map is not public).

use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use wlansec_core::rsn::sae::{
    Group, Instance, LoopCost, Password, PasswordElement, PasswordToken, Role, SaeEvent, HUNTING_AND_PECKING_ITERATIONS,
};
use wlansec_core::wire::MacAddr;

fn vector(kind: &str, group: u64, nth: usize) -> Value {
    let path = format!("{}/../../tests/vectors/sae.json", env!("CARGO_MANIFEST_DIR"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == kind && v["group"] == group)
        .nth(nth)
        .unwrap_or_else(|| panic!("no vector {kind} {group} #{nth}"))
        .clone()
}

fn hex(v: &Value, name: &str) -> Vec<u8> {
    hex::decode(v[name].as_str().unwrap_or_else(|| panic!("no field {name}"))).unwrap()
}

fn mac(v: &Value, name: &str) -> MacAddr {
    MacAddr(hex(v, name).try_into().unwrap())
}

fn ascii<'a>(v: &'a Value, name: &str) -> &'a [u8] {
    v[name].as_str().unwrap().as_bytes()
}

/// A commit or confirm body as the vector gives it, behind its Authentication header.
fn frame(transaction: u16, body: &[u8]) -> Vec<u8> {
    let mut out = vec![3, 0];
    out.extend_from_slice(&transaction.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(body);
    out
}

#[test]
fn j10_hunting_and_pecking_group19_pwe_commit_and_keys() {
    let v = vector("sae_hnp", 19, 0);
    let (input, expected) = (&v["inputs"], &v["expected"]);
    let password = Password::new(ascii(input, "password"), None);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut cost = LoopCost::default();
    let pwe = PasswordElement::hunting_and_pecking(
        Group::P256,
        &password,
        mac(input, "addr1"),
        mac(input, "addr2"),
        &mut rng,
        &mut cost,
    )
    .unwrap();
    assert_eq!(hex::encode(pwe.as_bytes()), expected["pwe"].as_str().unwrap());
    assert_eq!(cost.iterations, u32::from(HUNTING_AND_PECKING_ITERATIONS));

    let mut sta = Instance::with_rand_mask(Role::Station, pwe, None, &hex(input, "rand"), &hex(input, "mask")).unwrap();
    assert_eq!(sta.commit_frame(), frame(1, &hex(expected, "commit_message")));
    let events = sta.handle(&frame(1, &hex(input, "peer_commit_message"))).unwrap();
    assert!(matches!(events.as_slice(), [SaeEvent::Send(_)]));
    let keys = sta.keys().unwrap();
    assert_eq!(hex::encode(keys.kck().as_bytes()), expected["kck"].as_str().unwrap());
    assert_eq!(hex::encode(keys.pmk().as_bytes()), expected["pmk"].as_str().unwrap());
    assert_eq!(hex::encode(keys.pmkid()), expected["pmkid"].as_str().unwrap());
}

#[test]
fn j10_hash_to_element_group19_pt_and_pwe() {
    let v = vector("sae_h2e_ecc", 19, 0);
    let (input, expected) = (&v["inputs"], &v["expected"]);
    let password = Password::new(ascii(input, "password"), Some(ascii(input, "password_identifier")));
    let (pt, steps) = PasswordToken::derive_with_steps(Group::P256, ascii(input, "ssid"), &password).unwrap();
    assert_eq!(hex::encode(&*steps.pwd_seed), expected["pwd_seed"].as_str().unwrap());
    assert_eq!(hex::encode(&*steps.pwd_value1), expected["okm1"].as_str().unwrap());
    assert_eq!(hex::encode(&*steps.pwd_value2), expected["okm2"].as_str().unwrap());
    assert_eq!(hex::encode(pt.as_bytes()), expected["pt"].as_str().unwrap());
    let pwe = PasswordElement::from_token(&pt, mac(input, "addr1"), mac(input, "addr2")).unwrap();
    assert_eq!(hex::encode(pwe.as_bytes()), expected["pwe"].as_str().unwrap());
}

/// The only published confirm values: the draft's hunting-and-pecking put the password
/// identifier into pwd-seed (as password || identifier), which 802.11-2020 no longer does;
/// both commits end with the Password Identifier element.
#[test]
fn revmd_d2_1_commit_confirm_with_password_identifier() {
    let v = vector("sae_hnp", 19, 1);
    let (input, expected) = (&v["inputs"], &v["expected"]);
    let identifier = ascii(input, "password_identifier_in_pwd_seed");
    let mut draft_password = ascii(input, "password").to_vec();
    draft_password.extend_from_slice(identifier);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let pwe = PasswordElement::hunting_and_pecking(
        Group::P256,
        &Password::new(&draft_password, None),
        mac(input, "addr1"),
        mac(input, "addr2"),
        &mut rng,
        &mut LoopCost::default(),
    )
    .unwrap();
    assert_eq!(hex::encode(pwe.as_bytes()), v["computed_only"]["pwe"].as_str().unwrap());
    let mut sta =
        Instance::with_rand_mask(Role::Station, pwe, Some(identifier), &hex(input, "rand"), &hex(input, "mask"))
            .unwrap();
    assert_eq!(sta.commit_frame(), frame(1, &hex(expected, "commit_message")));
    let events = sta.handle(&frame(1, &hex(input, "peer_commit_message"))).unwrap();
    assert_eq!(events, vec![SaeEvent::Send(frame(2, &hex(expected, "confirm_message")))]);
    let keys = sta.keys().unwrap();
    assert_eq!(hex::encode(keys.kck().as_bytes()), expected["kck"].as_str().unwrap());
    assert_eq!(hex::encode(keys.pmk().as_bytes()), expected["pmk"].as_str().unwrap());
    assert_eq!(hex::encode(keys.pmkid()), expected["pmkid"].as_str().unwrap());
    let events = sta.handle(&frame(2, &hex(expected, "peer_confirm_message"))).unwrap();
    assert!(
        matches!(events.as_slice(), [SaeEvent::Accepted { pmkid, .. }] if hex::encode(pmkid) == expected["pmkid"].as_str().unwrap())
    );
    assert!(sta.is_accepted());
}
