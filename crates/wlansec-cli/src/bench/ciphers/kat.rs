//! Known-answer tests of every cipher of the bench, through the same engines it times:
//! tests/vectors/ciphers (FIPS 81 / SP 800-67 DES and TDEA, RFC 2268 RC2, Schneier's
//! Blowfish vectors, the RC6 paper, SP 800-38A AES modes, GCM, RFC 8439), FIPS-197 AES from
//! tests/vectors/aes_block.json and RC4 from tests/vectors/wep.json. Every expected value is
//! published; tests/python/test_cipher_vectors.py checks the same files with pycryptodome.

use std::path::PathBuf;

use aes::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, StreamCipher};
use serde::Deserialize;

use super::catalog::{self, Variant};

#[derive(Deserialize)]
struct VectorFile {
    vectors: Vec<Vector>,
}

#[derive(Deserialize)]
struct Vector {
    id: String,
    cipher: String,
    key_bits: u32,
    mode: String,
    key: String,
    #[serde(default)]
    iv: String,
    #[serde(default)]
    aad: String,
    plaintext: String,
    ciphertext: String,
    #[serde(default)]
    tag: String,
    effective_bits: Option<usize>,
    published: bool,
}

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

fn load(name: &str) -> Vec<Vector> {
    let path = vectors_dir().join("ciphers").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file: VectorFile = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!file.vectors.is_empty());
    file.vectors
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

/// The bench variant a vector runs through: its ECB vectors go through CBC with a zero IV
/// one block at a time (C = E(P ⊕ 0)).
fn variant(v: &Vector) -> Option<Variant> {
    let mode = if v.mode == "ECB" { "CBC" } else { &v.mode };
    catalog::find(&format!("{}-{}-{}", v.cipher, v.key_bits, mode)).ok()
}

/// Checks one vector through the bench's engine; false if no engine takes its key.
fn check_with_engine(v: &Vector) -> bool {
    let Some(variant) = variant(v) else { return false };
    if v.effective_bits.is_some_and(|e| e != v.key_bits as usize) {
        return false;
    }
    let (key, pt, ct) = (h(&v.key), h(&v.plaintext), h(&v.ciphertext));
    match v.mode.as_str() {
        "ECB" => {
            let zero_iv = vec![0u8; variant.iv_len()];
            let engine = variant.engine_with(&key, &zero_iv, &[]).unwrap();
            let bs = zero_iv.len();
            for (p, c) in pt.chunks(bs).zip(ct.chunks(bs)) {
                let mut out = vec![0u8; engine.max_ciphertext_len(bs)];
                engine.encrypt(p, &mut out).unwrap();
                assert_eq!(hex::encode(&out[..bs]), hex::encode(c), "{}", v.id);
            }
        }
        "CBC" | "CTR" | "AEAD" => {
            let engine = variant.engine_with(&key, &h(&v.iv), &h(&v.aad)).unwrap();
            let mut out = vec![0u8; engine.max_ciphertext_len(pt.len())];
            let n = engine.encrypt(&pt, &mut out).unwrap();
            let expected = [ct.clone(), h(&v.tag)].concat();
            // CBC adds a PKCS#7 block after the published (unpadded) ciphertext.
            assert_eq!(hex::encode(&out[..expected.len()]), hex::encode(&expected), "{}", v.id);
            let input = if v.mode == "CBC" { &out[..n] } else { &expected[..] };
            let mut back = vec![0u8; n];
            let m = engine.decrypt(input, &mut back).unwrap();
            assert_eq!(back[..m], pt[..], "{} decrypt", v.id);
        }
        other => panic!("{}: unknown mode {other}", v.id),
    }
    true
}

/// One block with the crate itself, both ways (for keys no bench variant takes, and for
/// ECB decryption, which CBC with PKCS#7 cannot express).
fn check_block<C: BlockCipherEncrypt + BlockCipherDecrypt>(c: &C, v: &Vector) {
    let (pt, ct) = (h(&v.plaintext), h(&v.ciphertext));
    let bs = C::block_size();
    for (p, x) in pt.chunks(bs).zip(ct.chunks(bs)) {
        let mut block = Array::try_from(p).unwrap();
        c.encrypt_block(&mut block);
        assert_eq!(hex::encode(block.as_slice()), hex::encode(x), "{}", v.id);
        c.decrypt_block(&mut block);
        assert_eq!(block.as_slice(), p, "{} decrypt", v.id);
    }
}

fn check_file(name: &str, block: impl Fn(&Vector)) -> usize {
    let vectors = load(name);
    let mut through_engine = 0;
    for v in &vectors {
        assert!(v.published, "{}: only published vectors here", v.id);
        through_engine += usize::from(check_with_engine(v));
        if v.mode == "ECB" {
            block(v);
        }
    }
    through_engine
}

#[test]
fn des_and_tdea() {
    let n = check_file("des.json", |v| match v.cipher.as_str() {
        "DES" => check_block(&des::Des::new_from_slice(&h(&v.key)).unwrap(), v),
        _ => check_block(&des::TdesEde3::new_from_slice(&h(&v.key)).unwrap(), v),
    });
    assert_eq!(n, 4);
}

#[test]
fn rc2_rfc2268() {
    let n = check_file("rc2.json", |v| {
        let eff = v.effective_bits.expect("RC2 vectors give effective bits");
        check_block(&rc2::Rc2::new_with_eff_key_len(&h(&v.key), eff), v)
    });
    // Vectors 2, 3 (64-bit key, T1 = 64) and 7 (128-bit key, T1 = 128) are the bench's keys.
    assert_eq!(n, 3);
}

#[test]
fn blowfish_schneier() {
    let n = check_file("blowfish.json", |v| check_block(&<blowfish::Blowfish>::new_from_slice(&h(&v.key)).unwrap(), v));
    assert_eq!(n, 12);
}

#[test]
fn rc6_paper() {
    let n = check_file("rc6.json", |v| match v.key_bits {
        128 => check_block(&catalog::Rc6_128::new_from_slice(&h(&v.key)).unwrap(), v),
        192 => check_block(&catalog::Rc6_192::new_from_slice(&h(&v.key)).unwrap(), v),
        _ => check_block(&catalog::Rc6_256::new_from_slice(&h(&v.key)).unwrap(), v),
    });
    assert_eq!(n, 6);
}

#[test]
fn aes_modes_and_gcm() {
    assert_eq!(check_file("aes_modes.json", |_| {}), 5);
}

#[test]
fn chacha20_poly1305_rfc8439() {
    assert_eq!(check_file("chacha20poly1305.json", |_| {}), 1);
}

#[derive(Deserialize)]
struct PlainFile {
    vectors: Vec<serde_json::Map<String, serde_json::Value>>,
}

fn load_plain(name: &str) -> PlainFile {
    serde_json::from_str(&std::fs::read_to_string(vectors_dir().join(name)).unwrap()).unwrap()
}

fn field<'a>(v: &'a serde_json::Map<String, serde_json::Value>, k: &str) -> Option<&'a str> {
    v.get(k).and_then(|x| x.as_str())
}

#[test]
fn aes_fips197_through_cbc() {
    let mut n = 0;
    for v in load_plain("aes_block.json").vectors {
        let key = h(field(&v, "key").unwrap());
        let variant = catalog::find(&format!("AES-{}-CBC", key.len() * 8)).unwrap();
        let engine = variant.engine(&key).unwrap();
        let mut out = [0u8; 32];
        engine.encrypt(&h(field(&v, "plaintext").unwrap()), &mut out).unwrap();
        assert_eq!(hex::encode(&out[..16]), field(&v, "ciphertext").unwrap());
        n += 1;
    }
    assert_eq!(n, 3);
}

#[test]
fn rc4_vectors_and_wep_framing() {
    let mut n = 0;
    for v in load_plain("wep.json").vectors {
        let (Some(key), Some(pt), Some(ct)) = (field(&v, "key"), field(&v, "plaintext"), field(&v, "ciphertext"))
        else {
            continue;
        };
        let mut buf = h(pt);
        rc4::Rc4::new_from_slice(&h(key)).unwrap().apply_keystream(&mut buf);
        assert_eq!(hex::encode(&buf), ct);
        n += 1;
    }
    assert_eq!(n, 2);
    // The per-frame engine: frame n is RC4 keyed with IV = n (24 bits, big-endian) ‖ secret.
    let variant = catalog::find("RC4-128-WEP-frames").unwrap();
    let key: Vec<u8> = (0..16).collect();
    let zeros = vec![0u8; 2 * catalog::FRAME_PAYLOAD + 7];
    let mut stream = vec![0u8; zeros.len()];
    variant.engine(&key).unwrap().encrypt(&zeros, &mut stream).unwrap();
    let frame1 = &stream[catalog::FRAME_PAYLOAD..2 * catalog::FRAME_PAYLOAD];
    let mut expected = vec![0u8; catalog::FRAME_PAYLOAD];
    let per_frame = [&[0u8, 0, 1][..], &key[3..]].concat();
    rc4::Rc4::new_from_slice(&per_frame).unwrap().apply_keystream(&mut expected);
    assert_eq!(frame1, &expected[..]);
}
