//! The access point and a station as separate processes whose "air" is UDP over any IP
//! network: the deployment form (host-side security over an open link). One MPDU per
//! datagram; the same machines as the emulator ([`crate::bss`]) on a TAP interface of the
//! host. The access point's [`AddressBook`] learns where a station is only from what the
//! access point accepted ([`PeerEvent`]): a new association, or a frame that verified under
//! the station's keys; an unprotected management frame in a station's name never moves a
//! station with a protected link. Unprotected management replies (Authentication and
//! Association responses) go back to the datagram that asked, committing nothing. Unicast
//! MPDUs go to the station's address, group MPDUs to every station known. Nothing here adds
//! security: the frames are protected end to end by the machines, as over the emulated air.

use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use wlansec_core::wire::{Frame, MacAddr, Rules};

use crate::bss::{AccessPoint, NetworkConfig, Output, PeerEvent, Station, StationState, TICK_MS};
use crate::emulator::Machine;
use crate::netns::{self, NodeAddrs};
use crate::{Error, Result};

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
        book: AddressBook::default(),
    };
    let mut out = Vec::new();
    let _ = machine.start(&mut out);
    node.emit(out, None);
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
        // SAFETY: `fds` is a live array of exactly the 2 pollfd entries the count says, each
        // naming a descriptor this node owns; poll writes only their `revents`.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, wait.as_millis().min(1000) as i32 + 1) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(Error::Io { what: "poll".into(), source: e });
            }
        }
        let mut out = Vec::new();
        loop {
            // SAFETY: `buf` is live and writable for `buf.len()` bytes, and the TAP descriptor is
            // this node's own (non-blocking: an empty queue returns -1).
            let n = unsafe { libc::read(node.tap.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let _ = machine.on_host(&buf[..n as usize], &mut out);
        }
        while let Ok((n, from)) = node.socket.recv_from(&mut buf) {
            // Each datagram's outputs go out with it: its replies go back to its source.
            let mut replies = Vec::new();
            let _ = machine.on_air(&buf[..n], &mut replies);
            let sender = Frame::new_checked(&buf[..n], Rules::default()).ok().and_then(|f| f.addr2());
            node.emit(replies, sender.map(|sta| (sta, from)));
        }
        if Instant::now() >= next_tick {
            next_tick += Duration::from_millis(TICK_MS);
            let _ = machine.tick(&mut out);
        }
        node.emit(out, None);
        match &machine {
            Machine::Sta(s) => {
                // A station that cannot join (a wrong passphrase, say) says why and keeps
                // trying: only the user's signal ends it.
                if last_state.as_ref() != Some(s.state()) {
                    log(&format!("station: {}", describe(s.state())));
                    last_state = Some(s.state().clone());
                }
            }
            Machine::Ap(ap) => {
                // The access point says why a station could not join, once per failure
                // (remembered while the access point reports it: a bounded few).
                let associations = ap.associations();
                logged_failures.retain(|mac, _| associations.iter().any(|a| a.mac == *mac));
                for a in associations {
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
        StationState::Failed(why) => format!("cannot join: {why}; trying again every 16 s"),
        StationState::Rejoining(why) => format!("left ({why}), joining again after a backoff"),
        other => format!("{other:?}").to_lowercase(),
    }
}

struct UdpNode {
    tap: OwnedFd,
    socket: UdpSocket,
    /// A station's access point.
    ap: Option<SocketAddr>,
    /// The access point's stations.
    book: AddressBook,
}

impl UdpNode {
    /// Send MPDUs over UDP and Ethernet frames to the TAP; `datagram`: the sender and
    /// source of the datagram these outputs answer, if they answer one.
    fn emit(&mut self, outputs: Vec<Output>, datagram: Option<(MacAddr, SocketAddr)>) {
        for o in outputs {
            match o {
                Output::Air(mpdu) => {
                    let targets = match self.ap {
                        Some(ap) => vec![ap],
                        None => self.book.targets(&mpdu, datagram),
                    };
                    for to in targets {
                        // A full socket buffer drops the frame, as a busy medium would.
                        let _ = self.socket.send_to(&mpdu, to);
                    }
                }
                Output::Ethernet(frame) => {
                    // SAFETY: `frame` is live for `frame.len()` bytes, and the TAP descriptor is
                    // this node's own; a failed write only loses the frame, as on a real link.
                    unsafe { libc::write(self.tap.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
                }
                Output::Peer(event) => self.book.peer(event, datagram),
            }
        }
    }
}

/// Where the access point's stations are on the UDP air. It changes only on the access
/// point's word ([`PeerEvent`]), so it holds no more stations than the access point does.
#[derive(Default, Debug)]
pub struct AddressBook {
    stations: BTreeMap<MacAddr, SocketAddr>,
}

impl AddressBook {
    /// The access point's word on a station, said while handling `datagram` (its sender and
    /// source) or on its own (a tick, the host). A station is placed at a datagram's source
    /// only when the access point accepted that datagram from that very station.
    pub fn peer(&mut self, event: PeerEvent, datagram: Option<(MacAddr, SocketAddr)>) {
        match event {
            PeerEvent::Accepted(sta) => {
                if let Some((sender, source)) = datagram.filter(|(sender, _)| *sender == sta) {
                    self.stations.insert(sender, source);
                }
            }
            PeerEvent::Gone(sta) => {
                self.stations.remove(&sta);
            }
        }
    }

    /// Where the access point's `mpdu` goes: a group MPDU to every station; an unprotected
    /// management frame to the datagram's sender (a reply: Authentication, Association
    /// response) back to that datagram's source; any other unicast MPDU to the station's
    /// address, or, when it has none yet, to the source of the sender's datagram.
    pub fn targets(&self, mpdu: &[u8], datagram: Option<(MacAddr, SocketAddr)>) -> Vec<SocketAddr> {
        let Ok(frame) = Frame::new_checked(mpdu, Rules::default()) else { return Vec::new() };
        let a1 = frame.addr1();
        if a1.is_group() {
            return self.stations.values().copied().collect();
        }
        let fc = frame.frame_control();
        let reply = datagram.filter(|(sender, _)| *sender == a1).map(|(_, source)| source);
        if fc.is_management() && !fc.protected() {
            if let Some(source) = reply {
                return vec![source];
            }
        }
        self.stations.get(&a1).copied().or(reply).into_iter().collect()
    }

    pub fn get(&self, sta: MacAddr) -> Option<SocketAddr> {
        self.stations.get(&sta).copied()
    }

    pub fn len(&self) -> usize {
        self.stations.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stations.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use wlansec_core::wire::mgmt::{AuthenticationRepr, ManagementBody, STATUS_SUCCESS};
    use wlansec_core::wire::{Frame, MacAddr, Rules, SequenceControl};

    use super::AddressBook;
    use crate::bss::{AccessPoint, NetworkConfig, Output, PeerEvent, Station, StationState};
    use crate::pmf::Pmf;

    const AP: MacAddr = MacAddr([0x02, 0x79, 0, 0, 0, 0xfe]);
    const STA: MacAddr = MacAddr([0x02, 0x79, 0, 0, 0, 0x01]);
    const PSK: &str = "776c616e7365632d7564702d61646472657373626f6f6b2d7061697277697365";

    fn at(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    /// The access point, its address book, and a station at `home` on the UDP air.
    struct Air {
        ap: AccessPoint,
        book: AddressBook,
        sta: Station,
        home: SocketAddr,
        /// What reached other addresses (an attacker's).
        elsewhere: Vec<(SocketAddr, Vec<u8>)>,
        /// What reached the access point's host.
        ap_host: Vec<Vec<u8>>,
    }

    impl Air {
        fn new(pmf: Pmf) -> Self {
            Self::of(NetworkConfig { pmf, ..NetworkConfig::new("wlansec", AP, "ccmp".parse().unwrap(), PSK) })
        }

        fn of(network: NetworkConfig) -> Self {
            Air {
                ap: AccessPoint::new(network.clone()).unwrap(),
                book: AddressBook::default(),
                sta: Station::new(network, STA).unwrap(),
                home: at("192.0.2.1:7701"),
                elsewhere: Vec::new(),
                ap_host: Vec::new(),
            }
        }

        /// The access point's outputs, as `UdpNode::emit` routes them: what goes to the
        /// station's home comes back as the station's answers.
        fn route(&mut self, out: Vec<Output>, datagram: Option<(MacAddr, SocketAddr)>) -> Vec<Vec<u8>> {
            let mut to_station = Vec::new();
            for o in out {
                match o {
                    Output::Air(mpdu) => {
                        for to in self.book.targets(&mpdu, datagram) {
                            if to == self.home {
                                to_station.push(mpdu.clone());
                            } else {
                                self.elsewhere.push((to, mpdu.clone()));
                            }
                        }
                    }
                    Output::Ethernet(e) => self.ap_host.push(e),
                    Output::Peer(event) => self.book.peer(event, datagram),
                }
            }
            let mut answers = Vec::new();
            for mpdu in to_station {
                let mut out = Vec::new();
                let _ = self.sta.from_air(&mpdu, &mut out);
                answers.extend(out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }));
            }
            answers
        }

        /// A datagram from `from` to the access point, and the station's frames it leads to,
        /// until the air is quiet.
        fn datagram(&mut self, mpdu: Vec<u8>, from: SocketAddr) {
            // In the order sent, as one UDP path delivers them.
            let mut queue = std::collections::VecDeque::from([(mpdu, from)]);
            for _ in 0..32 {
                let Some((mpdu, from)) = queue.pop_front() else { return };
                let sender = Frame::new_checked(&mpdu[..], Rules::default()).ok().and_then(|f| f.addr2());
                let mut out = Vec::new();
                let _ = self.ap.from_air(&mpdu, &mut out);
                let home = self.home;
                queue.extend(self.route(out, sender.map(|s| (s, from))).into_iter().map(|m| (m, home)));
            }
        }

        fn join(&mut self) {
            let mut out = Vec::new();
            self.sta.start(&mut out).unwrap();
            for o in out {
                if let Output::Air(m) = o {
                    self.datagram(m, self.home);
                }
            }
            assert_eq!(*self.sta.state(), StationState::Connected);
            assert_eq!(self.book.get(STA), Some(self.home));
        }

        /// Whether a frame crosses both ways between the station and the access point.
        fn flows(&mut self) -> bool {
            let mut eth = vec![0u8; 14];
            wlansec_core::wire::llc::EthernetRepr { dst: STA, src: AP, ethertype: 0x0800 }.emit(&mut eth).unwrap();
            eth.extend_from_slice(b"to the station");
            let mut out = Vec::new();
            self.ap.from_host(&eth, &mut out).unwrap();
            let before = self.sta.counters.rx_msdus;
            self.route(out, None);
            let down = self.sta.counters.rx_msdus == before + 1;
            let mut up = eth.clone();
            up[..6].copy_from_slice(&AP.0);
            up[6..12].copy_from_slice(&STA.0);
            let mut out = Vec::new();
            let _ = self.sta.from_host(&up, &mut out);
            self.ap_host.clear();
            for o in out {
                if let Output::Air(m) = o {
                    self.datagram(m, self.home);
                }
            }
            down && self.ap_host.len() == 1
        }
    }

    #[test]
    fn an_sae_station_joins_over_udp_and_traffic_flows() {
        let sae = crate::security::KeyManagement::Sae(crate::security::SaeSettings::default());
        let network = NetworkConfig {
            pmf: Pmf::Required,
            key_management: sae,
            ..NetworkConfig::new("wlansec", AP, "ccmp".parse().unwrap(), "correct horse")
        };
        let mut air = Air::of(network);
        air.join();
        assert!(air.flows());
        assert!(air.elsewhere.is_empty());
    }

    fn authentication(sta: MacAddr) -> Vec<u8> {
        let body = ManagementBody::Authentication(AuthenticationRepr::open_system(1, STATUS_SUCCESS));
        body.to_mpdu(AP, sta, AP, SequenceControl::new(99, 0)).unwrap()
    }

    /// One forged unprotected Authentication in a protected station's name, from another
    /// UDP address: the book still has the station at home, the access point's protected
    /// frames go there and traffic flows; the forger hears only the Authentication reply.
    #[test]
    fn a_forged_authentication_re_points_no_station() {
        let attacker = at("198.51.100.66:6666");
        let mut air = Air::new(Pmf::Required);
        air.join();
        assert!(air.flows());
        air.datagram(authentication(STA), attacker);
        assert_eq!(air.book.get(STA), Some(air.home), "the forgery moved the station");
        assert!(air.flows());
        for (to, mpdu) in &air.elsewhere {
            let f = Frame::new_checked(&mpdu[..], Rules::default()).unwrap();
            assert!(*to == attacker && f.frame_control().is_management() && !f.frame_control().protected());
        }
        assert_eq!(air.elsewhere.len(), 1);
    }

    /// The book's rules alone: an address only from an accepted datagram of that very
    /// station, forgotten when the access point forgets the station; replies to a
    /// datagram's source commit nothing; group frames to every station known.
    #[test]
    fn the_address_book_moves_only_on_the_access_points_word() {
        let (home, other) = (at("192.0.2.1:1"), at("192.0.2.2:2"));
        let mut book = AddressBook::default();
        book.peer(PeerEvent::Accepted(STA), Some((AP, other)));
        book.peer(PeerEvent::Accepted(STA), None);
        assert!(book.is_empty());
        book.peer(PeerEvent::Accepted(STA), Some((STA, home)));
        assert_eq!(book.get(STA), Some(home));
        let reply = ManagementBody::Authentication(AuthenticationRepr::open_system(2, STATUS_SUCCESS))
            .to_mpdu(STA, AP, AP, SequenceControl::new(1, 0))
            .unwrap();
        assert_eq!(book.targets(&reply, Some((STA, other))), vec![other]);
        assert_eq!(book.targets(&reply, None), vec![home]);
        assert_eq!(book.get(STA), Some(home));
        let group = ManagementBody::Authentication(AuthenticationRepr::open_system(2, STATUS_SUCCESS))
            .to_mpdu(MacAddr::BROADCAST, AP, AP, SequenceControl::new(2, 0))
            .unwrap();
        assert_eq!(book.targets(&group, Some((STA, other))), vec![home]);
        assert!(book.targets(&[0u8; 3], None).is_empty());
        book.peer(PeerEvent::Gone(STA), None);
        assert_eq!(book.len(), 0);
    }
}
