//! The access point and the station as sans-IO machines: MPDUs from the air and Ethernet
//! frames from the host go in, MPDUs for the air and Ethernet frames for the host come out.
//! The emulated medium and the UDP transport drive the same code.
//!
//! A station authenticates (open system), associates (with the mode's RSN element), runs
//! the 4-way handshake (which also delivers the GTK) and then carries Ethernet as QoS data
//! (To DS). The access point decrypts each frame under the sender's keys and forwards it to
//! its own host, or re-encrypts it under the receiver's keys (From DS), or under the GTK
//! for group addresses. Until a station's keys are installed its 802.1X port is closed:
//! only EAPOL passes.

use std::collections::BTreeMap;

use serde::Serialize;
use wlansec_core::gen::ChaCha8Rng;
use wlansec_core::rsn::eapol::ETHERTYPE_EAPOL;
use wlansec_core::rsn::{Authenticator, Event, Secret, Supplicant};
use wlansec_core::rx::{Pipeline, RxKey};
use wlansec_core::wire::llc::{self, ETHERNET_HEADER_LEN, SNAP_HEADER_LEN};
use wlansec_core::wire::mgmt::{
    capability, AssociationRequestRepr, AssociationResponseRepr, AuthenticationRepr, DeauthenticationRepr, Elements,
    ElementsBuilder, ManagementBody, REASON_FOUR_WAY_HANDSHAKE_TIMEOUT, STATUS_SUCCESS, SUPPORTED_RATES_BG,
};
use wlansec_core::wire::{Frame, FrameControl, MacAddr, Rules};
use wlansec_core::{Error, Result};

use crate::node::{
    beacon, eapol_of, elements, fresh_rng, handshake_failure, owned_msdus, qos_data, receive, seal, to_ethernet,
    AnyTransmitter, Credential, Sequence,
};
pub use crate::node::{Counters, NetworkConfig, Output};
use crate::security::{LinkKeys, SecurityMode};

/// Ticks (of [`TICK_MS`]) a station waits for an answer before it starts again.
const STATION_PATIENCE_TICKS: u32 = 4;
/// How often the owner calls `tick`.
pub const TICK_MS: u64 = 250;

/// Listen interval a station asks for, in beacon intervals.
const LISTEN_INTERVAL: u16 = 10;

/// Where a station is in joining its network.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "reason")]
pub enum StationState {
    Authenticating,
    Associating,
    Handshaking,
    Connected,
    Failed(String),
}

/// A station (supplicant side).
pub struct Station {
    config: NetworkConfig,
    mac: MacAddr,
    credential: Credential,
    state: StationState,
    waited: u32,
    supplicant: Option<Supplicant>,
    keys: Option<LinkKeys>,
    group_rx: Option<RxKey>,
    pipeline: Pipeline,
    sequence: Sequence,
    rng: ChaCha8Rng,
    pub counters: Counters,
}

impl Station {
    pub fn new(config: NetworkConfig, mac: MacAddr) -> Result<Self> {
        let credential = Credential::of(&config)?;
        Ok(Station {
            config,
            mac,
            credential,
            state: StationState::Authenticating,
            waited: 0,
            supplicant: None,
            keys: None,
            group_rx: None,
            pipeline: Pipeline::new(Rules::default()),
            sequence: Sequence::default(),
            rng: fresh_rng(),
            counters: Counters::default(),
        })
    }

    pub fn mac(&self) -> MacAddr {
        self.mac
    }

    pub fn state(&self) -> &StationState {
        &self.state
    }

    /// Begin joining: send the open-system Authentication request.
    pub fn start(&mut self, out: &mut Vec<Output>) -> Result<()> {
        self.state = StationState::Authenticating;
        self.waited = 0;
        self.supplicant = None;
        self.keys = None;
        self.group_rx = None;
        self.pipeline.clear_fragments();
        let bssid = self.config.bssid;
        let request = ManagementBody::Authentication(AuthenticationRepr::open_system(1, STATUS_SUCCESS));
        out.push(Output::Air(request.to_mpdu(bssid, self.mac, bssid, self.sequence.next())?));
        Ok(())
    }

    /// The retransmission timer: start again when the access point stopped answering.
    pub fn tick(&mut self, out: &mut Vec<Output>) -> Result<()> {
        if matches!(self.state, StationState::Authenticating | StationState::Associating) {
            self.waited += 1;
            if self.waited >= STATION_PATIENCE_TICKS {
                self.start(out)?;
            }
        }
        Ok(())
    }

    /// An Ethernet frame from the host.
    pub fn from_host(&mut self, ethernet: &[u8], out: &mut Vec<Output>) -> Result<()> {
        if self.state != StationState::Connected {
            self.counters.dropped_port_closed += 1;
            return Ok(());
        }
        let eth = llc::EthernetRepr::parse(ethernet)?;
        let bssid = self.config.bssid;
        let (mpdu, len) = qos_data(
            FrameControl::TO_DS,
            bssid,
            self.mac,
            eth.dst,
            self.sequence.next(),
            eth.ethertype,
            &ethernet[ETHERNET_HEADER_LEN..],
        )?;
        out.push(Output::Air(seal(self.keys.as_mut().map(|k| &mut k.tx), mpdu, len)?));
        self.counters.tx_msdus += 1;
        Ok(())
    }

    /// An MPDU heard on the air.
    pub fn from_air(&mut self, mpdu: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let frame = Frame::new_checked(mpdu, Rules::default())?;
        let fc = frame.frame_control();
        let for_us = frame.addr1() == self.mac || frame.addr1().is_group();
        if !for_us || frame.addr2() != Some(self.config.bssid) {
            return Ok(());
        }
        if fc.is_management() {
            return self.management(fc.subtype(), frame.body(), out);
        }
        if !fc.is_data() || !fc.from_ds() {
            return Ok(());
        }
        let key = if frame.addr1().is_group() { self.group_rx.as_mut() } else { self.keys.as_mut().map(|k| &mut k.rx) };
        let Some(delivered) = receive(&mut self.pipeline, &mut self.counters, mpdu, key)? else { return Ok(()) };
        if delivered.header.sa() == self.mac {
            return Ok(()); // our own group frame, relayed back by the access point
        }
        let protected = delivered.protected;
        let msdus = owned_msdus(&delivered)?;
        if !protected && self.config.mode != SecurityMode::Open {
            if let [(_, _, msdu)] = &msdus[..] {
                if let Some(eapol) = eapol_of(msdu) {
                    return self.eapol(eapol, out);
                }
            }
            self.counters.dropped_other += 1;
            return Err(Error::NotProtected);
        }
        for (da, sa, msdu) in msdus {
            out.push(Output::Ethernet(to_ethernet(da, sa, &msdu)?));
            self.counters.rx_msdus += 1;
        }
        Ok(())
    }

    fn management(&mut self, subtype: u8, body: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let bssid = self.config.bssid;
        // A management frame this machine cannot parse is ignored, as one it does not use.
        let Ok(body) = ManagementBody::parse(subtype, body) else { return Ok(()) };
        match (body, &self.state) {
            (ManagementBody::Authentication(auth), StationState::Authenticating)
                if auth.transaction_sequence == 2 && auth.status == STATUS_SUCCESS =>
            {
                let rsne = self.config.mode.rsn_element()?;
                let elements = elements(&self.config.ssid, rsne.as_deref())?;
                let request = AssociationRequestRepr {
                    capability: capability::ESS,
                    listen_interval: LISTEN_INTERVAL,
                    current_ap: None,
                    elements: Elements::new(&elements),
                };
                self.state = StationState::Associating;
                self.waited = 0;
                let mpdu = ManagementBody::AssociationRequest(request).to_mpdu(
                    bssid,
                    self.mac,
                    bssid,
                    self.sequence.next(),
                )?;
                out.push(Output::Air(mpdu));
            }
            (ManagementBody::AssociationResponse(response), StationState::Associating) => {
                if response.status != STATUS_SUCCESS {
                    self.state = StationState::Failed(format!("association refused (status {})", response.status));
                    return Ok(());
                }
                self.associated()?;
            }
            (ManagementBody::Deauthentication(deauth), _) => {
                self.state =
                    StationState::Failed(format!("deauthenticated by the access point (reason {})", deauth.reason));
                self.keys = None;
            }
            _ => {}
        }
        Ok(())
    }

    fn associated(&mut self) -> Result<()> {
        match &self.credential {
            Credential::None => self.state = StationState::Connected,
            Credential::Wep(key) => {
                self.keys = Some(LinkKeys::pairwise(SecurityMode::Wep, key)?);
                self.group_rx = Some(SecurityMode::Wep.rx_key(key)?);
                self.state = StationState::Connected;
            }
            Credential::Psk(pmk) => {
                let params = self.config.mode.handshake_params(self.config.bssid, self.mac)?;
                self.supplicant = Some(Supplicant::new(params, pmk.clone())?);
                self.state = StationState::Handshaking;
            }
        }
        Ok(())
    }

    fn eapol(&mut self, eapol: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let Some(supplicant) = self.supplicant.as_mut() else { return Ok(()) };
        let events = match supplicant.receive(eapol, &mut self.rng) {
            Ok(events) => events,
            Err(e) => {
                self.counters.handshake_errors += 1;
                return Err(e);
            }
        };
        for event in events {
            match event {
                Event::Send(bytes) => {
                    let bssid = self.config.bssid;
                    let (mpdu, len) = qos_data(
                        FrameControl::TO_DS,
                        bssid,
                        self.mac,
                        bssid,
                        self.sequence.next(),
                        ETHERTYPE_EAPOL,
                        &bytes,
                    )?;
                    // EAPOL goes out under the pairwise key once one is installed (none here:
                    // message 4 is sent before the key it confirms is installed).
                    out.push(Output::Air(seal(self.keys.as_mut().map(|k| &mut k.tx), mpdu, len)?));
                }
                Event::InstallPairwise { tk } => {
                    self.keys = Some(LinkKeys::pairwise(self.config.mode, tk.as_bytes())?);
                    self.pipeline.clear_fragments();
                }
                Event::InstallGroup { key_id, gtk, .. } => {
                    self.group_rx = Some(self.config.mode.group_rx_key(gtk.as_bytes())?.with_key_id(key_id));
                }
                Event::PairwiseComplete => self.state = StationState::Connected,
                Event::GroupComplete | Event::TimedOut => {}
            }
        }
        Ok(())
    }
}

/// One station as the access point knows it.
struct Association {
    aid: u16,
    authenticator: Option<Authenticator>,
    keys: Option<LinkKeys>,
    last_error: Option<String>,
    failed: Option<String>,
}

/// What the access point reports about one station.
#[derive(Clone, Debug, Serialize)]
pub struct AssociationStatus {
    pub mac: String,
    pub aid: u16,
    pub port_open: bool,
    pub failure: Option<String>,
}

/// The access point (authenticator side), bridging its stations and its own host.
pub struct AccessPoint {
    config: NetworkConfig,
    credential: Credential,
    gtk: Option<Secret>,
    group_tx: Option<AnyTransmitter>,
    stations: BTreeMap<MacAddr, Association>,
    pipeline: Pipeline,
    sequence: Sequence,
    rng: ChaCha8Rng,
    pub counters: Counters,
}

impl AccessPoint {
    pub fn new(config: NetworkConfig) -> Result<Self> {
        let credential = Credential::of(&config)?;
        let mut rng = fresh_rng();
        let (gtk, group_tx) = credential.group_key(config.mode, &mut rng)?;
        Ok(AccessPoint {
            config,
            credential,
            gtk,
            group_tx,
            stations: BTreeMap::new(),
            pipeline: Pipeline::new(Rules::default()),
            sequence: Sequence::default(),
            rng,
            counters: Counters::default(),
        })
    }

    pub fn bssid(&self) -> MacAddr {
        self.config.bssid
    }

    /// The beacon that announces the network (SSID, rates, RSN element).
    pub fn beacon(&mut self) -> Result<Vec<u8>> {
        beacon(&self.config, capability::ESS, self.config.bssid, self.sequence.next())
    }

    pub fn associations(&self) -> Vec<AssociationStatus> {
        self.stations
            .iter()
            .map(|(mac, a)| AssociationStatus {
                mac: mac.to_string(),
                aid: a.aid,
                port_open: a.keys.is_some() || matches!(self.credential, Credential::None),
                failure: a.failed.clone(),
            })
            .collect()
    }

    /// The retransmission timer of every pending handshake.
    pub fn tick(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let macs: Vec<MacAddr> = self.stations.keys().copied().collect();
        for mac in macs {
            let Some(auth) = self.stations.get_mut(&mac).and_then(|a| a.authenticator.as_mut()) else { continue };
            let events = auth.tick()?;
            self.handle_events(mac, events, out)?;
        }
        Ok(())
    }

    /// An Ethernet frame from the access point's own host.
    pub fn from_host(&mut self, ethernet: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let eth = llc::EthernetRepr::parse(ethernet)?;
        self.forward(eth.dst, eth.src, eth.ethertype, &ethernet[ETHERNET_HEADER_LEN..], out)
    }

    /// Send an MSDU from `sa` to `da` into the BSS (From DS): under the station's keys, or
    /// the group key for group addresses.
    fn forward(
        &mut self,
        da: MacAddr,
        sa: MacAddr,
        ethertype: u16,
        payload: &[u8],
        out: &mut Vec<Output>,
    ) -> Result<()> {
        let bssid = self.config.bssid;
        let open = matches!(self.credential, Credential::None);
        let tx = if da.is_group() {
            self.group_tx.as_mut()
        } else {
            match self.stations.get_mut(&da) {
                Some(a) if a.keys.is_some() || open => a.keys.as_mut().map(|k| &mut k.tx),
                Some(_) => {
                    self.counters.dropped_port_closed += 1;
                    return Ok(());
                }
                None => {
                    self.counters.dropped_other += 1;
                    return Ok(());
                }
            }
        };
        if tx.is_none() && !open {
            self.counters.dropped_port_closed += 1;
            return Ok(());
        }
        let (mpdu, len) = qos_data(FrameControl::FROM_DS, da, bssid, sa, self.sequence.next(), ethertype, payload)?;
        out.push(Output::Air(seal(tx, mpdu, len)?));
        self.counters.tx_msdus += 1;
        Ok(())
    }

    /// An MPDU heard on the air.
    pub fn from_air(&mut self, mpdu: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let frame = Frame::new_checked(mpdu, Rules::default())?;
        let fc = frame.frame_control();
        let bssid = self.config.bssid;
        if frame.addr1() != bssid {
            return Ok(());
        }
        let Some(sta) = frame.addr2() else { return Ok(()) };
        if fc.is_management() {
            return self.management(sta, fc.subtype(), frame.body(), out);
        }
        if !fc.is_data() || !fc.to_ds() || fc.from_ds() {
            return Ok(());
        }
        let open = matches!(self.credential, Credential::None);
        let Some(assoc) = self.stations.get_mut(&sta) else {
            self.counters.dropped_other += 1;
            return Ok(());
        };
        let key = assoc.keys.as_mut().map(|k| &mut k.rx);
        let Some(delivered) = receive(&mut self.pipeline, &mut self.counters, mpdu, key)? else { return Ok(()) };
        let protected = delivered.protected;
        let msdus = owned_msdus(&delivered)?;
        if !protected && !open {
            if let [(_, _, msdu)] = &msdus[..] {
                if let Some(eapol) = eapol_of(msdu) {
                    return self.eapol(sta, eapol.to_vec(), out);
                }
            }
            self.counters.dropped_port_closed += 1;
            return Ok(());
        }
        for (da, sa, msdu) in msdus {
            self.counters.rx_msdus += 1;
            if da == bssid || da.is_group() {
                out.push(Output::Ethernet(to_ethernet(da, sa, &msdu)?));
            }
            if da != bssid {
                let ethertype = llc::parse_snap(&msdu)?;
                self.forward(da, sa, ethertype, &msdu[SNAP_HEADER_LEN..], out)?;
                self.counters.forwarded_msdus += 1;
            }
        }
        Ok(())
    }

    /// A management frame from the AP to one of its stations.
    fn management_to(&mut self, body: ManagementBody<'_>, sta: MacAddr) -> Result<Vec<u8>> {
        let bssid = self.config.bssid;
        body.to_mpdu(sta, bssid, bssid, self.sequence.next())
    }

    fn management(&mut self, sta: MacAddr, subtype: u8, body: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let bssid = self.config.bssid;
        let Ok(body) = ManagementBody::parse(subtype, body) else { return Ok(()) };
        match body {
            ManagementBody::Authentication(auth) if auth.transaction_sequence == 1 => {
                // A (re)starting station forgets its old association, keys and fragments.
                self.stations.remove(&sta);
                self.pipeline.forget(sta);
                let reply = ManagementBody::Authentication(AuthenticationRepr::open_system(2, STATUS_SUCCESS));
                out.push(Output::Air(self.management_to(reply, sta)?));
            }
            ManagementBody::AssociationRequest(_) => {
                let aid = self.stations.get(&sta).map_or(self.stations.len() as u16 + 1, |a| a.aid);
                let mut assoc = Association { aid, authenticator: None, keys: None, last_error: None, failed: None };
                if let Credential::Wep(key) = &self.credential {
                    assoc.keys = Some(LinkKeys::pairwise(SecurityMode::Wep, key)?);
                }
                let rates = ElementsBuilder::new().supported_rates(&SUPPORTED_RATES_BG)?.build();
                let response = AssociationResponseRepr {
                    capability: capability::ESS,
                    status: STATUS_SUCCESS,
                    aid,
                    elements: Elements::new(&rates),
                };
                out.push(Output::Air(self.management_to(ManagementBody::AssociationResponse(response), sta)?));
                let events = match (&self.credential, &self.gtk) {
                    (Credential::Psk(pmk), Some(gtk)) => {
                        let params = self.config.mode.handshake_params(bssid, sta)?;
                        let mut auth = Authenticator::new(params, pmk.clone(), 1, gtk.clone())?;
                        let events = auth.start(&mut self.rng)?;
                        assoc.authenticator = Some(auth);
                        events
                    }
                    _ => Vec::new(),
                };
                self.stations.insert(sta, assoc);
                self.handle_events(sta, events, out)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn eapol(&mut self, sta: MacAddr, eapol: Vec<u8>, out: &mut Vec<Output>) -> Result<()> {
        let Some(assoc) = self.stations.get_mut(&sta) else { return Ok(()) };
        let Some(auth) = assoc.authenticator.as_mut() else { return Ok(()) };
        match auth.receive(&eapol) {
            Ok(events) => self.handle_events(sta, events, out),
            Err(e) => {
                // A late answer to a retransmitted message is stale, not the cause.
                if !matches!(e, Error::Replay { .. }) {
                    assoc.last_error = Some(e.to_string());
                }
                self.counters.handshake_errors += 1;
                Err(e)
            }
        }
    }

    fn handle_events(&mut self, sta: MacAddr, events: Vec<Event>, out: &mut Vec<Output>) -> Result<()> {
        let bssid = self.config.bssid;
        for event in events {
            match event {
                Event::Send(bytes) => {
                    let (mpdu, len) = qos_data(
                        FrameControl::FROM_DS,
                        sta,
                        bssid,
                        bssid,
                        self.sequence.next(),
                        ETHERTYPE_EAPOL,
                        &bytes,
                    )?;
                    out.push(Output::Air(seal(None, mpdu, len)?));
                }
                Event::InstallPairwise { tk } => {
                    let keys = LinkKeys::pairwise(self.config.mode, tk.as_bytes())?;
                    if let Some(a) = self.stations.get_mut(&sta) {
                        a.keys = Some(keys);
                    }
                    self.pipeline.forget(sta);
                }
                Event::TimedOut => {
                    let Some(a) = self.stations.get_mut(&sta) else { continue };
                    a.failed = Some(handshake_failure(a.last_error.as_deref(), "no answer from the station"));
                    a.authenticator = None;
                    let deauth = DeauthenticationRepr { reason: REASON_FOUR_WAY_HANDSHAKE_TIMEOUT };
                    out.push(Output::Air(self.management_to(ManagementBody::Deauthentication(deauth), sta)?));
                }
                Event::InstallGroup { .. } | Event::PairwiseComplete | Event::GroupComplete => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wlansec_core::wire::SequenceControl;

    const AP: MacAddr = MacAddr([0x02, 0x77, 0, 0, 0, 0xfe]);

    fn config(mode: &str, passphrase: &str) -> NetworkConfig {
        NetworkConfig { ssid: "wlansec".into(), bssid: AP, mode: mode.parse().unwrap(), passphrase: passphrase.into() }
    }

    fn sta_mac(i: u8) -> MacAddr {
        MacAddr([0x02, 0x77, 0, 0, 0, i])
    }

    /// Frames as byte vectors: Ethernet frames handed to a host, or MPDUs on the air.
    type Frames = Vec<Vec<u8>>;

    /// Deliver every air frame to every machine until nothing more is sent; returns the
    /// Ethernet frames each host received.
    fn run(ap: &mut AccessPoint, stas: &mut [Station], mut air: Frames) -> (Frames, Vec<Frames>) {
        let mut ap_host = Vec::new();
        let mut sta_host = vec![Vec::new(); stas.len()];
        for _ in 0..64 {
            if air.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for mpdu in air.drain(..) {
                let mut out = Vec::new();
                let _ = ap.from_air(&mpdu, &mut out);
                for o in out.drain(..) {
                    match o {
                        Output::Air(m) => next.push(m),
                        Output::Ethernet(e) => ap_host.push(e),
                    }
                }
                for (i, s) in stas.iter_mut().enumerate() {
                    let _ = s.from_air(&mpdu, &mut out);
                    for o in out.drain(..) {
                        match o {
                            Output::Air(m) => next.push(m),
                            Output::Ethernet(e) => sta_host[i].push(e),
                        }
                    }
                }
            }
            air = next;
        }
        (ap_host, sta_host)
    }

    fn join(mode: &str, sta_passphrase: &str) -> (AccessPoint, Vec<Station>) {
        let mut ap = AccessPoint::new(config(mode, "correct horse")).unwrap();
        let mut stas: Vec<Station> =
            (1..=2).map(|i| Station::new(config(mode, sta_passphrase), sta_mac(i)).unwrap()).collect();
        let mut air = Vec::new();
        let mut out = Vec::new();
        for s in stas.iter_mut() {
            s.start(&mut out).unwrap();
        }
        air.extend(out.into_iter().map(|o| match o {
            Output::Air(m) => m,
            Output::Ethernet(_) => unreachable!(),
        }));
        run(&mut ap, &mut stas, air);
        (ap, stas)
    }

    fn ethernet(dst: MacAddr, src: MacAddr, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 14];
        llc::EthernetRepr { dst, src, ethertype: 0x0800 }.emit(&mut f).unwrap();
        f.extend_from_slice(payload);
        f
    }

    fn send(ap: &mut AccessPoint, stas: &mut [Station], from: usize, frame: &[u8]) -> (Frames, Vec<Frames>, Frames) {
        let mut out = Vec::new();
        stas[from].from_host(frame, &mut out).unwrap();
        let air: Vec<Vec<u8>> =
            out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }).collect();
        let (a, s) = run(ap, stas, air.clone());
        (a, s, air)
    }

    #[test]
    fn every_mode_carries_unicast_and_group_frames_between_stations() {
        for mode in ["open", "wep", "tkip", "ccmp", "enhanced:1", "enhanced:4"] {
            let pass = if mode == "wep" { "abcdefghijklm" } else { "correct horse" };
            let mut ap = AccessPoint::new(config(mode, pass)).unwrap();
            let mut stas: Vec<Station> =
                (1..=2).map(|i| Station::new(config(mode, pass), sta_mac(i)).unwrap()).collect();
            let mut out = Vec::new();
            for s in stas.iter_mut() {
                s.start(&mut out).unwrap();
            }
            let air = out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }).collect();
            run(&mut ap, &mut stas, air);
            assert!(
                stas.iter().all(|s| *s.state() == StationState::Connected),
                "{mode}: {:?}",
                stas.iter().map(|s| s.state().clone()).collect::<Vec<_>>()
            );

            let unicast = ethernet(sta_mac(2), sta_mac(1), b"hello station two, through the AP");
            let (ap_host, sta_host, air) = send(&mut ap, &mut stas, 0, &unicast);
            assert_eq!(sta_host[1], vec![unicast.clone()], "{mode}");
            assert!(ap_host.is_empty() && sta_host[0].is_empty(), "{mode}");
            if mode != "open" {
                assert!(!air[0].windows(8).any(|w| w == b"hello st"), "{mode}: plaintext on the air");
            }

            let group = ethernet(MacAddr::BROADCAST, sta_mac(1), b"who has 10.77.0.2?");
            let (ap_host, sta_host, _) = send(&mut ap, &mut stas, 0, &group);
            assert_eq!(ap_host, vec![group.clone()], "{mode}");
            assert_eq!(sta_host[1], vec![group.clone()], "{mode}");
            assert!(sta_host[0].is_empty(), "{mode}: own group frame came back");
        }
    }

    #[test]
    fn wrong_passphrase_fails_the_handshake_and_passes_no_data() {
        let (mut ap, mut stas) = join("ccmp", "battery staple");
        assert!(stas.iter().all(|s| *s.state() == StationState::Handshaking));
        let mut out = Vec::new();
        for _ in 0..4 {
            ap.tick(&mut out).unwrap();
        }
        let air = out.into_iter().filter_map(|o| if let Output::Air(m) = o { Some(m) } else { None }).collect();
        run(&mut ap, &mut stas, air);
        for a in ap.associations() {
            let failure = a.failure.expect("failure recorded");
            assert!(failure.contains("MIC") && failure.contains("wrong passphrase"), "{failure}");
            assert!(!a.port_open);
        }
        assert!(stas.iter().all(|s| matches!(s.state(), StationState::Failed(_))));
        let frame = ethernet(sta_mac(2), sta_mac(1), b"data");
        let (ap_host, sta_host, air) = send(&mut ap, &mut stas, 0, &frame);
        assert!(air.is_empty() && ap_host.is_empty() && sta_host.iter().all(|h| h.is_empty()));
        assert_eq!(stas[0].counters.dropped_port_closed, 1);
    }

    #[test]
    fn replayed_and_tampered_frames_are_dropped_and_counted() {
        for mode in ["ccmp", "tkip", "enhanced:2"] {
            let (mut ap, mut stas) = join(mode, "correct horse");
            let frame = ethernet(AP, sta_mac(1), b"to the access point's host");
            let (ap_host, _, air) = send(&mut ap, &mut stas, 0, &frame);
            assert_eq!(ap_host.len(), 1);
            let mut out = Vec::new();
            assert!(matches!(ap.from_air(&air[0], &mut out), Err(Error::Replay { .. })), "{mode}");
            assert_eq!(ap.counters.dropped_replay, 1, "{mode}");
            let mut sent = Vec::new();
            stas[0].from_host(&frame, &mut sent).unwrap();
            let Some(Output::Air(mut tampered)) = sent.pop() else { panic!("nothing sent") };
            let n = tampered.len();
            tampered[n - 12] ^= 0x01;
            assert!(ap.from_air(&tampered, &mut out).is_err(), "{mode}");
            assert_eq!(ap.counters.dropped_integrity, 1, "{mode}");
            assert!(out.is_empty());
            assert_eq!(ap.counters.rx_msdus, 1, "{mode}");
        }
    }

    #[test]
    fn unprotected_data_is_refused_on_a_protected_network() {
        let (mut ap, mut stas) = join("ccmp", "correct horse");
        let (mpdu, len) =
            qos_data(FrameControl::TO_DS, AP, sta_mac(1), AP, SequenceControl::new(1, 0), 0x0800, b"forged").unwrap();
        let mut out = Vec::new();
        ap.from_air(&mpdu[..len], &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(ap.counters.dropped_port_closed, 1);
        let (mpdu, len) =
            qos_data(FrameControl::FROM_DS, sta_mac(1), AP, AP, SequenceControl::new(1, 0), 0x0800, b"forged").unwrap();
        assert!(stas[0].from_air(&mpdu[..len], &mut out).is_err());
        assert!(out.is_empty());
    }
}
