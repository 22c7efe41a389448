//! BIP on beacons (beacon protection, IEEE 802.11-2020 12.6.1.1): a BIGTK (Key ID 6 or 7)
//! signs a beacon whose Timestamp is left out of the MIC (the radio writes it as the frame
//! goes out); a receiver holding only the BIGTK takes no IGTK's MME, nor the other way round.

use wlansec_core::suite::bip::{BipAlgorithm, BipReceiver, Igtk};
use wlansec_core::suite::Pn;
use wlansec_core::wire::mgmt::{BeaconRepr, DeauthenticationRepr, Elements, ElementsBuilder, ManagementBody};
use wlansec_core::wire::{MacAddr, SequenceControl};
use wlansec_core::Error;

const AP: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 1]);

fn beacon(timestamp: u64) -> Vec<u8> {
    let elements = ElementsBuilder::new().ssid(b"wlansec").unwrap().build();
    let beacon = BeaconRepr { timestamp, beacon_interval: 100, capability: 0x11, elements: Elements::new(&elements) };
    ManagementBody::Beacon(beacon).to_mpdu(MacAddr::BROADCAST, AP, AP, SequenceControl::new(1, 0)).unwrap()
}

fn sign(key: &Igtk, mpdu: Vec<u8>, ipn: u64) -> Vec<u8> {
    let mut buf = mpdu.clone();
    buf.resize(mpdu.len() + key.overhead(), 0);
    let len = key.protect(&mut buf, mpdu.len(), Pn::new(ipn).unwrap()).unwrap();
    buf.truncate(len);
    buf
}

#[test]
fn a_beacons_timestamp_is_outside_its_mic_and_nothing_else_is() {
    for algorithm in BipAlgorithm::ALL {
        let bigtk = Igtk::new(algorithm, 6, &vec![0x42; algorithm.key_len()]).unwrap();
        let signed = sign(&bigtk, beacon(1000), 1);
        let mut later = signed.clone();
        later[24..32].copy_from_slice(&2000u64.to_le_bytes());
        assert!(bigtk.verify(&later).is_ok(), "{algorithm:?}: the timestamp is masked");
        let mut tampered = signed.clone();
        tampered[32] ^= 1; // beacon interval
        assert_eq!(bigtk.verify(&tampered), Err(Error::MicFailure), "{algorithm:?}");
    }
}

#[test]
fn bigtk_and_igtk_receivers_take_only_their_own_key_ids() {
    let bigtk = Igtk::new(BipAlgorithm::Cmac128, 7, &[1; 16]).unwrap();
    let igtk = Igtk::new(BipAlgorithm::Cmac128, 4, &[1; 16]).unwrap();
    assert!(Igtk::new(BipAlgorithm::Cmac128, 8, &[1; 16]).is_err());
    let mut beacons = BipReceiver::new();
    beacons.install(bigtk.clone(), Pn::new(0).unwrap());
    let deauth = ManagementBody::Deauthentication(DeauthenticationRepr { reason: 3 })
        .to_mpdu(MacAddr::BROADCAST, AP, AP, SequenceControl::new(2, 0))
        .unwrap();
    assert_eq!(beacons.verify(&sign(&igtk, deauth, 1)), Err(Error::NoKey { group: true }));
    assert!(beacons.verify(&sign(&bigtk, beacon(5), 1)).is_ok());
    assert_eq!(beacons.last_ipn(7), Some(1));
}
