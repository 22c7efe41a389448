//! The access point (authenticator side): associates stations, runs a 4-way handshake with
//! each, and bridges them and its own host. Its group keys rotate and its TKIP
//! countermeasures run in [`keys`].

mod admission;
mod keys;
mod owe;
use owe::OweAnswer;
mod protection;
mod sae;

pub use admission::Admission;
#[cfg(test)]
pub(crate) use admission::MAX_UNPROVEN;
#[cfg(test)]
pub(crate) use sae::MAX_SAE_EXCHANGES;

use std::collections::BTreeMap;

use wlansec_core::gen::ChaCha8Rng;
use wlansec_core::rsn::eapol::ETHERTYPE_EAPOL;
use wlansec_core::rsn::sae::message::ALGORITHM_SAE;
use wlansec_core::rsn::sae::{PmksaCache, PmksaEntry};
use wlansec_core::rsn::{Akm, Authenticator, Event, Pmk, RsnElementRepr};
use wlansec_core::rx::port::Admitted;
use wlansec_core::rx::{Defences, Pipeline};
use wlansec_core::wire::llc::{self, ETHERNET_HEADER_LEN, SNAP_HEADER_LEN};
use wlansec_core::wire::mgmt::{
    capability, AssociationResponseRepr, AuthenticationRepr, DeauthenticationRepr, Elements, ElementsBuilder,
    ManagementBody, REASON_FOUR_WAY_HANDSHAKE_TIMEOUT, REASON_GROUP_KEY_HANDSHAKE_TIMEOUT, STATUS_SUCCESS,
    STATUS_UNSPECIFIED_FAILURE, SUPPORTED_RATES_BG,
};
use wlansec_core::wire::{Frame, FrameControl, MacAddr, Rules};
use wlansec_core::Error;

use crate::group::GroupKeys;
use crate::node::{
    beacon, data_mpdus, fresh_rng, handshake_failure, qos_header, receive, to_ethernet, Credential, Sequence,
};
use crate::node::{AssociationStatus, Counters, NetworkConfig, Output, PeerEvent};
use crate::pmf::{self, Pmf};
use crate::security::{LinkKeys, SecurityMode};
use crate::tkip::Countermeasures;
use crate::verilog::CcmpOn;
use crate::Result;

/// One station as the access point knows it.
struct Association {
    aid: u16,
    authenticator: Option<Authenticator>,
    keys: Option<LinkKeys>,
    last_error: Option<String>,
    /// The GTK generation the last message 3 or group message 1 sent to the station carried.
    gtk_generation: u64,
    /// The GTK generation the station confirmed (message 4 or group message 2).
    gtk_confirmed: Option<u64>,
    /// The link protects management frames (802.11w), as negotiated at association.
    mfp: bool,
    /// An SA Query sent because of a new (re)association request, not yet answered.
    sa_query: Option<protection::PendingSaQuery>,
    /// The link's rules: SPP A-MSDU when both sides advertise it.
    rules: Rules,
    /// Its place in the queue of unproven associations, until its handshake verifies a
    /// message 2 (none on an open or WEP network: nothing to prove).
    unproven: Option<u64>,
    /// The OWE PMKSA this association made, cached when its 4-way handshake completes.
    owe_pmksa: Option<PmksaEntry>,
}

/// PMKs a key log holds between takes at most (a flood of associations logs no more).
const MAX_LOGGED_PMKS: usize = 64;

/// A PMK an accepted SAE exchange or OWE association gave, for a key log (the capture's
/// decryption key).
#[derive(Clone, Debug)]
pub struct LoggedPmk {
    pub station: MacAddr,
    pub akm: Akm,
    pub pmkid: [u8; 16],
    pub pmk: Pmk,
}

/// Status 17: the access point cannot handle another associated station.
pub const STATUS_AP_FULL: u16 = 17;
/// Status 43: the RSN element names an AKM the access point does not offer.
const STATUS_INVALID_AKMP: u16 = 43;
/// Status 53: the association request names no PMKSA the access point holds (an SAE
/// station must run SAE first).
pub const STATUS_INVALID_PMKID: u16 = 53;
/// Reason 7: a class 3 frame (data) from a station that is not associated.
const REASON_CLASS3_FROM_NONASSOCIATED: u16 = 7;
/// Deauthentications sent per tick in answer to data from unknown stations (a forger's
/// frames must not become a stream of ours).
const CLASS3_DEAUTHS_PER_TICK: u32 = 8;

/// Whether a station's 802.1X port is closed: a protected network before its keys.
fn assoc_port_closed(assoc: Option<&Association>, credential: &Credential) -> bool {
    !matches!(credential, Credential::None) && assoc.is_none_or(|a| a.keys.is_none())
}

/// The access point (authenticator side), bridging its stations and its own host.
pub struct AccessPoint {
    config: NetworkConfig,
    credential: Credential,
    group: Option<GroupKeys>,
    stations: BTreeMap<MacAddr, Association>,
    /// The indices that bound the stations' memory and the clock's work.
    table: admission::Table,
    /// Stations the last tick visited.
    ticked: usize,
    /// Deauthentications for data from unknown stations left this tick.
    class3_budget: u32,
    pipeline: Pipeline,
    sequence: Sequence,
    rng: ChaCha8Rng,
    /// Milliseconds of `tick`s so far: the access point's only clock (sans-IO).
    now_ms: u64,
    rekey: keys::RekeyTimer,
    /// The IGTK, when the access point offers management frame protection.
    integrity: Option<pmf::IntegrityGroup>,
    /// The BIGTK its beacons are signed under, with beacon protection.
    beacon_integrity: Option<pmf::IntegrityGroup>,
    countermeasures: Countermeasures,
    /// Where the CCMP keys it installs run (the host engine, or its Verilog card).
    ccmp_on: CcmpOn,
    /// The SAE exchanges and PMKSAs of an SAE network.
    sae: Option<sae::SaeAccessPoint>,
    /// The PSK of an SAE network in transition mode, for its stations without SAE.
    transition_psk: Option<Pmk>,
    /// The PMKSAs of OWE associations, by station.
    owe_pmksa: PmksaCache,
    /// PMKs of SAE and OWE links not yet taken, when a key log asked for them.
    pmk_log: Option<Vec<LoggedPmk>>,
    pub counters: Counters,
}

impl AccessPoint {
    pub fn new(config: NetworkConfig) -> Result<Self> {
        Self::with_ccmp_on(config, CcmpOn::Host)
    }

    /// An access point whose CCMP keys (pairwise and group) run `on` the host engine or a
    /// Verilog card.
    pub fn with_ccmp_on(config: NetworkConfig, on: CcmpOn) -> Result<Self> {
        let credential = Credential::of(&config)?;
        let mut rng = fresh_rng();
        let group = GroupKeys::of(&credential, config.mode, &mut rng, on.clone())?;
        let offers_pmf = config.pmf != Pmf::Off && config.mode.supports_pmf();
        let integrity =
            offers_pmf.then(|| pmf::IntegrityGroup::fresh(config.mode.group_mgmt_cipher(), &mut rng)).transpose()?;
        let protects_beacons = offers_pmf && config.beacon_protection;
        let beacon_integrity = protects_beacons
            .then(|| pmf::IntegrityGroup::fresh_for_beacons(config.mode.group_mgmt_cipher(), &mut rng))
            .transpose()?;
        let sae = match (&credential, config.key_management.sae()) {
            (Credential::Sae(password), Some(settings)) => {
                Some(sae::SaeAccessPoint::new(settings, config.bssid, &config.ssid, password, &mut rng)?)
            }
            _ => None,
        };
        Ok(AccessPoint {
            sae,
            transition_psk: Credential::transition_psk(&config)?,
            owe_pmksa: PmksaCache::default(),
            table: admission::Table::new(config.max_stations),
            config,
            credential,
            group,
            ticked: 0,
            class3_budget: CLASS3_DEAUTHS_PER_TICK,
            stations: BTreeMap::new(),
            pipeline: Pipeline::new(Rules::default()),
            sequence: Sequence::default(),
            rng,
            now_ms: 0,
            rekey: keys::RekeyTimer::default(),
            integrity,
            beacon_integrity,
            countermeasures: Countermeasures::default(),
            ccmp_on: on,
            pmk_log: None,
            counters: Counters::default(),
        })
    }

    /// The same machine with only `defences` of the receive pipeline: every one is on by
    /// default; switching one off shows in a test or a measurement that its attack succeeds.
    pub fn with_defences(mut self, defences: Defences) -> Self {
        self.pipeline = Pipeline::with_defences(Rules::default(), defences);
        self
    }

    /// Keep the PMKs of SAE exchanges and OWE associations for [`AccessPoint::take_pmks`]
    /// (a key log: the only way to decrypt a capture of such a network).
    pub fn with_pmk_log(mut self) -> Self {
        self.pmk_log = Some(Vec::new());
        self
    }

    /// The PMKs logged since the last call (with [`Self::with_pmk_log`]).
    pub fn take_pmks(&mut self) -> Vec<LoggedPmk> {
        self.pmk_log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Log `pmk`, when a key log asked for them (a bounded few between takes).
    fn log_pmk(&mut self, pmk: LoggedPmk) {
        if let Some(log) = self.pmk_log.as_mut().filter(|l| l.len() < MAX_LOGGED_PMKS) {
            log.push(pmk);
        }
    }

    /// Rotate the GTK every `seconds` (0: never), as hostapd's `wpa_group_rekey`.
    pub fn with_gtk_rekey(mut self, seconds: u64) -> Self {
        self.rekey = keys::RekeyTimer::every(seconds, self.now_ms);
        self
    }

    pub fn bssid(&self) -> MacAddr {
        self.config.bssid
    }

    /// The beacon that announces the network (SSID, rates, RSN element); with beacon
    /// protection, also the Extended Capabilities that say so, and signed with BIP under the
    /// BIGTK (its MME last).
    pub fn beacon(&mut self) -> Result<Vec<u8>> {
        let mut mpdu = beacon(&self.config, capability::ESS, self.config.bssid, self.sequence.next())?;
        let Some(bigtk) = self.beacon_integrity.as_mut() else { return Ok(mpdu) };
        mpdu.extend_from_slice(&pmf::BEACON_PROTECTION_CAPABILITY);
        bigtk.protect(mpdu)
    }

    /// A beacon of the test's making signed under the BIGTK, as the access point signs its
    /// own (a genuine channel switch announcement, say).
    #[cfg(test)]
    pub(crate) fn sign_beacon(&mut self, mpdu: Vec<u8>) -> Result<Vec<u8>> {
        let bigtk = self.beacon_integrity.as_mut().ok_or(crate::Error::Frame(Error::NoKey { group: true }))?;
        bigtk.protect(mpdu)
    }

    /// The stations in the table, then the few that failed lately (AID 0, with the reason).
    pub fn associations(&self) -> Vec<AssociationStatus> {
        self.stations
            .iter()
            .map(|(mac, a)| AssociationStatus {
                mac: mac.to_string(),
                aid: a.aid,
                port_open: a.keys.is_some() || matches!(self.credential, Credential::None),
                failure: None,
            })
            .chain(self.table.failures.statuses())
            .collect()
    }

    /// The clock: every [`super::TICK_MS`]. Runs the GTK rotation timer, ends TKIP
    /// countermeasures, and retransmits every pending handshake message (its work is the
    /// stations with a message in flight or an SA Query pending, not the whole table).
    pub fn tick(&mut self, out: &mut Vec<Output>) -> Result<()> {
        self.now_ms += super::TICK_MS;
        self.class3_budget = CLASS3_DEAUTHS_PER_TICK;
        self.counters.countermeasures_active = self.countermeasures.active(self.now_ms);
        self.table.failures.expire(self.now_ms);
        self.sae_tick();
        let macs = self.table.in_flight.list();
        self.ticked = macs.len() + self.table.sa_queries.len();
        for mac in macs {
            let Some(assoc) = self.stations.get_mut(&mac) else { continue };
            let Some(auth) = assoc.authenticator.as_mut() else { continue };
            keys::sync_group_key(self.group.as_ref(), auth)?;
            let events = auth.tick()?;
            self.handle_events(mac, events, out)?;
        }
        self.expire_sa_queries(out)?;
        // After the retransmissions, so that a group message 1 sent now waits a whole tick.
        if self.rekey.due(self.now_ms) {
            self.rotate(out)?;
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
            self.group.as_mut().map(GroupKeys::tx)
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
        let header = qos_header(FrameControl::FROM_DS, da, bssid, sa, self.sequence.next());
        let threshold = self.config.fragment_threshold;
        out.extend(data_mpdus(header, ethertype, payload, tx, threshold)?.into_iter().map(Output::Air));
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
            return self.management_from(sta, mpdu, out);
        }
        if !fc.is_data() || !fc.to_ds() || fc.from_ds() {
            return Ok(());
        }
        let Some(assoc) = self.stations.get_mut(&sta) else {
            self.counters.dropped_other += 1;
            return self.not_associated(sta, out);
        };
        let keyed = assoc.keys.is_some()
            && matches!(self.credential, Credential::Psk(_) | Credential::Sae(_) | Credential::Owe);
        let key = assoc.keys.as_mut().map(|k| &mut k.rx);
        let mode = self.config.mode;
        let received = match receive(&mut self.pipeline, &mut self.counters, mpdu, key, bssid, mode) {
            Ok(received) => received,
            Err(e) => {
                if keys::is_michael_failure(&e, mode) {
                    self.mic_failure(out)?;
                }
                return Err(e);
            }
        };
        // EAPOL is the authenticator's, plaintext (the 4-way handshake) or protected (group
        // message 2, MIC failure reports), and is never forwarded (the port sees to that).
        if keyed && received.is_some() {
            // It verified under the station's own pairwise key: the station sent it.
            out.push(Output::Peer(PeerEvent::Accepted(sta)));
        }
        let msdus = match received {
            None => return Ok(()),
            Some((_, Admitted::Eapol(eapol))) => return self.eapol(sta, eapol, out),
            Some((_, Admitted::Data(msdus))) => msdus,
        };
        if assoc_port_closed(self.stations.get(&sta), &self.credential) {
            self.counters.dropped_port_closed += 1;
            return Ok(());
        }
        for m in msdus {
            self.counters.rx_msdus += 1;
            if m.da == bssid || m.da.is_group() {
                out.push(Output::Ethernet(to_ethernet(m.da, m.sa, &m.body)?));
            }
            if m.da != bssid {
                let ethertype = llc::parse_snap(&m.body)?;
                self.forward(m.da, m.sa, ethertype, &m.body[SNAP_HEADER_LEN..], out)?;
                self.counters.forwarded_msdus += 1;
            }
        }
        Ok(())
    }

    /// Data from a station that is not associated: a station the access point forgot (its
    /// link expired, or a forger ended it on a link without 802.11w) is told so and joins
    /// again (reason 7), a few per tick.
    fn not_associated(&mut self, sta: MacAddr, out: &mut Vec<Output>) -> Result<()> {
        if self.class3_budget == 0 || sta.is_group() {
            return Ok(());
        }
        self.class3_budget -= 1;
        let deauth = DeauthenticationRepr { reason: REASON_CLASS3_FROM_NONASSOCIATED };
        out.push(Output::Air(self.management_to(ManagementBody::Deauthentication(deauth), sta)?));
        Ok(())
    }

    /// A management frame from the AP to one of its stations.
    fn management_to(&mut self, body: ManagementBody<'_>, sta: MacAddr) -> Result<Vec<u8>> {
        let bssid = self.config.bssid;
        Ok(body.to_mpdu(sta, bssid, bssid, self.sequence.next())?)
    }

    /// A management frame from `sta`, its plaintext body (`protected`: it came protected).
    fn management(
        &mut self,
        sta: MacAddr,
        subtype: u8,
        body: &[u8],
        protected: bool,
        out: &mut Vec<Output>,
    ) -> Result<()> {
        let raw = body;
        let Ok(body) = ManagementBody::parse(subtype, body) else { return Ok(()) };
        let refused = self.countermeasures.active(self.now_ms);
        let protected_link = self.protects_management(sta);
        match body {
            // SAE opens no association: a station on a protected link keeps it until its
            // association request is checked with an SA Query.
            ManagementBody::Authentication(auth) if auth.algorithm == ALGORITHM_SAE && self.sae.is_some() => {
                self.sae_frame(sta, raw, out)?
            }
            // A station on a protected link keeps it until an SA Query says it is gone: an
            // unprotected Authentication may be anyone's.
            ManagementBody::Authentication(auth) if auth.transaction_sequence == 1 && protected_link => {
                let reply = ManagementBody::Authentication(AuthenticationRepr::open_system(2, STATUS_SUCCESS));
                out.push(Output::Air(self.management_to(reply, sta)?));
            }
            ManagementBody::Authentication(auth) if auth.transaction_sequence == 1 => {
                // A (re)starting station forgets its old association, keys and fragments.
                self.depart(sta, out)?;
                // TKIP countermeasures admit no one for their 60 s.
                let status = if refused { STATUS_UNSPECIFIED_FAILURE } else { STATUS_SUCCESS };
                let reply = ManagementBody::Authentication(AuthenticationRepr::open_system(2, status));
                out.push(Output::Air(self.management_to(reply, sta)?));
            }
            ManagementBody::Deauthentication(_) | ManagementBody::Disassociation(_) => self.depart(sta, out)?,
            ManagementBody::AssociationRequest(_) if refused => {
                self.refuse_association(sta, STATUS_UNSPECIFIED_FAILURE, out)?
            }
            ManagementBody::AssociationRequest(_) if protected_link => {
                self.refuse_association(sta, pmf::STATUS_REFUSED_TEMPORARILY, out)?;
                self.query_before_reassociating(sta, out)?;
            }
            ManagementBody::AssociationRequest(request) => self.associate(sta, &request.elements, out)?,
            ManagementBody::Action(action) => self.action(sta, action, protected, out)?,
            _ => {}
        }
        Ok(())
    }

    fn refuse_association(&mut self, sta: MacAddr, status: u16, out: &mut Vec<Output>) -> Result<()> {
        let response =
            AssociationResponseRepr { capability: capability::ESS, status, aid: 0, elements: Elements::new(&[]) };
        out.push(Output::Air(self.management_to(ManagementBody::AssociationResponse(response), sta)?));
        Ok(())
    }

    /// Associate `sta`, whose association request carried `elements`, and start its 4-way
    /// handshake; a management frame protection policy that cannot meet the AP's is refused
    /// (status 31).
    fn associate(&mut self, sta: MacAddr, elements: &Elements<'_>, out: &mut Vec<Output>) -> Result<()> {
        let sta_rsne = elements.rsn();
        let bssid = self.config.bssid;
        let own_rsne = self.config.rsn_element()?;
        let (mut mfp, mut rules) = (false, Rules::default());
        if let (Some(own), Some(theirs)) = (&own_rsne, sta_rsne) {
            match pmf::negotiate(own, theirs) {
                Ok(negotiated) => mfp = negotiated,
                Err(_) => return self.refuse_association(sta, pmf::STATUS_ROBUST_MANAGEMENT_POLICY_VIOLATION, out),
            }
            rules = SecurityMode::link_rules(own, theirs);
        }
        // An SAE station names the PMKSA of its exchange (or an earlier one, cached); in
        // transition mode a station may take the PSK instead, and one that takes SAE must
        // protect its management frames.
        let mut akm = self.config.key_management.akm();
        let sae_pmk = match (&self.credential, sta_rsne.map(RsnElementRepr::parse)) {
            (Credential::Sae(_), Some(Ok((_, theirs)))) => match self.chosen_akm(&theirs) {
                Some(Akm::Psk) => {
                    akm = Akm::Psk;
                    self.transition_psk.clone()
                }
                Some(_) if !mfp => {
                    return self.refuse_association(sta, pmf::STATUS_ROBUST_MANAGEMENT_POLICY_VIOLATION, out)
                }
                Some(_) => match self.sae_pmk(sta, &theirs.pmkids) {
                    Some(pmk) => Some(pmk),
                    None => return self.refuse_association(sta, STATUS_INVALID_PMKID, out),
                },
                None => return self.refuse_association(sta, STATUS_INVALID_AKMP, out),
            },
            (Credential::Sae(_), _) => return self.refuse_association(sta, STATUS_INVALID_AKMP, out),
            _ => None,
        };
        // An OWE station's Diffie-Hellman element is answered with ours, and both give the PMK.
        let owe = match (&self.credential, sta_rsne.map(RsnElementRepr::parse)) {
            (Credential::Owe, Some(Ok((_, theirs)))) if theirs.akms.contains(&Akm::Owe) => {
                match self.owe_respond(sta, elements, &theirs.pmkids) {
                    Ok(answer) => Some(answer),
                    Err(status) => return self.refuse_association(sta, status, out),
                }
            }
            (Credential::Owe, _) => return self.refuse_association(sta, STATUS_INVALID_AKMP, out),
            _ => None,
        };
        // A station that associates again keeps its AID (and leaves its old link); a new one
        // takes a free AID, or is refused when proven stations hold them all.
        let old = self.remove_station(sta, out);
        let proven = !matches!(self.credential, Credential::Psk(_) | Credential::Sae(_) | Credential::Owe);
        if !proven {
            self.room_for_unproven(out)?;
        }
        let aid = match old {
            Some(old) => {
                self.reclaim_aid(old.aid);
                self.departed(old.gtk_confirmed, out)?;
                old.aid
            }
            None => match self.allocate_aid(out)? {
                Some(aid) => aid,
                None => {
                    self.counters.refused_table_full += 1;
                    return self.refuse_association(sta, STATUS_AP_FULL, out);
                }
            },
        };
        let unproven = (!proven).then(|| self.table.unproven.enqueue(sta));
        let mut assoc = Association {
            aid,
            authenticator: None,
            keys: None,
            last_error: None,
            gtk_generation: 0,
            gtk_confirmed: None,
            mfp,
            sa_query: None,
            rules,
            unproven,
            owe_pmksa: owe.as_ref().and_then(|answer| answer.pmksa.clone()),
        };
        if let Credential::Wep(key) = &self.credential {
            assoc.keys = Some(LinkKeys::pairwise(SecurityMode::Wep, key)?);
        }
        let mut rates = ElementsBuilder::new().supported_rates(&SUPPORTED_RATES_BG)?;
        if let Some(OweAnswer { element: Some(element), .. }) = &owe {
            rates = rates.encoded(element)?;
        }
        let rates = rates.build();
        let response = AssociationResponseRepr {
            capability: capability::ESS,
            status: STATUS_SUCCESS,
            aid,
            elements: Elements::new(&rates),
        };
        out.push(Output::Peer(PeerEvent::Accepted(sta)));
        out.push(Output::Air(self.management_to(ManagementBody::AssociationResponse(response), sta)?));
        let gtk = self.group.as_ref().and_then(GroupKeys::distributed);
        let pmk = match &self.credential {
            Credential::Psk(pmk) => Some(pmk),
            Credential::Owe => owe.as_ref().map(|answer| &answer.pmk),
            _ => sae_pmk.as_ref(),
        };
        let events = match (pmk, gtk, own_rsne) {
            (Some(pmk), Some((gtk, rsc)), Some(own)) => {
                let theirs = sta_rsne.map_or_else(|| own.clone(), <[u8]>::to_vec);
                let params = self.config.mode.handshake_params(akm, bssid, sta, own, theirs)?;
                let mut auth = Authenticator::new(params, pmk.clone(), gtk.key_id, gtk.key.clone())?
                    .with_transition_disable(self.config.transition_disable);
                if let Some(rsnxe) = self.config.rsnxe() {
                    auth = auth.with_rsnxe(rsnxe.to_vec());
                }
                auth.set_group_key(gtk.key_id, gtk.key.clone(), rsc)?;
                if let (true, Some(integrity)) = (mfp, &self.integrity) {
                    auth = auth.with_igtk(pmf::IGTK_KEY_ID, integrity.key().clone(), integrity.ipn())?;
                }
                if let (true, Some(bigtk)) = (mfp, &self.beacon_integrity) {
                    auth = auth.with_bigtk(bigtk.key_id(), bigtk.key().clone(), bigtk.ipn())?;
                }
                let events = auth.start(&mut self.rng)?;
                assoc.authenticator = Some(auth);
                events
            }
            _ => Vec::new(),
        };
        self.stations.insert(sta, assoc);
        self.handle_events(sta, events, out)
    }

    fn eapol(&mut self, sta: MacAddr, eapol: Vec<u8>, out: &mut Vec<Output>) -> Result<()> {
        let Some(assoc) = self.stations.get_mut(&sta) else { return Ok(()) };
        let Some(auth) = assoc.authenticator.as_mut() else { return Ok(()) };
        keys::sync_group_key(self.group.as_ref(), auth)?;
        match auth.receive(&eapol) {
            Ok(events) => {
                // A MIC verified under a key from the PMK: the station holds it, and is
                // no longer evictable by unproven associations.
                if let Some(seq) = assoc.unproven.take() {
                    self.table.unproven.remove(seq);
                }
                self.handle_events(sta, events, out)
            }
            Err(e) => {
                // A late answer to a retransmitted message is stale, not the cause.
                if !matches!(e, Error::Replay { .. }) {
                    assoc.last_error = Some(e.to_string());
                }
                self.counters.handshake_errors += 1;
                Err(crate::Error::Handshake { peer: sta, why: e })
            }
        }
    }

    fn handle_events(&mut self, sta: MacAddr, events: Vec<Event>, out: &mut Vec<Output>) -> Result<()> {
        let bssid = self.config.bssid;
        for event in events {
            match event {
                Event::Send(bytes) => {
                    self.table.in_flight.sent(sta);
                    // Under the station's pairwise key once one is installed (a rekey, the
                    // group handshake), in the clear before.
                    let header = qos_header(FrameControl::FROM_DS, sta, bssid, bssid, self.sequence.next());
                    let tx = self.stations.get_mut(&sta).and_then(|a| a.keys.as_mut()).map(|k| &mut k.tx);
                    let threshold = self.config.fragment_threshold;
                    out.extend(
                        data_mpdus(header, ETHERTYPE_EAPOL, &bytes, tx, threshold)?.into_iter().map(Output::Air),
                    );
                    // What this message carries, if it is message 3 or group message 1.
                    let generation = self.group.as_ref().and_then(GroupKeys::distributed).map(|(g, _)| g.generation);
                    if let (Some(a), Some(generation)) = (self.stations.get_mut(&sta), generation) {
                        a.gtk_generation = generation;
                    }
                }
                Event::InstallPairwise { tk } => {
                    if let Some(a) = self.stations.get_mut(&sta) {
                        a.keys = Some(self.ccmp_on.pairwise(self.config.mode, tk.as_bytes(), a.rules)?);
                    }
                    self.pipeline.forget(sta);
                }
                Event::PairwiseComplete | Event::GroupComplete => {
                    self.table.in_flight.done(sta);
                    let mut pmksa = None;
                    if let Some(a) = self.stations.get_mut(&sta) {
                        a.gtk_confirmed = Some(a.gtk_generation);
                        pmksa = a.owe_pmksa.take();
                    }
                    if let Some(pmksa) = pmksa {
                        self.cache_owe_pmksa(pmksa);
                    }
                    self.catch_up(sta, out)?;
                    self.maybe_switch();
                }
                Event::TimedOut => {
                    let Some(a) = self.stations.get(&sta) else { continue };
                    let why = handshake_failure(a.last_error.as_deref(), "no answer from the station");
                    // Keys installed: it was the group key handshake that timed out.
                    let reason = if a.keys.is_some() {
                        REASON_GROUP_KEY_HANDSHAKE_TIMEOUT
                    } else {
                        REASON_FOUR_WAY_HANDSHAKE_TIMEOUT
                    };
                    // Under the link's keys while it still has them (802.11w).
                    let deauth = DeauthenticationRepr { reason };
                    out.push(Output::Air(self.robust_to(ManagementBody::Deauthentication(deauth), sta)?));
                    // The station is gone (its AID free again); why, for status, a while.
                    let confirmed = self.remove_station(sta, out).and_then(|a| a.gtk_confirmed);
                    self.table.failures.record(sta, why, self.now_ms);
                    self.departed(confirmed, out)?;
                    return Ok(());
                }
                Event::MicFailureReported { .. } if self.config.mode == SecurityMode::Tkip => self.mic_failure(out)?,
                Event::InstallGroup { .. }
                | Event::MicFailureReported { .. }
                | Event::InstallIntegrityGroup { .. }
                | Event::InstallBeaconIntegrity { .. } => {}
            }
        }
        Ok(())
    }
}
