//! Fuzz targets over wlansec-wlan: the frame intake of the emulated medium's access point
//! and station, which take every MPDU on the air.

use wlansec_core::wire::MacAddr;
use wlansec_wlan::bss::{AccessPoint, NetworkConfig, Output, Station};
use wlansec_wlan::pmf::Pmf;
use wlansec_wlan::security::SecurityMode;

use crate::input::{frames, Target};

/// Every target over wlansec-wlan.
pub const TARGETS: &[Target] = &[("wlan_intake", wlan_intake)];

pub const BSSID: MacAddr = MacAddr([0x02, 0xfa, 0, 0, 0, 0xaa]);
pub const STATION: MacAddr = MacAddr([0x02, 0xfa, 0, 0, 0, 0x01]);
/// 64 hex digits are the PSK itself: no PBKDF2 per input.
const PSK_HEX: &str = "77 6c 61 6e 73 65 63 2d 66 75 7a 7a 2d 70 61 69 72 77 69 73 65 2d 6d 61 73 74 65 72 2d 6b 65 79";
const WEP_KEY: &str = "wlansec-fuzz!";

/// The network a selector's low nibble chooses: security mode and management frame
/// protection.
pub fn network_of(selector: u8) -> NetworkConfig {
    let mode: SecurityMode =
        ["ccmp", "tkip", "wep", "open", "enhanced:4"][usize::from(selector & 7) % 5].parse().expect("a known mode");
    let passphrase = if mode == SecurityMode::Wep { WEP_KEY.to_string() } else { PSK_HEX.replace(' ', "") };
    let mut config = NetworkConfig::new("wlansec-fuzz", BSSID, mode, passphrase);
    if selector & 8 != 0 && mode.supports_pmf() {
        config.pmf = Pmf::Optional;
    }
    config
}

/// Air frames queued towards one side at most.
const MAX_QUEUED: usize = 16;

/// An access point and a station of one network exchanging frames, with every frame
/// delivered, dropped or injected as the input says; the first octet of each input frame
/// says what to do with the rest.
pub fn wlan_intake(data: &[u8]) {
    let Some((&selector, steps)) = data.split_first() else { return };
    let config = network_of(selector);
    let mut ap = AccessPoint::new(config.clone()).expect("a valid network");
    let mut station = Station::new(config, STATION).expect("a valid network");
    let mut air = Air::default();
    if let Ok(beacon) = ap.beacon() {
        air.to_station.push(beacon);
    }
    let mut out = Vec::new();
    let _ = station.start(&mut out);
    air.sent(Side::Station, &mut out);
    for step in frames(steps) {
        let Some((&op, payload)) = step.split_first() else { continue };
        match op % 6 {
            0 => {
                if let Some(mpdu) = air.to_station.pop() {
                    let _ = station.from_air(&mpdu, &mut out);
                }
                air.sent(Side::Station, &mut out);
            }
            1 => {
                if let Some(mpdu) = air.to_ap.pop() {
                    let _ = ap.from_air(&mpdu, &mut out);
                }
                air.sent(Side::Ap, &mut out);
            }
            2 => {
                let _ = station.from_air(payload, &mut out);
                air.sent(Side::Station, &mut out);
            }
            3 => {
                let _ = ap.from_air(payload, &mut out);
                air.sent(Side::Ap, &mut out);
            }
            4 => {
                let _ = ap.tick(&mut out);
                air.sent(Side::Ap, &mut out);
                let _ = station.tick(&mut out);
                air.sent(Side::Station, &mut out);
            }
            _ if op & 8 == 0 => {
                let _ = ap.from_host(payload, &mut out);
                air.sent(Side::Ap, &mut out);
            }
            _ => {
                let _ = station.from_host(payload, &mut out);
                air.sent(Side::Station, &mut out);
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    Ap,
    Station,
}

/// The frames on the air, towards each side.
#[derive(Default)]
struct Air {
    to_station: Vec<Vec<u8>>,
    to_ap: Vec<Vec<u8>>,
}

impl Air {
    /// Queue what `sender` put on the air towards the other side (oldest delivered first);
    /// Ethernet frames for its host are dropped.
    fn sent(&mut self, sender: Side, out: &mut Vec<Output>) {
        let queue = match sender {
            Side::Ap => &mut self.to_station,
            Side::Station => &mut self.to_ap,
        };
        for output in out.drain(..) {
            if let Output::Air(mpdu) = output {
                if queue.len() < MAX_QUEUED {
                    queue.insert(0, mpdu);
                }
            }
        }
    }
}
