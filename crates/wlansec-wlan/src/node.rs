//! The frame-exchange core every role shares (access point, station, IBSS peer): what the
//! machines ask their owner to do, their counters, the network's credential, sequence
//! numbers, the frames they build (management, QoS data) and the receive path, which is the
//! core's `rx` pipeline (decapsulation, replay check, reassembly, A-MSDU, Ethernet) with
//! each refusal counted.

use serde::Serialize;
use wlansec_core::gen::{ChaCha8Rng, SeedableRng};
use wlansec_core::rsn::{pmk_from_passphrase, Pmk, Secret};
use wlansec_core::rx::{Delivered, Pipeline, RxKey};
use wlansec_core::suite::{FrameSuite, Transmitter};
use wlansec_core::wire::llc::{self, SNAP_HEADER_LEN};
use wlansec_core::wire::mgmt::{self, BeaconRepr, Elements, ElementsBuilder, ManagementBody, SUPPORTED_RATES_BG};
use wlansec_core::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};
use wlansec_core::Error;

use crate::Result;

use crate::security::{wep_key, SecurityMode};

/// Room left behind an MPDU for the largest security overhead.
const ROOM: usize = 32;
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
    /// Unprotected data where protection is required, unknown receivers, malformed frames.
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
}

impl Counters {
    pub(crate) fn count_unprotect_error(&mut self, err: &Error) {
        match err {
            Error::Replay { .. } => self.dropped_replay += 1,
            Error::MicFailure | Error::IcvFailure => self.dropped_integrity += 1,
            _ => self.dropped_other += 1,
        }
    }
}

/// What a network is: its name, access point address, mode and secret.
#[derive(Clone)]
pub struct NetworkConfig {
    pub ssid: String,
    pub bssid: MacAddr,
    pub mode: SecurityMode,
    pub passphrase: String,
}

/// The passphrase is the network's secret: Debug says only whether there is one.
impl std::fmt::Debug for NetworkConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkConfig")
            .field("ssid", &self.ssid)
            .field("bssid", &self.bssid)
            .field("mode", &self.mode)
            .field("passphrase", &redacted(&self.passphrase))
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
}

impl Credential {
    pub(crate) fn of(config: &NetworkConfig) -> Result<Self> {
        Ok(match config.mode {
            SecurityMode::Open => Credential::None,
            SecurityMode::Wep => Credential::Wep(wep_key(&config.passphrase)?),
            _ => Credential::Psk(pmk_from_passphrase(&config.passphrase, config.ssid.as_bytes())?),
        })
    }

    /// The group key this side sends broadcasts under, and its transmitter: a fresh random
    /// GTK for an RSN network (the authenticator's), the shared key for WEP, none when open.
    pub(crate) fn group_key(
        &self,
        mode: SecurityMode,
        rng: &mut ChaCha8Rng,
    ) -> Result<(Option<Secret>, Option<AnyTransmitter>)> {
        Ok(match self {
            Credential::None => (None, None),
            Credential::Wep(key) => (None, Some(Transmitter::new(SecurityMode::Wep.suite(key)?, 0))),
            Credential::Psk(_) => {
                let (gtk, tx) = crate::group::fresh_gtk(mode, 1, rng)?;
                (Some(gtk), Some(tx))
            }
        })
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
    let elements = elements(&config.ssid, config.mode.rsn_element()?.as_deref())?;
    let beacon = BeaconRepr {
        timestamp: 0,
        beacon_interval: BEACON_INTERVAL_TU,
        capability: capability | privacy,
        elements: Elements::new(&elements),
    };
    Ok(ManagementBody::Beacon(beacon).to_mpdu(MacAddr::BROADCAST, sa, config.bssid, sc)?)
}

/// An unprotected QoS data MPDU (TID 0) carrying `msdu`, with room behind it for protection.
pub(crate) fn qos_data(
    ds: u16,
    a1: MacAddr,
    a2: MacAddr,
    a3: MacAddr,
    sc: SequenceControl,
    ethertype: u16,
    payload: &[u8],
) -> Result<(Vec<u8>, usize)> {
    let header = HeaderRepr {
        frame_control: FrameControl(FrameControl::new(FrameType::Data, SUBTYPE_QOS_DATA).0 | ds),
        duration: 0,
        addr1: a1,
        addr2: a2,
        addr3: a3,
        sequence_control: sc,
        addr4: None,
        qos_control: Some(QosControl(0)),
        ht_control: None,
    };
    let hl = header.header_len();
    let len = hl + SNAP_HEADER_LEN + payload.len();
    let mut mpdu = vec![0u8; len + ROOM];
    header.emit(&mut mpdu, Rules::default())?;
    llc::emit_snap(ethertype, &mut mpdu[hl..])?;
    mpdu[hl + SNAP_HEADER_LEN..len].copy_from_slice(payload);
    Ok((mpdu, len))
}

/// Protect `mpdu[..len]` with `tx` (if any) and trim it to its final length.
pub(crate) fn seal(tx: Option<&mut AnyTransmitter>, mut mpdu: Vec<u8>, len: usize) -> Result<Vec<u8>> {
    let len = match tx {
        Some(tx) => tx.protect(&mut mpdu, len)?,
        None => len,
    };
    mpdu.truncate(len);
    Ok(mpdu)
}

/// Take a received data MPDU through the receive pipeline under `key`, counting a refusal.
pub(crate) fn receive<'p>(
    pipeline: &'p mut Pipeline,
    counters: &mut Counters,
    mpdu: &[u8],
    key: Option<&mut RxKey>,
) -> Result<Option<Delivered<'p>>> {
    Ok(pipeline.receive(mpdu, key).inspect_err(|e| counters.count_unprotect_error(e))?)
}

/// The MSDUs of a delivered frame, owned: (DA, SA, LLC/SNAP header and payload).
pub(crate) fn owned_msdus(delivered: &Delivered<'_>) -> Result<Vec<(MacAddr, MacAddr, Vec<u8>)>> {
    Ok(delivered.msdus().map(|m| m.map(|m| (m.da, m.sa, m.body.to_vec()))).collect::<wlansec_core::Result<_>>()?)
}

/// The 802.1X port rule of a station or IBSS peer for a delivered frame's MSDUs: an
/// unprotected frame on a protected network passes only as one EAPOL frame, which is
/// returned for the owner's handshake; every other MSDU goes to the host as Ethernet.
pub(crate) fn to_host(
    msdus: Vec<(MacAddr, MacAddr, Vec<u8>)>,
    protected: bool,
    mode: SecurityMode,
    counters: &mut Counters,
    out: &mut Vec<Output>,
) -> Result<Option<Vec<u8>>> {
    if !protected && mode != SecurityMode::Open {
        if let [(_, _, msdu)] = &msdus[..] {
            if let Some(eapol) = eapol_of(msdu) {
                return Ok(Some(eapol.to_vec()));
            }
        }
        counters.dropped_other += 1;
        return Err(wlansec_core::Error::NotProtected.into());
    }
    for (da, sa, msdu) in msdus {
        out.push(Output::Ethernet(to_ethernet(da, sa, &msdu)?));
        counters.rx_msdus += 1;
    }
    Ok(None)
}

/// An MSDU (LLC/SNAP header and payload) as an Ethernet II frame.
pub(crate) fn to_ethernet(da: MacAddr, sa: MacAddr, msdu: &[u8]) -> Result<Vec<u8>> {
    let mut out = vec![0u8; llc::ETHERNET_HEADER_LEN + msdu.len()];
    let n = llc::msdu_to_ethernet(da, sa, msdu, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The EAPOL frame an MSDU (LLC/SNAP header and payload) carries, if it is one.
pub(crate) fn eapol_of(msdu: &[u8]) -> Option<&[u8]> {
    (llc::parse_snap(msdu).ok()? == wlansec_core::rsn::eapol::ETHERTYPE_EAPOL).then(|| &msdu[SNAP_HEADER_LEN..])
}
