//! TDLS in captures: a direct link between two stations, keyed by the TPK handshake whose
//! setup frames travel through the AP, decrypted back into the frames that went in; a setup
//! whose FTE MIC was altered keys nothing. (tests/python/test_decrypt_tdls.py checks the
//! same captures against tshark.)

use wlansec_core::decrypt::{Decryptor, Keys, OutputForm, Stats};
use wlansec_core::rsn::{pmk_from_passphrase, CipherSuite};
use wlansec_core::synth::{generated_traffic, with_direct_link, Config, Synth};
use wlansec_core::wire::tdls::ETHERTYPE_TDLS;
use wlansec_core::wire::MacAddr;

const SSID: &[u8] = b"wlansec-tdls";
const PASSPHRASE: &str = "correct horse battery";

/// (the MPDUs on the air, the Ethernet frames carried, the two peers)
fn capture() -> (Vec<Vec<u8>>, Vec<Vec<u8>>, [MacAddr; 2]) {
    let config =
        Config { tdls: true, stations: 3, seed: 9, ..Config::personal(SSID, PASSPHRASE, CipherSuite::Ccmp128) };
    let synth = Synth::new(config).unwrap();
    let stations = synth.station_macs();
    let mut frames = generated_traffic(100, &stations, 9);
    with_direct_link(&mut frames, stations[0], stations[1]);
    let records = synth.run(&frames).unwrap();
    (records.into_iter().map(|r| r.mpdu).collect(), frames, [stations[0], stations[1]])
}

fn decrypt(mpdus: &[Vec<u8>]) -> (Vec<Vec<u8>>, Stats) {
    let mut d =
        Decryptor::new(Keys::pmk(pmk_from_passphrase(PASSPHRASE, SSID).unwrap()), None, None, OutputForm::Ethernet)
            .unwrap();
    let mut out = Vec::new();
    for m in mpdus {
        let _ = d.process(m, |f| -> Result<(), ()> {
            out.push(f.to_vec());
            Ok(())
        });
    }
    (out, d.stats())
}

fn is_direct(mpdu: &[u8], peers: &[MacAddr; 2]) -> bool {
    mpdu[0] & 0x0c == 0x08 && mpdu[1] & 0x03 == 0 && peers.iter().any(|p| mpdu[4..10] == p.0)
}

fn ethertype(frame: &[u8]) -> u16 {
    u16::from_be_bytes([frame[12], frame[13]])
}

#[test]
fn the_direct_link_decrypts_under_the_tpk_from_its_setup() {
    let (mpdus, frames, peers) = capture();
    let direct = mpdus.iter().filter(|m| is_direct(m, &peers)).count();
    assert!(direct >= 15, "only {direct} direct-link frames");
    let (out, stats) = decrypt(&mpdus);
    assert_eq!(stats.tdls_keys, 1);
    assert_eq!(stats.tdls_mic_failures, 0);
    assert_eq!((stats.no_key, stats.bad_integrity, stats.replays), (0, 0, 0));
    // Request, Response and Confirm, each to the AP and from it: written like any MSDU.
    let setups: Vec<_> = out.iter().filter(|f| ethertype(f) == ETHERTYPE_TDLS).collect();
    assert_eq!(setups.len(), 6);
    let carried: Vec<_> = out.into_iter().filter(|f| ![ETHERTYPE_TDLS, 0x888e].contains(&ethertype(f))).collect();
    assert_eq!(carried, frames);
}

/// The setup frames as unprotected data frames from the initiator to the AP (the MSDUs the
/// decryptor wrote), with `alter` applied to each payload.
fn setups_in_the_clear(out: &[Vec<u8>], bssid: MacAddr, alter: impl Fn(&mut Vec<u8>)) -> Vec<Vec<u8>> {
    out.iter()
        .filter(|f| ethertype(f) == ETHERTYPE_TDLS)
        .step_by(2)
        .map(|f| {
            let mut payload = f[14..].to_vec();
            alter(&mut payload);
            let mut mpdu = vec![0x08, 0x01, 0, 0];
            mpdu.extend_from_slice(&bssid.0);
            mpdu.extend_from_slice(&f[6..12]);
            mpdu.extend_from_slice(&f[..6]);
            mpdu.extend_from_slice(&[0, 0, 0xaa, 0xaa, 0x03, 0, 0, 0, 0x89, 0x0d]);
            mpdu.extend_from_slice(&payload);
            mpdu
        })
        .collect()
}

#[test]
fn an_altered_fte_mic_keys_nothing_and_is_counted() {
    let (mpdus, _, peers) = capture();
    let (out, _) = decrypt(&mpdus);
    let bssid = MacAddr(mpdus.iter().find(|m| is_direct(m, &peers)).unwrap()[16..22].try_into().unwrap());
    let direct: Vec<_> = mpdus.iter().filter(|m| is_direct(m, &peers)).cloned().collect();
    // The FTE MIC: after payload type, category, action, the fixed fields, the 22-octet
    // RSNE and the FTE's ID, Length and MIC Control.
    let mic_at = |action: u8| 3 + if action == 1 { 5 } else { 3 } + 22 + 4;
    for (altered, keys, failures) in [(false, 1, 0), (true, 0, 2)] {
        let setups = setups_in_the_clear(&out, bssid, |p| {
            if altered && p[2] != 0 {
                let at = mic_at(p[2]);
                p[at] ^= 0x80;
            }
        });
        let (written, stats) = decrypt(&[setups, direct.clone()].concat());
        assert_eq!((stats.tdls_keys, stats.tdls_mic_failures), (keys, failures), "altered: {altered}");
        let decrypted = if altered { 0 } else { direct.len() };
        assert_eq!(written.len(), decrypted);
        assert_eq!(stats.no_key as usize, direct.len() - decrypted);
    }
}
