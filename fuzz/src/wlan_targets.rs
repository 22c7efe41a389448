//! Fuzz targets over wlansec-wlan: the frame intake of the emulated medium's nodes (access
//! point, station, IBSS station), which take every MPDU on the air; driven through the
//! emulator's own `Machine` dispatch.

use wlansec_core::wire::mgmt::{
    capability, AssociationRequestRepr, AuthenticationRepr, DeauthenticationRepr, Elements, ElementsBuilder,
    ManagementBody, REASON_LEAVING, STATUS_SUCCESS, SUPPORTED_RATES_BG,
};
use wlansec_core::wire::{MacAddr, SequenceControl};
use wlansec_wlan::bss::{AccessPoint, NetworkConfig, Output, Station, StationState, MAX_AID, TICK_MS};
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

/// The access point's table size in `wlan_intake` (the selector's bits 4 and 5 pick one):
/// small ones fill up.
pub const MAX_STATIONS: [u16; 4] = [MAX_AID, 2, 4, 8];
/// Unproven associations the access point keeps at most (its `MAX_UNPROVEN`).
const MAX_UNPROVEN: usize = 256;
/// Input frames with a first octet from this on forge management frames to the access point.
pub const FORGE_OP: u8 = 0xf0;
/// Forged frames one input frame sends at most.
const MAX_FLOOD: usize = 64;
/// Frames delivered at most while the air settles (a frame may answer a frame).
const MAX_SETTLE: usize = 256;

/// An access point (side A) and a station (side B) of one network exchanging frames, and
/// a forger flooding the access point; the access point's table size is 2007, 2, 4 or 8
/// (the selector's bits 4 and 5).
///
/// Checked after every step: the table within `max_stations` (unproven associations within
/// theirs), its AIDs unique and in 1..=`max_stations`. After the input, the attack stops:
/// every frame in flight is delivered and both sides tick for 40 s (130 s under TKIP, whose
/// countermeasures hold for 60 s), and the station must be connected by then; its rejoin
/// backoff is at most 16 s (also after three failed handshakes, which a forger can cause:
/// the station says it probably has a wrong passphrase and keeps trying). Not checked (a
/// real station would not join either): an open or WEP network whose table a forger filled
/// (nothing proves a station there).
pub fn wlan_intake(data: &[u8]) {
    let Some((&selector, steps)) = data.split_first() else { return };
    let mut config = network_of(selector);
    let max_stations = MAX_STATIONS[usize::from(selector >> 4 & 3)];
    config.max_stations = max_stations;
    let ap = Machine::Ap(AccessPoint::new(config.clone()).expect("a valid network"));
    let station = Machine::Sta(Station::new(config.clone(), STATION).expect("a valid network"));
    let mut pair = Pair::start(ap, station);
    let mut forged = Vec::new();
    for step in frames(steps) {
        let Some((&op, payload)) = step.split_first() else { continue };
        if op >= FORGE_OP {
            forge(&config, op, payload, &mut forged);
            for mpdu in forged.drain(..) {
                pair.inject_a(&mpdu);
            }
        } else {
            pair.step(op, payload);
        }
        check_admission(&pair, max_stations);
    }
    let seconds = if config.mode == SecurityMode::Tkip { 130 } else { 40 };
    for _ in 0..seconds * 1000 / TICK_MS {
        pair.settle();
        if joined(&pair) {
            return;
        }
        pair.tick();
        check_admission(&pair, max_stations);
    }
    pair.settle();
    let (Machine::Ap(ap), Machine::Sta(sta)) = (&pair.a, &pair.b) else { unreachable!() };
    let full = ap.admission().stations >= usize::from(max_stations);
    let provable = !matches!(config.mode, SecurityMode::Open | SecurityMode::Wep);
    match sta.state() {
        StationState::Connected => {}
        _ if full && !provable && !ap.associations().iter().any(|a| a.mac == STATION.to_string() && a.aid != 0) => {}
        state => panic!(
            "the station did not join within {seconds} s of the attack's end: {state:?}, table {:?}, {:?}",
            ap.admission(),
            ap.associations()
        ),
    }
}

fn joined(pair: &Pair) -> bool {
    matches!(&pair.b, Machine::Sta(sta) if *sta.state() == StationState::Connected)
}

/// The access point's table within its bounds, its AIDs unique and within 1..=`max`.
fn check_admission(pair: &Pair, max: u16) {
    let Machine::Ap(ap) = &pair.a else { return };
    let admission = ap.admission();
    let max = usize::from(max);
    assert!(admission.stations <= max, "{admission:?} over {max}");
    assert!(admission.unproven <= admission.stations.min(MAX_UNPROVEN), "{admission:?}");
    assert!(admission.ticked <= max, "{admission:?}");
    let associations = ap.associations();
    let mut aids: Vec<u16> = associations.iter().filter(|a| a.aid != 0).map(|a| a.aid).collect();
    assert_eq!(aids.len(), admission.stations, "{associations:?}");
    assert!(associations.len() <= max + 16, "{} entries", associations.len());
    assert!(aids.iter().all(|&aid| (1..=max).contains(&usize::from(aid))), "AID out of 1..={max}: {aids:?}");
    aids.sort_unstable();
    aids.dedup();
    assert_eq!(aids.len(), admission.stations, "AIDs repeat: {associations:?}");
}

/// What a forger sends the access point for one input frame `op` (at least [`FORGE_OP`]):
/// Authentication requests (`op` & 3 = 0), Association Requests with the network's elements
/// (1), both (2) or Deauthentications (3), from the station's own address (`op` & 4) or from
/// 1 to 64 addresses (the payload's fifth octet) counting up from one its first four make.
fn forge(config: &NetworkConfig, op: u8, payload: &[u8], out: &mut Vec<Vec<u8>>) {
    let mut base = [0u8; 4];
    for (b, p) in base.iter_mut().zip(payload) {
        *b = *p;
    }
    let base = u32::from_be_bytes(base);
    let count = if op & 4 != 0 { 1 } else { 1 + usize::from(payload.get(4).copied().unwrap_or(0)) % MAX_FLOOD };
    let rsne = config.rsn_element().expect("a valid network");
    let elements = ElementsBuilder::new()
        .ssid(config.ssid.as_bytes())
        .and_then(|b| b.supported_rates(&SUPPORTED_RATES_BG))
        .and_then(|b| match &rsne {
            Some(rsne) => b.encoded(rsne),
            None => Ok(b),
        })
        .expect("valid elements")
        .build();
    for i in 0..count {
        let sa = if op & 4 != 0 {
            STATION
        } else {
            let [a, b, c, d] = base.wrapping_add(i as u32).to_be_bytes();
            MacAddr([0x06, 0xee, a, b, c, d])
        };
        let sc = SequenceControl::new(i as u16 & 0x0fff, 0);
        let mut bodies = Vec::new();
        if op & 3 != 1 && op & 3 != 3 {
            bodies.push(ManagementBody::Authentication(AuthenticationRepr::open_system(1, STATUS_SUCCESS)));
        }
        if op & 3 == 1 || op & 3 == 2 {
            bodies.push(ManagementBody::AssociationRequest(AssociationRequestRepr {
                capability: capability::ESS | if config.mode == SecurityMode::Open { 0 } else { capability::PRIVACY },
                listen_interval: 10,
                current_ap: None,
                elements: Elements::new(&elements),
            }));
        }
        if op & 3 == 3 {
            bodies.push(ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING }));
        }
        for body in bodies {
            out.extend(body.to_mpdu(BSSID, sa, BSSID, sc).ok());
        }
    }
}

/// Two stations of one IBSS exchanging frames (beacons, the pair's two 4-way handshakes, data).
pub fn ibss_intake(data: &[u8]) {
    let Some((&selector, steps)) = data.split_first() else { return };
    let config = network_of(selector);
    let a = Machine::Ibss(IbssStation::new(config.clone(), PEER).expect("a valid network"));
    let b = Machine::Ibss(IbssStation::new(config, STATION).expect("a valid network"));
    let mut pair = Pair::start(a, b);
    for step in frames(steps) {
        let Some((&op, payload)) = step.split_first() else { continue };
        pair.step(op, payload);
    }
}

/// Nodes A and B, each started, and the frames on the air between them.
struct Pair {
    a: Machine,
    b: Machine,
    air: Air,
    out: Vec<Output>,
}

impl Pair {
    fn start(mut a: Machine, mut b: Machine) -> Pair {
        let mut air = Air::default();
        let mut out = Vec::new();
        let _ = a.start(&mut out);
        air.sent(Side::A, &mut out);
        let _ = b.start(&mut out);
        air.sent(Side::B, &mut out);
        Pair { a, b, air, out }
    }

    /// Every frame is delivered, dropped or injected as the input says; the first octet of
    /// each input frame says what to do with the rest: 0 deliver the next frame queued for
    /// B, 1 for A, 2 inject the rest into B, 3 into A, 4 tick both, 5 hand the rest to A's
    /// host (with bit 3 set: B's host).
    fn step(&mut self, op: u8, payload: &[u8]) {
        match op % 6 {
            0 => self.deliver_to_b(),
            1 => self.deliver_to_a(),
            2 => {
                let _ = self.b.on_air(payload, &mut self.out);
                self.air.sent(Side::B, &mut self.out);
            }
            3 => self.inject_a(payload),
            4 => self.tick(),
            _ if op & 8 == 0 => {
                let _ = self.a.on_host(payload, &mut self.out);
                self.air.sent(Side::A, &mut self.out);
            }
            _ => {
                let _ = self.b.on_host(payload, &mut self.out);
                self.air.sent(Side::B, &mut self.out);
            }
        }
    }

    fn inject_a(&mut self, mpdu: &[u8]) {
        let _ = self.a.on_air(mpdu, &mut self.out);
        self.air.sent(Side::A, &mut self.out);
    }

    fn deliver_to_a(&mut self) {
        if let Some(mpdu) = self.air.to_a.pop() {
            let _ = self.a.on_air(&mpdu, &mut self.out);
        }
        self.air.sent(Side::A, &mut self.out);
    }

    fn deliver_to_b(&mut self) {
        if let Some(mpdu) = self.air.to_b.pop() {
            let _ = self.b.on_air(&mpdu, &mut self.out);
        }
        self.air.sent(Side::B, &mut self.out);
    }

    fn tick(&mut self) {
        let _ = self.a.tick(&mut self.out);
        self.air.sent(Side::A, &mut self.out);
        let _ = self.b.tick(&mut self.out);
        self.air.sent(Side::B, &mut self.out);
    }

    /// Deliver what is in flight, and the answers, until the air is quiet (or a bound).
    fn settle(&mut self) {
        for _ in 0..MAX_SETTLE {
            match (self.air.to_a.is_empty(), self.air.to_b.is_empty()) {
                (true, true) => return,
                (false, _) => self.deliver_to_a(),
                (true, false) => self.deliver_to_b(),
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
