//! The emulated WLAN as one process: the access point and stations (`bss`), each on a TAP
//! interface inside its namespace, joined by the virtual-time [`Medium`]. One epoll loop
//! reads the TAPs, runs the crypto models, starts transmissions when the medium says so and
//! releases each frame to its receiver at its virtual-time deadline, logging intended vs
//! actual release. A Unix socket answers `status`, `down` and `inject replay|tamper`.

use std::collections::{BinaryHeap, VecDeque};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wlansec_core::capture::pcap;
use wlansec_core::capture::radiotap::minimal_header;
use wlansec_core::capture::LinkType;
use wlansec_core::tx::FragmentationThreshold;
use wlansec_core::wire::{Frame, MacAddr, Rules};

use crate::airtime::{LinkProfile, Phy};
use crate::bss::{AccessPoint, AssociationStatus, Counters, NetworkConfig, Output, Station, StationState, TICK_MS};
use crate::card::{CryptoEngine, CryptoModel};
use crate::ibss::IbssStation;
use crate::medium::{Medium, MediumCounters};
use crate::netns::{self, NodeAddrs};
use crate::node::redacted;
use crate::pmf::Pmf;
use crate::security::SecurityMode;
use crate::{Error, Result};

/// Everything `wlan up` decides; stored as JSON in the state directory. Its Debug leaves
/// out the passphrases.
#[derive(Clone, Serialize, Deserialize)]
pub struct Config {
    pub name: String,
    pub ssid: String,
    pub passphrase: String,
    /// The stations' passphrase when it differs from the access point's (failure tests).
    pub station_passphrase: Option<String>,
    pub security: String,
    pub phy: String,
    pub poor_signal: bool,
    pub stations: usize,
    pub card: String,
    pub ap_crypto: String,
    pub pcap: Option<PathBuf>,
    pub release_log: Option<PathBuf>,
    pub queue_limit: usize,
    /// Most MPDUs per A-MPDU on HT/VHT PHYs (1: every MPDU its own DATA–ACK exchange).
    #[serde(default = "no_ampdu")]
    pub ampdu: usize,
    pub seed: u64,
    /// `bss` (stations relay through the access point) or `ibss` (ad hoc: no access point).
    #[serde(default = "bss")]
    pub topology: String,
    /// dot11FragmentationThreshold of every node (none: never fragment).
    #[serde(default)]
    pub fragment_threshold: Option<u16>,
    /// Seconds between GTK rotations by the access point (0: only when a station leaves).
    #[serde(default)]
    pub gtk_rekey: u64,
    /// 802.11w management frame protection: off, optional, required.
    #[serde(default = "pmf_off")]
    pub pmf: String,
    /// Microseconds before a frame's release deadline at which the emulator stops sleeping and
    /// busy-waits for it (0: wake on the timer alone). A timer wake-up lands tens of µs late on
    /// a virtual machine; the spin trades that much CPU per release for a release on time.
    #[serde(default)]
    pub release_spin_us: u32,
}

fn bss() -> String {
    "bss".into()
}

fn pmf_off() -> String {
    Pmf::Off.to_string()
}

fn no_ampdu() -> usize {
    1
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Config {
            name,
            ssid,
            passphrase,
            station_passphrase,
            security,
            phy,
            poor_signal,
            stations,
            card,
            ap_crypto,
            pcap,
            release_log,
            queue_limit,
            ampdu,
            seed,
            topology,
            fragment_threshold,
            gtk_rekey,
            pmf,
            release_spin_us,
        } = self;
        f.debug_struct("Config")
            .field("name", name)
            .field("ssid", ssid)
            .field("passphrase", &redacted(passphrase))
            .field("station_passphrase", &station_passphrase.as_deref().map(redacted))
            .field("security", security)
            .field("phy", phy)
            .field("poor_signal", poor_signal)
            .field("stations", stations)
            .field("card", card)
            .field("ap_crypto", ap_crypto)
            .field("pcap", pcap)
            .field("release_log", release_log)
            .field("queue_limit", queue_limit)
            .field("ampdu", ampdu)
            .field("seed", seed)
            .field("topology", topology)
            .field("release_spin_us", release_spin_us)
            .field("fragment_threshold", fragment_threshold)
            .field("gtk_rekey", gtk_rekey)
            .field("pmf", pmf)
            .finish()
    }
}

impl Config {
    pub fn mode(&self) -> Result<SecurityMode> {
        self.security.parse()
    }
    pub fn phy(&self) -> Result<Phy> {
        Ok(self.phy.parse()?)
    }
    pub fn pmf(&self) -> Result<Pmf> {
        self.pmf.parse()
    }
    pub fn fragment_threshold(&self) -> Result<Option<FragmentationThreshold>> {
        Ok(self.fragment_threshold.map(FragmentationThreshold::new).transpose()?)
    }
    pub fn state_dir(&self) -> PathBuf {
        state_dir(&self.name)
    }
    pub fn ibss(&self) -> bool {
        self.topology == "ibss"
    }
    /// The nodes this topology has (an IBSS has no access point).
    pub fn nodes(&self) -> Vec<NodeAddrs> {
        netns::nodes(&self.name, self.stations).into_iter().filter(|n| !(self.ibss() && n.role == "ap")).collect()
    }
}

pub fn state_dir(name: &str) -> PathBuf {
    PathBuf::from("/run/wlansec").join(name)
}

/// Median and 99th percentile of the release error (actual − intended), microseconds.
#[derive(Clone, Copy, Default, Debug, Serialize)]
pub struct ReleaseError {
    pub frames: usize,
    pub median_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeStatus {
    #[serde(flatten)]
    pub addrs: NodeAddrs,
    pub state: StationState,
    pub counters: Counters,
    pub crypto: CryptoModel,
    pub crypto_frames: u64,
    pub host_crypto_ns: u64,
    pub queued: usize,
    /// IBSS: the peers this station has met and whether their links are keyed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<AssociationStatus>,
}

/// What `status --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    pub name: String,
    pub ssid: String,
    pub security: String,
    /// 802.11w management frame protection the network offers (off, optional, required).
    pub pmf: String,
    pub phy: String,
    pub link: String,
    pub frame_error_rate: f64,
    /// Most MPDUs per A-MPDU (1: no aggregation).
    pub ampdu: usize,
    pub topology: String,
    pub nodes: Vec<NodeStatus>,
    pub associations: Vec<AssociationStatus>,
    pub medium: MediumCounters,
    pub release_error: ReleaseError,
    pub uptime_s: f64,
}

/// One node's machine, whatever its kind (the UDP transport and the fuzz targets drive the
/// same ones). A few per process: their sizes differing does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Machine {
    Ap(AccessPoint),
    Sta(Station),
    Ibss(IbssStation),
}

impl Machine {
    pub fn start(&mut self, out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.beacon().map(|b| out.push(Output::Air(b))),
            Machine::Sta(s) => s.start(out),
            Machine::Ibss(s) => s.start(out),
        }
    }
    pub fn on_host(&mut self, frame: &[u8], out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.from_host(frame, out),
            Machine::Sta(s) => s.from_host(frame, out),
            Machine::Ibss(s) => s.from_host(frame, out),
        }
    }
    pub fn on_air(&mut self, mpdu: &[u8], out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.from_air(mpdu, out),
            Machine::Sta(s) => s.from_air(mpdu, out),
            Machine::Ibss(s) => s.from_air(mpdu, out),
        }
    }
    pub fn tick(&mut self, out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.tick(out),
            Machine::Sta(s) => s.tick(out),
            Machine::Ibss(s) => s.tick(out),
        }
    }
    pub(crate) fn is_ap(&self) -> bool {
        matches!(self, Machine::Ap(_))
    }
}

struct Node {
    addrs: NodeAddrs,
    mac: MacAddr,
    machine: Machine,
    tap: OwnedFd,
    crypto: CryptoEngine,
    host_crypto_ns: u64,
}

/// A frame on its way from the air into a node, due at `due_ns`.
#[derive(PartialEq, Eq)]
struct Delivery {
    due_ns: u64,
    seq: u64,
    to: usize,
    mpdu: Vec<u8>,
}

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

/// Busy-wait until the monotonic clock reaches `deadline_ns`; the time it then reads.
fn spin_until(deadline_ns: u64) -> u64 {
    loop {
        let now = now_ns();
        if now >= deadline_ns {
            return now;
        }
        std::hint::spin_loop();
    }
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn os(ret: libc::c_int, what: &'static str) -> Result<libc::c_int> {
    if ret < 0 {
        return Err(Error::last_os(what));
    }
    Ok(ret)
}

/// Keep at most this many release errors for the statistics (the log file has them all).
const RELEASE_SAMPLES: usize = 1 << 20;
/// The QoS data header (no Address 4, no HT Control) every data frame here has.
const QOS_HEADER_LEN: usize = 26;
const TOKEN_TIMER: u64 = u64::MAX;
const TOKEN_SIGNAL: u64 = u64::MAX - 1;
const TOKEN_CONTROL: u64 = u64::MAX - 2;

pub struct Emulator {
    config: Config,
    mode: SecurityMode,
    phy: Phy,
    nodes: Vec<Node>,
    medium: Medium,
    deliveries: BinaryHeap<Delivery>,
    delivery_seq: u64,
    release_errors: VecDeque<i64>,
    release_log: Option<io::BufWriter<File>>,
    pcap: Option<pcap::Writer<io::BufWriter<File>>>,
    /// The last protected unicast data frame a station sent, for `inject`.
    last_data: Option<(usize, Vec<u8>)>,
    epoll: OwnedFd,
    timer: OwnedFd,
    signals: OwnedFd,
    control: UnixListener,
    next_tick_ns: u64,
    started: Instant,
    origin_ns: u64,
    stop: bool,
}

impl Emulator {
    /// Open the TAPs in the (already created) namespaces, configure them and get ready.
    pub fn new(config: Config) -> Result<Self> {
        let mode = config.mode()?;
        let phy = config.phy()?;
        let profile = if config.poor_signal { LinkProfile::poor_signal(phy) } else { LinkProfile::clear(phy) };
        let card: CryptoModel = config.card.parse()?;
        let ap_crypto: CryptoModel = config.ap_crypto.parse()?;
        let station_card = if mode.host_protected() { CryptoModel::Host } else { card };
        // The access point's address, which an IBSS keeps as its BSSID.
        let ap_mac = &netns::nodes(&config.name, 0)[0].mac;
        let bssid: MacAddr = ap_mac.parse().map_err(|why| Error::BadMac { what: format!("BSSID {ap_mac}"), why })?;
        let fragment_threshold = config.fragment_threshold()?;
        let pmf = config.pmf()?;
        let network = |passphrase: &str| NetworkConfig {
            fragment_threshold,
            pmf,
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
                Machine::Ap(
                    AccessPoint::new(network(&config.passphrase)).map_err(node)?.with_gtk_rekey(config.gtk_rekey),
                )
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
                Machine::Sta(Station::new(network(pass), mac).map_err(node)?)
            };
            let tap = netns::open_tap(&addrs.namespace).map_err(node)?;
            netns::configure(Some(&addrs.namespace), netns::INTERFACE, &addrs).map_err(node)?;
            let crypto = CryptoEngine::new(if machine.is_ap() { ap_crypto.clone() } else { station_card.clone() });
            nodes.push(Node { addrs, mac, machine, tap, crypto, host_crypto_ns: 0 });
        }
        let medium = Medium::new(profile, nodes.len(), config.queue_limit, config.seed).with_ampdu(config.ampdu);
        let pcap = match &config.pcap {
            Some(path) => Some(
                pcap::Writer::new(
                    io::BufWriter::new(File::create(path).map_err(Error::io(format!("create {}", path.display())))?),
                    LinkType::Radiotap,
                )
                .map_err(Error::io(format!("write {}", path.display())))?,
            ),
            None => None,
        };
        let release_log = match &config.release_log {
            Some(path) => {
                let mut w =
                    io::BufWriter::new(File::create(path).map_err(Error::io(format!("create {}", path.display())))?);
                writeln!(w, "intended_ns,actual_ns,error_ns,node,bytes")
                    .map_err(Error::io(format!("write {}", path.display())))?;
                Some(w)
            }
            None => None,
        };
        let dir = config.state_dir();
        std::fs::create_dir_all(&dir).map_err(Error::io(format!("create {}", dir.display())))?;
        let sock = dir.join("control.sock");
        let _ = std::fs::remove_file(&sock);
        let control = UnixListener::bind(&sock).map_err(Error::io(format!("bind {}", sock.display())))?;
        control.set_nonblocking(true).map_err(Error::io("control socket: set non-blocking"))?;
        let (epoll, timer, signals) = Self::fds()?;
        let mut emulator = Emulator {
            config,
            mode,
            phy,
            nodes,
            medium,
            deliveries: BinaryHeap::new(),
            delivery_seq: 0,
            release_errors: VecDeque::new(),
            release_log,
            pcap,
            last_data: None,
            epoll,
            timer,
            signals,
            control,
            next_tick_ns: 0,
            started: Instant::now(),
            origin_ns: now_ns(),
            stop: false,
        };
        emulator.register()?;
        Ok(emulator)
    }

    fn fds() -> Result<(OwnedFd, OwnedFd, OwnedFd)> {
        // SAFETY: plain descriptor-creating calls, each result checked and owned at once.
        unsafe {
            let epoll = OwnedFd::from_raw_fd(os(libc::epoll_create1(libc::EPOLL_CLOEXEC), "epoll_create1")?);
            let timer = OwnedFd::from_raw_fd(os(
                libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC),
                "timerfd_create",
            )?);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigaddset(&mut set, libc::SIGTERM);
            libc::sigaddset(&mut set, libc::SIGHUP);
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            let signals =
                OwnedFd::from_raw_fd(os(libc::signalfd(-1, &set, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC), "signalfd")?);
            Ok((epoll, timer, signals))
        }
    }

    fn watch(&self, fd: RawFd, token: u64) -> Result<()> {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: token };
        // SAFETY: epoll_ctl with a valid epoll descriptor and event.
        os(unsafe { libc::epoll_ctl(self.epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) }, "epoll_ctl")?;
        Ok(())
    }

    fn register(&mut self) -> Result<()> {
        for (i, n) in self.nodes.iter().enumerate() {
            self.watch(n.tap.as_raw_fd(), i as u64)?;
        }
        self.watch(self.timer.as_raw_fd(), TOKEN_TIMER)?;
        self.watch(self.signals.as_raw_fd(), TOKEN_SIGNAL)?;
        self.watch(self.control.as_raw_fd(), TOKEN_CONTROL)
    }

    /// Real-time priority and 1 ns timer slack where the system permits; says what it got.
    pub fn tune_scheduling() -> String {
        // SAFETY: prctl/sched_setscheduler on this process with valid arguments.
        let slack = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) } == 0;
        let param = libc::sched_param { sched_priority: 10 };
        let rt = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0;
        format!(
            "timer slack 1 ns: {}, SCHED_FIFO 10: {}",
            if slack { "yes" } else { "no" },
            if rt { "yes" } else { "no (not permitted)" }
        )
    }

    /// Start the stations and run until `down`, SIGINT/SIGTERM/SIGHUP.
    pub fn run(&mut self) -> Result<()> {
        let now = now_ns();
        // The access point (first, when there is one) beacons before the stations start.
        for i in 0..self.nodes.len() {
            let mut out = Vec::new();
            let _ = self.nodes[i].machine.start(&mut out);
            self.dispatch(i, out, now);
        }
        self.next_tick_ns = now + TICK_MS * 1_000_000;
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 64];
        while !self.stop {
            self.service(now_ns());
            self.arm_timer()?;
            // SAFETY: events has room for 64 entries.
            let n = unsafe { libc::epoll_wait(self.epoll.as_raw_fd(), events.as_mut_ptr(), events.len() as i32, 1000) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::Io { what: "epoll_wait".into(), source: e });
            }
            for ev in &events[..n as usize] {
                match ev.u64 {
                    TOKEN_TIMER => {
                        let mut buf = [0u8; 8];
                        // SAFETY: reading the 8-byte expiry count of our timerfd.
                        unsafe { libc::read(self.timer.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
                    }
                    TOKEN_SIGNAL => self.stop = true,
                    TOKEN_CONTROL => self.accept_control(),
                    i => self.read_tap(i as usize),
                }
            }
        }
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if let Some(w) = self.pcap.take() {
            w.into_inner().flush().map_err(Error::io("flush the capture"))?;
        }
        if let Some(mut w) = self.release_log.take() {
            w.flush().map_err(Error::io("flush the release log"))?;
        }
        Ok(())
    }

    fn read_tap(&mut self, i: usize) {
        let mut buf = vec![0u8; 65536];
        loop {
            // SAFETY: reading into our buffer from our TAP descriptor.
            let n = unsafe { libc::read(self.nodes[i].tap.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let frame = &buf[..n as usize];
            let mut out = Vec::new();
            let started = now_ns();
            let result = self.nodes[i].machine.on_host(frame, &mut out);
            let now = now_ns();
            if self.mode.host_protected()
                || (self.nodes[i].machine.is_ap() && self.nodes[i].crypto.model == CryptoModel::Host)
            {
                self.nodes[i].host_crypto_ns += now - started;
            }
            if result.is_ok() {
                self.dispatch(i, out, now);
            }
        }
    }

    /// Send a node's outputs: MPDUs through its crypto engine onto the medium, Ethernet
    /// frames to its TAP.
    fn dispatch(&mut self, i: usize, outputs: Vec<Output>, now: u64) {
        for o in outputs {
            match o {
                Output::Air(mpdu) => {
                    let protected = mpdu.get(1).is_some_and(|b| b & 0x40 != 0);
                    if protected && !self.nodes[i].machine.is_ap() && mpdu.get(4).is_some_and(|b| b & 1 == 0) {
                        self.last_data = Some((i, mpdu.clone()));
                    }
                    let _ = self.nodes[i].crypto.send(&mut self.medium, i, mpdu, protected, now, self.mode);
                }
                Output::Ethernet(frame) => {
                    // SAFETY: writing our buffer to our TAP descriptor.
                    unsafe { libc::write(self.nodes[i].tap.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
                }
                // One medium, no addresses to learn.
                Output::Peer(_) => {}
            }
        }
    }

    /// Start due transmissions, release due frames, run due timers.
    fn service(&mut self, mut now: u64) {
        loop {
            for t in self.medium.advance(now) {
                if !t.delivered {
                    continue;
                }
                if let Some(w) = self.pcap.as_mut() {
                    let mut rec = minimal_header(false).to_vec();
                    rec.extend_from_slice(&t.mpdu);
                    let _ = w.write(t.start_ns, &rec);
                }
                let Ok(frame) = Frame::new_checked(&t.mpdu[..], Rules::default()) else { continue };
                let a1 = frame.addr1();
                let protected = frame.frame_control().protected();
                for j in 0..self.nodes.len() {
                    if j == t.from || !(a1.is_group() || a1 == self.nodes[j].mac) {
                        continue;
                    }
                    let due = if protected {
                        self.nodes[j].crypto.done_at(t.end_ns, self.mode, t.mpdu.len()).unwrap_or(t.end_ns)
                    } else {
                        t.end_ns
                    };
                    self.delivery_seq += 1;
                    self.deliveries.push(Delivery { due_ns: due, seq: self.delivery_seq, to: j, mpdu: t.mpdu.clone() });
                }
            }
            let mut released = false;
            let spin_ns = u64::from(self.config.release_spin_us) * 1_000;
            while self.deliveries.peek().is_some_and(|d| d.due_ns <= now + spin_ns) {
                let d = self.deliveries.pop().unwrap_or_else(|| unreachable!());
                let actual = spin_until(d.due_ns);
                self.record_release(d.due_ns, actual, d.to, d.mpdu.len());
                let mut out = Vec::new();
                let started = now_ns();
                let _ = self.nodes[d.to].machine.on_air(&d.mpdu, &mut out);
                let done = now_ns();
                if self.mode.host_protected() {
                    self.nodes[d.to].host_crypto_ns += done - started;
                }
                self.dispatch(d.to, out, done);
                released = true;
            }
            if now >= self.next_tick_ns {
                self.next_tick_ns = now + TICK_MS * 1_000_000;
                for i in 0..self.nodes.len() {
                    let mut out = Vec::new();
                    let _ = self.nodes[i].machine.tick(&mut out);
                    self.dispatch(i, out, now);
                }
            }
            if !released {
                break;
            }
            now = now_ns();
        }
    }

    fn record_release(&mut self, intended: u64, actual: u64, node: usize, bytes: usize) {
        let error = actual as i64 - intended as i64;
        if self.release_errors.len() == RELEASE_SAMPLES {
            self.release_errors.pop_front();
        }
        self.release_errors.push_back(error);
        if let Some(w) = self.release_log.as_mut() {
            let _ = writeln!(w, "{},{},{error},{node},{bytes}", intended - self.origin_ns, actual - self.origin_ns);
        }
    }

    fn arm_timer(&mut self) -> Result<()> {
        let spin_ns = u64::from(self.config.release_spin_us) * 1_000;
        let release = self.deliveries.peek().map(|d| d.due_ns.saturating_sub(spin_ns));
        let next = [self.medium.next_start(), release, Some(self.next_tick_ns)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(self.next_tick_ns);
        let next = next.max(1);
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec {
                tv_sec: (next / 1_000_000_000) as libc::time_t,
                tv_nsec: (next % 1_000_000_000) as libc::c_long,
            },
        };
        // SAFETY: arming our timerfd with an absolute CLOCK_MONOTONIC deadline.
        os(
            unsafe {
                libc::timerfd_settime(self.timer.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut())
            },
            "timerfd_settime",
        )?;
        Ok(())
    }

    pub fn release_error(&self) -> ReleaseError {
        let mut v: Vec<i64> = self.release_errors.iter().copied().collect();
        if v.is_empty() {
            return ReleaseError::default();
        }
        v.sort_unstable();
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize] as f64 / 1e3;
        ReleaseError { frames: v.len(), median_us: at(0.5), p99_us: at(0.99), max_us: at(1.0) }
    }

    pub fn status(&self) -> Status {
        let profile = self.medium.profile();
        let mut associations = Vec::new();
        let nodes = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let mut peers = Vec::new();
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
            security: self.mode.to_string(),
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
            uptime_s: self.started.elapsed().as_secs_f64(),
        }
    }

    fn accept_control(&mut self) {
        while let Ok((stream, _)) = self.control.accept() {
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
            let _ = self.answer(stream);
        }
    }

    fn answer(&mut self, stream: UnixStream) -> io::Result<()> {
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line)?;
        let reply = match line.trim() {
            "status" => serde_json::to_string(&self.status()).map_err(io::Error::other)?,
            // The status, then a new release-error window: one window per measurement run.
            "status reset-release-error" => {
                let status = serde_json::to_string(&self.status()).map_err(io::Error::other)?;
                self.release_errors.clear();
                status
            }
            "down" => {
                self.stop = true;
                "{\"ok\":true}".into()
            }
            cmd @ ("inject replay" | "inject tamper") => match self.last_data.clone() {
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
                    self.medium.enqueue(from, mpdu, now_ns());
                    format!(
                        "{{\"ok\":true,\"injected\":\"{}\",\"from\":\"{}\"}}",
                        &cmd[7..],
                        self.nodes[from].addrs.role
                    )
                }
                None => "{\"ok\":false,\"error\":\"no protected unicast data frame sent yet\"}".into(),
            },
            other => format!("{{\"ok\":false,\"error\":\"unknown command `{}`\"}}", other.escape_default()),
        };
        let mut stream = stream;
        stream.write_all(reply.as_bytes())?;
        stream.write_all(b"\n")
    }
}

/// An IBSS station is connected once it has keyed links to all `others`.
fn ibss_state(peers: &[AssociationStatus], others: usize) -> StationState {
    if let Some(failure) = peers.iter().find_map(|p| p.failure.clone()) {
        return StationState::Failed(failure);
    }
    if peers.len() == others && peers.iter().all(|p| p.port_open) {
        StationState::Connected
    } else {
        StationState::Handshaking
    }
}

/// Send one control command to a running emulator and return its one-line JSON answer.
pub fn control(name: &str, command: &str) -> Result<String> {
    let socket = state_dir(name).join("control.sock");
    let mut stream = match UnixStream::connect(&socket) {
        Ok(stream) => stream,
        Err(source) => return Err(Error::NotRunning { name: name.into(), socket, source }),
    };
    let mut line = String::new();
    (|| {
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
        stream.write_all(command.as_bytes())?;
        stream.write_all(b"\n")?;
        BufReader::new(&stream).read_line(&mut line)
    })()
    .map_err(Error::io(format!("control socket {}: `{}`", socket.display(), command.escape_default())))?;
    Ok(line.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_passphrases() {
        const SECRET: &str = "correct horse battery staple";
        let config: Config = serde_json::from_value(serde_json::json!({
            "name": "wls", "ssid": "lab", "passphrase": SECRET, "station_passphrase": "another secret",
            "security": "ccmp", "phy": "g54", "poor_signal": false, "stations": 2, "card": "hw",
            "ap_crypto": "sw", "pcap": null, "release_log": null, "queue_limit": 64, "seed": 1,
        }))
        .unwrap();
        let debug = format!("{config:?}");
        assert!(!debug.contains(SECRET) && !debug.contains("another") && debug.contains("wls"), "{debug}");
    }
}
