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

mod traffic;

pub use traffic::{generated_traffic, with_direct_link};

use crate::error::{Error, Result};
use crate::gen::{below, random_mac, ChaCha8Rng, Rng, SeedableRng};
use crate::registry::SuiteId;
use crate::rsn::eapol::{self, DescriptorType, EapolKeyRepr, KeyInfo, ETHERTYPE_EAPOL};
use crate::rsn::element::ft::{self as ft_elements, FtElement};
use crate::rsn::element::IEEE_OUI;
use crate::rsn::element::{kde_type, ElementKind, KeyDataBuilder};
use crate::rsn::kdf::ft;
use crate::rsn::tdls::TpkMessage;
use crate::rsn::{
    derive_ptk_with, pmk_from_passphrase, Akm, AkmKeys, CipherSuite, KeyDescriptorVersion, KeyIntegrity, MfpPolicy,
    Pmk, Ptk, RsnElementRepr, Secret,
};
use crate::suite::bip::{BipAlgorithm, Igtk};
use crate::suite::{FrameSuite, PnCounter, Transmitter};
use crate::tx;
use crate::wire::llc;
use crate::wire::mgmt::{
    capability, ActionRepr, AssociationRequestRepr, AssociationResponseRepr, AuthenticationRepr, BeaconRepr,
    DeauthenticationRepr, Elements, ElementsBuilder, ManagementBody, REASON_LEAVING, STATUS_SUCCESS,
    SUPPORTED_RATES_BG,
};
use crate::wire::tdls::{
    LinkIdRepr, SetupAction, SetupRepr, TimeoutIntervalRepr, ETHERTYPE_TDLS, TIMEOUT_KEY_LIFETIME,
};
use crate::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

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

/// RSN Capabilities: Extended Key ID for Individually Addressed Frames (9.4.2.24.4).
const EXTENDED_KEY_ID: u16 = 1 << 13;
/// The Key ID of pairwise keys under Extended Key ID.
const PAIRWISE_KEY_ID: u8 = 1;
/// The Key ID of the IGTK.
const IGTK_KEY_ID: u16 = 4;
/// Action category SA Query (robust) and its Request and Response action codes (9.6.9).
const CATEGORY_SA_QUERY: u8 = 8;
const SA_QUERY_REQUEST: u8 = 0;
const SA_QUERY_RESPONSE: u8 = 1;

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

    fn rsn_element(&self) -> Result<Vec<u8>> {
        self.rsn_element_with(None)
    }

    /// The RSN element, with a PMKID (an FT station's PMKR1Name) when given.
    fn rsn_element_with(&self, pmkid: Option<[u8; 16]>) -> Result<Vec<u8>> {
        let mut repr = RsnElementRepr::personal(self.config.cipher, self.config.cipher, self.config.akm);
        if self.config.pmf {
            repr = repr.with_mfp(MfpPolicy::Required, CipherSuite::BipCmac128);
        }
        repr.pmkids.extend(pmkid);
        if self.config.extended_key_id {
            repr.capabilities |= EXTENDED_KEY_ID;
        }
        repr.to_bytes(ElementKind::Rsn)
    }

    /// The Mobility Domain element of an FT network (MDID a1b2, FT over the DS).
    fn mobility_domain(&self) -> Option<Vec<u8>> {
        self.config.akm.is_ft().then(|| vec![ft_elements::MOBILITY_DOMAIN_ID, 3, MDID[0], MDID[1], 0x01])
    }

    /// The Fast BSS Transition element of the association response (and the 4-way
    /// handshake of an initial mobility domain association): the AP is its own R0KH and R1KH.
    fn fast_bss_transition(&self) -> Result<Vec<u8>> {
        let fte = FtElement { anonce: [0; 32], snonce: [0; 32], r0kh_id: Some(R0KH_ID), r1kh_id: Some(self.bssid.0) };
        let body = fte.to_body(self.fte_mic_len())?;
        let mut out = vec![ft_elements::FAST_BSS_TRANSITION_ID, body.len() as u8];
        out.extend_from_slice(&body);
        Ok(out)
    }

    fn fte_mic_len(&self) -> usize {
        if self.config.akm == Akm::FtIeee8021xSha384 {
            24
        } else {
            16
        }
    }

    fn management(&mut self, body: ManagementBody, da: MacAddr, sa: MacAddr) -> Result<()> {
        let sequence_control = SequenceControl::new(self.next_sequence(sa), 0);
        let mpdu = body.to_mpdu(da, sa, self.bssid, sequence_control)?;
        self.push(mpdu);
        Ok(())
    }

    /// SSID, rates, channel and (but on WEP networks) the RSN element.
    fn elements(&self) -> Result<Vec<u8>> {
        let elements = ElementsBuilder::new()
            .ssid(&self.config.ssid)?
            .supported_rates(&SUPPORTED_RATES_BG)?
            .ds_parameter_set(6)?;
        let mut elements =
            if is_wep(self.config.cipher) { elements } else { elements.encoded(&self.rsn_element()?)? };
        if let Some(mde) = self.mobility_domain() {
            elements = elements.encoded(&mde)?;
        }
        Ok(elements.build())
    }

    fn beacon(&mut self) -> Result<()> {
        let elements = self.elements()?;
        let beacon = BeaconRepr {
            timestamp: self.records.len() as u64 * 200,
            beacon_interval: 100,
            capability: capability::ESS | capability::PRIVACY,
            elements: Elements::new(&elements),
        };
        self.management(ManagementBody::Beacon(beacon), MacAddr::BROADCAST, self.bssid)
    }

    /// Open authentication, association and (for RSN) the 4-way handshake.
    fn associate(&mut self, i: usize) -> Result<()> {
        let sta = self.stations[i].mac;
        let ap = self.bssid;
        let capability = capability::ESS | capability::PRIVACY;
        let auth = |transaction_sequence| {
            ManagementBody::Authentication(AuthenticationRepr::open_system(transaction_sequence, STATUS_SUCCESS))
        };
        self.management(auth(1), ap, sta)?;
        self.management(auth(2), sta, ap)?;
        let mut elements = self.elements()?;
        if self.config.akm == Akm::Owe {
            // OWE Diffie-Hellman Parameter element: group 19 and a public key (x-coordinate).
            elements.extend_from_slice(&[ft_elements::EXTENSION_ID, 35, ft_elements::OWE_DH_PARAMETER_EXT_ID, 19, 0]);
            let mut public = [0u8; 32];
            self.rng.fill_bytes(&mut public);
            elements.extend_from_slice(&public);
        }
        let request = AssociationRequestRepr {
            capability,
            listen_interval: 10,
            current_ap: None,
            elements: Elements::new(&elements),
        };
        self.management(ManagementBody::AssociationRequest(request), ap, sta)?;
        let mut rates = ElementsBuilder::new().supported_rates(&SUPPORTED_RATES_BG)?.build();
        if let Some(mde) = self.mobility_domain() {
            rates.extend_from_slice(&mde);
            rates.extend_from_slice(&self.fast_bss_transition()?);
        }
        let response = AssociationResponseRepr {
            capability,
            status: STATUS_SUCCESS,
            aid: 1 + i as u16,
            elements: Elements::new(&rates),
        };
        self.management(ManagementBody::AssociationResponse(response), sta, ap)?;
        if is_wep(self.config.cipher) {
            return Ok(());
        }
        self.four_way_handshake(i, false)
    }

    fn descriptor_version(&self) -> KeyDescriptorVersion {
        self.keys.descriptor_version(self.config.cipher)
    }

    fn integrity(&self) -> KeyIntegrity {
        self.keys.integrity_of(self.descriptor_version())
    }

    /// The frame's bytes, its Key MIC field as long as the AKM's MIC, signed under `kck`.
    fn signed(&self, repr: &EapolKeyRepr<'_>, kck: &[u8]) -> Result<Vec<u8>> {
        repr.to_signed_bytes_with(self.integrity(), kck)
    }

    fn eapol_repr<'a>(&self, flags: u16, replay: u64, nonce: [u8; 32], key_data: &'a [u8]) -> EapolKeyRepr<'a> {
        EapolKeyRepr {
            protocol_version: 2,
            descriptor_type: DescriptorType::Rsn,
            key_info: KeyInfo::new(self.descriptor_version(), flags),
            key_length: self.config.cipher.tk_len().unwrap_or(16) as u16,
            replay_counter: replay,
            nonce,
            key_iv: [0; 16],
            key_rsc: 0,
            mic: [0; 16],
            key_data,
        }
    }

    /// Encrypted Key Data with a fresh Key IV (RC4 needs one; AES key wrap ignores it).
    fn encrypted_key_data(&mut self, ptk: &Ptk, plain: &[u8]) -> Result<([u8; 16], Vec<u8>)> {
        let mut iv = [0u8; 16];
        if self.descriptor_version() == KeyDescriptorVersion::HmacMd5Rc4 {
            self.rng.fill_bytes(&mut iv);
        }
        let data = eapol::encrypt_key_data(self.descriptor_version(), ptk.kek.as_bytes(), &iv, plain)?;
        Ok((iv, data))
    }

    /// The 4-way handshake of station `i`; `ptk_rekey`: a new PTK in the same association,
    /// which under Extended Key ID takes the other Key ID while the station goes on sending
    /// under the old one (the AP takes the new one at once), so both are in use.
    fn four_way_handshake(&mut self, i: usize, ptk_rekey: bool) -> Result<()> {
        self.four_way_handshake_in(i, ptk_rekey, false)
    }

    /// ... with its EAPOL frames `protected` under the PTK in use (a re-authentication).
    fn four_way_handshake_in(&mut self, i: usize, ptk_rekey: bool, protected: bool) -> Result<()> {
        let pairwise_key_id = match (self.config.extended_key_id, ptk_rekey) {
            (false, _) => 0,
            (true, false) => PAIRWISE_KEY_ID,
            (true, true) => 1 - self.stations[i].key_id,
        };
        let pmk = self.pmk.as_ref().ok_or(Error::Malformed("no PMK"))?;
        let (aa, spa) = (self.bssid, self.stations[i].mac);
        let mut anonce = [0u8; 32];
        let mut snonce = [0u8; 32];
        self.rng.fill_bytes(&mut anonce);
        self.rng.fill_bytes(&mut snonce);
        let tk_len = self.config.cipher.tk_len().ok_or(Error::Unsupported("cipher without a key length"))?;
        let (ptk, rsn, ft_elements) = if self.config.akm.is_ft() {
            let ssid = self.config.ssid.clone();
            let ids = ft::Ids { ssid: &ssid, mdid: MDID, r0kh_id: R0KH_ID, r1kh_id: aa.0, spa };
            let (ptk, pmk_r1_name) = ft::derive_ptk(&self.keys, pmk.as_bytes(), &ids, tk_len, aa, &anonce, &snonce)?;
            // Messages 2 and 3 name PMKR1Name and carry the MDE and FTE (12.7.6.3).
            let mut elements = self.mobility_domain().unwrap_or_default();
            elements.extend_from_slice(&self.fast_bss_transition()?);
            (ptk, self.rsn_element_with(Some(pmk_r1_name))?, elements)
        } else {
            (derive_ptk_with(pmk, &self.keys, tk_len, aa, spa, &anonce, &snonce)?, self.rsn_element()?, Vec::new())
        };
        let kck = ptk.kck.as_bytes().to_vec();
        let r = self.stations[i].replay_counter + 1;
        self.stations[i].replay_counter = r + 1;
        let (key_id, gtk) = self.gtk.clone().ok_or(Error::Malformed("no GTK"))?;

        let m1 = self.signed(&self.eapol_repr(KeyInfo::PAIRWISE | KeyInfo::ACK, r, anonce, &[]), &kck)?;
        let m2_data = [rsn.as_slice(), &ft_elements].concat();
        let mut m2 = self.eapol_repr(KeyInfo::PAIRWISE | KeyInfo::MIC, r, snonce, &m2_data);
        m2.key_length = 0;
        let m2 = self.signed(&m2, &kck)?;
        let mut plain = KeyDataBuilder::new().element(&rsn).gtk(key_id, true, gtk.as_bytes())?;
        if self.config.extended_key_id {
            plain = plain.kde(kde_type::KEY_ID, &[pairwise_key_id, 0])?;
        }
        if let Some((igtk, ipn)) = &self.igtk {
            plain = plain.igtk(igtk.key_id(), ipn.last(), igtk.key().as_bytes())?;
        }
        let plain = plain.element(&ft_elements).build();
        let (iv, data) = self.encrypted_key_data(&ptk, &plain)?;
        let flags3 = KeyInfo::PAIRWISE
            | KeyInfo::INSTALL
            | KeyInfo::ACK
            | KeyInfo::MIC
            | KeyInfo::SECURE
            | KeyInfo::ENCRYPTED_KEY_DATA;
        let mut m3 = self.eapol_repr(flags3, r + 1, anonce, &data);
        m3.key_iv = iv;
        let m3 = self.signed(&m3, &kck)?;
        let mut m4 = self.eapol_repr(KeyInfo::PAIRWISE | KeyInfo::MIC | KeyInfo::SECURE, r + 1, [0; 32], &[]);
        m4.key_length = 0;
        let m4 = self.signed(&m4, &kck)?;

        for (from_ap, message) in [(true, m1), (false, m2), (true, m3), (false, m4)] {
            if protected {
                let (header, body) = self.eapol_mpdu_parts(self.stations[i].mac, from_ap, &message)?;
                self.send_protected(Some(i), from_ap, header, &body)?;
            } else {
                self.eapol_plain(i, from_ap, &message)?;
            }
        }
        let tk = ptk.tk.as_bytes();
        let st = &mut self.stations[i];
        st.ap_tx = Some(transmitter(self.config.cipher, tk, pairwise_key_id)?);
        if !ptk_rekey {
            st.sta_tx = Some(transmitter(self.config.cipher, tk, pairwise_key_id)?);
        }
        st.key_id = pairwise_key_id;
        st.ptk = Some(ptk);
        Ok(())
    }

    /// An EAPOL frame in a non-QoS data frame, sent in the clear (before keys exist).
    fn eapol_plain(&mut self, i: usize, from_ap: bool, eapol: &[u8]) -> Result<()> {
        let sta = self.stations[i].mac;
        let (header, body) = self.eapol_mpdu_parts(sta, from_ap, eapol)?;
        let mut mpdu = vec![0u8; header.header_len()];
        header.emit(&mut mpdu, Rules::default())?;
        mpdu.extend_from_slice(&body);
        self.push(mpdu);
        Ok(())
    }

    fn eapol_mpdu_parts(&mut self, sta: MacAddr, from_ap: bool, eapol: &[u8]) -> Result<(HeaderRepr, Vec<u8>)> {
        let (da, sa) = if from_ap { (sta, self.bssid) } else { (self.bssid, sta) };
        let header = self.data_header(da, sa, from_ap, None, false);
        let mut body = vec![0u8; llc::SNAP_HEADER_LEN];
        llc::emit_snap(ETHERTYPE_EAPOL, &mut body)?;
        body.extend_from_slice(eapol);
        Ok((header, body))
    }

    /// A data header between the AP and a station (DS bits by direction), or a 4-address one
    /// from station 0.
    fn data_header(&mut self, da: MacAddr, sa: MacAddr, from_ap: bool, tid: Option<u8>, wds: bool) -> HeaderRepr {
        let mut fc = FrameControl::new(FrameType::Data, if tid.is_some() { 8 } else { 0 });
        let (a1, a2, a3, a4) = match (from_ap, wds) {
            (true, false) => {
                fc = fc.with_flag(FrameControl::FROM_DS, true);
                (da, self.bssid, sa, None)
            }
            (false, false) => {
                fc = fc.with_flag(FrameControl::TO_DS, true);
                (self.bssid, sa, da, None)
            }
            // Station 0 bridges a wired segment: it relays that segment's frames to the AP
            // as 4-address frames under its own pairwise key.
            (_, true) => {
                fc = fc.with_flag(FrameControl::FROM_DS, true).with_flag(FrameControl::TO_DS, true);
                (self.bssid, self.stations[0].mac, da, Some(sa))
            }
        };
        HeaderRepr {
            frame_control: fc,
            duration: 44,
            addr1: a1,
            addr2: a2,
            addr3: a3,
            sequence_control: SequenceControl::new(self.next_sequence(a2), 0),
            addr4: a4,
            qos_control: tid.map(|t| QosControl(u16::from(t))),
            ht_control: None,
        }
    }

    fn new_gtk(&mut self, key_id: u8) -> Result<()> {
        let len = self.config.cipher.tk_len().ok_or(Error::Unsupported("group cipher without a key length"))?;
        let mut gtk = vec![0u8; len];
        self.rng.fill_bytes(&mut gtk);
        let secret = Secret::from_slice(&gtk)?;
        self.group_tx = Some(transmitter(self.config.cipher, &gtk, key_id)?);
        self.gtk = Some((key_id, secret));
        Ok(())
    }

    /// A new GTK, sent to every station with the group key handshake under its PTK; then
    /// station 0 leaves and associates again (a fresh PTK).
    fn rekey(&mut self) -> Result<()> {
        let key_id = if self.gtk.as_ref().is_some_and(|(k, _)| *k == 1) { 2 } else { 1 };
        self.new_gtk(key_id)?;
        let (key_id, gtk) = self.gtk.clone().ok_or(Error::Malformed("no GTK"))?;
        for i in 0..self.stations.len() {
            let ptk = self.stations[i].ptk.take().ok_or(Error::Malformed("station without a PTK"))?;
            let kck = ptk.kck.as_bytes().to_vec();
            let r = self.stations[i].replay_counter + 1;
            self.stations[i].replay_counter = r;
            let plain = KeyDataBuilder::new().gtk(key_id, true, gtk.as_bytes())?.build();
            let (iv, data) = self.encrypted_key_data(&ptk, &plain)?;
            let flags = KeyInfo::ACK | KeyInfo::MIC | KeyInfo::SECURE | KeyInfo::ENCRYPTED_KEY_DATA;
            let mut g1 = self.eapol_repr(flags, r, [0; 32], &data);
            g1.key_iv = iv;
            let g1 = self.signed(&g1, &kck)?;
            let mut g2 = self.eapol_repr(KeyInfo::MIC | KeyInfo::SECURE, r, [0; 32], &[]);
            g2.key_length = 0;
            let g2 = self.signed(&g2, &kck)?;
            self.stations[i].ptk = Some(ptk);
            let sta = self.stations[i].mac;
            for (from_ap, eapol) in [(true, g1), (false, g2)] {
                let (header, body) = self.eapol_mpdu_parts(sta, from_ap, &eapol)?;
                self.send_protected(Some(i), from_ap, header, &body)?;
            }
        }
        if self.config.extended_key_id {
            return self.four_way_handshake(0, true);
        }
        let sta = self.stations[0].mac;
        let deauthentication = DeauthenticationRepr { reason: REASON_LEAVING };
        self.management(ManagementBody::Deauthentication(deauthentication), sta, self.bssid)?;
        self.associate(0)
    }

    /// Carry one Ethernet frame over the air.
    fn carry(&mut self, frame: &[u8]) -> Result<()> {
        let mut msdu = vec![0u8; frame.len() + llc::SNAP_HEADER_LEN];
        let (eth, len) = llc::ethernet_to_msdu(frame, &mut msdu)?;
        msdu.truncate(len);
        let station_of = |mac: MacAddr| self.stations.iter().position(|s| s.mac == mac);
        let tid = (below(&mut self.rng, 2) == 0).then(|| below(&mut self.rng, 8) as u8);
        let (station, from_ap, wds) = if let Some(i) = station_of(eth.src) {
            (Some(i), false, false)
        } else if eth.dst.is_group() {
            (None, true, false)
        } else if let Some(i) = station_of(eth.dst) {
            (Some(i), true, false)
        } else {
            (Some(0), false, true)
        };
        if self.tdls.as_ref().is_some_and(|l| l.carries(eth.src, eth.dst)) {
            self.frames_sent += 1;
            return self.send_direct(eth.src, eth.dst, tid, &msdu);
        }
        let header = self.data_header(eth.dst, eth.src, from_ap, tid, wds);
        self.frames_sent += 1;
        // 4-address frames are not fragmented: tshark 4.0 leaves fragmented ones encrypted,
        // so they could not be cross-checked.
        let fragment =
            station.is_some() && !wds && self.config.fragment_every > 0 && msdu.len() > self.config.fragment_size && {
                self.unicast_sent += 1;
                self.unicast_sent.is_multiple_of(self.config.fragment_every)
            };
        if !fragment {
            return self.send_protected(station, from_ap, header, &msdu);
        }
        let fragment_size = self.config.fragment_size;
        let tx = Some(self.tx(station, from_ap)?);
        for mpdu in tx::fragments(header, &msdu, tx, fragment_size, Rules::default())? {
            self.push(mpdu);
        }
        Ok(())
    }

    /// Protect one MPDU with the station's pairwise key (or the group key) and record it.
    fn send_protected(&mut self, station: Option<usize>, from_ap: bool, header: HeaderRepr, body: &[u8]) -> Result<()> {
        let mpdu = tx::whole(header, body, Some(self.tx(station, from_ap)?), Rules::default())?;
        self.push(mpdu);
        Ok(())
    }
}

/// A TDLS direct link: its two stations and the TPK each sends under.
struct DirectLink {
    initiator: MacAddr,
    responder: MacAddr,
    initiator_tx: Tx,
    responder_tx: Tx,
}

impl DirectLink {
    fn carries(&self, src: MacAddr, dst: MacAddr) -> bool {
        (src, dst) == (self.initiator, self.responder) || (src, dst) == (self.responder, self.initiator)
    }
}

/// AKM 00-0F-AC:7, TDLS: the AKM of a TDLS setup's RSN element.
const AKM_TDLS: Akm = Akm::Other { oui: IEEE_OUI, suite_type: 7 };
/// The TPK's lifetime the setups propose, in seconds (at least 300: 12.7.8.4.2).
const TPK_LIFETIME: u32 = 3600;

impl Synth {
    /// The TPK handshake between stations `i` (initiator) and `j` (responder), each frame
    /// sent through the AP as a data frame (to the AP under the sender's PTK, then from the
    /// AP under the receiver's): Setup Request (SNonce), Response (ANonce and its FTE MIC),
    /// Confirm (its FTE MIC); then both install the TPK-TK for the direct link.
    fn tdls_setup(&mut self, i: usize, j: usize) -> Result<()> {
        let (initiator, responder) = (self.stations[i].mac, self.stations[j].mac);
        let mut snonce = [0u8; 32];
        let mut anonce = [0u8; 32];
        self.rng.fill_bytes(&mut snonce);
        self.rng.fill_bytes(&mut anonce);
        let rsn = RsnElementRepr::personal(CipherSuite::GroupAddressedTrafficNotAllowed, self.config.cipher, AKM_TDLS);
        let rsne = rsn.to_bytes(ElementKind::Rsn)?;
        let timeout = TimeoutIntervalRepr { interval_type: TIMEOUT_KEY_LIFETIME, value: TPK_LIFETIME }.to_bytes();
        let link = LinkIdRepr { bssid: self.bssid, initiator, responder }.to_bytes();
        let elements = |anonce: [u8; 32]| -> Result<Vec<u8>> {
            let fte = FtElement { anonce, snonce, r0kh_id: None, r1kh_id: None }.to_body(16)?;
            let fte = [&[ft_elements::FAST_BSS_TRANSITION_ID, fte.len() as u8][..], &fte].concat();
            Ok([&rsne[..], &fte, &timeout, &link].concat())
        };
        // The FTE's MIC field: after the RSNE and the FTE's ID, Length and MIC Control.
        let mic_at = rsne.len() + 4;
        let request = elements([0; 32])?;
        let mut signed = elements(anonce)?;
        let message = TpkMessage::find(Elements::new(&signed))?;
        let tpk = message.tpk()?;
        let response_mic = message.mic(tpk.kck.as_bytes(), SetupAction::Response)?;
        let confirm_mic = message.mic(tpk.kck.as_bytes(), SetupAction::Confirm)?;
        let dialog_token = 1;
        let capability = capability::ESS | capability::PRIVACY;
        let setup = |action, elements: &[u8]| {
            SetupRepr { action, status: STATUS_SUCCESS, dialog_token, capability, elements: Elements::new(elements) }
                .emit_vec()
        };
        let request = setup(SetupAction::Request, &request)?;
        signed[mic_at..mic_at + 16].copy_from_slice(&response_mic);
        let response = setup(SetupAction::Response, &signed)?;
        signed[mic_at..mic_at + 16].copy_from_slice(&confirm_mic);
        let confirm = setup(SetupAction::Confirm, &signed)?;
        for (from, to, payload) in [(i, j, request), (j, i, response), (i, j, confirm)] {
            self.through_ap(from, to, ETHERTYPE_TDLS, &payload)?;
        }
        let tk = tpk.tk.as_bytes();
        self.tdls = Some(DirectLink {
            initiator,
            responder,
            initiator_tx: transmitter(self.config.cipher, tk, 0)?,
            responder_tx: transmitter(self.config.cipher, tk, 0)?,
        });
        Ok(())
    }

    /// A payload of `ethertype` from station `from` to station `to`, relayed by the AP.
    fn through_ap(&mut self, from: usize, to: usize, ethertype: u16, payload: &[u8]) -> Result<()> {
        let (sa, da) = (self.stations[from].mac, self.stations[to].mac);
        let mut msdu = vec![0u8; llc::SNAP_HEADER_LEN];
        llc::emit_snap(ethertype, &mut msdu)?;
        msdu.extend_from_slice(payload);
        let header = self.data_header(da, sa, false, None, false);
        self.send_protected(Some(from), false, header, &msdu)?;
        let header = self.data_header(da, sa, true, None, false);
        self.send_protected(Some(to), true, header, &msdu)
    }

    /// An MSDU on the TDLS direct link: A1 the receiving peer, A2 the sending one, A3 the
    /// BSSID, no DS bits, under the TPK.
    fn send_direct(&mut self, src: MacAddr, dst: MacAddr, tid: Option<u8>, msdu: &[u8]) -> Result<()> {
        let header = HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, if tid.is_some() { 8 } else { 0 }),
            duration: 44,
            addr1: dst,
            addr2: src,
            addr3: self.bssid,
            sequence_control: SequenceControl::new(self.next_sequence(src), 0),
            addr4: None,
            qos_control: tid.map(|t| QosControl(u16::from(t))),
            ht_control: None,
        };
        let link = self.tdls.as_mut().ok_or(Error::Malformed("no TDLS direct link"))?;
        let tx = if src == link.initiator { &mut link.initiator_tx } else { &mut link.responder_tx };
        let mpdu = tx::whole(header, msdu, Some(tx), Rules::default())?;
        self.push(mpdu);
        Ok(())
    }

    /// 802.11w at the end of the capture: an SA Query Request and Response under each
    /// station's PTK, a protected Deauthentication of station 0, then a broadcast
    /// Deauthentication protected with BIP.
    fn protected_management(&mut self) -> Result<()> {
        let ap = self.bssid;
        for i in 0..self.stations.len() {
            let sta = self.stations[i].mac;
            let transaction = (i as u16 + 1).to_le_bytes();
            for (from_ap, action) in [(true, SA_QUERY_REQUEST), (false, SA_QUERY_RESPONSE)] {
                let details = [action, transaction[0], transaction[1]];
                let body = ManagementBody::Action(ActionRepr { category: CATEGORY_SA_QUERY, details: &details });
                let (da, sa) = if from_ap { (sta, ap) } else { (ap, sta) };
                self.protected_management_frame(Some(i), from_ap, body, da, sa)?;
            }
        }
        let deauthentication = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING });
        self.protected_management_frame(Some(0), true, deauthentication, self.stations[0].mac, ap)?;
        self.protected_management_frame(None, true, deauthentication, MacAddr::BROADCAST, ap)
    }

    /// One robust management frame from `sa` to `da`: under the station's PTK when
    /// `station` is given, else group addressed with BIP's MME.
    fn protected_management_frame(
        &mut self,
        station: Option<usize>,
        from_ap: bool,
        body: ManagementBody,
        da: MacAddr,
        sa: MacAddr,
    ) -> Result<()> {
        let sequence_control = SequenceControl::new(self.next_sequence(sa), 0);
        let mut mpdu = body.to_mpdu(da, sa, self.bssid, sequence_control)?;
        let len = mpdu.len();
        let len = match station {
            Some(i) => {
                let tx = self.tx(Some(i), from_ap)?;
                mpdu.resize(len + tx.suite().overhead(), 0);
                tx.protect(&mut mpdu, len)?
            }
            None => {
                let (igtk, ipn) = self.igtk.as_mut().ok_or(Error::Malformed("no IGTK"))?;
                mpdu.resize(len + igtk.overhead(), 0);
                igtk.protect(&mut mpdu, len, ipn.next_pn()?)?
            }
        };
        mpdu.truncate(len);
        self.push(mpdu);
        Ok(())
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
