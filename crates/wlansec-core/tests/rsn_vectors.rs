//! Every key-hierarchy vector of tests/vectors (PBKDF2/PSK, PRF-SHA1, KDF-SHA256, PTK,
//! EAPOL-Key MIC, PMKID, AES key wrap), run through `wlansec_core::rsn`.

use serde_json::Value;
use wlansec_core::rsn::eapol::{self, EapolKey, KeyDescriptorVersion};
use wlansec_core::rsn::element::{key_data_items, GtkKde, KeyDataItem, RsnElementRepr};
use wlansec_core::rsn::kdf::{self, derive_ptk, pmk_from_passphrase, Pmk};
use wlansec_core::rsn::{keywrap, Akm, CipherSuite};
use wlansec_core::wire::MacAddr;
use wlansec_core::Error;

fn vectors(file: &str) -> Vec<Value> {
    let path = format!("{}/../../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["vectors"].as_array().unwrap().clone()
}

fn hex(v: &Value, name: &str) -> Vec<u8> {
    hex::decode(v[name].as_str().unwrap_or_else(|| panic!("no field {name}"))).unwrap()
}

fn ascii(v: &Value, name: &str) -> String {
    v[name].as_str().unwrap().to_string()
}

fn mac(v: &Value, name: &str) -> MacAddr {
    MacAddr(hex(v, name).try_into().unwrap())
}

fn nonce(v: &Value, name: &str) -> [u8; 32] {
    hex(v, name).try_into().unwrap()
}

#[test]
fn pbkdf2_psk_vectors() {
    let vs = vectors("pbkdf2_psk.json");
    assert_eq!(vs.len(), 7);
    for v in &vs {
        if v.get("pmk").is_some() {
            let pmk = pmk_from_passphrase(&ascii(v, "passphrase"), &hex(v, "ssid")).unwrap();
            assert_eq!(pmk.as_bytes(), &hex(v, "pmk")[..], "{}", v["id"]);
        } else {
            let mut dk = vec![0u8; v["dklen"].as_u64().unwrap() as usize];
            let iterations = v["iterations"].as_u64().unwrap() as u32;
            kdf::pbkdf2_sha1(ascii(v, "passphrase").as_bytes(), ascii(v, "salt_ascii").as_bytes(), iterations, &mut dk);
            assert_eq!(dk, hex(v, "dk"), "{}", v["id"]);
        }
    }
}

#[test]
fn prf_sha1_vectors() {
    let vs = vectors("prf_sha1.json");
    assert_eq!(vs.len(), 7);
    for v in &vs {
        let mut out = vec![0u8; v["length_bits"].as_u64().unwrap() as usize / 8];
        kdf::prf_sha1(&hex(v, "key"), ascii(v, "label_ascii").as_bytes(), &hex(v, "data"), &mut out);
        assert_eq!(out, hex(v, "output"), "{}", v["id"]);
    }
}

#[test]
fn kdf_sha256_vector() {
    for v in &vectors("kdf_sha256.json") {
        let mut out = vec![0u8; v["length_bits"].as_u64().unwrap() as usize / 8];
        kdf::kdf_sha256(
            &hex(v, "key_keyseed_computed"),
            ascii(v, "label_ascii").as_bytes(),
            &hex(v, "context"),
            &mut out,
        )
        .unwrap();
        assert_eq!(out, hex(v, "output"));
        assert_eq!(&out[..32], &hex(v, "kck_published")[..]);
        assert_eq!(&out[32..], &hex(v, "pmk_published")[..]);
    }
}

#[test]
fn ptk_derivation_vectors() {
    let vs = vectors("ptk_derivation.json");
    let sha1 = &vs[0];
    let pmk = Pmk::from_bytes(&hex(sha1, "pmk")).unwrap();
    assert_eq!(pmk_from_passphrase("ThisIsAPassword", b"ThisIsASSID").unwrap(), pmk);
    let args = |v: &Value| (mac(v, "aa"), mac(v, "spa"), nonce(v, "anonce"), nonce(v, "snonce"));
    let (aa, spa, an, sn) = args(sha1);
    let ccmp = derive_ptk(&pmk, Akm::Psk, CipherSuite::Ccmp128, aa, spa, &an, &sn).unwrap();
    assert_eq!(ccmp.kck.as_bytes(), &hex(sha1, "kck")[..]);
    assert_eq!(ccmp.kek.as_bytes(), &hex(sha1, "kek")[..]);
    assert_eq!(ccmp.tk.as_bytes(), &hex(sha1, "tk_ccmp")[..]);
    let tkip = derive_ptk(&pmk, Akm::Psk, CipherSuite::Tkip, aa, spa, &an, &sn).unwrap();
    assert_eq!(tkip.tk.as_bytes(), &hex(sha1, "tk_tkip")[..]);
    assert_eq!(&tkip.tk.as_bytes()[16..24], &hex(sha1, "tkip_authenticator_tx_mic_key")[..]);
    assert_eq!(&tkip.tk.as_bytes()[24..], &hex(sha1, "tkip_supplicant_tx_mic_key")[..]);
    let whole = [ccmp.kck.as_bytes(), ccmp.kek.as_bytes(), ccmp.tk.as_bytes()].concat();
    assert_eq!(whole, hex(sha1, "ptk_384_ccmp"));

    let sha256 = &vs[1];
    let (aa, spa, an, sn) = args(sha256);
    let ptk = derive_ptk(&pmk, Akm::PskSha256, CipherSuite::Ccmp128, aa, spa, &an, &sn).unwrap();
    let whole = [ptk.kck.as_bytes(), ptk.kek.as_bytes(), ptk.tk.as_bytes()].concat();
    assert_eq!(whole, hex(sha256, "ptk_384"));
}

#[test]
fn eapol_key_mic_and_pmkid_vectors() {
    let vs = vectors("eapol_key_mic.json");
    assert_eq!(vs.len(), 5);
    for v in &vs {
        let pmk = Pmk::from_bytes(&hex(v, "pmk")).unwrap();
        if let Some(pass) = v["passphrase"].as_str() {
            let derived = pmk_from_passphrase(pass, ascii(v, "ssid_ascii").as_bytes()).unwrap();
            assert_eq!(derived, pmk, "{}", v["id"]);
        }
        if v.get("pmkid").is_some() {
            assert_eq!(kdf::pmkid(&pmk, Akm::Psk, mac(v, "aa"), mac(v, "spa")).to_vec(), hex(v, "pmkid"));
            continue;
        }
        let version = v["key_descriptor_version"].as_u64().unwrap_or(2);
        let akm = if version == 3 { Akm::PskSha256 } else { Akm::Psk };
        let ptk = derive_ptk(
            &pmk,
            akm,
            CipherSuite::Ccmp128,
            mac(v, "aa"),
            mac(v, "spa"),
            &nonce(v, "anonce"),
            &nonce(v, "snonce"),
        )
        .unwrap();
        assert_eq!(ptk.kck.as_bytes(), &hex(v, "kck")[..], "{}", v["id"]);
        let frame = hex(v, "eapol_frame_mic_zeroed");
        let view = EapolKey::new_checked(&frame[..]).unwrap();
        let (mic_v1, mic_v2) = (v.get("hmac_md5_v1"), v.get("mic_v2_truncated"));
        if mic_v1.is_some() {
            // aircrack-ng's primitive check: both MICs over the same frame bytes.
            let md5 = eapol::compute_mic(ptk.kck.as_bytes(), KeyDescriptorVersion::HmacMd5Rc4, view.frame()).unwrap();
            assert_eq!(md5.to_vec(), hex(v, "hmac_md5_v1"));
            let sha = eapol::compute_mic(ptk.kck.as_bytes(), KeyDescriptorVersion::HmacSha1Aes, view.frame()).unwrap();
            assert_eq!(sha.to_vec(), hex(v, "mic_v2_truncated"));
            assert!(mic_v2.is_some());
            continue;
        }
        // Put the published MIC in and verify the frame as a receiver would.
        let mut signed = frame.clone();
        signed[81..97].copy_from_slice(&hex(v, "mic"));
        eapol::verify_mic(ptk.kck.as_bytes(), &signed).unwrap();
        let mut resigned = frame.clone();
        EapolKey::new_checked(&mut resigned[..]).unwrap().sign(ptk.kck.as_bytes()).unwrap();
        assert_eq!(resigned, signed, "{}", v["id"]);
        signed[120] ^= 1;
        assert_eq!(eapol::verify_mic(ptk.kck.as_bytes(), &signed), Err(Error::MicFailure));
    }
}

#[test]
fn aes_keywrap_vectors() {
    let vs = vectors("aes_keywrap.json");
    assert_eq!(vs.len(), 7);
    for v in &vs {
        let kek = hex(v, "kek");
        if v.get("plaintext").is_some() {
            assert_eq!(keywrap::wrap(&kek, &hex(v, "plaintext")).unwrap(), hex(v, "ciphertext"), "{}", v["id"]);
            assert_eq!(&keywrap::unwrap(&kek, &hex(v, "ciphertext")).unwrap()[..], &hex(v, "plaintext")[..]);
            continue;
        }
        // The EAPOL M3 Key Data example: pad, wrap, and read the items back.
        let plain = hex(v, "key_data_plain");
        assert_eq!(&keywrap::pad_key_data(&plain)[..], &hex(v, "key_data_padded")[..]);
        let wrapped = eapol::encrypt_key_data(KeyDescriptorVersion::HmacSha1Aes, &kek, &[0; 16], &plain).unwrap();
        assert_eq!(wrapped, hex(v, "key_data_wrapped"));
        let back = eapol::decrypt_key_data(KeyDescriptorVersion::HmacSha1Aes, &kek, &[0; 16], &wrapped).unwrap();
        let items: Vec<_> = key_data_items(&back).collect::<Result<_, _>>().unwrap();
        let KeyDataItem::Element { element, .. } = items[0] else { panic!("no RSN element first") };
        RsnElementRepr::parse(element).unwrap();
        let KeyDataItem::Kde { data, .. } = items[1] else { panic!("no GTK KDE second") };
        assert_eq!(GtkKde::parse(data).unwrap().gtk.len(), 16);
    }
}

/// The AKMs without published vectors: Suite B 192-bit and the FT chain, against values
/// computed independently with Python's hashlib/hmac (tests/vectors/akm_key_hierarchy.py).
#[test]
fn akm_key_hierarchy_vectors() {
    use wlansec_core::rsn::eapol::KeyIntegrity;
    use wlansec_core::rsn::kdf::{derive_ptk_with, ft, AkmKeys};
    let vs = vectors("akm_key_hierarchy.json");
    assert_eq!(vs.len(), 4);
    for v in &vs {
        let akm = Akm::from_selector([0x00, 0x0f, 0xac, v["akm"].as_u64().unwrap() as u8]);
        let keys = AkmKeys::of(akm, None).unwrap();
        if v.get("mic").is_some() {
            let frame = hex(v, "eapol_frame_mic_zeroed");
            let mic = eapol::compute_mic_with(&hex(v, "kck"), keys.integrity, &frame).unwrap();
            assert_eq!(keys.integrity, KeyIntegrity::HmacSha384);
            assert_eq!(mic[..24].to_vec(), hex(v, "mic"), "{}", v["id"]);
            // The same frame signed, then parsed with its 24-octet MIC field.
            let mut signed = frame.clone();
            signed[81..105].copy_from_slice(&mic[..24]);
            eapol::verify_mic_with(keys.integrity, &hex(v, "kck"), &signed).unwrap();
            let view = EapolKey::new_checked_with_mic_len(&signed[..], 24).unwrap();
            assert_eq!(view.key_data().len(), 22);
            assert_eq!(view.key_info().version().unwrap(), KeyDescriptorVersion::AkmDefined);
            signed[90] ^= 1;
            assert_eq!(eapol::verify_mic_with(keys.integrity, &hex(v, "kck"), &signed), Err(Error::MicFailure));
            continue;
        }
        let tk_len = hex(v, "tk").len();
        let ptk = if akm.is_ft() {
            let ssid = ascii(v, "ssid_ascii");
            let r0kh = ascii(v, "r0kh_id_ascii");
            let ids = ft::Ids {
                ssid: ssid.as_bytes(),
                mdid: hex(v, "mdid").try_into().unwrap(),
                r0kh_id: r0kh.as_bytes(),
                r1kh_id: hex(v, "r1kh_id").try_into().unwrap(),
                spa: mac(v, "spa"),
            };
            let (r0, r0_name) = ft::pmk_r0(&keys, &hex(v, "xxkey"), &ids).unwrap();
            assert_eq!(r0.as_bytes(), &hex(v, "pmk_r0")[..], "{}", v["id"]);
            assert_eq!(r0_name.to_vec(), hex(v, "pmk_r0_name"));
            let (r1, r1_name) = ft::pmk_r1(&keys, &r0, &r0_name, &ids).unwrap();
            assert_eq!(r1.as_bytes(), &hex(v, "pmk_r1")[..]);
            assert_eq!(r1_name.to_vec(), hex(v, "pmk_r1_name"));
            let (an, sn) = (nonce(v, "anonce"), nonce(v, "snonce"));
            let (ptk, name) = ft::derive_ptk(&keys, &hex(v, "xxkey"), &ids, tk_len, mac(v, "bssid"), &an, &sn).unwrap();
            assert_eq!(name, r1_name);
            ptk
        } else {
            let pmk = Pmk::from_bytes(&hex(v, "pmk")).unwrap();
            let (an, sn) = (nonce(v, "anonce"), nonce(v, "snonce"));
            derive_ptk_with(&pmk, &keys, tk_len, mac(v, "aa"), mac(v, "spa"), &an, &sn).unwrap()
        };
        assert_eq!(ptk.kck.as_bytes(), &hex(v, "kck")[..], "{}", v["id"]);
        assert_eq!(ptk.kek.as_bytes(), &hex(v, "kek")[..]);
        assert_eq!(ptk.tk.as_bytes(), &hex(v, "tk")[..]);
    }
}

#[test]
fn every_named_akm_has_its_lengths_and_others_are_named_in_the_error() {
    use wlansec_core::rsn::eapol::KeyIntegrity;
    use wlansec_core::rsn::kdf::{AkmKeys, KdfHash};
    let of = |t: u8, group| AkmKeys::of(Akm::from_selector([0x00, 0x0f, 0xac, t]), group);
    for (t, hash, kck, kek, mic) in [
        (2, KdfHash::Sha1, 16, 16, KeyIntegrity::HmacSha1),
        (3, KdfHash::Sha256, 16, 16, KeyIntegrity::AesCmac),
        (6, KdfHash::Sha256, 16, 16, KeyIntegrity::AesCmac),
        (8, KdfHash::Sha256, 16, 16, KeyIntegrity::AesCmac),
        (11, KdfHash::Sha256, 16, 16, KeyIntegrity::HmacSha256),
        (12, KdfHash::Sha384, 24, 32, KeyIntegrity::HmacSha384),
        (13, KdfHash::Sha384, 24, 32, KeyIntegrity::HmacSha384),
        (18, KdfHash::Sha256, 16, 16, KeyIntegrity::HmacSha256),
    ] {
        let keys = of(t, None).unwrap();
        assert_eq!((keys.hash, keys.kck_len, keys.kek_len, keys.integrity), (hash, kck, kek, mic), "AKM {t}");
        assert_eq!(Akm::from_selector([0x00, 0x0f, 0xac, t]).selector()[3], t);
    }
    // OWE and SAE-EXT-KEY take their hash from the Diffie-Hellman group.
    assert_eq!(of(18, Some(20)).unwrap().integrity, KeyIntegrity::HmacSha384);
    assert_eq!(of(24, Some(21)).unwrap().kck_len, 32);
    assert!(of(18, Some(30)).is_err());
    let fils = of(14, None).unwrap_err();
    assert_eq!(fils.to_string(), "unsupported AKM suite 00-0F-AC:14 (FILS-SHA256): no key hierarchy for it");
}
