//! The frame-exchange core every role shares (access point, station, IBSS peer): what the
//! machines ask their owner to do, their counters and status rows, the network's
//! credential, sequence numbers, the frames they build (management, QoS data) and the
//! receive path, which is the core's `rx` pipeline (decapsulation, replay check,
//! reassembly, A-MSDU, Ethernet) with each refusal counted.

use serde::Serialize;
use wlansec_core::gen::{ChaCha8Rng, SeedableRng};
use wlansec_core::rsn::element::owe::OweTransitionRepr;
use wlansec_core::rsn::{pmk_from_passphrase, Akm, Params, Pmk, RsnElementRepr};
use wlansec_core::rx::port::{self, Admitted};
use wlansec_core::rx::{Pipeline, RxKey};
use wlansec_core::suite::{FrameSuite, Transmitter};
use wlansec_core::tx::{self, FragmentationThreshold};
use wlansec_core::wire::llc::{self, SNAP_HEADER_LEN};
use wlansec_core::wire::mgmt::{self, BeaconRepr, Elements, ElementsBuilder, ManagementBody, SUPPORTED_RATES_BG};
use wlansec_core::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};
use wlansec_core::Error;
use zeroize::Zeroizing;

use crate::pmf::Pmf;
use crate::Result;

use crate::security::{hex_octets, wep_key, KeyManagement, SecurityMode, RSNXE_SAE_H2E};
use wlansec_core::rsn::sae::Password;

const SUBTYPE_QOS_DATA: u8 = 8;
/// Beacon interval, in time units of 1024 µs.
const BEACON_INTERVAL_TU: u16 = 100;

/// What the machines ask their owner to do.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Output {
    /// Put this MPDU on the air.
    Air(Vec<u8>),
    /// Hand this Ethernet frame to the host.
    Ethernet(Vec<u8>),
    /// What the access point decided about a station, for a transport that maps stations
    /// to addresses (the UDP air); the emulated medium has nothing to map and ignores it.
    Peer(PeerEvent),
}

/// The access point's word on a station, as [`Output::Peer`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PeerEvent {
    /// The frame being handled, from this station, was accepted: it was granted an
    /// association, or it came protected under the station's keys and verified. Only then
    /// may a transport learn (or change) where the station is.
    Accepted(MacAddr),
    /// The access point forgot this station: a transport forgets where it was.
    Gone(MacAddr),
}

/// Per-node counters, reported by `status`.
#[derive(Clone, Copy, Default, Debug, Serialize)]
pub struct Counters {
    pub tx_msdus: u64,
    pub rx_msdus: u64,
    pub forwarded_msdus: u64,
    /// Data from or to a station whose 802.1X port is closed (no keys yet, or failed).
    pub dropped_port_closed: u64,
    pub dropped_replay: u64,
    /// MIC, ICV or Michael failure: wrong key or a tampered frame.
    pub dropped_integrity: u64,
    /// Frames a published attack sends (FragAttacks), refused by its defence.
    pub refused_attacks: u64,
    /// Unknown receivers, malformed frames.
    pub dropped_other: u64,
    pub handshake_errors: u64,
    /// GTK rotations started (timer, a station leaving, countermeasures).
    pub group_rekeys: u64,
    /// TKIP Michael MIC failures: seen here, or (access point) reported by a station.
    pub mic_failures: u64,
    /// Times two Michael MIC failures within 60 s started TKIP countermeasures.
    pub countermeasure_activations: u64,
    /// TKIP countermeasures in force: every station sent away, none admitted.
    pub countermeasures_active: bool,
    /// Robust management frames (Deauthentication, Disassociation, robust Action) that came
    /// unprotected, or with a bad BIP MME, where 802.11w protects them: forgeries, dropped.
    pub refused_unprotected_management: u64,
    /// Beacons refused under beacon protection: without an MME, with a replayed BIPN or a
    /// bad MIC (forgeries, or an attacker's replays).
    pub refused_beacons: u64,
    /// SA Queries the access point sent to check a protected link before a reassociation.
    pub sa_queries: u64,
    /// Association requests refused because every AID was held by a station that had
    /// proven its key (status 17); in an IBSS, new peers not learned because the peer table
    /// was full.
    pub refused_table_full: u64,
    /// Associations (IBSS peers) whose handshake had not yet verified a MIC, and SAE
    /// exchanges not yet associated, dropped to make room for a newer one (the oldest first)
    /// or expired.
    pub evicted_unproven: u64,
    /// SAE frames refused (a confirm that does not verify: a wrong password; a bad commit;
    /// a commit past the access point's bound on open exchanges).
    pub refused_sae: u64,
    /// SAE commits the access point answered with an anti-clogging token request.
    pub sae_token_requests: u64,
    /// OWE association requests refused (a Diffie-Hellman element of a group not offered,
    /// or whose public key is no point on its curve).
    pub refused_owe: u64,
}

/// What a node reports about one association (an IBSS station: one peer), as `status`
/// shows it: AID 0 and a reason for one that failed lately.
#[derive(Clone, Debug, Serialize)]
pub struct AssociationStatus {
    pub mac: String,
    pub aid: u16,
    pub port_open: bool,
    pub failure: Option<String>,
}

impl Counters {
    pub(crate) fn count_unprotect_error(&mut self, err: &Error) {
        match err {
            Error::Replay { .. } => self.dropped_replay += 1,
            Error::MicFailure | Error::IcvFailure => self.dropped_integrity += 1,
            Error::Attack(_) => self.refused_attacks += 1,
            _ => self.dropped_other += 1,
        }
    }
}

/// What a network is: its name, access point address, mode and secret, and how its nodes
/// send.
#[derive(Clone)]
pub struct NetworkConfig {
    pub ssid: String,
    pub bssid: MacAddr,
    pub mode: SecurityMode,
    pub passphrase: String,
    /// MSDUs whose MPDU would be longer are sent as fragments (none: never).
    pub fragment_threshold: Option<FragmentationThreshold>,
    /// 802.11w management frame protection this node offers or requires.
    pub pmf: Pmf,
    /// Beacon protection (hostapd's `beacon_prot`): an access point that protects management
    /// frames also signs its beacons with BIP under a BIGTK it hands its stations.
    pub beacon_protection: bool,
    /// Advertise SPP A-MSDU (the A-MSDU Present bit authenticated on links where the peer
    /// advertises it too); on by default.
    pub spp_amsdu: bool,
    /// The most stations an access point associates at once (hostapd's `max_num_sta`):
    /// AIDs 1 to this, at most [`MAX_AID`]; a request beyond it is refused (status 17).
    pub max_stations: u16,
    /// PSK, or SAE with the passphrase as its password.
    pub key_management: KeyManagement,
    /// WPA3-Personal transition mode (hostapd's `wpa_key_mgmt=WPA-PSK SAE`), with SAE key
    /// management: the access point offers the PSK (AKM 2) beside SAE, management frame
    /// protection optional but required of SAE links; a station takes SAE where the access
    /// point offers it, the PSK otherwise (unless the network disabled the transition).
    pub sae_transition: bool,
    /// The Transition Disable bits an access point sends in message 3 (hostapd's
    /// `transition_disable`; 0: none).
    pub transition_disable: u8,
    /// The other BSS of an OWE transition pair, which the beacon names (hostapd's
    /// `owe_transition_bssid` and `owe_transition_ssid`).
    pub owe_transition: Option<OweTransitionPeer>,
}

/// The other BSS of an OWE transition pair (Wi-Fi Alliance OWE specification 2.3): the open
/// BSS names the OWE BSS, which is hidden (its beacons carry no SSID), and the OWE BSS names
/// the open one. A station that can do OWE joins the OWE BSS; one that cannot, the open one.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OweTransitionPeer {
    pub bssid: MacAddr,
    pub ssid: String,
}

/// The largest AID (IEEE 802.11-2016 9.4.1.8), hostapd's default `max_num_sta`.
pub const MAX_AID: u16 = 2007;

impl NetworkConfig {
    pub fn new(ssid: impl Into<String>, bssid: MacAddr, mode: SecurityMode, passphrase: impl Into<String>) -> Self {
        NetworkConfig {
            ssid: ssid.into(),
            bssid,
            mode,
            passphrase: passphrase.into(),
            fragment_threshold: None,
            pmf: Pmf::Off,
            beacon_protection: false,
            spp_amsdu: true,
            max_stations: MAX_AID,
            key_management: KeyManagement::Psk,
            sae_transition: false,
            transition_disable: 0,
            owe_transition: None,
        }
    }

    /// The RSN element this node sends (none on an open or WEP network): in transition
    /// mode, the PSK's AKM and SAE's.
    pub fn rsn_element(&self) -> Result<Option<Vec<u8>>> {
        let akms = if self.in_sae_transition() { vec![Akm::Psk, self.key_management.akm()] } else { Vec::new() };
        self.rsn_element_of(&akms)
    }

    /// The RSN element with `akms` (none given: the network's own).
    pub(crate) fn rsn_element_of(&self, akms: &[Akm]) -> Result<Option<Vec<u8>>> {
        let Some(rsne) = self.mode.rsn_element(self.key_management.akm(), self.pmf.policy(), self.spp_amsdu)? else {
            return Ok(None);
        };
        if akms.is_empty() {
            return Ok(Some(rsne));
        }
        let (kind, mut repr) = RsnElementRepr::parse(&rsne)?;
        repr.akms = akms.to_vec();
        Ok(Some(repr.to_bytes(kind)?))
    }

    /// Whether this is an SAE network in WPA3-Personal transition mode.
    pub fn in_sae_transition(&self) -> bool {
        self.sae_transition && self.key_management.sae().is_some()
    }

    /// The RSN Extension element an access point advertises: SAE hash-to-element, if offered.
    pub fn rsnxe(&self) -> Option<&'static [u8]> {
        let h2e = self.key_management.sae().is_some_and(|sae| sae.pwe.offers_h2e());
        h2e.then_some(&RSNXE_SAE_H2E[..])
    }

    /// Handshake parameters of a link whose two sides both send this network's RSN
    /// element (an IBSS: no access point to negotiate with).
    pub(crate) fn symmetric_handshake_params(&self, aa: MacAddr, spa: MacAddr) -> Result<Params> {
        let rsne = self
            .rsn_element()?
            .ok_or(crate::Error::ModeLacks { mode: self.mode.to_string(), what: "4-way handshake" })?;
        self.mode.handshake_params(self.key_management.akm(), aa, spa, rsne.clone(), rsne)
    }
}

/// The passphrase is the network's secret: Debug says only whether there is one.
impl std::fmt::Debug for NetworkConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkConfig")
            .field("ssid", &self.ssid)
            .field("bssid", &self.bssid)
            .field("mode", &self.mode)
            .field("passphrase", &redacted(&self.passphrase))
            .field("fragment_threshold", &self.fragment_threshold)
            .field("pmf", &self.pmf)
            .field("beacon_protection", &self.beacon_protection)
            .field("spp_amsdu", &self.spp_amsdu)
            .field("max_stations", &self.max_stations)
            .field("key_management", &self.key_management)
            .field("sae_transition", &self.sae_transition)
            .field("transition_disable", &self.transition_disable)
            .field("owe_transition", &self.owe_transition)
            .finish()
    }
}

/// How Debug shows a secret: `<redacted>`, or `<none>` when it is empty.
pub(crate) fn redacted(secret: &str) -> &'static str {
    if secret.is_empty() {
        "<none>"
    } else {
        "<redacted>"
    }
}

/// A transmitter of whichever suite the network negotiated.
pub(crate) type AnyTransmitter = Transmitter<Box<dyn FrameSuite>>;

/// The secret a network mode needs, derived once (PBKDF2 is slow on purpose).
#[derive(Clone)]
pub(crate) enum Credential {
    None,
    Wep(Vec<u8>),
    Psk(Pmk),
    /// The SAE password: each station's PMK comes from its own exchange.
    Sae(Password),
    /// OWE: no secret; each station's PMK comes from its association's Diffie-Hellman.
    Owe,
}

impl Credential {
    /// The credential of `config`; an SAE network is CCMP or GCMP-256 with management frame
    /// protection required (in transition mode, offered), or refused, and so is beacon
    /// protection without management frame protection.
    pub(crate) fn of(config: &NetworkConfig) -> Result<Self> {
        if config.beacon_protection && (config.pmf == Pmf::Off || !config.mode.supports_pmf()) {
            return Err(crate::Error::BeaconProtectionWithoutPmf);
        }
        if config.key_management.sae().is_some() {
            if !matches!(config.mode, SecurityMode::Ccmp | SecurityMode::Gcmp256) {
                let what = "SAE (ccmp and gcmp256 have)";
                return Err(crate::Error::ModeLacks { mode: config.mode.to_string(), what });
            }
            // Transition mode offers PMF to all and requires it of SAE links only.
            let pmf_enough = config.pmf == Pmf::Required || (config.sae_transition && config.pmf == Pmf::Optional);
            if !pmf_enough {
                return Err(crate::Error::SaeWithoutPmf);
            }
            return Ok(Credential::Sae(Password::new(config.passphrase.as_bytes(), None)));
        }
        if config.key_management.owe().is_some() {
            if config.mode != SecurityMode::Ccmp {
                return Err(crate::Error::ModeLacks { mode: config.mode.to_string(), what: "OWE (ccmp has)" });
            }
            if config.pmf != Pmf::Required {
                return Err(crate::Error::OweWithoutPmf);
            }
            return Ok(Credential::Owe);
        }
        Ok(match config.mode {
            SecurityMode::Open => Credential::None,
            SecurityMode::Wep => Credential::Wep(wep_key(&config.passphrase)?),
            _ => Credential::Psk(psk(config)?),
        })
    }

    /// The PSK of an SAE network in transition mode (its stations without SAE use it).
    pub(crate) fn transition_psk(config: &NetworkConfig) -> Result<Option<Pmk>> {
        config.in_sae_transition().then(|| psk(config)).transpose()
    }
}

/// The PSK of `config`'s passphrase: 64 hex digits are the PSK itself, as wpa_psk and psk
/// give it (a passphrase has at most 63 characters, so the two never meet).
fn psk(config: &NetworkConfig) -> Result<Pmk> {
    match hex_octets(&config.passphrase).filter(|psk| psk.len() == Pmk::LEN) {
        Some(psk) => Ok(Pmk::from_bytes(&Zeroizing::new(psk))?),
        None => pmk_from_passphrase(&config.passphrase, config.ssid.as_bytes()).map_err(Into::into),
    }
}

/// Why a 4-way handshake timed out, for status: the last error seen, or `silent` when the
/// other side never answered; a MIC failure is almost always a wrong passphrase.
pub(crate) fn handshake_failure(last_error: Option<&str>, silent: &str) -> String {
    let why = last_error.unwrap_or(silent);
    let hint = if why.contains("MIC") { " (wrong passphrase?)" } else { "" };
    format!("4-way handshake failed: {why}{hint}")
}

pub(crate) fn fresh_rng() -> ChaCha8Rng {
    let mut seed = [0u8; 32];
    if std::fs::File::open("/dev/urandom").and_then(|mut f| std::io::Read::read_exact(&mut f, &mut seed)).is_err() {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        seed[..16].copy_from_slice(&t.to_le_bytes());
    }
    ChaCha8Rng::from_seed(seed)
}

/// Sequence numbers of one transmitter.
#[derive(Default)]
pub(crate) struct Sequence(u16);

impl Sequence {
    pub(crate) fn next(&mut self) -> SequenceControl {
        let sc = SequenceControl::new(self.0, 0);
        self.0 = (self.0 + 1) & 0x0fff;
        sc
    }
}

/// The elements every role announces: SSID, Supported Rates and the mode's RSN element.
pub(crate) fn elements(ssid: &str, rsne: Option<&[u8]>) -> Result<Vec<u8>> {
    let builder = ElementsBuilder::new().ssid(ssid.as_bytes())?.supported_rates(&SUPPORTED_RATES_BG)?;
    Ok(match rsne {
        Some(rsne) => builder.encoded(rsne)?,
        None => builder,
    }
    .build())
}

/// A beacon MPDU of `config`'s network sent by `sa`, with `capability` (ESS or IBSS; the
/// Privacy bit is added for a protected network).
pub(crate) fn beacon(config: &NetworkConfig, capability: u16, sa: MacAddr, sc: SequenceControl) -> Result<Vec<u8>> {
    let privacy = if config.mode == SecurityMode::Open { 0 } else { mgmt::capability::PRIVACY };
    // The OWE BSS of a transition pair is hidden: stations find it by the open BSS's element.
    let hidden = config.owe_transition.is_some() && config.key_management.owe().is_some();
    let mut elements = elements(if hidden { "" } else { &config.ssid }, config.rsn_element()?.as_deref())?;
    elements.extend_from_slice(config.rsnxe().unwrap_or_default());
    if let Some(peer) = &config.owe_transition {
        let element = OweTransitionRepr { bssid: peer.bssid, ssid: peer.ssid.as_bytes(), band_channel: None };
        elements.extend_from_slice(&element.to_bytes()?);
    }
    let beacon = BeaconRepr {
        timestamp: 0,
        beacon_interval: BEACON_INTERVAL_TU,
        capability: capability | privacy,
        elements: Elements::new(&elements),
    };
    Ok(ManagementBody::Beacon(beacon).to_mpdu(MacAddr::BROADCAST, sa, config.bssid, sc)?)
}

/// A QoS data header (TID 0) with Distribution System bits `ds`.
pub(crate) fn qos_header(ds: u16, a1: MacAddr, a2: MacAddr, a3: MacAddr, sc: SequenceControl) -> HeaderRepr {
    HeaderRepr {
        frame_control: FrameControl(FrameControl::new(FrameType::Data, SUBTYPE_QOS_DATA).0 | ds),
        duration: 0,
        addr1: a1,
        addr2: a2,
        addr3: a3,
        sequence_control: sc,
        addr4: None,
        qos_control: Some(QosControl(0)),
        ht_control: None,
    }
}

/// The MPDUs that carry one MSDU (`ethertype` and `payload`) behind `header`: protected by
/// `tx` when one is given, and fragmented when longer than `threshold`.
pub(crate) fn data_mpdus(
    header: HeaderRepr,
    ethertype: u16,
    payload: &[u8],
    tx: Option<&mut AnyTransmitter>,
    threshold: Option<FragmentationThreshold>,
) -> Result<Vec<Vec<u8>>> {
    let mut msdu = vec![0u8; SNAP_HEADER_LEN + payload.len()];
    llc::emit_snap(ethertype, &mut msdu)?;
    msdu[SNAP_HEADER_LEN..].copy_from_slice(payload);
    let rules = Rules::default();
    let suite = tx.as_ref().map(|t| t.suite().as_ref());
    Ok(match threshold.and_then(|t| t.fragment_body(header.header_len(), msdu.len(), suite)) {
        Some(body) => tx::fragments(header, &msdu, tx, body, rules)?,
        None => vec![tx::whole(header, &msdu, tx, rules)?],
    })
}

/// Take a received data MPDU through the receive pipeline under `key` and the 802.1X port
/// of `receiver` on a network of `mode`, counting a refusal. Returns the frame's header and
/// what the port admitted, or `None` while fragments are missing.
pub(crate) fn receive(
    pipeline: &mut Pipeline,
    counters: &mut Counters,
    mpdu: &[u8],
    key: Option<&mut RxKey>,
    receiver: MacAddr,
    mode: SecurityMode,
) -> Result<Option<(HeaderRepr, Admitted)>> {
    let defences = pipeline.defences();
    let count = |counters: &mut Counters, e: &Error| counters.count_unprotect_error(e);
    let Some(delivered) = pipeline.receive(mpdu, key).inspect_err(|e| count(counters, e))? else { return Ok(None) };
    let admitted =
        port::admit(&delivered, receiver, mode != SecurityMode::Open, defences).inspect_err(|e| count(counters, e))?;
    Ok(Some((delivered.header, admitted)))
}

/// Hand admitted MSDUs to the host as Ethernet frames.
pub(crate) fn to_host(msdus: Vec<port::OwnedMsdu>, counters: &mut Counters, out: &mut Vec<Output>) -> Result<()> {
    for m in msdus {
        out.push(Output::Ethernet(to_ethernet(m.da, m.sa, &m.body)?));
        counters.rx_msdus += 1;
    }
    Ok(())
}

/// An MSDU (LLC/SNAP header and payload) as an Ethernet II frame.
pub(crate) fn to_ethernet(da: MacAddr, sa: MacAddr, msdu: &[u8]) -> Result<Vec<u8>> {
    let mut out = vec![0u8; llc::ETHERNET_HEADER_LEN + msdu.len()];
    let n = llc::msdu_to_ethernet(da, sa, msdu, &mut out)?;
    out.truncate(n);
    Ok(out)
}
#[cfg(test)]
mod tests {
    use super::*;

    fn pmk_of(passphrase: &str) -> Pmk {
        let config = NetworkConfig::new("wlansec", MacAddr([2, 0, 0, 0, 0, 1]), SecurityMode::Ccmp, passphrase);
        match Credential::of(&config).unwrap() {
            Credential::Psk(pmk) => pmk,
            _ => panic!("a CCMP network has a PSK"),
        }
    }

    #[test]
    fn debug_never_shows_the_passphrase() {
        const SECRET: &str = "correct horse battery staple";
        let config = NetworkConfig::new("lab", MacAddr([2, 0x77, 0, 0, 0, 0xfe]), SecurityMode::Ccmp, SECRET);
        let debug = format!("{config:?} {config:#?}");
        assert!(!debug.contains(SECRET) && debug.contains("lab"), "{debug}");
    }

    #[test]
    fn sixty_four_hex_digits_are_the_psk_itself() {
        let derived = pmk_from_passphrase("wlansec-demo", b"wlansec").unwrap();
        let hex: String = derived.as_bytes().iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(pmk_of(&hex), derived);
        assert_eq!(pmk_of("wlansec-demo"), derived);
    }
}
