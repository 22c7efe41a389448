//! Beacon protection on the emulated access point and stations: the access point signs its
//! beacons with BIP under a BIGTK (Key ID 6) that the 4-way handshake hands each station;
//! once a station holds it, a beacon with a bad MIC, a replayed BIPN or no MME at all is
//! dropped and counted, so a forged beacon (a channel switch announcement, say) changes
//! nothing. Without beacon protection the same forged channel switch moves the station.

use wlansec_core::wire::mgmt::{BeaconRepr, Elements, ElementsBuilder, ManagementBody, MmeRepr};
use wlansec_core::wire::SequenceControl;

use super::group::air;
use super::*;
use crate::pmf::{Pmf, BEACON_PROTECTION_CAPABILITY};

/// Octets of the MME of BIP-CMAC-128 (ID, Length, Key ID, IPN, 8-octet MIC).
const MME_LEN: usize = MmeRepr::len_with_mic(8);

fn network(beacon_protection: bool) -> NetworkConfig {
    NetworkConfig { pmf: Pmf::Required, beacon_protection, ..config("ccmp", "correct horse") }
}

fn joined(beacon_protection: bool) -> (AccessPoint, Vec<Station>) {
    let (ap, stas) = join_with(network(beacon_protection), network(beacon_protection), Defences::ALL);
    assert!(stas.iter().all(|s| *s.state() == StationState::Connected));
    (ap, stas)
}

/// Hand `mpdu` to station 0 alone; its refused-beacon count after.
fn deliver(stas: &mut [Station], mpdu: &[u8]) -> u64 {
    let mut out = Vec::new();
    let _ = stas[0].from_air(mpdu, &mut out);
    assert!(air(out).is_empty());
    stas[0].counters.refused_beacons
}

/// A beacon "from the access point" that announces a switch to channel 11 (Channel Switch
/// Announcement: mode 1, channel 11, count 3), unsigned.
fn channel_switch_beacon() -> Vec<u8> {
    let elements = ElementsBuilder::new().ssid(b"wlansec").unwrap().element(37, &[1, 11, 3]).unwrap().build();
    let beacon =
        BeaconRepr { timestamp: 7, beacon_interval: 100, capability: 0x11, elements: Elements::new(&elements) };
    ManagementBody::Beacon(beacon).to_mpdu(MacAddr::BROADCAST, AP, AP, SequenceControl::new(3000, 0)).unwrap()
}

#[test]
fn protected_beacons_say_so_and_verify_at_the_station() {
    let (mut ap, mut stas) = joined(true);
    for _ in 0..5 {
        let beacon = ap.beacon().unwrap();
        let body = &beacon[beacon.len() - MME_LEN - BEACON_PROTECTION_CAPABILITY.len()..];
        assert_eq!(&body[..BEACON_PROTECTION_CAPABILITY.len()], &BEACON_PROTECTION_CAPABILITY);
        assert_eq!(&body[BEACON_PROTECTION_CAPABILITY.len()..][..4], &[76, 16, 6, 0], "MME under Key ID 6");
        assert_eq!(deliver(&mut stas, &beacon), 0);
    }
    // Without beacon protection the beacon carries neither.
    let (mut plain_ap, _) = joined(false);
    let beacon = plain_ap.beacon().unwrap();
    assert!(!beacon.windows(2).any(|w| w == [76, 16]));
}

#[test]
fn a_forged_beacon_with_a_bad_mic_is_ignored() {
    let (mut ap, mut stas) = joined(true);
    let mut forged = ap.beacon().unwrap();
    let ssid_at = 24 + 12 + 2;
    forged[ssid_at] ^= 0x20; // "Wlansec": the MIC no longer matches
    assert_eq!(deliver(&mut stas, &forged), 1);
    // A genuine beacon sent after still passes (the forgery did not advance the BIPN).
    assert_eq!(deliver(&mut stas, &ap.beacon().unwrap()), 1);
}

#[test]
fn a_replayed_beacon_is_ignored() {
    let (mut ap, mut stas) = joined(true);
    let old = ap.beacon().unwrap();
    let newer = ap.beacon().unwrap();
    assert_eq!(deliver(&mut stas, &newer), 0);
    assert_eq!(deliver(&mut stas, &newer), 1, "the same BIPN again");
    assert_eq!(deliver(&mut stas, &old), 2, "an older BIPN");
}

#[test]
fn a_beacon_with_its_mme_stripped_is_ignored_once_beacon_protection_is_on() {
    let (mut ap, mut stas) = joined(true);
    let beacon = ap.beacon().unwrap();
    let stripped = &beacon[..beacon.len() - MME_LEN];
    assert_eq!(deliver(&mut stas, stripped), 1);
    // Before the station holds the BIGTK there is nothing to check a beacon against.
    let mut fresh = Station::new(network(true), sta_mac(9)).unwrap();
    let mut out = Vec::new();
    fresh.from_air(stripped, &mut out).unwrap();
    assert_eq!(fresh.counters.refused_beacons, 0);
}

#[test]
fn a_forged_channel_switch_does_not_move_the_station() {
    let (mut ap, mut stas) = joined(true);
    assert_eq!(deliver(&mut stas, &channel_switch_beacon()), 1);
    assert_eq!(stas[0].channel(), None, "a forged announcement moved the station");
    assert_eq!(*stas[0].state(), StationState::Connected);
    // The same announcement signed by the access point moves it.
    let genuine = ap.sign_beacon(channel_switch_beacon()).unwrap();
    assert_eq!(deliver(&mut stas, &genuine), 1);
    assert_eq!(stas[0].channel(), Some(11));

    // Without beacon protection the forged one does: the attack the defence stops.
    let (_, mut open_stas) = joined(false);
    deliver(&mut open_stas, &channel_switch_beacon());
    assert_eq!(open_stas[0].channel(), Some(11));
}
