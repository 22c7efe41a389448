//! A model-based test of the access point: random sequences of a genuine station's steps,
//! forged, replayed and re-addressed association, authentication, deauthentication and
//! EAPOL frames from a few addresses (the station's among them), floods and ticks. After
//! every step the table is within its bounds and its AIDs unique and in range; after the
//! sequence the station is connected again, and its traffic flows, within 30 s.

use proptest::prelude::*;
use wlansec_core::wire::mgmt::{AuthenticationRepr, ManagementBody, STATUS_SUCCESS};
use wlansec_core::wire::{Frame, MacAddr, Rules, SequenceControl};

use super::admission::{assert_aids, association_request, deauthentication, forged};
use super::group::air;
use super::*;
use crate::bss::access_point::MAX_UNPROVEN;
use crate::pmf::Pmf;

/// 64 hex digits: the PSK itself (no PBKDF2 per case).
const PSK: &str = "776c616e7365632d6d6f64656c2d70616972776973652d6d61737465722d6b65";
/// Frames kept for replay.
const RECORDED: usize = 64;

#[derive(Clone, Debug)]
enum Step {
    /// The station's frames cross the air `n` times (hops).
    Hops(u8),
    /// A hop, a tick of both machines, then one hop.
    Tick,
    /// A forged request from address `i` of the pool (0 is the station's own).
    Association(u8),
    Authentication(u8),
    /// To the access point in address `i`'s name.
    Deauthentication(u8),
    /// To the station in the access point's name.
    DeauthenticationToStation,
    /// A recorded frame again, as it was or with its sender re-addressed to pool address `i`.
    Replay(u16),
    ReplayAs(u16, u8),
    /// Requests from `n` fresh addresses.
    Flood(u16),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (1u8..4).prop_map(Step::Hops),
        3 => Just(Step::Tick),
        2 => (0u8..8).prop_map(Step::Association),
        2 => (0u8..8).prop_map(Step::Authentication),
        1 => (0u8..8).prop_map(Step::Deauthentication),
        1 => Just(Step::DeauthenticationToStation),
        2 => any::<u16>().prop_map(Step::Replay),
        2 => (any::<u16>(), 0u8..8).prop_map(|(i, a)| Step::ReplayAs(i, a)),
        1 => (1u16..600).prop_map(Step::Flood),
    ]
}

fn pool(i: u8) -> MacAddr {
    if i == 0 {
        sta_mac(1)
    } else {
        forged(u32::from(i))
    }
}

fn authentication(sta: MacAddr) -> Vec<u8> {
    let body = ManagementBody::Authentication(AuthenticationRepr::open_system(1, STATUS_SUCCESS));
    body.to_mpdu(AP, sta, AP, SequenceControl::new(5, 0)).unwrap()
}

/// `mpdu` with its transmitter address (Address 2) replaced.
fn readdressed(mpdu: &[u8], sa: MacAddr) -> Vec<u8> {
    let mut m = mpdu.to_vec();
    if m.len() >= 16 {
        m[10..16].copy_from_slice(&sa.0);
    }
    m
}

struct World {
    ap: AccessPoint,
    sta: Station,
    /// The station's frames on their way to the access point, and the access point's to it.
    to_ap: Frames,
    to_sta: Frames,
    recorded: Vec<Vec<u8>>,
    ap_host: Frames,
    fresh: u32,
    max_stations: u16,
}

impl World {
    fn record(&mut self, frames: &[Vec<u8>]) {
        for f in frames {
            if self.recorded.len() >= RECORDED {
                self.recorded.remove(0);
            }
            self.recorded.push(f.clone());
        }
    }

    /// A frame from someone else to the access point; its answers to the station go there.
    fn inject(&mut self, mpdu: &[u8]) {
        let mut out = Vec::new();
        let _ = self.ap.from_air(mpdu, &mut out);
        self.ap_outputs(out);
    }

    fn ap_outputs(&mut self, out: Vec<Output>) {
        for o in out {
            match o {
                Output::Air(m) => {
                    let a1 = Frame::new_checked(&m[..], Rules::default()).map(|f| f.addr1());
                    if a1.is_ok_and(|a1| a1 == sta_mac(1) || a1.is_group()) {
                        self.record(std::slice::from_ref(&m));
                        self.to_sta.push(m);
                    }
                }
                Output::Ethernet(e) => self.ap_host.push(e),
                Output::Peer(_) => {}
            }
        }
    }

    /// Every frame in flight crosses once, each way.
    fn hop(&mut self) {
        for m in std::mem::take(&mut self.to_ap) {
            self.inject(&m);
        }
        let mut out = Vec::new();
        for m in std::mem::take(&mut self.to_sta) {
            let _ = self.sta.from_air(&m, &mut out);
        }
        let sent = air(out);
        self.record(&sent);
        self.to_ap.extend(sent);
    }

    /// The frames in flight cross (the air is faster than the clock), both machines tick,
    /// and what they send crosses.
    fn tick(&mut self) {
        for _ in 0..6 {
            self.hop();
        }
        let mut out = Vec::new();
        self.ap.tick(&mut out).unwrap();
        self.ap_outputs(out);
        let mut out = Vec::new();
        self.sta.tick(&mut out).unwrap();
        self.to_ap.extend(air(out));
        self.hop();
    }

    fn apply(&mut self, step: &Step) {
        match *step {
            Step::Hops(n) => (0..n).for_each(|_| self.hop()),
            Step::Tick => self.tick(),
            Step::Association(i) => self.inject(&association_request(pool(i))),
            Step::Authentication(i) => self.inject(&authentication(pool(i))),
            Step::Deauthentication(i) => self.inject(&deauthentication(AP, pool(i))),
            Step::DeauthenticationToStation => {
                let mut out = Vec::new();
                let _ = self.sta.from_air(&deauthentication(sta_mac(1), AP), &mut out);
                self.to_ap.extend(air(out));
            }
            Step::Replay(i) | Step::ReplayAs(i, _) if self.recorded.is_empty() => {
                let _ = i;
            }
            Step::Replay(i) => {
                let m = self.recorded[usize::from(i) % self.recorded.len()].clone();
                self.inject(&m);
                let mut out = Vec::new();
                let _ = self.sta.from_air(&m, &mut out);
                self.to_ap.extend(air(out));
            }
            Step::ReplayAs(i, a) => {
                let m = readdressed(&self.recorded[usize::from(i) % self.recorded.len()], pool(a));
                self.inject(&m);
            }
            Step::Flood(n) => {
                for _ in 0..n {
                    self.fresh += 1;
                    self.inject(&association_request(forged(1000 + self.fresh)));
                }
            }
        }
    }

    fn check(&self) {
        let admission = self.ap.admission();
        assert!(admission.unproven <= MAX_UNPROVEN, "{admission:?}");
        assert!(admission.stations <= usize::from(self.max_stations), "{admission:?}");
        assert!(admission.ticked <= usize::from(self.max_stations), "{admission:?}");
        assert!(self.ap.associations().len() <= usize::from(self.max_stations) + 16);
        assert_aids(&self.ap, self.max_stations);
    }

    /// Whether a frame from the station's host reaches the access point's host.
    fn flows(&mut self) -> bool {
        let frame = ethernet(AP, sta_mac(1), b"still there");
        let mut out = Vec::new();
        let _ = self.sta.from_host(&frame, &mut out);
        self.to_ap.extend(air(out));
        self.ap_host.clear();
        for _ in 0..8 {
            self.hop();
        }
        self.ap_host.contains(&frame)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_access_point_stays_bounded_and_a_station_always_joins_again(
        steps in prop::collection::vec(step(), 1..80),
        pmf in prop_oneof![Just(Pmf::Off), Just(Pmf::Required)],
        max_stations in prop_oneof![Just(2u16), Just(8), Just(crate::node::MAX_AID)],
    ) {
        let network = NetworkConfig { pmf, max_stations, ..config("ccmp", PSK) };
        let mut w = World {
            ap: AccessPoint::new(network.clone()).unwrap(),
            sta: Station::new(network, sta_mac(1)).unwrap(),
            to_ap: Vec::new(),
            to_sta: Vec::new(),
            recorded: Vec::new(),
            ap_host: Vec::new(),
            fresh: 0,
            max_stations,
        };
        let mut out = Vec::new();
        let beacon = w.ap.beacon().unwrap();
        w.ap_outputs(vec![Output::Air(beacon)]);
        w.sta.start(&mut out).unwrap();
        w.to_ap.extend(air(out));
        for s in &steps {
            w.apply(s);
            w.check();
        }
        // The attack stops: within 30 s the station is connected and its traffic flows.
        let mut ok = false;
        for _ in 0..(30_000 / TICK_MS) {
            w.tick();
            w.check();
            if *w.sta.state() == StationState::Connected && w.flows() {
                ok = true;
                break;
            }
        }
        prop_assert!(ok, "station {:?}, table {:?}", w.sta.state(), w.ap.associations());
    }
}
