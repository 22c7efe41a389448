//! Synthetic captures of every suite decrypted back into exactly the Ethernet frames that
//! went in (the interop tests check the same captures against tshark and airdecap-ng);
//! and damaged captures: decryption never panics and never outputs a frame that was not sent.

use wlansec_core::capture::synth::{generated_traffic, Config, Synth};
use wlansec_core::decrypt::{Decryptor, Keys, OutputForm};
use wlansec_core::gen::{ChaCha8Rng, Rng, SeedableRng};
use wlansec_core::rsn::{pmk_from_passphrase, CipherSuite, Secret};

const SSID: &[u8] = b"wlansec-test";
const PASSPHRASE: &str = "correct horse battery";
const WEP_KEY: [u8; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

fn config(cipher: CipherSuite) -> Config {
    Config {
        ssid: SSID.to_vec(),
        passphrase: PASSPHRASE.into(),
        cipher,
        wep_key: match cipher {
            CipherSuite::Wep40 => Some(WEP_KEY[..5].to_vec()),
            CipherSuite::Wep104 => Some(WEP_KEY.to_vec()),
            _ => None,
        },
        stations: 3,
        rekey: true,
        fragment_every: 4,
        fragment_size: 300,
        seed: 5,
    }
}

fn keys(cipher: CipherSuite) -> Keys {
    match cipher {
        CipherSuite::Wep40 => Keys::Wep(Secret::from_slice(&WEP_KEY[..5]).unwrap()),
        CipherSuite::Wep104 => Keys::Wep(Secret::from_slice(&WEP_KEY).unwrap()),
        _ => Keys::Pmk(pmk_from_passphrase(PASSPHRASE, SSID).unwrap()),
    }
}

/// (the MPDUs on the air, the Ethernet frames carried)
fn capture(cipher: CipherSuite) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let synth = Synth::new(config(cipher)).unwrap();
    let frames = generated_traffic(250, &synth.station_macs(), 5);
    let records = synth.run(&frames).unwrap();
    (records.into_iter().map(|r| r.mpdu).collect(), frames)
}

fn decrypt_all(cipher: CipherSuite, mpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut d = Decryptor::new(keys(cipher), Some(SSID), None, OutputForm::Ethernet).unwrap();
    mpdus
        .iter()
        .filter_map(|m| d.process(m).ok().flatten().map(<[u8]>::to_vec))
        .filter(|f| f[12..14] != [0x88, 0x8e])
        .collect()
}

const SUITES: [CipherSuite; 7] = [
    CipherSuite::Ccmp128,
    CipherSuite::Ccmp256,
    CipherSuite::Gcmp128,
    CipherSuite::Gcmp256,
    CipherSuite::Tkip,
    CipherSuite::Wep40,
    CipherSuite::Wep104,
];

#[test]
fn every_suite_round_trips_through_a_capture() {
    for cipher in SUITES {
        let (mpdus, frames) = capture(cipher);
        assert_eq!(decrypt_all(cipher, &mpdus), frames, "{cipher:?}");
    }
}

#[test]
fn the_wrong_passphrase_decrypts_nothing() {
    let (mpdus, _) = capture(CipherSuite::Ccmp128);
    let wrong = Keys::Pmk(pmk_from_passphrase("not the passphrase", SSID).unwrap());
    let mut d = Decryptor::new(wrong, Some(SSID), None, OutputForm::Ethernet).unwrap();
    for m in &mpdus {
        assert!(matches!(d.process(m), Ok(None) | Err(_)));
    }
    let stats = d.stats();
    assert_eq!((stats.handshakes, stats.decrypted_wpa), (0, 0));
    assert!(stats.mic_mismatches >= 3);
}

#[test]
fn another_ssid_is_left_alone() {
    let (mpdus, _) = capture(CipherSuite::Ccmp128);
    let mut d = Decryptor::new(
        keys(CipherSuite::Ccmp128),
        Some(b"other"),
        None,
        OutputForm::Ethernet,
    )
    .unwrap();
    assert!(mpdus.iter().all(|m| !matches!(d.process(m), Ok(Some(_)))));
}

/// Flip, truncate and drop bytes of every frame at random: no panic, and whatever comes
/// out is one of the frames that went in (integrity checks catch every change; WEP's only
/// in the body, its MAC header is not protected).
#[test]
fn damaged_captures_never_panic_or_output_a_frame_not_sent() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for cipher in SUITES {
        let (mpdus, frames) = capture(cipher);
        for _ in 0..3 {
            let damaged: Vec<Vec<u8>> = mpdus
                .iter()
                .map(|m| {
                    let mut m = m.clone();
                    match rng.next_u32() % 8 {
                        0 => {
                            // WEP does not protect the MAC header: damage only its body.
                            let protected_from =
                                if matches!(cipher, CipherSuite::Wep40 | CipherSuite::Wep104) {
                                    32.min(m.len() - 1)
                                } else {
                                    0
                                };
                            let i = protected_from
                                + rng.next_u32() as usize % (m.len() - protected_from);
                            m[i] ^= 1 << (rng.next_u32() % 8);
                        }
                        1 => m.truncate(rng.next_u32() as usize % m.len()),
                        _ => {}
                    }
                    m
                })
                .collect();
            for f in decrypt_all(cipher, &damaged) {
                assert!(
                    frames.contains(&f),
                    "{cipher:?}: a frame that was never sent came out"
                );
            }
        }
    }
}

/// Batched decryption (engine lanes for CCMP-128) gives the same frames and counts as one
/// frame at a time, damaged frames included.
#[test]
fn batches_agree_with_one_frame_at_a_time() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for cipher in SUITES {
        let (mut mpdus, _) = capture(cipher);
        for m in mpdus.iter_mut().skip(40).step_by(17) {
            let i = m.len() - 1 - rng.next_u32() as usize % 8;
            m[i] ^= 0x40;
        }
        let mut one = Decryptor::new(keys(cipher), Some(SSID), None, OutputForm::Ethernet).unwrap();
        let singles: Vec<Vec<u8>> = mpdus
            .iter()
            .filter_map(|m| one.process(m).ok().flatten().map(<[u8]>::to_vec))
            .collect();
        let mut many =
            Decryptor::new(keys(cipher), Some(SSID), None, OutputForm::Ethernet).unwrap();
        let mut batched = Vec::new();
        for window in mpdus.chunks(29) {
            let refs: Vec<&[u8]> = window.iter().map(Vec::as_slice).collect();
            many.process_batch(&refs, |_, f| -> Result<(), ()> {
                batched.push(f.to_vec());
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(batched, singles, "{cipher:?}");
        assert_eq!(many.stats(), one.stats(), "{cipher:?}");
    }
}
