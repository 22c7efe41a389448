//! What the emulated WLAN does on each event, without I/O: the nodes' machines and crypto
//! engines, the medium, and the frames on their way from the air into a node. The event loop
//! ([`super::event_loop`]) turns epoll events into calls here; everything outside (the clock,
//! the TAPs, the capture and the release log) comes in through [`Io`], so a test drives the
//! same state in virtual time.

use std::collections::{BinaryHeap, VecDeque};

use wlansec_core::wire::{Frame, MacAddr, Rules};

use super::config::Config;
use super::machine::Machine;
use super::status::{ibss_state, NodeStatus, ReleaseError, Status};
use crate::airtime::{LinkProfile, Phy};
use crate::bss::{AccessPoint, AssociationStatus, NetworkConfig, Output, Station, StationState, TICK_MS};
use crate::card::{CryptoEngine, CryptoModel};
use crate::ibss::IbssStation;
use crate::medium::Medium;
use crate::netns::{self, NodeAddrs};
use crate::pmf::Pmf;
use crate::security::{KeyManagement, Security, SecurityMode};
use crate::verilog::{self, CcmpOn};
use crate::{Error, Result};

/// Keep at most this many release errors for the statistics (the log file has them all).
const RELEASE_SAMPLES: usize = 1 << 20;
/// The QoS data header (no Address 4, no HT Control) every data frame here has.
const QOS_HEADER_LEN: usize = 26;

/// What the state needs from outside: the clock, and where the frames it moves end up.
pub(super) trait Io {
    /// The monotonic clock, in ns.
    fn now_ns(&mut self) -> u64;
    /// Wait until the clock reaches `deadline_ns` (a release is due); the time it then reads.
    fn wait_until(&mut self, deadline_ns: u64) -> u64;
    /// Hand an Ethernet frame to node `node`'s host (its TAP).
    fn to_host(&mut self, node: usize, frame: &[u8]);
    /// A frame the medium delivered, which started at `start_ns` (for the capture).
    fn capture(&mut self, start_ns: u64, mpdu: &[u8]);
    /// A frame of `bytes` released to `node` at `actual_ns`, due at `intended_ns` (for the
    /// release log).
    fn log_release(&mut self, intended_ns: u64, actual_ns: u64, node: usize, bytes: usize);
}

/// A node: its machine and the crypto engine its frames go through.
struct Node {
    addrs: NodeAddrs,
    mac: MacAddr,
    machine: Machine,
    crypto: CryptoEngine,
    host_crypto_ns: u64,
}

/// A frame on its way from the air into a node, due at `due_ns`.
struct Delivery {
    due_ns: u64,
    seq: u64,
    to: usize,
    bytes: usize,
    frame: Arrival,
}

/// What reaches the node when a delivery is due.
enum Arrival {
    /// The MPDU, for the node's machine to take then.
    Mpdu(Vec<u8>),
    /// What the machine made of it when the frame came off the air: the node's card opened
    /// it then (its crypto time is known only once the RTL has run), and the outputs wait
    /// for that time.
    Taken(Vec<Output>),
}

impl PartialEq for Delivery {
    fn eq(&self, other: &Self) -> bool {
        (self.due_ns, self.seq) == (other.due_ns, other.seq)
    }
}
impl Eq for Delivery {}

impl Ord for Delivery {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.due_ns, other.seq).cmp(&(self.due_ns, self.seq))
    }
}
impl PartialOrd for Delivery {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// What a control command gets: its one-line reply, and whether the emulator stops.
pub(super) struct Answer {
    pub reply: String,
    pub stop: bool,
}

/// The emulated WLAN's state.
pub(super) struct State {
    config: Config,
    mode: SecurityMode,
    phy: Phy,
    nodes: Vec<Node>,
    medium: Medium,
    deliveries: BinaryHeap<Delivery>,
    delivery_seq: u64,
    release_errors: VecDeque<i64>,
    /// The last protected unicast data frame a station sent, for `inject`.
    last_data: Option<(usize, Vec<u8>)>,
    next_tick_ns: u64,
}

impl State {
    /// The nodes and medium `config` describes. `attach` runs for each node right after its
    /// machine is made (the event loop opens and configures its TAP there); an error of
    /// either names the node.
    pub(super) fn new(config: Config, mut attach: impl FnMut(&NodeAddrs) -> Result<()>) -> Result<Self> {
        let mode = config.mode()?;
        let phy = config.phy()?;
        let profile = if config.poor_signal { LinkProfile::poor_signal(phy) } else { LinkProfile::clear(phy) };
        let card: CryptoModel = config.card.parse()?;
        let ap_crypto: CryptoModel = config.ap_crypto.parse()?;
        if matches!(card, CryptoModel::Verilog { .. }) {
            return Err(Error::Verilog("it is the access point's (--ap-crypto), not the stations' card".into()));
        }
        let ap_card = match ap_crypto {
            CryptoModel::Verilog { .. } if !config.ibss() => {
                if mode != SecurityMode::Ccmp {
                    return Err(Error::Verilog(format!("the RTL is CCMP-128: it needs --security ccmp, not {mode}")));
                }
                Some(verilog::open_card()?)
            }
            _ => None,
        };
        let station_card = if mode.host_protected() { CryptoModel::Host } else { card };
        // The access point's address, which an IBSS keeps as its BSSID.
        let ap_mac = &netns::nodes(&config.name, 0)[0].mac;
        let bssid: MacAddr = ap_mac.parse().map_err(|why| Error::BadMac { what: format!("BSSID {ap_mac}"), why })?;
        let fragment_threshold = config.fragment_threshold()?;
        let pmf = config.pmf()?;
        let key_management = config.key_management()?;
        let beacon_protection = config.beacon_protection()?;
        let network = |passphrase: &str| NetworkConfig {
            fragment_threshold,
            pmf,
            beacon_protection,
            key_management: key_management.clone(),
            sae_transition: config.sae_transition,
            transition_disable: config.transition_disable,
            ..NetworkConfig::new(config.ssid.clone(), bssid, mode, passphrase)
        };
        let mut nodes = Vec::new();
        for (i, addrs) in config.nodes().into_iter().enumerate() {
            let mac: MacAddr = addrs
                .mac
                .parse()
                .map_err(|why| Error::BadMac { what: format!("{} MAC {}", addrs.role, addrs.mac), why })?;
            let node = |source| Error::Node { role: addrs.role.clone(), source: Box::new(source) };
            let machine = if addrs.role == "ap" {
                let on = ap_card.clone().map_or(CcmpOn::Host, CcmpOn::Card);
                let ap = AccessPoint::with_ccmp_on(network(&config.passphrase), on)
                    .map_err(node)?
                    .with_gtk_rekey(config.gtk_rekey);
                Machine::Ap(if config.keylog.is_some() { ap.with_pmk_log() } else { ap })
            } else if config.ibss() {
                // The first station has the network's passphrase, the others the stations' one.
                let pass = if i == 0 {
                    &config.passphrase
                } else {
                    config.station_passphrase.as_ref().unwrap_or(&config.passphrase)
                };
                Machine::Ibss(IbssStation::new(network(pass), mac).map_err(node)?)
            } else {
                let pass = config.station_passphrase.as_deref().unwrap_or(&config.passphrase);
                let station = if config.psk_only(i) {
                    // WPA2-only (wpa_supplicant's key_mgmt=WPA-PSK, ieee80211w=1).
                    NetworkConfig {
                        key_management: KeyManagement::Psk,
                        sae_transition: false,
                        pmf: Pmf::Optional,
                        ..network(pass)
                    }
                } else if config.sae_transition {
                    // Transition-capable (key_mgmt=WPA-PSK SAE) with PMF required
                    // (ieee80211w=2): WPA3-Personal's station on its SAE link.
                    NetworkConfig { pmf: Pmf::Required, ..network(pass) }
                } else {
                    network(pass)
                };
                Machine::Sta(Station::new(station, mac).map_err(node)?)
            };
            attach(&addrs).map_err(node)?;
            let crypto = match (&ap_card, machine.is_ap()) {
                (Some(card), true) => CryptoEngine::on_card(ap_crypto.clone(), card.clone()),
                (None, true) => CryptoEngine::new(ap_crypto.clone()),
                (_, false) => CryptoEngine::new(station_card.clone()),
            };
            nodes.push(Node { addrs, mac, machine, crypto, host_crypto_ns: 0 });
        }
        let medium = Medium::new(profile, nodes.len(), config.queue_limit, config.seed).with_ampdu(config.ampdu);
        Ok(State {
            config,
            mode,
            phy,
            nodes,
            medium,
            deliveries: BinaryHeap::new(),
            delivery_seq: 0,
            release_errors: VecDeque::new(),
            last_data: None,
            next_tick_ns: 0,
        })
    }

    pub(super) fn config(&self) -> &Config {
        &self.config
    }

    /// Start every machine (the access point, first when there is one, beacons before the
    /// stations start) and the clock.
    pub(super) fn start(&mut self, io: &mut impl Io) {
        let now = io.now_ns();
        for i in 0..self.nodes.len() {
            let mut out = Vec::new();
            let _ = self.nodes[i].machine.start(&mut out);
            self.dispatch(i, out, now, io);
        }
        self.next_tick_ns = now + TICK_MS * 1_000_000;
    }

    /// An Ethernet frame from node `i`'s host.
    pub(super) fn on_host(&mut self, i: usize, frame: &[u8], io: &mut impl Io) {
        let mut out = Vec::new();
        let started = io.now_ns();
        let result = self.nodes[i].machine.on_host(frame, &mut out);
        let now = io.now_ns();
        if self.mode.host_protected()
            || (self.nodes[i].machine.is_ap() && self.nodes[i].crypto.model == CryptoModel::Host)
        {
            self.nodes[i].host_crypto_ns += now - started;
        }
        if result.is_ok() {
            self.dispatch(i, out, now, io);
        }
    }

    /// Send a node's outputs: MPDUs through its crypto engine onto the medium, Ethernet
    /// frames to its host.
    fn dispatch(&mut self, i: usize, outputs: Vec<Output>, now: u64, io: &mut impl Io) {
        for o in outputs {
            match o {
                Output::Air(mpdu) => {
                    let protected = mpdu.get(1).is_some_and(|b| b & 0x40 != 0);
                    if protected && !self.nodes[i].machine.is_ap() && mpdu.get(4).is_some_and(|b| b & 1 == 0) {
                        self.last_data = Some((i, mpdu.clone()));
                    }
                    let _ = self.nodes[i].crypto.send(&mut self.medium, i, mpdu, protected, now, self.mode);
                }
                Output::Ethernet(frame) => io.to_host(i, &frame),
                // One medium, no addresses to learn.
                Output::Peer(_) => {}
            }
        }
    }

    /// Append the PMKs node `i` (the access point) accepted by SAE or OWE to the key log, in
    /// Wireshark's `80211_keys` form.
    fn log_pmks(&mut self, i: usize) {
        let (Some(path), Machine::Ap(ap)) = (&self.config.keylog, &mut self.nodes[i].machine) else { return };
        let pmks = ap.take_pmks();
        if pmks.is_empty() {
            return;
        }
        let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let mut text = String::new();
        for p in pmks {
            text += &format!("# {} PMK of {}, PMKID {}\n", p.akm.name(), p.station, hex(&p.pmkid));
            text += &format!("\"wpa-psk\",\"{}\"\n", hex(p.pmk.as_bytes()));
        }
        let mut options = std::fs::OpenOptions::new();
        options.append(true).create(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        if let Err(e) = options.open(path).and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes())) {
            eprintln!("wlansec: key log {}: {e}", path.display());
        }
    }

    fn spin_ns(&self) -> u64 {
        u64::from(self.config.release_spin_us) * 1_000
    }

    /// Start due transmissions, release due frames, run due timers.
    pub(super) fn service(&mut self, mut now: u64, io: &mut impl Io) {
        loop {
            for t in self.medium.advance(now) {
                if !t.delivered {
                    continue;
                }
                io.capture(t.start_ns, &t.mpdu);
                let Ok(frame) = Frame::new_checked(&t.mpdu[..], Rules::default()) else { continue };
                let a1 = frame.addr1();
                let protected = frame.frame_control().protected();
                for j in 0..self.nodes.len() {
                    if j == t.from || !(a1.is_group() || a1 == self.nodes[j].mac) {
                        continue;
                    }
                    let node = &mut self.nodes[j];
                    let (due, frame) = match node.crypto.card().cloned() {
                        // The card opens the frame as it comes off the air (every frame the
                        // node hears is taken then, so they keep their order).
                        Some(card) => {
                            let before = verilog::open_cycles(&card);
                            let mut out = Vec::new();
                            let _ = node.machine.on_air(&t.mpdu, &mut out);
                            let cycles = verilog::open_cycles(&card) - before;
                            (node.crypto.done_after_cycles(t.end_ns, cycles), Arrival::Taken(out))
                        }
                        None if protected => (
                            node.crypto.done_at(t.end_ns, self.mode, t.mpdu.len()).unwrap_or(t.end_ns),
                            Arrival::Mpdu(t.mpdu.clone()),
                        ),
                        None => (t.end_ns, Arrival::Mpdu(t.mpdu.clone())),
                    };
                    self.delivery_seq += 1;
                    let (seq, bytes) = (self.delivery_seq, t.mpdu.len());
                    self.deliveries.push(Delivery { due_ns: due, seq, to: j, bytes, frame });
                }
            }
            let mut released = false;
            let spin_ns = self.spin_ns();
            while self.deliveries.peek().is_some_and(|d| d.due_ns <= now + spin_ns) {
                let d = self.deliveries.pop().unwrap_or_else(|| unreachable!());
                let actual = io.wait_until(d.due_ns);
                self.record_release(d.due_ns, actual, d.to, d.bytes, io);
                let (out, done) = match d.frame {
                    Arrival::Mpdu(mpdu) => {
                        let mut out = Vec::new();
                        let started = io.now_ns();
                        let _ = self.nodes[d.to].machine.on_air(&mpdu, &mut out);
                        let done = io.now_ns();
                        if self.mode.host_protected() {
                            self.nodes[d.to].host_crypto_ns += done - started;
                        }
                        (out, done)
                    }
                    Arrival::Taken(out) => (out, io.now_ns()),
                };
                self.log_pmks(d.to);
                self.dispatch(d.to, out, done, io);
                released = true;
            }
            if now >= self.next_tick_ns {
                self.next_tick_ns = now + TICK_MS * 1_000_000;
                for i in 0..self.nodes.len() {
                    let mut out = Vec::new();
                    let _ = self.nodes[i].machine.tick(&mut out);
                    self.dispatch(i, out, now, io);
                }
            }
            if !released {
                break;
            }
            now = io.now_ns();
        }
    }

    fn record_release(&mut self, intended: u64, actual: u64, node: usize, bytes: usize, io: &mut impl Io) {
        let error = actual as i64 - intended as i64;
        if self.release_errors.len() == RELEASE_SAMPLES {
            self.release_errors.pop_front();
        }
        self.release_errors.push_back(error);
        io.log_release(intended, actual, node, bytes);
    }

    /// When something is next due: a transmission's start, a release (less the time spent
    /// spinning before it), or the tick.
    pub(super) fn next_deadline(&mut self) -> u64 {
        let release = self.deliveries.peek().map(|d| d.due_ns.saturating_sub(self.spin_ns()));
        let next = [self.medium.next_start(), release, Some(self.next_tick_ns)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(self.next_tick_ns);
        next.max(1)
    }

    pub(super) fn release_error(&self) -> ReleaseError {
        ReleaseError::of(self.release_errors.iter().copied().collect())
    }

    pub(super) fn status(&self, uptime_s: f64) -> Status {
        let profile = self.medium.profile();
        let mut associations = Vec::new();
        let nodes = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let mut peers = Vec::new();
                let akm = match &n.machine {
                    Machine::Sta(s) if self.mode.uses_handshake() => Some(s.akm().name()),
                    _ => None,
                };
                let (state, counters) = match &n.machine {
                    Machine::Ap(ap) => {
                        associations = ap.associations();
                        (StationState::Connected, ap.counters)
                    }
                    Machine::Sta(s) => (s.state().clone(), s.counters),
                    Machine::Ibss(s) => {
                        peers = s.peers();
                        // In an IBSS the associations are the links, named `station->peer`.
                        associations.extend(
                            peers
                                .iter()
                                .map(|p| AssociationStatus { mac: format!("{}->{}", n.mac, p.mac), ..p.clone() }),
                        );
                        (ibss_state(&peers, self.nodes.len() - 1), s.counters)
                    }
                };
                NodeStatus {
                    addrs: n.addrs.clone(),
                    state,
                    akm,
                    counters,
                    crypto: n.crypto.model.clone(),
                    crypto_frames: n.crypto.frames,
                    host_crypto_ns: n.host_crypto_ns,
                    queued: self.medium.queued(i),
                    peers,
                }
            })
            .collect();
        Status {
            name: self.config.name.clone(),
            ssid: self.config.ssid.clone(),
            security: self
                .config
                .security
                .parse::<Security>()
                .map_or_else(|_| self.mode.to_string(), |s| s.to_string()),
            pmf: self.config.pmf.clone(),
            phy: self.phy.to_string(),
            link: profile.phy.to_string(),
            frame_error_rate: profile.frame_error_rate,
            ampdu: self.medium.max_ampdu(),
            topology: self.config.topology.clone(),
            nodes,
            associations,
            medium: self.medium.counters,
            release_error: self.release_error(),
            uptime_s,
        }
    }

    /// The answer to one control command (`status`, `status reset-release-error`, `down`,
    /// `inject replay|tamper`), `uptime_s` into the run.
    pub(super) fn answer(&mut self, command: &str, uptime_s: f64, io: &mut impl Io) -> serde_json::Result<Answer> {
        let reply = |reply: String| Answer { reply, stop: false };
        Ok(match command {
            "status" => reply(serde_json::to_string(&self.status(uptime_s))?),
            // The status, then a new release-error window: one window per measurement run.
            "status reset-release-error" => {
                let status = serde_json::to_string(&self.status(uptime_s))?;
                self.release_errors.clear();
                reply(status)
            }
            "down" => Answer { reply: "{\"ok\":true}".into(), stop: true },
            cmd @ ("inject replay" | "inject tamper") => reply(match self.last_data.clone() {
                Some((from, mut mpdu)) => {
                    if cmd.ends_with("tamper") {
                        // Flip a data bit, and for replay-protected suites move the PN far
                        // ahead (its top octet) so the frame fails on integrity, not replay.
                        let n = mpdu.len();
                        mpdu[n - 10] ^= 0x01;
                        if self.mode != SecurityMode::Wep {
                            mpdu[QOS_HEADER_LEN + 7] ^= 0x80;
                        }
                    }
                    self.medium.enqueue(from, mpdu, io.now_ns());
                    format!(
                        "{{\"ok\":true,\"injected\":\"{}\",\"from\":\"{}\"}}",
                        &cmd[7..],
                        self.nodes[from].addrs.role
                    )
                }
                None => "{\"ok\":false,\"error\":\"no protected unicast data frame sent yet\"}".into(),
            }),
            other => reply(format!("{{\"ok\":false,\"error\":\"unknown command `{}`\"}}", other.escape_default())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Virtual time: waiting moves the clock at once; what reaches the hosts is kept.
    #[derive(Default)]
    struct VirtualIo {
        now_ns: u64,
        to_host: Vec<(usize, Vec<u8>)>,
        /// When each frame of `to_host` reached its host.
        to_host_at: Vec<u64>,
        captured: usize,
        released: usize,
    }

    impl Io for VirtualIo {
        fn now_ns(&mut self) -> u64 {
            self.now_ns
        }
        fn wait_until(&mut self, deadline_ns: u64) -> u64 {
            self.now_ns = self.now_ns.max(deadline_ns);
            self.now_ns
        }
        fn to_host(&mut self, node: usize, frame: &[u8]) {
            self.to_host.push((node, frame.to_vec()));
            self.to_host_at.push(self.now_ns);
        }
        fn capture(&mut self, _start_ns: u64, _mpdu: &[u8]) {
            self.captured += 1;
        }
        fn log_release(&mut self, intended_ns: u64, actual_ns: u64, _node: usize, _bytes: usize) {
            assert_eq!(intended_ns, actual_ns, "virtual time releases every frame on time");
            self.released += 1;
        }
    }

    /// An access point and two stations on a WEP network (no handshake: no PBKDF2 to wait for).
    fn wep_network() -> (State, VirtualIo) {
        network("wep", "abcde", "sw")
    }

    fn network(security: &str, passphrase: &str, ap_crypto: &str) -> (State, VirtualIo) {
        let config: Config = serde_json::from_value(serde_json::json!({
            "name": "test", "ssid": "lab", "passphrase": passphrase, "station_passphrase": null,
            "security": security, "phy": "g54", "poor_signal": false, "stations": 2, "card": "hw",
            "ap_crypto": ap_crypto, "pcap": null, "release_log": null, "queue_limit": 64, "seed": 1,
        }))
        .unwrap();
        let mut attached = Vec::new();
        let state = State::new(config, |addrs| {
            attached.push(addrs.role.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(attached, ["ap", "sta1", "sta2"]);
        (state, VirtualIo::default())
    }

    /// Wake at each deadline, as the event loop's timer would, until `done` or 5 virtual seconds.
    fn run_until(state: &mut State, io: &mut VirtualIo, done: impl Fn(&State, &VirtualIo) -> bool) -> bool {
        let end = io.now_ns + 5_000_000_000;
        while !done(state, io) && io.now_ns < end {
            io.now_ns = io.now_ns.max(state.next_deadline());
            state.service(io.now_ns, io);
        }
        done(state, io)
    }

    /// The WEP network started, and run until every station is connected.
    fn joined_wep_network() -> (State, VirtualIo) {
        joined(wep_network())
    }

    fn joined((mut state, mut io): (State, VirtualIo)) -> (State, VirtualIo) {
        state.start(&mut io);
        let connected =
            |s: &State, _: &VirtualIo| s.status(0.0).nodes.iter().all(|n| n.state == StationState::Connected);
        assert!(run_until(&mut state, &mut io, connected), "every station joins");
        (state, io)
    }

    fn answer(state: &mut State, io: &mut VirtualIo, command: &str) -> (String, bool) {
        let answer = state.answer(command, 1.5, io).unwrap();
        (answer.reply, answer.stop)
    }

    #[test]
    fn stations_join_and_a_frame_crosses_to_the_access_points_host_in_virtual_time() {
        let (mut state, mut io) = joined_wep_network();

        // Station 1's host sends an IPv4 frame to the access point's host.
        let mut frame = [[2, 0x77, 0, 0, 0, 0xfe], [2, 0x77, 0, 0, 0, 1]].concat();
        frame.extend_from_slice(&[0x08, 0x00]);
        frame.extend_from_slice(&[0x45; 64]);
        state.on_host(1, &frame, &mut io);
        assert!(run_until(&mut state, &mut io, |_, io| io.to_host.contains(&(0, frame.clone()))));
        assert!(io.captured > 0 && io.released > 0);
        let status = state.status(1.5);
        assert_eq!((status.release_error.frames, status.release_error.max_us), (io.released, 0.0));
        assert_eq!(status.nodes[0].counters.rx_msdus, 1);
    }

    #[test]
    fn control_commands_are_answered_from_the_state() {
        let (mut state, mut io) = wep_network();
        let (reply, stop) = answer(&mut state, &mut io, "status");
        let status: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!((status["name"].as_str(), status["nodes"].as_array().map(Vec::len)), (Some("test"), Some(3)));
        assert_eq!(status["uptime_s"], 1.5);
        assert!(!stop);
        let (reply, _) = answer(&mut state, &mut io, "inject tamper");
        assert_eq!(reply, r#"{"ok":false,"error":"no protected unicast data frame sent yet"}"#);
        // An unknown command is named, escaped: the reply stays one line of JSON.
        let (reply, _) = answer(&mut state, &mut io, "say \"hi\"\n");
        assert!(!reply.contains('\n'), "{reply}");
        let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["error"], "unknown command `say \"hi\"\n`");
        assert_eq!(answer(&mut state, &mut io, "down"), (r#"{"ok":true}"#.to_string(), true));
    }

    #[test]
    fn inject_sends_a_copy_of_a_stations_last_protected_data_frame() {
        let (mut state, mut io) = joined_wep_network();
        let mut frame = [[2, 0x77, 0, 0, 0, 0xfe], [2, 0x77, 0, 0, 0, 2]].concat();
        frame.extend_from_slice(&[0x08, 0x00, 0x45]);
        state.on_host(2, &frame, &mut io);
        let (reply, _) = answer(&mut state, &mut io, "inject replay");
        assert_eq!(reply, r#"{"ok":true,"injected":"replay","from":"sta2"}"#);
        assert_eq!(state.medium.queued(2), 2, "the frame and its copy");
    }

    /// A frame from station 1 to the access point's host: when it got there, and the cycles
    /// the access point's Verilog card spent opening frames (None on the host engine).
    #[cfg(feature = "verilog")]
    fn to_the_access_points_host(ap_crypto: &str) -> (u64, Option<u64>) {
        let (mut state, mut io) = joined(network("ccmp", "correct horse", ap_crypto));
        let opened = |state: &State| state.nodes[0].crypto.card().map(verilog::open_cycles);
        let before = opened(&state);
        let mut frame = [[2, 0x77, 0, 0, 0, 0xfe], [2, 0x77, 0, 0, 0, 1]].concat();
        frame.extend_from_slice(&[0x08, 0x00]);
        frame.extend_from_slice(&[0x45; 1500]);
        state.on_host(1, &frame, &mut io);
        assert!(run_until(&mut state, &mut io, |_, io| io.to_host.contains(&(0, frame.clone()))));
        let at = io.to_host.iter().position(|f| *f == (0, frame.clone())).expect("delivered");
        (io.to_host_at[at], opened(&state).zip(before).map(|(after, before)| after - before))
    }

    #[cfg(feature = "verilog")]
    #[test]
    fn a_frame_the_verilog_card_opens_reaches_the_host_its_cycles_later_with_verilator() {
        if let Err(e) = verilog::open_card() {
            assert_ne!(std::env::var("WLANSEC_REQUIRE_ALL").as_deref(), Ok("1"), "{e}");
            return println!("skipped: {e}");
        }
        let (host_engine, _) = to_the_access_points_host("sw");
        let (card, cycles) = to_the_access_points_host("verilog:104");
        let cycles = cycles.expect("the card opened the frame");
        assert!((1_000..1_300).contains(&cycles), "{cycles} cycles for a 1500-octet body");
        assert_eq!(card - host_engine, (cycles as f64 * 1e3 / 104.0) as u64);
    }
}
