//! The access point and a station as separate processes whose "air" is UDP over any IP
//! network: the deployment form (host-side security over an open link). One MPDU per
//! datagram; the same machines as the emulator ([`crate::bss`]) on a TAP interface of the
//! host. The access point learns where a station is from its Authentication request (a
//! restarting station sends a new one) and sends unicast MPDUs there, group MPDUs to every
//! station it knows. Nothing here adds security: the frames are protected end to end by the
//! machines, as over the emulated air.

use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use wlansec_core::wire::{Frame, MacAddr, Rules};

use crate::bss::{AccessPoint, NetworkConfig, Output, Station, StationState, TICK_MS};
use crate::emulator::Machine;
use crate::netns::{self, NodeAddrs};
use crate::{Error, Result};

/// Management subtype of the Authentication frame (where the access point learns a station).
const SUBTYPE_AUTH: u8 = 11;

/// Which side this process is.
pub enum Role {
    AccessPoint,
    /// A station and the UDP address of its access point.
    Station {
        ap: SocketAddr,
    },
}

/// One process's configuration.
pub struct NodeConfig {
    pub role: Role,
    pub network: NetworkConfig,
    /// The UDP address to bind.
    pub listen: SocketAddr,
    /// The TAP interface to create, with its MAC (the node's 802.11 address) and addresses.
    pub interface: NodeAddrs,
}

/// Run a node until the process is ended; `log` hears each state change in one line.
pub fn run(config: NodeConfig, mut log: impl FnMut(&str)) -> Result<()> {
    let text = &config.interface.mac;
    let mac: MacAddr = text.parse().map_err(|why| Error::BadMac { what: format!("--mac {text}"), why })?;
    let node = |role: &'static str| move |source| Error::Node { role: role.into(), source: Box::new(source) };
    let mut machine = match config.role {
        Role::AccessPoint => Machine::Ap(AccessPoint::new(config.network.clone()).map_err(node("access point"))?),
        Role::Station { .. } => Machine::Sta(Station::new(config.network.clone(), mac).map_err(node("station"))?),
    };
    let tap = netns::open_tap_named(&config.interface.interface)?;
    netns::configure(None, &config.interface.interface, &config.interface)?;
    let socket = UdpSocket::bind(config.listen).map_err(Error::io(format!("bind {}", config.listen)))?;
    socket.set_nonblocking(true).map_err(Error::io("UDP socket: set non-blocking"))?;
    let local = socket.local_addr().map_err(Error::io("UDP socket: local address"))?;
    log(&format!(
        "{} {} on {} ({}), air: udp {}",
        if machine.is_ap() { "access point" } else { "station" },
        mac,
        config.interface.interface,
        config.network.mode,
        local
    ));
    let mut node = UdpNode {
        tap,
        socket,
        ap: match config.role {
            Role::Station { ap } => Some(ap),
            Role::AccessPoint => None,
        },
        stations: BTreeMap::new(),
    };
    let mut out = Vec::new();
    let _ = machine.start(&mut out);
    node.emit(out);
    let mut next_tick = Instant::now() + Duration::from_millis(TICK_MS);
    let mut last_state = None;
    let mut logged_failures: BTreeMap<String, String> = BTreeMap::new();
    let mut buf = vec![0u8; 65536];
    loop {
        let wait = next_tick.saturating_duration_since(Instant::now());
        let mut fds = [
            libc::pollfd { fd: node.tap.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: node.socket.as_raw_fd(), events: libc::POLLIN, revents: 0 },
        ];
        // SAFETY: polling two descriptors we own, with a bounded timeout.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, wait.as_millis().min(1000) as i32 + 1) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(Error::Io { what: "poll".into(), source: e });
            }
        }
        let mut out = Vec::new();
        loop {
            // SAFETY: reading into our buffer from our TAP descriptor (non-blocking).
            let n = unsafe { libc::read(node.tap.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let _ = machine.on_host(&buf[..n as usize], &mut out);
        }
        while let Ok((n, from)) = node.socket.recv_from(&mut buf) {
            node.learn(&buf[..n], from);
            let _ = machine.on_air(&buf[..n], &mut out);
        }
        if Instant::now() >= next_tick {
            next_tick += Duration::from_millis(TICK_MS);
            let _ = machine.tick(&mut out);
        }
        node.emit(out);
        match &machine {
            Machine::Sta(s) => {
                if last_state.as_ref() != Some(s.state()) {
                    log(&format!("station: {}", describe(s.state())));
                    last_state = Some(s.state().clone());
                }
                // A station that failed to join (a wrong passphrase, say) ends with the reason.
                if let StationState::Failed(why) = s.state() {
                    return Err(Error::StationFailed(why.clone()));
                }
            }
            Machine::Ap(ap) => {
                // The access point says why a station could not join, once per failure.
                for a in ap.associations() {
                    if let Some(failure) = a.failure.filter(|f| logged_failures.get(&a.mac) != Some(f)) {
                        log(&format!("access point: station {}: {failure}", a.mac));
                        logged_failures.insert(a.mac, failure);
                    }
                }
            }
            Machine::Ibss(_) => {}
        }
    }
}

fn describe(state: &StationState) -> String {
    match state {
        StationState::Failed(why) => format!("failed: {why}"),
        other => format!("{other:?}").to_lowercase(),
    }
}

struct UdpNode {
    tap: OwnedFd,
    socket: UdpSocket,
    /// A station's access point.
    ap: Option<SocketAddr>,
    /// The access point's stations: where each MAC's frames come from.
    stations: BTreeMap<MacAddr, SocketAddr>,
}

impl UdpNode {
    /// The access point learns a station's UDP address from its Authentication request.
    fn learn(&mut self, mpdu: &[u8], from: SocketAddr) {
        if self.ap.is_some() {
            return;
        }
        let Ok(frame) = Frame::new_checked(mpdu, Rules::default()) else { return };
        let fc = frame.frame_control();
        if let (true, SUBTYPE_AUTH, Some(sta)) = (fc.is_management(), fc.subtype(), frame.addr2()) {
            self.stations.insert(sta, from);
        }
    }

    /// Send MPDUs over UDP and Ethernet frames to the TAP.
    fn emit(&mut self, outputs: Vec<Output>) {
        for o in outputs {
            match o {
                Output::Air(mpdu) => {
                    let targets: Vec<SocketAddr> = match self.ap {
                        Some(ap) => vec![ap],
                        None => match Frame::new_checked(&mpdu[..], Rules::default()).map(|f| f.addr1()) {
                            Ok(a1) if a1.is_group() => self.stations.values().copied().collect(),
                            Ok(a1) => self.stations.get(&a1).copied().into_iter().collect(),
                            Err(_) => Vec::new(),
                        },
                    };
                    for to in targets {
                        // A full socket buffer drops the frame, as a busy medium would.
                        let _ = self.socket.send_to(&mpdu, to);
                    }
                }
                Output::Ethernet(frame) => {
                    // SAFETY: writing our buffer to our TAP descriptor.
                    unsafe { libc::write(self.tap.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
                }
            }
        }
    }
}
