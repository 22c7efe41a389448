use super::*;

fn sample(data: &[u8]) -> Vec<u8> {
    let repr = EapolKeyRepr {
        protocol_version: 2,
        descriptor_type: DescriptorType::Rsn,
        key_info: KeyInfo::new(KeyDescriptorVersion::HmacSha1Aes, KeyInfo::PAIRWISE | KeyInfo::MIC),
        key_length: 0,
        replay_counter: 7,
        nonce: [3; 32],
        key_iv: [0; 16],
        key_rsc: 0x0102,
        mic: [0; 16],
        key_data: data,
    };
    repr.to_signed_bytes(&[9; 16]).unwrap()
}

#[test]
fn repr_round_trips_and_mic_verifies() {
    let bytes = sample(&[0x30, 2, 1, 0]);
    let repr = EapolKeyRepr::parse(&bytes).unwrap();
    assert_eq!(repr.replay_counter, 7);
    assert_eq!(repr.key_rsc, 0x0102);
    assert_eq!(repr.key_data, &[0x30, 2, 1, 0]);
    let mut again = vec![0u8; repr.buffer_len()];
    repr.emit(&mut again).unwrap();
    assert_eq!(again, bytes);
    verify_mic(&[9; 16], &bytes).unwrap();
    assert_eq!(verify_mic(&[8; 16], &bytes), Err(Error::MicFailure));
    let mut padded = bytes.clone();
    padded.extend_from_slice(&[0xee; 10]);
    verify_mic(&[9; 16], &padded).unwrap();
    assert_eq!(EapolKey::new_checked(&bytes[..]).unwrap().message(), Message::FourWay2);
}

#[test]
fn every_truncation_and_bad_length_is_a_typed_error() {
    let bytes = sample(&[1, 2, 3, 4, 5, 6]);
    for cut in 0..bytes.len() {
        assert!(EapolKey::new_checked(&bytes[..cut]).is_err(), "cut {cut}");
        assert!(verify_mic(&[9; 16], &bytes[..cut]).is_err());
    }
    let mut long_data = bytes.clone();
    long_data[98] = 200;
    assert_eq!(
        EapolKey::new_checked(&long_data[..]).unwrap_err(),
        Error::Malformed("Key Data Length runs past the EAPOL body")
    );
    let mut not_key = bytes.clone();
    not_key[1] = 0;
    assert!(EapolKey::new_checked(&not_key[..]).is_err());
    let mut bad_version = bytes.clone();
    bad_version[6] = (bad_version[6] & !7) | 5;
    assert!(EapolKeyRepr::parse(&bad_version).is_err());
    assert!(verify_mic(&[9; 16], &bad_version).is_err());
}

/// Found by the `eapol_key` fuzz target (fuzz/corpus/eapol_key/crash-*): a repr is not the
/// frame's octets. Octets between the Key Data and the end of the EAPOL body are tolerated
/// (the MIC covers them) but not kept, and the reserved octets are written as zero.
#[test]
fn a_repr_drops_octets_past_its_key_data_and_zeroes_the_reserved_field() {
    let mut bytes = sample(&[0x30, 2, 1, 0]);
    bytes[73..81].fill(0x5a);
    bytes.extend_from_slice(&[0xee; 6]);
    let body_len = u16::from_be_bytes([bytes[2], bytes[3]]) + 6;
    bytes[2..4].copy_from_slice(&body_len.to_be_bytes());
    let repr = EapolKeyRepr::parse(&bytes).unwrap();
    assert_eq!(repr.key_data, &[0x30, 2, 1, 0]);
    let mut again = vec![0u8; repr.buffer_len()];
    repr.emit(&mut again).unwrap();
    assert_eq!(again.len(), bytes.len() - 6);
    assert_eq!(again[73..81], [0; 8]);
    assert_eq!(EapolKeyRepr::parse(&again).unwrap(), repr);
}

#[test]
fn key_data_encryption_round_trips() {
    let plain = [0x30u8, 0x14, 1, 0, 0, 0x0f, 0xac, 4, 0xdd, 5];
    let kek = [0x47; 16];
    let iv = [0x11; 16];
    for version in [KeyDescriptorVersion::HmacMd5Rc4, KeyDescriptorVersion::HmacSha1Aes, KeyDescriptorVersion::AesCmac]
    {
        let enc = encrypt_key_data(version, &kek, &iv, &plain).unwrap();
        assert_ne!(&enc[..plain.len()], &plain[..]);
        let dec = decrypt_key_data(version, &kek, &iv, &enc).unwrap();
        assert_eq!(&dec[..plain.len()], &plain[..]);
    }
    assert!(decrypt_key_data(KeyDescriptorVersion::HmacSha1Aes, &[1; 16], &iv, &[0; 24]).is_err());
    assert!(decrypt_key_data(KeyDescriptorVersion::HmacSha1Aes, &kek, &iv, &[0; 5]).is_err());
}
