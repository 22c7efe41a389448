//! Synthetic protected captures: what an access point and its stations would put on the
//! air to carry a given list of Ethernet frames — a beacon with the RSN element, open
//! authentication and association, the 4-way handshake per station (real PTKs from the
//! passphrase or a given PMK, with the key hierarchy of the AKM asked for: PSK and 802.1X
//! with SHA-1 or SHA-256, FT-PSK and FT-802.1X from the FT elements, SAE, OWE, Suite B and
//! Suite B 192-bit), then the frames as QoS and non-QoS data in both directions, group frames
//! under the GTK, 4-address (WDS) frames and fragments; optionally a rekey halfway (a new
//! GTK sent with the group key handshake under each PTK, and one station reassociating
//! with a fresh 4-way handshake, or under Extended Key ID rekeying its PTK to the other
//! Key ID while it goes on sending under the old one). With TDLS, stations 0 and 1 set up a
//! direct link (the TPK handshake's Setup Request, Response and Confirm sent through the AP
//! as data frames) and the frames between them go direct under the TPK.
//!
//! The Ethernet frames go onto the air unchanged, so decrypting the capture must give them
//! back exactly. Deterministic: the same seed gives the same capture.

use std::collections::HashMap;

mod data;
mod handshake;
mod management;
mod tdls;
mod traffic;

pub use traffic::{generated_traffic, with_direct_link};

use crate::error::{Error, Result};
use crate::gen::{below, random_mac, ChaCha8Rng, Rng, SeedableRng};
use crate::registry::SuiteId;
use crate::rsn::{pmk_from_passphrase, Akm, AkmKeys, CipherSuite, Pmk, Ptk, Secret};
use crate::suite::bip::{BipAlgorithm, Igtk};
use crate::suite::{FrameSuite, PnCounter, Transmitter};
use crate::wire::{MacAddr, Rules};
use tdls::DirectLink;

/// What to synthesize.
#[derive(Clone, Debug)]
pub struct Config {
    pub ssid: Vec<u8>,
    pub passphrase: String,
    /// The AKM suite the network uses (its key hierarchy and EAPOL-Key MIC).
    pub akm: Akm,
    /// The PMK (for FT: the XXKey), else the passphrase's (PSK AKMs only).
    pub pmk: Option<Vec<u8>>,
    /// Extended Key ID: message 3 installs each PTK under Key ID 1 (a Key ID KDE), and
    /// pairwise frames name it.
    pub extended_key_id: bool,
    /// Protected management frames (802.11w, BIP-CMAC-128): see the module documentation.
    pub pmf: bool,
    /// A TDLS direct link between stations 0 and 1 (needs two stations).
    pub tdls: bool,
    /// Pairwise and group cipher; WEP-40/104 means a static-key WEP network.
    pub cipher: CipherSuite,
    /// The WEP key (5 or 13 octets) for a WEP network.
    pub wep_key: Option<Vec<u8>>,
    pub stations: usize,
    /// Replace the GTK halfway (group key handshake) and reassociate station 0.
    pub rekey: bool,
    /// Every n-th unicast MSDU longer than the fragment size is sent as fragments (0: never).
    pub fragment_every: usize,
    pub fragment_size: usize,
    pub seed: u64,
}

impl Config {
    /// A WPA2-Personal network of one station and no extras: what every caller changes a
    /// few fields of (`Config { stations: 3, ..Config::personal(ssid, passphrase, cipher) }`).
    /// A WEP cipher still needs its `wep_key`.
    pub fn personal(ssid: &[u8], passphrase: &str, cipher: CipherSuite) -> Self {
        Config {
            ssid: ssid.to_vec(),
            passphrase: passphrase.into(),
            akm: Akm::Psk,
            pmk: None,
            extended_key_id: false,
            pmf: false,
            tdls: false,
            cipher,
            wep_key: None,
            stations: 1,
            rekey: false,
            fragment_every: 0,
            fragment_size: 300,
            seed: 0,
        }
    }
}

/// One frame of the synthetic capture.
pub struct Record {
    pub timestamp_ns: u64,
    pub mpdu: Vec<u8>,
}

/// The Key ID of the IGTK.
const IGTK_KEY_ID: u16 = 4;

/// The mobility domain and R0KH-ID of the FT networks synthesized.
const MDID: [u8; 2] = [0xa1, 0xb2];
const R0KH_ID: &[u8] = b"r0kh.wlansec.example";

const START_NS: u64 = 1_700_000_000_000_000_000;
const FRAME_SPACING_NS: u64 = 200_000;
const BEACON_EVERY: usize = 200;

struct Station {
    mac: MacAddr,
    ptk: Option<Ptk>,
    ap_tx: Option<Tx>,
    sta_tx: Option<Tx>,
    replay_counter: u64,
    /// The Key ID of the station's PTK (1 under Extended Key ID, then alternating).
    key_id: u8,
}

/// The access point and its stations, writing what goes on the air.
pub struct Synth {
    config: Config,
    rng: ChaCha8Rng,
    pmk: Option<Pmk>,
    keys: AkmKeys,
    bssid: MacAddr,
    stations: Vec<Station>,
    gtk: Option<(u8, Secret)>,
    group_tx: Option<Tx>,
    /// The IGTK and its IPN counter (802.11w).
    igtk: Option<(Igtk, PnCounter)>,
    sequence: HashMap<MacAddr, u16>,
    /// The TDLS direct link, once set up.
    tdls: Option<DirectLink>,
    records: Vec<Record>,
    frames_sent: usize,
    unicast_sent: usize,
    /// The PMKs of the 802.1X re-authentications to come, in order (see
    /// [`Synth::with_reauthentications`]).
    reauth_pmks: Vec<Pmk>,
}

impl Synth {
    pub fn new(config: Config) -> Result<Self> {
        if config.stations == 0 {
            return Err(Error::Malformed("a synthetic capture needs at least one station"));
        }
        if config.tdls && config.stations < 2 {
            return Err(Error::Malformed("a TDLS direct link needs two stations"));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let bssid = random_mac(&mut rng);
        let stations = (0..config.stations)
            .map(|_| Station {
                mac: random_mac(&mut rng),
                ptk: None,
                ap_tx: None,
                sta_tx: None,
                replay_counter: 0,
                key_id: 0,
            })
            .collect();
        let keys = AkmKeys::of(config.akm, None)?;
        let pmk = match (&config.pmk, is_wep(config.cipher)) {
            (_, true) => None,
            (Some(pmk), false) => Some(Pmk::from_bytes(pmk)?),
            (None, false) if matches!(config.akm, Akm::Psk | Akm::PskSha256 | Akm::FtPsk) => {
                Some(pmk_from_passphrase(&config.passphrase, &config.ssid)?)
            }
            (None, false) => {
                return Err(Error::Unsupported("this AKM's PMK does not come from a passphrase: give one"))
            }
        };
        Ok(Synth {
            config,
            rng,
            pmk,
            keys,
            bssid,
            stations,
            gtk: None,
            group_tx: None,
            igtk: None,
            sequence: HashMap::new(),
            tdls: None,
            records: Vec::new(),
            frames_sent: 0,
            unicast_sent: 0,
            reauth_pmks: Vec::new(),
        })
    }

    /// 802.1X re-authentications: the traffic is cut into `pmks.len() + 1` equal parts, and
    /// between two parts every station re-authenticates under the next PMK (a new EAP
    /// exchange's MSK) with a fresh 4-way handshake, its EAPOL frames protected under the
    /// PTK in use until then, in the same association.
    pub fn with_reauthentications(mut self, pmks: &[Vec<u8>]) -> Result<Self> {
        self.reauth_pmks = pmks.iter().map(|p| Pmk::from_bytes(p)).collect::<Result<_>>()?;
        Ok(self)
    }

    pub fn bssid(&self) -> MacAddr {
        self.bssid
    }

    pub fn station_macs(&self) -> Vec<MacAddr> {
        self.stations.iter().map(|s| s.mac).collect()
    }

    /// Put the whole exchange on the air, carrying `frames` (Ethernet II); returns the
    /// capture's frames in order.
    pub fn run(mut self, frames: &[Vec<u8>]) -> Result<Vec<Record>> {
        self.beacon()?;
        if is_wep(self.config.cipher) {
            let key = self.config.wep_key.clone().ok_or(Error::Malformed("a WEP network needs a WEP key"))?;
            // WEP IVs start at a random point, as real stations' do.
            let first_iv = 1 + below(&mut self.rng, 1 << 23);
            let tx = Transmitter::new(SuiteId::from_cipher(self.config.cipher)?.keyed(&key, Rules::default())?, 0);
            self.group_tx = Some(tx.with_pn_counter(PnCounter::starting_at(first_iv)));
        } else {
            self.new_gtk(1)?;
        }
        if self.config.pmf {
            let mut key = [0u8; 16];
            self.rng.fill_bytes(&mut key);
            let igtk = Igtk::new(BipAlgorithm::from_cipher_suite(CipherSuite::BipCmac128)?, IGTK_KEY_ID, &key)?;
            self.igtk = Some((igtk, PnCounter::default()));
        }
        for i in 0..self.stations.len() {
            self.associate(i)?;
        }
        if self.config.tdls {
            self.tdls_setup(0, 1)?;
        }
        let half = frames.len() / 2;
        let reauths = std::mem::take(&mut self.reauth_pmks);
        let part = frames.len() / (reauths.len() + 1);
        for (n, frame) in frames.iter().enumerate() {
            if n == half && self.config.rekey && !is_wep(self.config.cipher) {
                self.rekey()?;
            }
            if let Some(pmk) = reauths.get((n / part.max(1)).wrapping_sub(1)).filter(|_| n > 0 && n % part.max(1) == 0)
            {
                self.pmk = Some(pmk.clone());
                for i in 0..self.stations.len() {
                    self.four_way_handshake_in(i, false, true)?;
                }
            }
            if self.frames_sent % BEACON_EVERY == BEACON_EVERY - 1 {
                self.beacon()?;
            }
            self.carry(frame)?;
        }
        if self.igtk.is_some() {
            self.protected_management()?;
        }
        Ok(self.records)
    }

    fn push(&mut self, mpdu: Vec<u8>) {
        let timestamp_ns = START_NS + self.records.len() as u64 * FRAME_SPACING_NS;
        self.records.push(Record { timestamp_ns, mpdu });
    }

    fn next_sequence(&mut self, transmitter: MacAddr) -> u16 {
        let seq = self.sequence.entry(transmitter).or_insert(0);
        let out = *seq;
        *seq = (*seq + 1) & 0x0fff;
        out
    }

    /// The key a frame goes out under: the station's pairwise key in its direction, else the
    /// group key (and WEP's one static key for everything).
    fn tx(&mut self, station: Option<usize>, from_ap: bool) -> Result<&mut Tx> {
        let tx = match station {
            Some(i) if !is_wep(self.config.cipher) => {
                let st = &mut self.stations[i];
                if from_ap {
                    st.ap_tx.as_mut()
                } else {
                    st.sta_tx.as_mut()
                }
            }
            _ => self.group_tx.as_mut(),
        };
        tx.ok_or(Error::Malformed("no key to protect the frame with"))
    }
}

/// The transmit side of one key.
type Tx = Transmitter<Box<dyn FrameSuite>>;

fn transmitter(cipher: CipherSuite, key: &[u8], key_id: u8) -> Result<Tx> {
    Ok(Transmitter::new(SuiteId::from_cipher(cipher)?.keyed(key, Rules::default())?, key_id))
}

fn is_wep(cipher: CipherSuite) -> bool {
    matches!(cipher, CipherSuite::Wep40 | CipherSuite::Wep104)
}
