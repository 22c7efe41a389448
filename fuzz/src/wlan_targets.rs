//! Fuzz targets over wlansec-wlan: the frame intake of the emulated medium's nodes (access
//! point, station, IBSS station), which take every MPDU on the air; driven through the
//! emulator's own `Machine` dispatch.

use wlansec_core::wire::MacAddr;
use wlansec_wlan::bss::{AccessPoint, NetworkConfig, Output, Station};
use wlansec_wlan::emulator::Machine;
use wlansec_wlan::ibss::IbssStation;
use wlansec_wlan::pmf::Pmf;
use wlansec_wlan::security::SecurityMode;

use crate::input::{frames, Target};

/// Every target over wlansec-wlan.
pub const TARGETS: &[Target] = &[("wlan_intake", wlan_intake), ("ibss_intake", ibss_intake)];

pub const BSSID: MacAddr = MacAddr([0x02, 0xfa, 0, 0, 0, 0xaa]);
pub const STATION: MacAddr = MacAddr([0x02, 0xfa, 0, 0, 0, 0x01]);
/// The second IBSS station.
pub const PEER: MacAddr = MacAddr([0x02, 0xfa, 0, 0, 0, 0x02]);
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

/// An access point (side A) and a station (side B) of one network exchanging frames.
pub fn wlan_intake(data: &[u8]) {
    let Some((&selector, steps)) = data.split_first() else { return };
    let config = network_of(selector);
    let ap = Machine::Ap(AccessPoint::new(config.clone()).expect("a valid network"));
    let station = Machine::Sta(Station::new(config, STATION).expect("a valid network"));
    exchange(ap, station, steps);
}

/// Two stations of one IBSS exchanging frames (beacons, the pair's two 4-way handshakes, data).
pub fn ibss_intake(data: &[u8]) {
    let Some((&selector, steps)) = data.split_first() else { return };
    let config = network_of(selector);
    let a = Machine::Ibss(IbssStation::new(config.clone(), PEER).expect("a valid network"));
    let b = Machine::Ibss(IbssStation::new(config, STATION).expect("a valid network"));
    exchange(a, b, steps);
}

/// Nodes A and B, each started, with every frame delivered, dropped or injected as the input
/// says; the first octet of each input frame says what to do with the rest: 0 deliver the
/// next frame queued for B, 1 for A, 2 inject the rest into B, 3 into A, 4 tick both, 5 hand
/// the rest to A's host (with bit 3 set: B's host).
fn exchange(mut a: Machine, mut b: Machine, steps: &[u8]) {
    let mut air = Air::default();
    let mut out = Vec::new();
    let _ = a.start(&mut out);
    air.sent(Side::A, &mut out);
    let _ = b.start(&mut out);
    air.sent(Side::B, &mut out);
    for step in frames(steps) {
        let Some((&op, payload)) = step.split_first() else { continue };
        match op % 6 {
            0 => {
                if let Some(mpdu) = air.to_b.pop() {
                    let _ = b.on_air(&mpdu, &mut out);
                }
                air.sent(Side::B, &mut out);
            }
            1 => {
                if let Some(mpdu) = air.to_a.pop() {
                    let _ = a.on_air(&mpdu, &mut out);
                }
                air.sent(Side::A, &mut out);
            }
            2 => {
                let _ = b.on_air(payload, &mut out);
                air.sent(Side::B, &mut out);
            }
            3 => {
                let _ = a.on_air(payload, &mut out);
                air.sent(Side::A, &mut out);
            }
            4 => {
                let _ = a.tick(&mut out);
                air.sent(Side::A, &mut out);
                let _ = b.tick(&mut out);
                air.sent(Side::B, &mut out);
            }
            _ if op & 8 == 0 => {
                let _ = a.on_host(payload, &mut out);
                air.sent(Side::A, &mut out);
            }
            _ => {
                let _ = b.on_host(payload, &mut out);
                air.sent(Side::B, &mut out);
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    A,
    B,
}

/// The frames on the air, towards each side.
#[derive(Default)]
struct Air {
    to_a: Vec<Vec<u8>>,
    to_b: Vec<Vec<u8>>,
}

impl Air {
    /// Queue what `sender` put on the air towards the other side (oldest delivered first);
    /// Ethernet frames for its host are dropped.
    fn sent(&mut self, sender: Side, out: &mut Vec<Output>) {
        let queue = match sender {
            Side::A => &mut self.to_b,
            Side::B => &mut self.to_a,
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
