//! The station (supplicant side): authenticates, associates, runs the 4-way handshake and
//! then carries its host's Ethernet frames to and from the access point. It holds a group
//! key per Key ID, each from the Key RSC it came with, and reports Michael MIC failures.

use wlansec_core::gen::ChaCha8Rng;
use wlansec_core::rsn::eapol::ETHERTYPE_EAPOL;
use wlansec_core::rsn::{Event, Supplicant};
use wlansec_core::rx::port::Admitted;
use wlansec_core::rx::{Defences, Pipeline};
use wlansec_core::wire::llc::{self, ETHERNET_HEADER_LEN};
use wlansec_core::wire::mgmt::{
    self, capability, AssociationRequestRepr, AuthenticationRepr, DeauthenticationRepr, Elements, ManagementBody,
    REASON_MICHAEL_MIC_FAILURE, STATUS_SUCCESS,
};
use wlansec_core::wire::{Frame, FrameControl, MacAddr, Rules};

mod protection;

use super::StationState;
use crate::group::GroupRx;
use crate::node::{data_mpdus, elements, fresh_rng, qos_header, receive, to_host, Credential, Sequence};
use crate::node::{Counters, NetworkConfig, Output};
use crate::pmf;
use crate::security::{LinkKeys, SecurityMode};
use crate::tkip::Countermeasures;
use crate::Result;

/// Ticks (of [`super::TICK_MS`]) a station waits for an answer before it starts again.
const STATION_PATIENCE_TICKS: u32 = 4;

/// Listen interval a station asks for, in beacon intervals.
const LISTEN_INTERVAL: u16 = 10;
/// A station (supplicant side).
pub struct Station {
    config: NetworkConfig,
    mac: MacAddr,
    credential: Credential,
    state: StationState,
    waited: u32,
    /// Milliseconds of `tick`s so far: the station's only clock (sans-IO).
    now_ms: u64,
    countermeasures: Countermeasures,
    supplicant: Option<Supplicant>,
    keys: Option<LinkKeys>,
    group_rx: GroupRx,
    /// The access point's RSN element, from its beacon (what its 4-way handshake must repeat).
    ap_rsne: Option<Vec<u8>>,
    /// The link protects management frames (802.11w), as negotiated at association.
    mfp: bool,
    /// The link's rules: SPP A-MSDU when both sides advertise it.
    link_rules: Rules,
    integrity: pmf::IntegrityReceiver,
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
            now_ms: 0,
            countermeasures: Countermeasures::default(),
            supplicant: None,
            keys: None,
            group_rx: GroupRx::default(),
            ap_rsne: None,
            mfp: false,
            link_rules: Rules::default(),
            integrity: pmf::IntegrityReceiver::default(),
            pipeline: Pipeline::new(Rules::default()),
            sequence: Sequence::default(),
            rng: fresh_rng(),
            counters: Counters::default(),
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

    pub fn state(&self) -> &StationState {
        &self.state
    }

    /// Begin joining: send the open-system Authentication request.
    pub fn start(&mut self, out: &mut Vec<Output>) -> Result<()> {
        self.state = StationState::Authenticating;
        self.waited = 0;
        self.supplicant = None;
        self.keys = None;
        self.group_rx.clear();
        self.mfp = false;
        self.link_rules = Rules::default();
        self.integrity = pmf::IntegrityReceiver::default();
        self.pipeline.clear_fragments();
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
        if self.state == StationState::Countermeasures {
            return if countermeasures { Ok(()) } else { self.start(out) };
        }
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
        let bssid = self.config.bssid;
        // A management frame this machine cannot parse is ignored, as one it does not use.
        let Ok(body) = ManagementBody::parse(subtype, body) else { return Ok(()) };
        match (body, &self.state) {
            (ManagementBody::Beacon(beacon), _) => self.ap_rsne = beacon.elements.rsn().map(<[u8]>::to_vec),
            (ManagementBody::Action(action), _) => self.action(action, protected, out)?,
            (ManagementBody::Authentication(auth), StationState::Authenticating)
                if auth.transaction_sequence == 2 && auth.status == STATUS_SUCCESS =>
            {
                let rsne = self.config.rsn_element()?;
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
            (ManagementBody::AssociationResponse(response), StationState::Associating)
                if response.status == pmf::STATUS_REFUSED_TEMPORARILY =>
            {
                // The access point is asking our old link (an SA Query) whether it is still
                // there; it is not, so after its timeout the next attempt is admitted.
                self.waited = 0;
            }
            (ManagementBody::AssociationResponse(response), StationState::Associating) => {
                if response.status != STATUS_SUCCESS {
                    self.state = StationState::Failed(format!("association refused (status {})", response.status));
                    return Ok(());
                }
                self.associated()?;
            }
            (ManagementBody::Deauthentication(deauth), StationState::Countermeasures)
                if deauth.reason == REASON_MICHAEL_MIC_FAILURE => {}
            (ManagementBody::Deauthentication(deauth), _) if deauth.reason == REASON_MICHAEL_MIC_FAILURE => {
                // TKIP countermeasures are temporary: join again once the access point
                // admits stations again (refused until then, the request is repeated).
                self.start(out)?;
            }
            (ManagementBody::Deauthentication(deauth), _) => {
                self.state = StationState::Failed(format!(
                    "deauthenticated by the access point (reason {}: {})",
                    deauth.reason,
                    mgmt::reason_text(deauth.reason)
                ));
                self.keys = None;
            }
            (ManagementBody::Disassociation(disassoc), _) => {
                self.state = StationState::Failed(format!(
                    "disassociated by the access point (reason {}: {})",
                    disassoc.reason,
                    mgmt::reason_text(disassoc.reason)
                ));
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
                self.group_rx.install(0, SecurityMode::Wep.rx_key(key)?);
                self.state = StationState::Connected;
            }
            Credential::Psk(pmk) => {
                let own = self
                    .config
                    .rsn_element()?
                    .ok_or(crate::Error::ModeLacks { mode: self.config.mode, what: "4-way handshake" })?;
                // Without a beacon heard yet, the network's element stands for the AP's.
                let ap = self.ap_rsne.clone().unwrap_or_else(|| own.clone());
                // The access point admitted us, so the policies met; a beacon that says
                // otherwise was not the AP's, and its handshake will not verify.
                self.mfp = pmf::negotiate(&ap, &own).unwrap_or(false);
                self.link_rules = SecurityMode::link_rules(&ap, &own);
                let params = self.config.mode.handshake_params(self.config.bssid, self.mac, ap, own)?;
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
                Event::InstallIntegrityGroup { key_id, igtk, ipn } => self.integrity.install(key_id, &igtk, ipn)?,
                Event::PairwiseComplete => self.state = StationState::Connected,
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
