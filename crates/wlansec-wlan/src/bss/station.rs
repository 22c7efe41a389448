//! The station (supplicant side): authenticates, associates, runs the 4-way handshake and
//! then carries its host's Ethernet frames to and from the access point. It holds a group
//! key per Key ID, each from the Key RSC it came with, and reports Michael MIC failures.

use wlansec_core::gen::ChaCha8Rng;
use wlansec_core::rsn::eapol::ETHERTYPE_EAPOL;
use wlansec_core::rsn::element::transition_disable;
use wlansec_core::rsn::sae::message::ALGORITHM_SAE;
use wlansec_core::rsn::sae::StatusCode;
use wlansec_core::rsn::{Akm, Event, Pmk, Supplicant};
use wlansec_core::rx::port::Admitted;
use wlansec_core::rx::{Defences, Pipeline};
use wlansec_core::wire::llc::{self, ETHERNET_HEADER_LEN};
use wlansec_core::wire::mgmt::{
    self, capability, AssociationRequestRepr, AuthenticationRepr, DeauthenticationRepr, Elements, ManagementBody,
    OPEN_SYSTEM, REASON_FOUR_WAY_HANDSHAKE_TIMEOUT, REASON_MICHAEL_MIC_FAILURE, STATUS_SUCCESS,
};
use wlansec_core::wire::{Frame, FrameControl, MacAddr, Rules};

mod owe;
mod protection;
mod sae;

use super::access_point::STATUS_INVALID_PMKID;
use super::StationState;
use crate::group::GroupRx;
use crate::node::{data_mpdus, elements, fresh_rng, qos_header, receive, to_host, Credential, Sequence};
use crate::node::{Counters, NetworkConfig, Output};
use crate::pmf;
use crate::security::{LinkKeys, SecurityMode, RSNXE_ID};
use crate::tkip::Countermeasures;
use crate::Result;

/// Ticks (of [`super::TICK_MS`]) a station waits for an answer before it starts again.
const STATION_PATIENCE_TICKS: u32 = 4;
/// Ticks a station waits in the 4-way handshake (the access point gives up after about a
/// second and says so; a station it silently dropped starts again after this).
const HANDSHAKE_PATIENCE_TICKS: u32 = 20;
/// The wait before joining again after leaving the network, doubled each time it leaves
/// before it connects again, as wpa_supplicant does; reset once connected.
const FIRST_BACKOFF_MS: u64 = 1_000;
const MAX_BACKOFF_MS: u64 = 16_000;
/// Attempts in a row that end in what a configuration error causes, before the station
/// ever connected, after which the station says it is probably one: 4-way handshakes the
/// access point ends with reason 15 (a wrong passphrase), or refusals for a policy. It still
/// tries again (every [`MAX_BACKOFF_MS`], as wpa_supplicant does): those frames are not
/// authenticated, so a forger can send them too, and must not end a station.
const CONFIG_ERRORS_REPORTED: u32 = 3;
/// Association refusals that are configuration errors: incompatible management frame
/// protection policies (31) and RSN elements (40 to 46).
const POLICY_STATUSES: [u16; 8] = [31, 40, 41, 42, 43, 44, 45, 46];

/// Element ID of the Channel Switch Announcement (9.4.2.18).
const CHANNEL_SWITCH_ANNOUNCEMENT: u8 = 37;

/// Listen interval a station asks for, in beacon intervals.
const LISTEN_INTERVAL: u16 = 10;
/// A station (supplicant side).
pub struct Station {
    config: NetworkConfig,
    mac: MacAddr,
    credential: Credential,
    state: StationState,
    waited: u32,
    /// When a station that left joins again, and the wait after the next departure.
    rejoin_at_ms: u64,
    backoff_ms: u64,
    /// The station completed a 4-way handshake once: its passphrase and policy are right,
    /// so nothing an access point (or a forger) says ends it.
    ever_connected: bool,
    /// Attempts in a row that ended as a configuration error would end them.
    config_errors: u32,
    /// Milliseconds of `tick`s so far: the station's only clock (sans-IO).
    now_ms: u64,
    countermeasures: Countermeasures,
    supplicant: Option<Supplicant>,
    keys: Option<LinkKeys>,
    group_rx: GroupRx,
    /// The access point's RSN element and RSN Extension element, from its beacon (what its
    /// 4-way handshake must repeat).
    ap_rsne: Option<Vec<u8>>,
    ap_rsnxe: Option<Vec<u8>>,
    /// A beacon of the access point was heard (so `ap_rsne` says what it offers).
    beacon_heard: bool,
    /// The AKM of the attempt in progress: the network's, or in transition mode SAE or
    /// the PSK, as the access point's beacon offers them.
    akm: Akm,
    /// The PSK of a station in transition mode, for an access point without SAE.
    transition_psk: Option<Pmk>,
    /// The network sent Transition Disable (WPA3-Personal): the PSK is never used again.
    psk_disabled: bool,
    /// The link protects management frames (802.11w), as negotiated at association.
    mfp: bool,
    /// The link's rules: SPP A-MSDU when both sides advertise it.
    link_rules: Rules,
    /// The SA Query an unprotected Deauthentication or Disassociation made the station
    /// send its access point: its ID and deadline.
    sa_query: Option<([u8; 2], u64)>,
    integrity: pmf::IntegrityReceiver,
    /// The BIGTK, with beacon protection: once installed, every beacon must verify.
    beacon_integrity: pmf::IntegrityReceiver,
    /// The channel the access point's last Channel Switch Announcement moved it to.
    channel: Option<u8>,
    /// The SAE exchange and PMKSA of an SAE network.
    sae: Option<sae::SaeStation>,
    /// The OWE key pair of the association request out, on an OWE network.
    owe: Option<wlansec_core::rsn::owe::OweStation>,
    /// The groups refused and the PMKSA of an OWE network.
    owe_state: owe::OweState,
    pipeline: Pipeline,
    sequence: Sequence,
    rng: ChaCha8Rng,
    pub counters: Counters,
}

impl Station {
    pub fn new(config: NetworkConfig, mac: MacAddr) -> Result<Self> {
        let credential = Credential::of(&config)?;
        let sae = matches!(credential, Credential::Sae(_)).then(sae::SaeStation::default);
        Ok(Station {
            sae,
            owe: None,
            owe_state: owe::OweState::default(),
            mac,
            credential,
            state: StationState::Authenticating,
            waited: 0,
            rejoin_at_ms: 0,
            backoff_ms: FIRST_BACKOFF_MS,
            ever_connected: false,
            config_errors: 0,
            now_ms: 0,
            countermeasures: Countermeasures::default(),
            supplicant: None,
            keys: None,
            group_rx: GroupRx::default(),
            ap_rsne: None,
            ap_rsnxe: None,
            beacon_heard: false,
            akm: config.key_management.akm(),
            transition_psk: Credential::transition_psk(&config)?,
            psk_disabled: false,
            mfp: false,
            link_rules: Rules::default(),
            sa_query: None,
            integrity: pmf::IntegrityReceiver::default(),
            beacon_integrity: pmf::IntegrityReceiver::default(),
            channel: None,
            pipeline: Pipeline::new(Rules::default()),
            sequence: Sequence::default(),
            rng: fresh_rng(),
            counters: Counters::default(),
            config,
        })
    }

    /// The same machine with only `defences` of the receive pipeline: every one is on by
    /// default; switching one off shows in a test or a measurement that its attack succeeds.
    pub fn with_defences(mut self, defences: Defences) -> Self {
        self.pipeline = Pipeline::with_defences(Rules::default(), defences);
        self
    }

    /// The installed pairwise TK (tests forge frames under it).
    #[cfg(test)]
    pub(crate) fn pairwise_tk(&self) -> Option<wlansec_core::rsn::Secret> {
        self.supplicant.as_ref()?.ptk().map(|ptk| ptk.tk.clone())
    }

    pub fn mac(&self) -> MacAddr {
        self.mac
    }

    /// The AKM of the link (or of the attempt in progress): in transition mode, SAE or the
    /// PSK, whichever the access point's beacon led the station to.
    pub fn akm(&self) -> Akm {
        self.akm
    }

    pub fn state(&self) -> &StationState {
        &self.state
    }

    /// The channel the access point announced a switch to (Channel Switch Announcement in
    /// its beacon), if it did: where the station follows it.
    pub fn channel(&self) -> Option<u8> {
        self.channel
    }

    /// Begin joining: send the open-system Authentication request.
    pub fn start(&mut self, out: &mut Vec<Output>) -> Result<()> {
        self.state = StationState::Authenticating;
        self.waited = 0;
        self.supplicant = None;
        self.keys = None;
        self.group_rx.clear();
        self.mfp = false;
        self.sa_query = None;
        self.link_rules = Rules::default();
        self.integrity = pmf::IntegrityReceiver::default();
        self.beacon_integrity = pmf::IntegrityReceiver::default();
        self.pipeline.clear_fragments();
        let akm = match self.transition_akm() {
            Ok(akm) => akm,
            Err(why) => {
                self.leave(why.into());
                return Ok(());
            }
        };
        self.akm = akm;
        self.owe_state.restart();
        if self.sae.is_some() && akm != Akm::Psk {
            return self.sae_start(out);
        }
        let bssid = self.config.bssid;
        let request = ManagementBody::Authentication(AuthenticationRepr::open_system(1, STATUS_SUCCESS));
        out.push(Output::Air(request.to_mpdu(bssid, self.mac, bssid, self.sequence.next())?));
        Ok(())
    }

    /// The retransmission timer: start again when the access point stopped answering.
    pub fn tick(&mut self, out: &mut Vec<Output>) -> Result<()> {
        self.now_ms += super::TICK_MS;
        let countermeasures = self.countermeasures.active(self.now_ms);
        self.counters.countermeasures_active = countermeasures;
        match self.state {
            StationState::Countermeasures => {
                if !countermeasures {
                    self.start(out)?;
                }
            }
            StationState::Rejoining(_) | StationState::Failed(_) if self.now_ms >= self.rejoin_at_ms => {
                self.start(out)?
            }
            StationState::Authenticating | StationState::Associating => {
                self.waited += 1;
                if self.waited >= STATION_PATIENCE_TICKS {
                    self.start(out)?;
                } else if self.state == StationState::Authenticating {
                    self.sae_resend(out)?;
                }
            }
            StationState::Handshaking => {
                self.waited += 1;
                if self.waited >= HANDSHAKE_PATIENCE_TICKS {
                    self.leave("no 4-way handshake from the access point".into());
                }
            }
            StationState::Connected if self.sa_query_expired() => {
                self.leave("the access point did not answer an SA Query (it forgot the link)".into());
            }
            StationState::Rejoining(_) | StationState::Connected | StationState::Failed(_) => {}
        }
        Ok(())
    }

    /// Leave the network (keys dropped) and join again after the backoff, which doubles
    /// each time until the station connects.
    fn leave(&mut self, why: String) {
        self.sa_query = None;
        self.supplicant = None;
        self.keys = None;
        self.group_rx.clear();
        self.rejoin_at_ms = self.now_ms + self.backoff_ms;
        self.backoff_ms = (self.backoff_ms * 2).min(MAX_BACKOFF_MS);
        self.state = StationState::Rejoining(why);
    }

    /// The access point ended the link (Deauthentication or Disassociation, `what`): join
    /// again after the backoff; the third 4-way handshake in a row it ends with reason 15
    /// before the station ever connected is probably a wrong passphrase.
    fn ended(&mut self, what: &str, reason: u16) {
        // Nothing to end before an association (a forger's frame cannot delay a rejoin).
        if !matches!(self.state, StationState::Handshaking | StationState::Connected) {
            return;
        }
        let why = format!("{what} by the access point (reason {reason}: {})", mgmt::reason_text(reason));
        let handshake_failed = self.state == StationState::Handshaking && reason == REASON_FOUR_WAY_HANDSHAKE_TIMEOUT;
        if handshake_failed {
            self.config_error(format!("{CONFIG_ERRORS_REPORTED} 4-way handshakes failed: {why}"), why);
        } else {
            self.leave(why);
        }
    }

    /// An attempt ended as a configuration error would end it: it leaves (`why`) and tries
    /// again after the backoff; from the third in a row before the station ever connected,
    /// it says it is probably one (`diagnosis`) and tries again after the longest backoff.
    fn config_error(&mut self, diagnosis: String, why: String) {
        self.config_errors += 1;
        self.leave(why);
        if self.config_errors >= CONFIG_ERRORS_REPORTED && !self.ever_connected {
            self.rejoin_at_ms = self.now_ms + MAX_BACKOFF_MS;
            self.state = StationState::Failed(diagnosis);
        }
    }

    /// An Ethernet frame from the host.
    pub fn from_host(&mut self, ethernet: &[u8], out: &mut Vec<Output>) -> Result<()> {
        if self.state != StationState::Connected {
            self.counters.dropped_port_closed += 1;
            return Ok(());
        }
        let eth = llc::EthernetRepr::parse(ethernet)?;
        let bssid = self.config.bssid;
        let header = qos_header(FrameControl::TO_DS, bssid, self.mac, eth.dst, self.sequence.next());
        let tx = self.keys.as_mut().map(|k| &mut k.tx);
        let payload = &ethernet[ETHERNET_HEADER_LEN..];
        let mpdus = data_mpdus(header, eth.ethertype, payload, tx, self.config.fragment_threshold)?;
        out.extend(mpdus.into_iter().map(Output::Air));
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
            return self.management_from(mpdu, out);
        }
        if !fc.is_data() || !fc.from_ds() {
            return Ok(());
        }
        let group = frame.addr1().is_group();
        let key = if group { self.group_rx.for_frame(mpdu) } else { self.keys.as_mut().map(|k| &mut k.rx) };
        let (mac, mode) = (self.mac, self.config.mode);
        let (header, admitted) = match receive(&mut self.pipeline, &mut self.counters, mpdu, key, mac, mode) {
            Ok(Some(received)) => received,
            Ok(None) => return Ok(()),
            Err(e) => {
                if matches!(e, crate::Error::Frame(wlansec_core::Error::MicFailure)) && mode == SecurityMode::Tkip {
                    self.report_mic_failure(!group, out)?;
                }
                return Err(e);
            }
        };
        if header.sa() == self.mac {
            return Ok(()); // our own group frame, relayed back by the access point
        }
        match admitted {
            Admitted::Eapol(eapol) => self.eapol(&eapol, out),
            Admitted::Data(msdus) => to_host(msdus, &mut self.counters, out),
        }
    }

    /// A management frame from the access point, its plaintext body (`protected`: it came
    /// protected).
    fn management(&mut self, subtype: u8, body: &[u8], protected: bool, out: &mut Vec<Output>) -> Result<()> {
        let raw = body;
        // A management frame this machine cannot parse is ignored, as one it does not use.
        let Ok(body) = ManagementBody::parse(subtype, body) else { return Ok(()) };
        // Open System admits to an SAE network only a station that names a cached PMKSA (or,
        // in transition mode, one that takes the PSK).
        let open_system_joins =
            self.akm == Akm::Psk || self.sae.as_ref().is_none_or(|s| s.pmksa(self.now_ms).is_some());
        match (body, &self.state) {
            (ManagementBody::Beacon(beacon), _) => {
                if self.owe_transition_to(&beacon.elements, out)? {
                    return Ok(());
                }
                self.beacon_heard = true;
                self.ap_rsne = beacon.elements.rsn().map(<[u8]>::to_vec);
                let rsnxe = beacon.elements.find(RSNXE_ID);
                self.ap_rsnxe = rsnxe.map(|e| e.as_bytes().to_vec());
                if let Some(sae) = self.sae.as_mut() {
                    sae.beacon_rsnxe(rsnxe.map(|e| e.data()));
                }
                if let Some(csa) = beacon.elements.find(CHANNEL_SWITCH_ANNOUNCEMENT) {
                    // Mode, New Channel Number, Count (9.4.2.18).
                    self.channel = csa.data().get(1).copied().or(self.channel);
                }
            }
            (ManagementBody::Action(action), _) => self.action(action, protected, out)?,
            (ManagementBody::Authentication(auth), _) if auth.algorithm == ALGORITHM_SAE => self.sae_frame(raw, out)?,
            (ManagementBody::Authentication(auth), StationState::Authenticating)
                if auth.algorithm == OPEN_SYSTEM
                    && auth.transaction_sequence == 2
                    && auth.status == STATUS_SUCCESS
                    && open_system_joins =>
            {
                self.associate(out)?
            }
            (ManagementBody::AssociationResponse(response), StationState::Associating)
                if response.status == STATUS_INVALID_PMKID && self.sae.is_some() =>
            {
                self.sae_pmkid_refused(out)?;
            }
            (ManagementBody::AssociationResponse(response), StationState::Associating)
                if response.status == StatusCode::UNSUPPORTED_FINITE_CYCLIC_GROUP.0 && self.owe.is_some() =>
            {
                self.owe_group_refused(out)?;
            }
            (ManagementBody::AssociationResponse(response), StationState::Associating)
                if response.status == pmf::STATUS_REFUSED_TEMPORARILY =>
            {
                // The access point is asking our old link (an SA Query) whether it is still
                // there; it is not, so after its timeout the next attempt is admitted.
                self.waited = 0;
            }
            (ManagementBody::AssociationResponse(response), StationState::Associating) => {
                if response.status != STATUS_SUCCESS {
                    let why = format!("association refused (status {})", response.status);
                    // A policy that cannot meet the access point's is a configuration error
                    // (said three times in a row); anything else (a full table, say)
                    // passes, so try again later.
                    if POLICY_STATUSES.contains(&response.status) {
                        self.config_error(why.clone(), why);
                    } else {
                        self.leave(why);
                    }
                    return Ok(());
                }
                self.associated(&response.elements)?;
            }
            (ManagementBody::Deauthentication(deauth), StationState::Countermeasures)
                if deauth.reason == REASON_MICHAEL_MIC_FAILURE => {}
            (ManagementBody::Deauthentication(deauth), _) if deauth.reason == REASON_MICHAEL_MIC_FAILURE => {
                // TKIP countermeasures are temporary: join again once the access point
                // admits stations again (refused until then, the request is repeated).
                self.start(out)?;
            }
            (ManagementBody::Deauthentication(deauth), _) => self.ended("deauthenticated", deauth.reason),
            (ManagementBody::Disassociation(disassoc), _) => self.ended("disassociated", disassoc.reason),
            _ => {}
        }
        Ok(())
    }

    /// Authenticated: send the association request.
    fn associate(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let bssid = self.config.bssid;
        let rsne = self.own_rsne()?;
        let mut elements = elements(&self.config.ssid, rsne.as_deref())?;
        if let Some(owe) = self.owe_request_element() {
            elements.extend_from_slice(&owe);
        }
        let request = AssociationRequestRepr {
            capability: capability::ESS,
            listen_interval: LISTEN_INTERVAL,
            current_ap: None,
            elements: Elements::new(&elements),
        };
        self.state = StationState::Associating;
        self.waited = 0;
        let mpdu = ManagementBody::AssociationRequest(request).to_mpdu(bssid, self.mac, bssid, self.sequence.next())?;
        out.push(Output::Air(mpdu));
        Ok(())
    }

    /// Associated, by a response that carried `elements`: keys, or the 4-way handshake.
    fn associated(&mut self, elements: &Elements<'_>) -> Result<()> {
        match &self.credential {
            Credential::None => self.connected(),
            Credential::Wep(key) => {
                self.keys = Some(LinkKeys::pairwise(SecurityMode::Wep, key)?);
                self.group_rx.install(0, SecurityMode::Wep.rx_key(key)?);
                self.connected();
            }
            Credential::Psk(_) | Credential::Sae(_) | Credential::Owe => {
                let mode = self.config.mode;
                let lacks = |what| crate::Error::ModeLacks { mode: mode.to_string(), what };
                // The element the association request carried (before an OWE answer names a
                // new PMKSA).
                let own = self.own_rsne()?.ok_or(lacks("4-way handshake"))?;
                let pmk = match (&self.credential, &self.transition_psk) {
                    (Credential::Psk(pmk), _) => pmk.clone(),
                    (Credential::Owe, _) => self.owe_pmk(elements)?,
                    (_, Some(psk)) if self.akm == Akm::Psk => psk.clone(),
                    _ => self.sae_pmk().ok_or(lacks("PMKSA"))?,
                };
                // Without a beacon heard yet (the UDP air has none before association), the
                // network's element stands for the AP's, and message 3 need only offer our AKM.
                let beacon_rsne = self.ap_rsne.clone();
                let ap = match beacon_rsne.clone() {
                    Some(ap) => ap,
                    None => self.config.rsn_element()?.ok_or(lacks("4-way handshake"))?,
                };
                // The access point admitted us, so the policies met; a beacon that says
                // otherwise was not the AP's, and its handshake will not verify.
                self.mfp = pmf::negotiate(&ap, &own).unwrap_or(false);
                // SAE links protect their management frames: an access point that does not
                // (in transition mode it need not offer it to PSK stations) gets no SAE link.
                if self.sae.is_some() && self.akm != Akm::Psk && !self.mfp {
                    let why = "SAE without management frame protection refused".to_string();
                    self.config_error(why.clone(), why);
                    return Ok(());
                }
                self.link_rules = SecurityMode::link_rules(&ap, &own);
                let params = self.config.mode.handshake_params(self.akm, self.config.bssid, self.mac, ap, own)?;
                let supplicant = Supplicant::new(params, pmk)?;
                self.supplicant = Some(match beacon_rsne {
                    Some(_) => supplicant.with_ap_rsnxe(self.ap_rsnxe.clone()),
                    None => supplicant.with_ap_elements_unknown(),
                });
                self.state = StationState::Handshaking;
                self.waited = 0;
            }
        }
        Ok(())
    }

    fn connected(&mut self) {
        self.state = StationState::Connected;
        self.ever_connected = true;
        self.config_errors = 0;
        self.backoff_ms = FIRST_BACKOFF_MS;
    }

    fn eapol(&mut self, eapol: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let Some(supplicant) = self.supplicant.as_mut() else { return Ok(()) };
        let events = match supplicant.receive(eapol, &mut self.rng) {
            Ok(events) => events,
            Err(e) => {
                self.counters.handshake_errors += 1;
                return Err(crate::Error::Handshake { peer: self.config.bssid, why: e });
            }
        };
        for event in events {
            match event {
                Event::Send(bytes) => self.send_eapol(&bytes, out)?,
                Event::InstallPairwise { tk } => {
                    self.keys = Some(LinkKeys::pairwise_under(self.config.mode, tk.as_bytes(), self.link_rules)?);
                    self.pipeline.clear_fragments();
                }
                Event::InstallGroup { key_id, gtk, rsc } => {
                    // Beside the GTK under the other Key ID: during a rotation group frames
                    // come under either. The RSC makes earlier group frames replays.
                    let key = self.config.mode.group_rx_key(gtk.as_bytes())?.with_key_id(key_id).with_rsc(rsc);
                    self.group_rx.install(key_id, key);
                }
                Event::InstallIntegrityGroup { key_id, igtk, ipn } => {
                    self.integrity.install(self.config.mode.group_mgmt_cipher(), key_id, &igtk, ipn)?
                }
                Event::InstallBeaconIntegrity { key_id, bigtk, bipn } => {
                    self.beacon_integrity.install(self.config.mode.group_mgmt_cipher(), key_id, &bigtk, bipn)?
                }
                Event::PairwiseComplete => {
                    let disabled = self.supplicant.as_ref().map_or(0, Supplicant::transition_disable);
                    self.psk_disabled |= disabled & transition_disable::WPA3_PERSONAL != 0;
                    self.connected();
                }
                Event::GroupComplete | Event::TimedOut | Event::MicFailureReported { .. } => {}
            }
        }
        Ok(())
    }

    fn send_eapol(&mut self, eapol: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let bssid = self.config.bssid;
        let header = qos_header(FrameControl::TO_DS, bssid, self.mac, bssid, self.sequence.next());
        // EAPOL goes out under the pairwise key once one is installed (message 4 of the first
        // handshake goes before the key it confirms is installed).
        let tx = self.keys.as_mut().map(|k| &mut k.tx);
        out.extend(
            data_mpdus(header, ETHERTYPE_EAPOL, eapol, tx, self.config.fragment_threshold)?
                .into_iter()
                .map(Output::Air),
        );
        Ok(())
    }

    /// A Michael MIC failure under the pairwise key or a group key: tell the access point
    /// (which counts it toward its own countermeasures); the second within 60 s starts the
    /// station's: it deauthenticates and stays away for 60 s (12.5.2.4).
    fn report_mic_failure(&mut self, pairwise: bool, out: &mut Vec<Output>) -> Result<()> {
        self.counters.mic_failures += 1;
        let Some(supplicant) = self.supplicant.as_mut() else { return Ok(()) };
        let report = supplicant.mic_failure_report(pairwise)?;
        self.send_eapol(&report, out)?;
        if self.countermeasures.failure(self.now_ms) {
            self.counters.countermeasure_activations += 1;
            self.counters.countermeasures_active = true;
            let bssid = self.config.bssid;
            let deauth = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_MICHAEL_MIC_FAILURE });
            out.push(Output::Air(deauth.to_mpdu(bssid, self.mac, bssid, self.sequence.next())?));
            self.supplicant = None;
            self.keys = None;
            self.group_rx.clear();
            self.state = StationState::Countermeasures;
        }
        Ok(())
    }
}
