//! The 4-way and group key handshakes (IEEE 802.11-2016 12.7.6, 12.7.7) as sans-IO state
//! machines: each takes received EAPOL-Key frame bytes and timer ticks, and answers with
//! [`Event`]s (frames to send, keys to install). Neither touches a clock or a socket.
//!
//! Besides the replay-counter rules, the supplicant carries the key-reinstallation
//! (KRACK) defences: a retransmitted message 3 or group message 1 is answered but never
//! reinstalls the key it carries (so no PN/TSC/RSC is reset), an all-zero key is refused,
//! and a GTK or IGTK that was installed before is never installed again.

mod group_keys;

use rand_chacha::rand_core::CryptoRng;

pub use crate::error::HandshakeError;
use crate::error::{Error, Result};
use crate::rsn::eapol::KeyIntegrity;
use crate::rsn::eapol::{self, DescriptorType, EapolKey, EapolKeyRepr, KeyDescriptorVersion, KeyInfo, Message};
use crate::rsn::element::{key_data_items, transition_disable, KeyDataBuilder, KeyDataItem, RSN_ELEMENT_ID};
use crate::rsn::kdf::{derive_ptk_with, AkmKeys, Pmk, Ptk, Secret};
use crate::rsn::{Akm, CipherSuite, RsnElementRepr};
use crate::wire::MacAddr;
use group_keys::{check_gtk_key_id, find_gtk, refuse_zero, IntegrityKey, IntegrityKind};

mod request;

/// What a handshake machine asks its owner to do.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Event {
    /// Transmit this EAPOL frame (802.1X header onwards) to the peer.
    Send(Vec<u8>),
    /// Install the pairwise temporal key (Key ID 0) with a fresh PN/TSC counter.
    InstallPairwise { tk: Secret },
    /// Install a group temporal key with the receive counter the authenticator gave.
    InstallGroup { key_id: u8, gtk: Secret, rsc: u64 },
    /// Install an integrity group temporal key (802.11w; Key ID 4 or 5) for BIP, its replay
    /// counter starting at `ipn` (frames must carry a higher IPN).
    InstallIntegrityGroup { key_id: u16, igtk: Secret, ipn: u64 },
    /// Install a beacon integrity group key (beacon protection; Key ID 6 or 7) for BIP on
    /// beacons, its replay counter starting at `bipn`.
    InstallBeaconIntegrity { key_id: u16, bigtk: Secret, bipn: u64 },
    /// The 4-way handshake completed.
    PairwiseComplete,
    /// A group key handshake completed.
    GroupComplete,
    /// The authenticator gave up after its retransmissions: deauthenticate the station.
    TimedOut,
    /// The supplicant reported a Michael MIC failure (TKIP) under the pairwise key or the
    /// group key: a countermeasures event (12.5.2.4).
    MicFailureReported { pairwise: bool },
}

/// What both sides agreed on before the handshake (from the beacon / association).
#[derive(Clone, Debug)]
pub struct Params {
    pub akm: Akm,
    pub pairwise: CipherSuite,
    pub group: CipherSuite,
    pub aa: MacAddr,
    pub spa: MacAddr,
    /// The authenticator's RSN element (beacon / probe response), whole.
    pub ap_rsne: Vec<u8>,
    /// The supplicant's RSN element (association request), whole.
    pub sta_rsne: Vec<u8>,
}

impl Params {
    /// The key descriptor version the AKM and pairwise cipher call for (12.7.2): 1 to 3,
    /// or 0 (AKM-defined) for SAE, OWE and the others whose AKM names the MIC.
    pub fn version(&self) -> Result<KeyDescriptorVersion> {
        if self.akm.is_ft() {
            return Err(Error::Unsupported("an FT AKM's PTK comes from PMK-R1"));
        }
        Ok(AkmKeys::of(self.akm, None)?.descriptor_version(self.pairwise))
    }

    /// The key hierarchy of the AKM with `pmk`: OWE and SAE-EXT-KEY take their hash from
    /// the Diffie-Hellman group, whose hash's length the PMK has (32, 48 or 64 octets:
    /// groups 19, 20, 21), as hostapd picks it.
    fn keys(&self, pmk: &Pmk) -> Result<AkmKeys> {
        let group = match pmk.as_bytes().len() {
            48 => 20,
            64 => 21,
            _ => 19,
        };
        AkmKeys::of(self.akm, Some(group))
    }

    /// The PTK of a handshake with these nonces.
    fn ptk(&self, pmk: &Pmk, keys: &AkmKeys, anonce: &[u8; 32], snonce: &[u8; 32]) -> Result<Ptk> {
        derive_ptk_with(pmk, keys, usize::from(self.tk_len()?), self.aa, self.spa, anonce, snonce)
    }

    fn tk_len(&self) -> Result<u16> {
        self.pairwise.tk_len().map(|l| l as u16).ok_or(Error::Unsupported("pairwise cipher with no known TK length"))
    }
}

fn frame(
    version: KeyDescriptorVersion,
    flags: u16,
    key_length: u16,
    counter: u64,
    nonce: [u8; 32],
    rsc: u64,
    key_data: &[u8],
) -> EapolKeyRepr<'_> {
    EapolKeyRepr {
        protocol_version: 2,
        descriptor_type: DescriptorType::Rsn,
        key_info: KeyInfo::new(version, flags),
        key_length,
        replay_counter: counter,
        nonce,
        key_iv: [0; 16],
        key_rsc: rsc,
        mic: [0; 16],
        key_data,
    }
}

/// Build, encrypt and sign (with `integrity`) a frame that carries Key Data under the PTK.
fn sealed(ptk: &Ptk, integrity: KeyIntegrity, repr: EapolKeyRepr<'_>) -> Result<Vec<u8>> {
    let version = repr.key_info.version()?;
    let encrypted;
    let mut repr = repr;
    if repr.key_info.has(KeyInfo::ENCRYPTED_KEY_DATA) {
        encrypted = eapol::encrypt_key_data(version, ptk.kek.as_bytes(), &repr.key_iv, repr.key_data)?;
        repr.key_data = &encrypted;
    }
    repr.to_signed_bytes_with(integrity, ptk.kck.as_bytes())
}

/// Where the authenticator is; the states after message 2 hold the PTK it derived, so no
/// message can be sealed or checked without one.
enum AuthState {
    Idle,
    SentM1,
    SentM3 { ptk: Ptk },
    Done { ptk: Ptk },
    SentG1 { ptk: Ptk },
    Failed,
}

impl AuthState {
    /// The message this state waits for.
    fn expects(&self) -> Option<Message> {
        match self {
            AuthState::SentM1 => Some(Message::FourWay2),
            AuthState::SentM3 { .. } => Some(Message::FourWay4),
            AuthState::SentG1 { .. } => Some(Message::Group2),
            AuthState::Idle | AuthState::Done { .. } | AuthState::Failed => None,
        }
    }
}

/// The authenticator (access point) side for one station.
pub struct Authenticator {
    params: Params,
    version: KeyDescriptorVersion,
    /// The AKM's key hierarchy: KDF hash, KCK/KEK lengths and MIC.
    keys: AkmKeys,
    pmk: Pmk,
    state: AuthState,
    counter: u64,
    anonce: [u8; 32],
    gtk: (u8, Secret),
    gtk_rsc: u64,
    /// The IGTK message 3 and group message 1 carry, when management frames are protected.
    igtk: Option<IntegrityKey>,
    /// The BIGTK they carry, when beacons are protected.
    bigtk: Option<IntegrityKey>,
    /// The access point's RSN Extension element, which message 3 repeats after the RSN
    /// element (as the beacon shows it), when it has one.
    rsnxe: Option<Vec<u8>>,
    /// The Transition Disable bits message 3 carries (none when 0).
    transition_disable: u8,
    /// Retransmissions of the pending message; each gets a fresh replay counter.
    retries: u32,
    max_sends: u32,
    /// The replay counter of the last request (MIC failure report) accepted from the supplicant.
    last_request: Option<u64>,
}

impl Authenticator {
    pub fn new(params: Params, pmk: Pmk, gtk_key_id: u8, gtk: Secret) -> Result<Self> {
        refuse_zero(&gtk)?;
        check_gtk_key_id(gtk_key_id)?;
        Ok(Authenticator {
            version: params.version()?,
            keys: params.keys(&pmk)?,
            params,
            pmk,
            state: AuthState::Idle,
            counter: 0,
            anonce: [0; 32],
            gtk: (gtk_key_id, gtk),
            gtk_rsc: 0,
            igtk: None,
            bigtk: None,
            rsnxe: None,
            transition_disable: 0,
            retries: 0,
            max_sends: 4,
            last_request: None,
        })
    }

    /// How many times a message is sent before giving up (dot11RSNAConfigPairwiseUpdateCount).
    pub fn with_max_sends(mut self, sends: u32) -> Self {
        self.max_sends = sends.max(1);
        self
    }

    /// Distribute an IGTK too (802.11w): Key ID 4 or 5, its current IPN.
    pub fn with_igtk(mut self, key_id: u16, igtk: Secret, ipn: u64) -> Result<Self> {
        self.set_igtk(key_id, igtk, ipn)?;
        Ok(self)
    }

    /// The IGTK (and IPN) the next message 3 and group message 1 carry: call it before
    /// `start` to give the current IPN, or before `rekey_group` to rotate the IGTK with the
    /// GTK. An all-zero key, or a Key ID other than 4 or 5, is refused.
    pub fn set_igtk(&mut self, key_id: u16, igtk: Secret, ipn: u64) -> Result<()> {
        self.igtk = Some(IntegrityKey::new(IntegrityKind::Igtk, key_id, igtk, ipn)?);
        Ok(())
    }

    /// Repeat the access point's RSN Extension element (whole, as its beacon carries it) in
    /// message 3, where the station checks it against the beacon's.
    pub fn with_rsnxe(mut self, rsnxe: Vec<u8>) -> Self {
        self.rsnxe = Some(rsnxe);
        self
    }

    /// Send the Transition Disable KDE with `bits` ([`transition_disable`]) in message 3:
    /// the station stops using the transition mode's weaker half on this network.
    pub fn with_transition_disable(mut self, bits: u8) -> Self {
        self.transition_disable = bits;
        self
    }

    /// Distribute a BIGTK too (beacon protection): Key ID 6 or 7, its current BIPN.
    pub fn with_bigtk(mut self, key_id: u16, bigtk: Secret, bipn: u64) -> Result<Self> {
        self.set_bigtk(key_id, bigtk, bipn)?;
        Ok(self)
    }

    /// The BIGTK (and BIPN: the last one a beacon carried) the next message 3 and group
    /// message 1 carry, as `set_igtk` for the IGTK.
    pub fn set_bigtk(&mut self, key_id: u16, bigtk: Secret, bipn: u64) -> Result<()> {
        self.bigtk = Some(IntegrityKey::new(IntegrityKind::Bigtk, key_id, bigtk, bipn)?);
        Ok(())
    }

    /// The PTK in force, once the 4-way handshake has completed.
    pub fn ptk(&self) -> Option<&Ptk> {
        match &self.state {
            AuthState::Done { ptk } | AuthState::SentG1 { ptk } => Some(ptk),
            _ => None,
        }
    }

    /// Start (or, from a completed state, restart to rekey) the 4-way handshake.
    pub fn start(&mut self, rng: &mut impl CryptoRng) -> Result<Vec<Event>> {
        rng.fill_bytes(&mut self.anonce);
        self.state = AuthState::SentM1;
        self.retries = 0;
        self.send_current()
    }

    /// Distribute a new GTK with the group key handshake (after the 4-way handshake).
    pub fn rekey_group(&mut self, key_id: u8, gtk: Secret, rsc: u64) -> Result<Vec<Event>> {
        if !matches!(self.state, AuthState::Done { .. }) {
            return Err(HandshakeError::NotEstablished.into());
        }
        refuse_zero(&gtk)?;
        check_gtk_key_id(key_id)?;
        self.gtk = (key_id, gtk);
        self.gtk_rsc = rsc;
        self.state = match std::mem::replace(&mut self.state, AuthState::Idle) {
            AuthState::Done { ptk } => AuthState::SentG1 { ptk },
            other => other,
        };
        self.retries = 0;
        self.send_current()
    }

    /// The GTK and its Key RSC (the last PN its transmitter sent) that the next message 3
    /// or group message 1 carries, sent or resent: the owner updates them before each
    /// `receive` and `tick`, so a station that joins late learns the PN the group key has
    /// reached and refuses the group frames sent before it joined.
    pub fn set_group_key(&mut self, key_id: u8, gtk: Secret, rsc: u64) -> Result<()> {
        refuse_zero(&gtk)?;
        check_gtk_key_id(key_id)?;
        self.gtk = (key_id, gtk);
        self.gtk_rsc = rsc;
        Ok(())
    }

    /// The retransmission timer fired: resend the pending message with a new replay
    /// counter, or give up.
    pub fn tick(&mut self) -> Result<Vec<Event>> {
        if self.state.expects().is_none() {
            return Ok(Vec::new());
        }
        if self.retries + 1 >= self.max_sends {
            self.state = AuthState::Failed;
            return Ok(vec![Event::TimedOut]);
        }
        self.retries += 1;
        self.send_current()
    }

    fn send_current(&mut self) -> Result<Vec<Event>> {
        self.counter += 1;
        let v = self.version;
        let integrity = self.keys.integrity_of(v);
        let bytes = match &self.state {
            AuthState::SentM1 => {
                frame(v, KeyInfo::PAIRWISE | KeyInfo::ACK, self.params.tk_len()?, self.counter, self.anonce, 0, &[])
                    .to_signed_bytes_with(integrity, &[])?
            }
            AuthState::SentM3 { ptk } => {
                let mut data = KeyDataBuilder::new().element(&self.params.ap_rsne);
                if let Some(rsnxe) = &self.rsnxe {
                    data = data.element(rsnxe);
                }
                let mut data = data.gtk(self.gtk.0, true, self.gtk.1.as_bytes())?;
                if self.transition_disable != 0 {
                    let (oui, data_type) = (transition_disable::OUI, transition_disable::DATA_TYPE);
                    data = data.kde_of(oui, data_type, &[self.transition_disable])?;
                }
                let data = IntegrityKey::add_to(self.igtk.as_ref(), data)?;
                let data = IntegrityKey::add_to(self.bigtk.as_ref(), data)?.build();
                let flags = KeyInfo::PAIRWISE
                    | KeyInfo::ACK
                    | KeyInfo::MIC
                    | KeyInfo::INSTALL
                    | KeyInfo::SECURE
                    | KeyInfo::ENCRYPTED_KEY_DATA;
                let m3 = frame(v, flags, self.params.tk_len()?, self.counter, self.anonce, self.gtk_rsc, &data);
                sealed(ptk, integrity, m3)?
            }
            AuthState::SentG1 { ptk } => {
                let data = KeyDataBuilder::new().gtk(self.gtk.0, true, self.gtk.1.as_bytes())?;
                let data = IntegrityKey::add_to(self.igtk.as_ref(), data)?;
                let data = IntegrityKey::add_to(self.bigtk.as_ref(), data)?.build();
                let flags = KeyInfo::ACK | KeyInfo::MIC | KeyInfo::SECURE | KeyInfo::ENCRYPTED_KEY_DATA;
                sealed(ptk, integrity, frame(v, flags, 0, self.counter, [0; 32], self.gtk_rsc, &data))?
            }
            _ => return Ok(Vec::new()),
        };
        Ok(vec![Event::Send(bytes)])
    }

    /// Handle an EAPOL-Key frame from the supplicant. Frames that fail a check are refused
    /// with an error and change nothing.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<Vec<Event>> {
        let view = EapolKey::new_checked_with_mic_len(bytes, self.keys.integrity_of(self.version).mic_len())?;
        let info = view.key_info();
        if info.has(KeyInfo::ACK) || !info.has(KeyInfo::MIC) || info.version()? != self.version {
            return Err(HandshakeError::NotFromPeer.into());
        }
        if info.has(KeyInfo::REQUEST) {
            // Requests run on the supplicant's own replay counter, not the handshake's.
            return self.request(bytes, &view);
        }
        if view.replay_counter() != self.counter {
            return Err(Error::Replay { pn: view.replay_counter(), last: self.counter });
        }
        match (&self.state, info.has(KeyInfo::PAIRWISE)) {
            (AuthState::SentM1, true) => {
                let snonce = view.nonce();
                let ptk = self.params.ptk(&self.pmk, &self.keys, &self.anonce, &snonce)?;
                self.verify_mic(&ptk, bytes)?;
                if !rsne_matches(view.key_data(), &self.params.sta_rsne) {
                    return Err(HandshakeError::RsnElementMismatch { message: Message::FourWay2 }.into());
                }
                self.state = AuthState::SentM3 { ptk };
                self.retries = 0;
                self.send_current()
            }
            (AuthState::SentM3 { ptk }, true) => {
                // Message 4 has empty Key Data; a message 2 (which carries the RSN element)
                // signed with the same PTK must not pass for it.
                if !view.key_data().is_empty() {
                    let unexpected =
                        HandshakeError::Unexpected { expected: Some(Message::FourWay4), got: Message::FourWay2 };
                    return Err(unexpected.into());
                }
                self.verify_mic(ptk, bytes)?;
                let tk = ptk.tk.clone();
                self.state = match std::mem::replace(&mut self.state, AuthState::Idle) {
                    AuthState::SentM3 { ptk } => AuthState::Done { ptk },
                    other => other,
                };
                Ok(vec![Event::InstallPairwise { tk }, Event::PairwiseComplete])
            }
            (AuthState::SentG1 { ptk }, false) => {
                self.verify_mic(ptk, bytes)?;
                self.state = match std::mem::replace(&mut self.state, AuthState::Idle) {
                    AuthState::SentG1 { ptk } => AuthState::Done { ptk },
                    other => other,
                };
                Ok(vec![Event::GroupComplete])
            }
            (state, _) => Err(HandshakeError::Unexpected { expected: state.expects(), got: view.message() }.into()),
        }
    }
}

impl Authenticator {
    /// Check a frame's MIC under `ptk` with the AKM's MIC.
    fn verify_mic(&self, ptk: &Ptk, bytes: &[u8]) -> Result<()> {
        eapol::verify_mic_with(self.keys.integrity_of(self.version), ptk.kck.as_bytes(), bytes)
    }
}

/// Whether Key Data holds exactly `rsne` as its RSN element.
fn rsne_matches(key_data: &[u8], rsne: &[u8]) -> bool {
    key_data_items(key_data)
        .any(|item| matches!(item, Ok(KeyDataItem::Element { id: RSN_ELEMENT_ID, element }) if element == rsne))
}

/// Whether Key Data holds an RSN element that offers `akm`.
fn rsne_offers(key_data: &[u8], akm: Akm) -> bool {
    key_data_items(key_data).any(|item| match item {
        Ok(KeyDataItem::Element { id: RSN_ELEMENT_ID, element }) => {
            RsnElementRepr::parse(element).is_ok_and(|(_, rsne)| rsne.akms.contains(&akm))
        }
        _ => false,
    })
}

/// The RSN Extension element's ID (IEEE 802.11-2020 9.4.2.241).
const RSNXE_ID: u8 = 244;

/// The RSN Extension element in Key Data, whole, if there is one.
fn rsnxe_of(key_data: &[u8]) -> Option<&[u8]> {
    key_data_items(key_data).find_map(|item| match item {
        Ok(KeyDataItem::Element { id: RSNXE_ID, element }) => Some(element),
        _ => None,
    })
}

/// The bits of a Transition Disable KDE in Key Data (0: none).
fn transition_disable_of(key_data: &[u8]) -> u8 {
    key_data_items(key_data)
        .find_map(|item| match item {
            Ok(KeyDataItem::Kde { oui: transition_disable::OUI, data_type: transition_disable::DATA_TYPE, data }) => {
                data.first().copied()
            }
            _ => None,
        })
        .unwrap_or(0)
}

/// The supplicant (station) side.
pub struct Supplicant {
    params: Params,
    version: KeyDescriptorVersion,
    /// The AKM's key hierarchy: KDF hash, KCK/KEK lengths and MIC.
    keys: AkmKeys,
    pmk: Pmk,
    /// The highest replay counter of a frame whose MIC verified.
    last_counter: Option<u64>,
    /// This handshake's SNonce, kept for every message 1 until a message 3 completes it
    /// (He and Mitchell's defence): message 3's ANonce, authenticated by its MIC, then gives
    /// the PTK, so a forged or corrupted message 1 (it has no MIC) cannot wedge the handshake.
    snonce: Option<[u8; 32]>,
    /// A message 3 has completed the handshake of `snonce`: the next message 1 starts a new one.
    snonce_spent: bool,
    /// The PTK of the last completed handshake: its TK is the one installed.
    ptk: Option<Ptk>,
    /// Every GTK installed in this association, newest last: none is ever installed again.
    installed_gtks: Vec<Secret>,
    /// Every IGTK and BIGTK installed in this association, the same way.
    installed_integrity_keys: Vec<Secret>,
    /// The replay counter of the last request (MIC failure report) this side sent.
    request_counter: u64,
    /// The access point's RSN Extension element as its beacon showed it (whole), which
    /// message 3 must repeat exactly; none: message 3 must carry none.
    ap_rsnxe: Option<Vec<u8>>,
    /// Whether the access point's elements came from its beacon or probe response; when
    /// not (no beacon heard), message 3's RSN element need only offer the AKM in use.
    ap_elements_known: bool,
    /// The Transition Disable bits of the accepted message 3.
    transition_disable: u8,
}

impl Supplicant {
    pub fn new(params: Params, pmk: Pmk) -> Result<Self> {
        Ok(Supplicant {
            version: params.version()?,
            keys: params.keys(&pmk)?,
            params,
            pmk,
            last_counter: None,
            snonce: None,
            snonce_spent: false,
            ptk: None,
            installed_gtks: Vec::new(),
            installed_integrity_keys: Vec::new(),
            request_counter: 0,
            ap_rsnxe: None,
            ap_elements_known: true,
            transition_disable: 0,
        })
    }

    /// The access point's RSN Extension element as its beacon or probe response showed it
    /// (whole; none when it had none): message 3 must carry the same, or none.
    pub fn with_ap_rsnxe(mut self, rsnxe: Option<Vec<u8>>) -> Self {
        self.ap_rsnxe = rsnxe;
        self
    }

    /// No beacon or probe response of the access point was heard, so `params.ap_rsne` is
    /// the station's guess: message 3's RSN element need only offer the AKM in use, and its
    /// RSN Extension element is not compared (as wpa_supplicant does when it knows no
    /// element of the access point). A downgrade needs a forged beacon the station acted on,
    /// and there was none.
    pub fn with_ap_elements_unknown(mut self) -> Self {
        self.ap_elements_known = false;
        self
    }

    /// The Transition Disable bits ([`transition_disable`]) the accepted message 3 carried.
    pub fn transition_disable(&self) -> u8 {
        self.transition_disable
    }

    /// The PTK in force, once message 3 has been accepted.
    pub fn ptk(&self) -> Option<&Ptk> {
        self.ptk.as_ref()
    }

    /// The MIC of this side's EAPOL-Key frames.
    fn integrity(&self) -> KeyIntegrity {
        self.keys.integrity_of(self.version)
    }

    fn check_counter(&self, counter: u64) -> Result<()> {
        match self.last_counter {
            Some(last) if counter <= last => Err(Error::Replay { pn: counter, last }),
            _ => Ok(()),
        }
    }

    /// Handle an EAPOL-Key frame from the authenticator. `rng` gives the SNonce of a new
    /// handshake. Frames that fail a check are refused with an error and change nothing.
    pub fn receive(&mut self, bytes: &[u8], rng: &mut impl CryptoRng) -> Result<Vec<Event>> {
        let view = EapolKey::new_checked_with_mic_len(bytes, self.integrity().mic_len())?;
        let info = view.key_info();
        if !info.has(KeyInfo::ACK) || info.version()? != self.version {
            return Err(HandshakeError::NotFromPeer.into());
        }
        self.check_counter(view.replay_counter())?;
        let p = &self.params;
        match (info.has(KeyInfo::PAIRWISE), info.has(KeyInfo::MIC)) {
            (true, false) if info.has(KeyInfo::INSTALL) || info.has(KeyInfo::SECURE) => {
                Err(HandshakeError::Flags { message: Message::FourWay1, why: "with Install or Secure set" }.into())
            }
            (true, false) => {
                // Message 1. Its counter is not recorded (it carries no MIC); every message 1
                // of one handshake gets the same SNonce, so a late M2 still matches.
                let snonce = match self.snonce {
                    Some(snonce) if !self.snonce_spent => snonce,
                    _ => {
                        let mut fresh = [0; 32];
                        rng.fill_bytes(&mut fresh);
                        fresh
                    }
                };
                let tptk = p.ptk(&self.pmk, &self.keys, &view.nonce(), &snonce)?;
                let m2 = frame(
                    self.version,
                    KeyInfo::PAIRWISE | KeyInfo::MIC,
                    0,
                    view.replay_counter(),
                    snonce,
                    0,
                    &p.sta_rsne,
                )
                .to_signed_bytes_with(self.integrity(), tptk.kck.as_bytes())?;
                self.snonce = Some(snonce);
                self.snonce_spent = false;
                Ok(vec![Event::Send(m2)])
            }
            (true, true) => self.message_3(bytes, &view),
            (false, true) => self.group_message_1(bytes, &view),
            (false, false) => Err(HandshakeError::Flags { message: Message::Group1, why: "without a MIC" }.into()),
        }
    }

    fn message_3(&mut self, bytes: &[u8], view: &EapolKey<&[u8]>) -> Result<Vec<Event>> {
        let info = view.key_info();
        if !info.has(KeyInfo::INSTALL) || !info.has(KeyInfo::ENCRYPTED_KEY_DATA) {
            let why = "without Install or encrypted Key Data";
            return Err(HandshakeError::Flags { message: Message::FourWay3, why }.into());
        }
        let snonce = self
            .snonce
            .ok_or(HandshakeError::Unexpected { expected: Some(Message::FourWay1), got: Message::FourWay3 })?;
        let tptk = self.params.ptk(&self.pmk, &self.keys, &view.nonce(), &snonce)?;
        eapol::verify_mic_with(self.integrity(), tptk.kck.as_bytes(), bytes)?;
        let key_data = eapol::decrypt_key_data(self.version, tptk.kek.as_bytes(), &view.key_iv(), view.key_data())?;
        let rsne_ok = if self.ap_elements_known {
            rsne_matches(&key_data, &self.params.ap_rsne)
        } else {
            rsne_offers(&key_data, self.params.akm)
        };
        if !rsne_ok {
            return Err(HandshakeError::RsnElementMismatch { message: Message::FourWay3 }.into());
        }
        if self.ap_elements_known && rsnxe_of(&key_data) != self.ap_rsnxe.as_deref() {
            return Err(HandshakeError::RsnxeMismatch.into());
        }
        let gtk = find_gtk(&key_data)?;
        let igtk = IntegrityKey::find(IntegrityKind::Igtk, &key_data)?;
        let bigtk = IntegrityKey::find(IntegrityKind::Bigtk, &key_data)?;
        refuse_zero(&tptk.tk)?;
        if let Some((_, g)) = &gtk {
            refuse_zero(g)?;
        }
        // Everything checked: now commit.
        self.last_counter = Some(view.replay_counter());
        self.snonce_spent = true;
        self.transition_disable = transition_disable_of(&key_data);
        let m4 = frame(
            self.version,
            KeyInfo::PAIRWISE | KeyInfo::MIC | KeyInfo::SECURE,
            0,
            view.replay_counter(),
            [0; 32],
            0,
            &[],
        )
        .to_signed_bytes_with(self.integrity(), tptk.kck.as_bytes())?;
        let mut events = vec![Event::Send(m4)];
        if self.ptk.as_ref().map(|installed| &installed.tk) != Some(&tptk.tk) {
            events.push(Event::InstallPairwise { tk: tptk.tk.clone() });
            events.push(Event::PairwiseComplete);
        }
        self.ptk = Some(tptk);
        if let Some((key_id, g)) = gtk {
            events.extend(self.install_gtk(key_id, g, view.key_rsc()));
        }
        events.extend(igtk.and_then(|k| self.install_integrity(k)));
        events.extend(bigtk.and_then(|k| self.install_integrity(k)));
        Ok(events)
    }

    fn group_message_1(&mut self, bytes: &[u8], view: &EapolKey<&[u8]>) -> Result<Vec<Event>> {
        let ptk = self
            .ptk
            .as_ref()
            .ok_or(HandshakeError::Unexpected { expected: Some(Message::FourWay1), got: Message::Group1 })?;
        eapol::verify_mic_with(self.integrity(), ptk.kck.as_bytes(), bytes)?;
        if !view.key_info().has(KeyInfo::ENCRYPTED_KEY_DATA) {
            let why = "without encrypted Key Data";
            return Err(HandshakeError::Flags { message: Message::Group1, why }.into());
        }
        let key_data = eapol::decrypt_key_data(self.version, ptk.kek.as_bytes(), &view.key_iv(), view.key_data())?;
        let (key_id, gtk) = find_gtk(&key_data)?.ok_or(HandshakeError::NoGtk)?;
        refuse_zero(&gtk)?;
        let igtk = IntegrityKey::find(IntegrityKind::Igtk, &key_data)?;
        let bigtk = IntegrityKey::find(IntegrityKind::Bigtk, &key_data)?;
        self.last_counter = Some(view.replay_counter());
        let g2 = frame(self.version, KeyInfo::MIC | KeyInfo::SECURE, 0, view.replay_counter(), [0; 32], 0, &[])
            .to_signed_bytes_with(self.integrity(), ptk.kck.as_bytes())?;
        let mut events = vec![Event::Send(g2)];
        events.extend(self.install_gtk(key_id, gtk, view.key_rsc()));
        events.extend(igtk.and_then(|k| self.install_integrity(k)));
        events.extend(bigtk.and_then(|k| self.install_integrity(k)));
        events.push(Event::GroupComplete);
        Ok(events)
    }

    /// Install a GTK unless it was installed before (no reinstallation, no rollback).
    fn install_gtk(&mut self, key_id: u8, gtk: Secret, rsc: u64) -> Option<Event> {
        if self.installed_gtks.contains(&gtk) {
            return None;
        }
        self.installed_gtks.push(gtk.clone());
        Some(Event::InstallGroup { key_id, gtk, rsc })
    }

    /// Install an IGTK or BIGTK unless it was installed before, as for the GTK.
    fn install_integrity(&mut self, k: IntegrityKey) -> Option<Event> {
        if self.installed_integrity_keys.contains(&k.key) {
            return None;
        }
        self.installed_integrity_keys.push(k.key.clone());
        Some(match k.kind {
            IntegrityKind::Igtk => Event::InstallIntegrityGroup { key_id: k.key_id, igtk: k.key, ipn: k.ipn },
            IntegrityKind::Bigtk => Event::InstallBeaconIntegrity { key_id: k.key_id, bigtk: k.key, bipn: k.ipn },
        })
    }
}
