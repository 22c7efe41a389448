use serde_json::Value;

use super::*;
use crate::wire::tdls::{SetupRepr, TdlsFrame};

/// The computed-only vector of tests/vectors/tdls_tpk.json (tdls_tpk.py: hashlib/hmac and
/// pycryptodome, independent of this code; no published TPK vector exists).
fn vector() -> Value {
    let doc: Value = serde_json::from_str(include_str!("../../../../../tests/vectors/tdls_tpk.json")).unwrap();
    doc["vectors"][0].clone()
}

fn hex(v: &Value, name: &str) -> Vec<u8> {
    hex::decode(v[name].as_str().unwrap()).unwrap()
}

fn mac(v: &Value, name: &str) -> MacAddr {
    MacAddr(hex(v, name).try_into().unwrap())
}

fn nonce(v: &Value, name: &str) -> [u8; 32] {
    hex(v, name).try_into().unwrap()
}

#[test]
fn tpk_matches_the_independently_computed_vector() {
    let v = vector();
    let tpk = derive_tpk(
        &nonce(&v, "snonce"),
        &nonce(&v, "anonce"),
        mac(&v, "initiator"),
        mac(&v, "responder"),
        mac(&v, "bssid"),
        16,
    )
    .unwrap();
    assert_eq!(tpk.kck.as_bytes(), &hex(&v, "tpk_kck")[..]);
    assert_eq!(tpk.tk.as_bytes(), &hex(&v, "tpk_tk")[..]);
    // Both peers derive the same TPK, whichever way round they name the nonces and addresses.
    let swapped = derive_tpk(
        &nonce(&v, "anonce"),
        &nonce(&v, "snonce"),
        mac(&v, "responder"),
        mac(&v, "initiator"),
        mac(&v, "bssid"),
        16,
    )
    .unwrap();
    assert_eq!(swapped, tpk);
    assert!(derive_tpk(&[0; 32], &[0; 32], mac(&v, "initiator"), mac(&v, "responder"), mac(&v, "bssid"), 33).is_err());
}

#[test]
fn fte_mics_of_response_and_confirm_match_the_vector_and_catch_tampering() {
    let v = vector();
    let elements = hex(&v, "response_elements");
    let message = TpkMessage::find(Elements::new(&elements)).unwrap();
    assert_eq!(message.pairwise, CipherSuite::Ccmp128);
    assert_eq!((message.link.initiator, message.link.responder), (mac(&v, "initiator"), mac(&v, "responder")));
    let tpk = message.tpk().unwrap();
    assert_eq!(tpk.kck.as_bytes(), &hex(&v, "tpk_kck")[..]);
    assert_eq!(message.mic(tpk.kck.as_bytes(), SetupAction::Response).unwrap().to_vec(), hex(&v, "response_mic"));
    assert_eq!(message.mic(tpk.kck.as_bytes(), SetupAction::Confirm).unwrap().to_vec(), hex(&v, "confirm_mic"));
    assert_eq!(message.verify(tpk.kck.as_bytes(), SetupAction::Response), Ok(()));
    // Signed as a Response, so not a valid Confirm.
    assert_eq!(message.verify(tpk.kck.as_bytes(), SetupAction::Confirm), Err(Error::MicFailure));
    // Every octet the MIC covers (here: all of them) changes the verdict.
    for at in 0..elements.len() {
        let mut altered = elements.clone();
        altered[at] ^= 0x01;
        let Ok(message) = TpkMessage::find(Elements::new(&altered)) else { continue };
        let verdict = message.tpk().and_then(|tpk| message.verify(tpk.kck.as_bytes(), SetupAction::Response));
        assert!(verdict.is_err(), "octet {at} altered and still verified");
    }
}

#[test]
fn setup_frames_missing_an_element_are_refused() {
    let v = vector();
    let elements = hex(&v, "response_elements");
    // Drop each of the four elements in turn (RSNE 22, FTE 84, Timeout 7, Link ID 20).
    let mut at = 0;
    for len in [22, 84, 7, 20] {
        let without = [&elements[..at], &elements[at + len..]].concat();
        assert!(TpkMessage::find(Elements::new(&without)).is_err());
        at += len;
    }
    assert_eq!(at, elements.len());
    // And the whole setup frame parses through the wire view.
    let payload = [&[2u8, 12, 1, 0, 0, 5, 0, 0][..], &elements].concat();
    let setup = SetupRepr::parse(&TdlsFrame::new_checked(&payload[..]).unwrap()).unwrap();
    assert_eq!(setup.elements.as_bytes(), &elements[..]);
}
