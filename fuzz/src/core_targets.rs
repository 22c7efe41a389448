//! Fuzz targets over wlansec-core: each takes arbitrary bytes to the public API the way
//! untrusted input reaches it (a capture file, a frame off the air, an EAPOL frame) and
//! checks what must hold besides "no panic": round trips, and iterations that end.
//!
//! Inputs that carry options start with a selector octet; stream targets cut the rest into
//! frames (see [`crate::input`]).

use std::sync::OnceLock;

use wlansec_core::capture::radiotap::Radiotap;
use wlansec_core::capture::{self, LinkType, Packet};
use wlansec_core::decrypt::{Decryptor, Keys, OutputForm};
use wlansec_core::gen::{ChaCha8Rng, SeedableRng};
use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::eapol::{self, EapolKey, EapolKeyRepr, KeyInfo};
use wlansec_core::rsn::element::{self, key_data_items, ElementKind, GtkKde, IgtkKde, KeyDataItem};
use wlansec_core::rsn::{
    derive_ptk, negotiate_mfp, pmk_from_passphrase, Akm, Authenticator, CipherSuite, Event, Params, Pmk,
    RsnElementRepr, Secret, Supplicant,
};
use wlansec_core::rx::{self, port, Msdus, Pipeline, RxKey};
use wlansec_core::suite::{BipAlgorithm, BipReceiver, Igtk, Pn};
use wlansec_core::wire::llc::{self, EthernetFraming, EthernetRepr};
use wlansec_core::wire::mgmt::{self, Elements, ManagementBody, MmeRepr};
use wlansec_core::wire::{Frame, HeaderRepr, MacAddr, Rules};

use crate::input::{frames, Target};

/// Every target over wlansec-core.
pub const TARGETS: &[Target] = &[
    ("pcap", pcap),
    ("pcapng", pcapng),
    ("radiotap", radiotap),
    ("frame", frame),
    ("msdu", msdu),
    ("mgmt", mgmt),
    ("eapol_key", eapol_key),
    ("rsn_element", rsn_element),
    ("handshake", handshake),
    ("unprotect", unprotect),
    ("bip", bip),
    ("rx_pipeline", rx_pipeline),
    ("decryptor", decryptor),
];

/// The keys the targets decrypt with; the seed corpus is protected under them, so the
/// fuzzer starts from frames that open. Each suite takes the first `key_len` octets.
pub const TK: [u8; 32] = *b"wlansec-fuzz-temporal-key-32-oct";
pub const IGTK: [u8; 32] = *b"wlansec-fuzz-integrity-group-key";
pub const PMK: [u8; 32] = *b"wlansec-fuzz-pairwise-master-key";
pub const GTK: [u8; 32] = *b"wlansec-fuzz-group-temporal-key!";
/// The network `wlansec synth` makes the decryptor seeds on (its PMK comes from these).
pub const SYNTH_SSID: &[u8] = b"wlansec-fuzz";
pub const SYNTH_PASSPHRASE: &str = "wlansec fuzz passphrase";
pub const AA: MacAddr = MacAddr([0x02, 0xfa, 0, 0, 0, 0xaa]);
pub const SPA: MacAddr = MacAddr([0x02, 0xfa, 0, 0, 0, 0x01]);

/// Packets read from one capture at most; a reader that never ends is a bug, this only
/// bounds the damage so libFuzzer reports it as a timeout instead of hanging.
const MAX_PACKETS: usize = 1 << 16;

/// The 802.11 rules a selector's low two bits choose.
pub fn rules_of(selector: u8) -> Rules {
    Rules { ht_control: selector & 1 != 0, spp_amsdu: selector & 2 != 0 }
}

/// Every packet of a capture, each one's MPDU taken; an error must end the iteration.
fn read_all<'a>(packets: impl Iterator<Item = wlansec_core::Result<Packet<'a>>>) {
    let mut failed = false;
    for packet in packets.take(MAX_PACKETS) {
        assert!(!failed, "a capture reader went on after an error");
        match packet {
            Ok(packet) => drop(packet.mpdu()),
            Err(_) => failed = true,
        }
    }
}

pub fn pcap(data: &[u8]) {
    if let Ok(reader) = capture::pcap::Reader::new(data) {
        read_all(reader);
    }
    if let Ok(reader) = capture::Reader::new(data) {
        read_all(reader);
    }
}

pub fn pcapng(data: &[u8]) {
    if let Ok(reader) = capture::pcapng::Reader::new(data) {
        read_all(reader);
    }
}

pub fn radiotap(data: &[u8]) {
    if let Ok(header) = Radiotap::new_checked(data) {
        assert!(header.header_len() <= data.len());
        if let Ok(mpdu) = header.mpdu() {
            assert!(mpdu.len() <= data.len() - header.header_len());
        }
    }
    for link_type in [LinkType::Radiotap, LinkType::Ieee80211] {
        let packet = Packet { timestamp_ns: 0, link_type, data, orig_len: data.len() as u32 };
        let _ = packet.mpdu();
    }
}

/// The frame view, the header repr (which must emit the header it parsed) and the
/// classification of data frames.
pub fn frame(data: &[u8]) {
    let Some((&selector, mpdu)) = data.split_first() else { return };
    let rules = rules_of(selector);
    if let Ok(frame) = Frame::new_checked(mpdu, rules) {
        assert_eq!(frame.header().len() + frame.body().len(), mpdu.len());
        let _ = (frame.addr2(), frame.addr3(), frame.addr4(), frame.sequence_control());
        let _ = (frame.qos_control(), frame.ht_control(), rx::is_fragment(&frame));
        if let Ok(repr) = HeaderRepr::parse(&frame) {
            let mut header = [0u8; 64];
            let len = repr.emit(&mut header, rules).expect("a parsed header emits");
            assert_eq!(&header[..len], frame.header());
            let _ = (repr.da(), repr.sa(), repr.bssid());
        }
    }
    if let Ok(rx::Class::Data(data)) = rx::classify(mpdu, rules) {
        let _ = (data.ta(), data.bss(), data.security.key_id());
    }
}

/// A-MSDU subframes and the LLC/SNAP conversions to and from Ethernet.
pub fn msdu(data: &[u8]) {
    let mut failed = false;
    for subframe in Msdus::Aggregate(data) {
        assert!(!failed, "A-MSDU subframes went on after an error");
        match subframe {
            Ok(msdu) => {
                let _ = (msdu.ethertype(), msdu.eapol(), msdu.payload());
                if let Ok(ethernet) = msdu.to_ethernet() {
                    assert!(ethernet.len() <= llc::ETHERNET_HEADER_LEN + msdu.body.len());
                }
            }
            Err(_) => failed = true,
        }
    }
    let mut out = vec![0u8; data.len() + llc::ETHERNET_HEADER_LEN];
    let (da, sa) = (MacAddr([2, 0, 0, 0, 0, 1]), MacAddr([2, 0, 0, 0, 0, 2]));
    let _ = llc::msdu_to_ethernet(da, sa, data, &mut out);
    let _ = llc::msdu_to_lan_frame(da, sa, data, &mut out);
    if let Ok(framing) = EthernetFraming::of(data) {
        assert!(framing.replaced_len() <= data.len());
    }
    if let Ok(repr) = EthernetRepr::parse(data) {
        let mut header = [0u8; llc::ETHERNET_HEADER_LEN];
        repr.emit(&mut header).expect("a parsed Ethernet header emits");
    }
    let mut msdu = vec![0u8; data.len() + llc::SNAP_HEADER_LEN];
    if let Ok((ethernet, len)) = llc::ethernet_to_msdu(data, &mut msdu) {
        let mut back = vec![0u8; len + llc::ETHERNET_HEADER_LEN];
        let n = llc::msdu_to_lan_frame(ethernet.dst, ethernet.src, &msdu[..len], &mut back)
            .expect("an MSDU made from Ethernet converts back");
        assert_eq!(&back[..n], data, "Ethernet -> MSDU -> Ethernet changed the frame");
    }
}

/// Management frame bodies by subtype (the selector's low nibble), their elements, and the
/// MME at the end of a protected broadcast management frame.
pub fn mgmt(data: &[u8]) {
    let Some((&selector, body)) = data.split_first() else { return };
    let subtype = selector & 0x0f;
    if let Ok(parsed) = ManagementBody::parse(subtype, body) {
        assert_eq!(parsed.subtype(), subtype);
        let mut out = vec![0u8; parsed.buffer_len()];
        let len = parsed.emit(&mut out).expect("a parsed management body emits");
        assert_eq!(len, out.len());
        if let Some(elements) = parsed.elements() {
            walk_elements(elements);
        }
    }
    walk_elements(Elements::new(body));
    let _ = mgmt::is_robust(subtype, body);
    for mic_len in [8, 16] {
        if let Ok((before, mme)) = MmeRepr::split_last(body, mic_len) {
            assert_eq!(before.len() + mme.buffer_len(), body.len());
            let mut out = vec![0u8; mme.buffer_len()];
            mme.emit(&mut out).expect("a parsed MME emits");
            assert_eq!(out, body[before.len()..]);
        }
    }
    if let Ok(mme) = MmeRepr::parse(body) {
        assert!(mme.buffer_len() <= body.len());
    }
}

fn walk_elements(elements: Elements<'_>) {
    let _ = (elements.ssid(), elements.supported_rates(), elements.rsn(), elements.wpa());
    for element in elements.iter() {
        let Ok(element) = element else { break };
        let _ = (element.id(), element.data(), element.is_wpa());
        rsn_element_body(element.as_bytes());
    }
}

/// The EAPOL-Key view and repr (which must emit the frame it parsed), its MIC check and
/// Key Data decryption under a fixed key.
pub fn eapol_key(data: &[u8]) {
    if let Ok(view) = EapolKey::new_checked(data) {
        let _ = (view.descriptor_type(), view.key_info().version(), view.message(), view.key_rsc());
        assert!(view.frame_len() <= data.len());
        assert!(view.key_data().len() <= view.frame_len());
    }
    let Ok(repr) = EapolKeyRepr::parse(data) else { return };
    let mut out = vec![0u8; repr.buffer_len()];
    repr.emit(&mut out).expect("a parsed EAPOL-Key frame emits");
    // Not the same octets: the reserved field is written as zero, and octets between the
    // Key Data and the end of the EAPOL body (tolerated on receipt) are not kept.
    assert_eq!(EapolKeyRepr::parse(&out).expect("an emitted frame parses"), repr);
    let _ = eapol::verify_mic(&TK[..16], data);
    if let Ok(version) = repr.key_info.version() {
        if let Ok(plain) = eapol::decrypt_key_data(version, &TK[16..], &repr.key_iv, repr.key_data) {
            key_data(&plain);
        }
    }
}

/// Key Data items (elements and KDEs, including the GTK and IGTK KDE) and RSN/WPA elements.
pub fn rsn_element(data: &[u8]) {
    key_data(data);
    rsn_element_body(data);
}

fn key_data(data: &[u8]) {
    let mut failed = false;
    for item in key_data_items(data) {
        assert!(!failed, "Key Data items went on after an error");
        match item {
            Ok(KeyDataItem::Kde { data_type, data, .. }) => match data_type {
                element::kde_type::GTK => drop(GtkKde::parse(data)),
                element::kde_type::IGTK => drop(IgtkKde::parse(data)),
                _ => {}
            },
            Ok(KeyDataItem::Element { element, .. }) => rsn_element_body(element),
            Err(_) => failed = true,
        }
    }
}

/// A whole RSN or WPA element: parsed, written back and parsed again to the same repr.
fn rsn_element_body(element: &[u8]) {
    let Ok((kind, repr)) = RsnElementRepr::parse(element) else { return };
    let _ = (repr.mfp(), repr.group_mgmt_cipher_or_default());
    let _ = negotiate_mfp(&repr, &RsnElementRepr::personal(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::Psk));
    if let Ok(bytes) = repr.to_bytes(kind) {
        assert_eq!(bytes.len(), repr.buffer_len(kind));
        let (again_kind, again) = RsnElementRepr::parse(&bytes).expect("a written element parses");
        assert_eq!((again_kind, again), (kind, repr));
    }
}

/// The handshake a selector's low two bits choose: AKM, pairwise cipher and whether the
/// authenticator distributes an IGTK.
fn handshake_params(selector: u8) -> (Params, bool) {
    let (akm, pairwise, igtk) = match selector & 3 {
        0 => (Akm::Psk, CipherSuite::Ccmp128, false),
        1 => (Akm::Psk, CipherSuite::Tkip, false),
        2 => (Akm::PskSha256, CipherSuite::Ccmp128, true),
        _ => (Akm::Psk, CipherSuite::Gcmp256, true),
    };
    let group = if pairwise == CipherSuite::Tkip { CipherSuite::Tkip } else { CipherSuite::Ccmp128 };
    let rsne = RsnElementRepr::personal(group, pairwise, akm).to_bytes(ElementKind::Rsn).expect("a valid element");
    (Params { akm, pairwise, group, aa: AA, spa: SPA, ap_rsne: rsne.clone(), sta_rsne: rsne }, igtk)
}

/// Frames queued between the two machines at most.
const MAX_QUEUED: usize = 8;

/// What one input frame of the handshake target does, by its first octet.
enum Step {
    /// Deliver the next frame the authenticator sent to the supplicant.
    ToSupplicant,
    /// Deliver the next frame the supplicant sent to the authenticator.
    ToAuthenticator,
    /// Inject the rest of the frame as it is.
    InjectToSupplicant,
    InjectToAuthenticator,
    /// Inject it signed (and its Key Data encrypted) under the PTK of the nonces seen so
    /// far: what a peer holding the PMK could send, so the checks past the MIC are reached.
    ForgeToSupplicant,
    ForgeToAuthenticator,
    /// The authenticator's retransmission timer.
    Tick,
    /// A group rekey (even payload octet) or a Michael MIC failure report (odd).
    RekeyOrReport,
}

impl Step {
    fn of(op: u8) -> Step {
        match op % 8 {
            0 => Step::ToSupplicant,
            1 => Step::ToAuthenticator,
            2 => Step::InjectToSupplicant,
            3 => Step::InjectToAuthenticator,
            4 => Step::ForgeToSupplicant,
            5 => Step::ForgeToAuthenticator,
            6 => Step::Tick,
            _ => Step::RekeyOrReport,
        }
    }
}

/// The 4-way and group key handshakes between a real supplicant and authenticator, with
/// every frame delivered, dropped, replayed or forged as the input says.
pub fn handshake(data: &[u8]) {
    let Some((&selector, steps)) = data.split_first() else { return };
    let (params, with_igtk) = handshake_params(selector);
    let pmk = Pmk::from_bytes(&PMK).expect("a 32-octet PMK");
    let gtk = Secret::from_slice(&GTK[..16]).expect("a GTK");
    let mut authenticator = Authenticator::new(params.clone(), pmk.clone(), 1, gtk).expect("valid parameters");
    if with_igtk {
        authenticator.set_igtk(4, Secret::from_slice(&IGTK[..16]).expect("an IGTK"), 1).expect("a valid IGTK");
    }
    let mut supplicant = Supplicant::new(params.clone(), pmk.clone()).expect("valid parameters");
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(selector));
    let mut link = Link::default();
    if let Ok(events) = authenticator.start(&mut rng) {
        link.authenticator_sent(events);
    }
    for step in frames(steps) {
        let Some((&op, payload)) = step.split_first() else { continue };
        match Step::of(op) {
            Step::ToSupplicant => {
                if let Some(frame) = link.to_supplicant.pop() {
                    link.deliver_to_supplicant(&mut supplicant, &frame, &mut rng);
                }
            }
            Step::ToAuthenticator => {
                if let Some(frame) = link.to_authenticator.pop() {
                    link.deliver_to_authenticator(&mut authenticator, &frame);
                }
            }
            Step::InjectToSupplicant => link.deliver_to_supplicant(&mut supplicant, payload, &mut rng),
            Step::InjectToAuthenticator => link.deliver_to_authenticator(&mut authenticator, payload),
            Step::ForgeToSupplicant => {
                let frame = link.forge(&params, &pmk, payload, true).unwrap_or_else(|| payload.to_vec());
                link.deliver_to_supplicant(&mut supplicant, &frame, &mut rng);
            }
            Step::ForgeToAuthenticator => {
                let frame = link.forge(&params, &pmk, payload, false).unwrap_or_else(|| payload.to_vec());
                link.deliver_to_authenticator(&mut authenticator, &frame);
            }
            Step::Tick => {
                if let Ok(events) = authenticator.tick() {
                    link.authenticator_sent(events);
                }
            }
            Step::RekeyOrReport => match payload.first() {
                Some(&octet) if octet % 2 == 0 => {
                    let gtk = Secret::from_slice(&GTK[16..]).expect("a GTK");
                    if let Ok(events) = authenticator.rekey_group(octet >> 1 & 3, gtk, u64::from(octet)) {
                        link.authenticator_sent(events);
                    }
                }
                _ => {
                    if let Ok(frame) = supplicant.mic_failure_report(op & 8 != 0) {
                        link.queue(false, frame);
                    }
                }
            },
        }
    }
}

/// The frames in flight between the two machines, and the nonces seen on the way.
#[derive(Default)]
struct Link {
    to_supplicant: Vec<Vec<u8>>,
    to_authenticator: Vec<Vec<u8>>,
    anonce: [u8; 32],
    snonce: [u8; 32],
}

impl Link {
    fn queue(&mut self, to_supplicant: bool, frame: Vec<u8>) {
        let queue = if to_supplicant { &mut self.to_supplicant } else { &mut self.to_authenticator };
        if queue.len() < MAX_QUEUED {
            queue.insert(0, frame);
        }
    }

    /// Remember the nonce of a frame that carries one (messages 1 to 3).
    fn note_nonce(&mut self, frame: &[u8], from_authenticator: bool) {
        let Ok(view) = EapolKey::new_checked(frame) else { return };
        let nonce = view.nonce();
        if nonce != [0; 32] {
            *(if from_authenticator { &mut self.anonce } else { &mut self.snonce }) = nonce;
        }
    }

    fn authenticator_sent(&mut self, events: Vec<Event>) {
        for event in events {
            if let Event::Send(frame) = event {
                self.note_nonce(&frame, true);
                self.queue(true, frame);
            }
        }
    }

    fn deliver_to_supplicant(&mut self, supplicant: &mut Supplicant, frame: &[u8], rng: &mut ChaCha8Rng) {
        let Ok(events) = supplicant.receive(frame, rng) else { return };
        for event in events {
            if let Event::Send(frame) = event {
                self.note_nonce(&frame, false);
                self.queue(false, frame);
            }
        }
    }

    fn deliver_to_authenticator(&mut self, authenticator: &mut Authenticator, frame: &[u8]) {
        if let Ok(events) = authenticator.receive(frame) {
            self.authenticator_sent(events);
        }
    }

    /// `payload` signed under the PTK of the latest nonces, its own nonce taking the place
    /// of the sender's; `None` when it is no EAPOL-Key frame.
    fn forge(&self, params: &Params, pmk: &Pmk, payload: &[u8], to_supplicant: bool) -> Option<Vec<u8>> {
        let mut repr = EapolKeyRepr::parse(payload).ok()?;
        let (anonce, snonce) = match (to_supplicant, repr.nonce == [0; 32]) {
            (_, true) => (self.anonce, self.snonce),
            (true, false) => (repr.nonce, self.snonce),
            (false, false) => (self.anonce, repr.nonce),
        };
        let ptk = derive_ptk(pmk, params.akm, params.pairwise, params.aa, params.spa, &anonce, &snonce).ok()?;
        let encrypted;
        if repr.key_info.has(KeyInfo::ENCRYPTED_KEY_DATA) {
            let version = repr.key_info.version().ok()?;
            encrypted = eapol::encrypt_key_data(version, ptk.kek.as_bytes(), &repr.key_iv, repr.key_data).ok()?;
            repr.key_data = &encrypted;
        }
        repr.to_signed_bytes(ptk.kck.as_bytes()).ok()
    }
}

/// The suite a selector's high nibble chooses, keyed with the start of [`TK`].
pub fn suite_of(selector: u8) -> SuiteId {
    SuiteId::ALL[usize::from(selector >> 4) % SuiteId::ALL.len()]
}

/// Each suite's decapsulation of an arbitrary MPDU, and the round trip of one it protects.
pub fn unprotect(data: &[u8]) {
    let Some((&selector, mpdu)) = data.split_first() else { return };
    let (suite, rules) = (suite_of(selector), rules_of(selector));
    let keyed = suite.keyed(&TK[..suite.key_len()], rules).expect("a key of the suite's length");
    let _ = keyed.peek(mpdu);
    let mut received = mpdu.to_vec();
    if let Ok(done) = keyed.decapsulate(&mut received) {
        assert!(done.mpdu_len <= mpdu.len());
    }
    if let Ok(mut key) = RxKey::new(suite, &TK[..suite.key_len()], rules) {
        let mut received = mpdu.to_vec();
        let _ = key.open(&mut received);
    }

    let mut buf = mpdu.to_vec();
    buf.resize(mpdu.len() + keyed.overhead(), 0);
    if let Ok(len) = keyed.encapsulate(&mut buf, mpdu.len(), Pn::new(1).unwrap(), selector & 3) {
        let done = keyed.decapsulate(&mut buf[..len]).expect("what we protect, we open");
        assert_eq!(&buf[2..done.mpdu_len], &mpdu[2..]);
    }
}

/// BIP: verification of an arbitrary management MPDU under each algorithm, by one IGTK and
/// by the receiver with its replay state; and the round trip of one it protects.
pub fn bip(data: &[u8]) {
    let Some((&selector, mpdu)) = data.split_first() else { return };
    let algorithm = BipAlgorithm::ALL[usize::from(selector) % BipAlgorithm::ALL.len()];
    let key_id = 4 + u16::from(selector >> 2 & 1);
    let igtk = Igtk::new(algorithm, key_id, &IGTK[..algorithm.key_len()]).expect("a key of the algorithm's length");
    let _ = igtk.verify(mpdu);
    let mut receiver = BipReceiver::new();
    receiver.install(igtk.clone(), Pn::new(1).unwrap());
    let _ = receiver.verify(mpdu);

    let mut buf = mpdu.to_vec();
    buf.resize(mpdu.len() + igtk.overhead(), 0);
    if let Ok(len) = igtk.protect(&mut buf, mpdu.len(), Pn::new(2).unwrap()) {
        assert_eq!(igtk.verify(&buf[..len]).expect("what we protect, we verify").value(), 2);
    }
}

/// The receive pipeline of a node over a stream of MPDUs, with a key of the selector's
/// suite, and the 802.1X port rule over what it delivers.
pub fn rx_pipeline(data: &[u8]) {
    let Some((&selector, stream)) = data.split_first() else { return };
    let (suite, rules) = (suite_of(selector), rules_of(selector));
    let mut key = RxKey::new(suite, &TK[..suite.key_len()], rules).expect("a key of the suite's length");
    let mut pipeline = Pipeline::new(rules);
    let defences = pipeline.defences();
    for mpdu in frames(stream) {
        let Ok(Some(delivered)) = pipeline.receive(mpdu, Some(&mut key)) else { continue };
        let _ = port::admit(&delivered, SPA, true, defences);
        for msdu in delivered.msdus() {
            let Ok(msdu) = msdu else { break };
            let _ = msdu.to_ethernet();
        }
        let _ = delivered.into_ethernet();
    }
}

/// The PMK of the network the decryptor seeds were made on (PBKDF2 once per process).
pub fn synth_pmk() -> &'static Pmk {
    static PMK: OnceLock<Pmk> = OnceLock::new();
    PMK.get_or_init(|| pmk_from_passphrase(SYNTH_PASSPHRASE, SYNTH_SSID).expect("a valid passphrase"))
}

/// The decryptor's state bound in the `decryptor` target (the selector's bit 3 picks one):
/// small, so that a few stations already evict.
pub const DECRYPTOR_MAX_STATE: [usize; 2] = [4, 16];

/// The capture decryptor over a stream of MPDUs, with the synth network's PMK and the
/// targets' temporal, group and WEP keys, keeping at most 4 or 16 entries of each kind of
/// state; the selector picks the output form, the SSID filter, the bound, and whether frames
/// go one by one or in batches (of the whole stream or of 4, 16 or 64 frames).
///
/// Checked after every frame (every batch): the state is within its bound (one frame may
/// add a few entries, evicted before the next: a frame adds at most one per kind, or one
/// per A-MSDU subframe); and no MPDU whose decryption was written is written again (its
/// octets but the Retry bit compared): a replayed or retransmitted frame is refused by its
/// key's replay counters, and a replayed handshake installs no key again (which would reset
/// them). WEP has no replay counter, so WEP frames are not compared; and an eviction of a
/// link or group transmitter drops its replay counters with it (the price of bounded
/// state), so what was written before one is forgotten.
pub fn decryptor(data: &[u8]) {
    let Some((&selector, stream)) = data.split_first() else { return };
    let keys = Keys {
        pmks: vec![synth_pmk().clone()],
        pmk_ssids: vec![Some(SYNTH_SSID.to_vec())],
        tks: vec![Secret::from_slice(&TK[..16]).unwrap(), Secret::from_slice(&TK).unwrap()],
        gtks: vec![Secret::from_slice(&GTK[..16]).unwrap()],
        wep: vec![Secret::from_slice(&TK[..5]).unwrap(), Secret::from_slice(&TK[..13]).unwrap()],
    };
    let form = if selector & 1 == 0 { OutputForm::Ethernet } else { OutputForm::Ieee80211 };
    let ssid = (selector & 2 != 0).then_some(SYNTH_SSID);
    let max = DECRYPTOR_MAX_STATE[usize::from(selector >> 3 & 1)];
    let mut decryptor = Decryptor::new(keys, ssid, None, form).expect("valid keys").with_max_state(max);
    let mpdus: Vec<&[u8]> = frames(stream).collect();
    let mut written = Written::default();
    if selector & 4 == 0 {
        for (i, mpdu) in mpdus.iter().enumerate() {
            let _ = decryptor.process(mpdu, |_| written.output(i, mpdu));
            let size = decryptor.state_size();
            assert!(size.within(max + 1 + mpdu.len() / 64), "state {size:?} over {max} after frame {i}");
            written.after_step(&decryptor);
        }
    } else {
        let chunk = [usize::MAX, 4, 16, 64][usize::from(selector >> 4 & 3)].min(mpdus.len()).max(1);
        for (at, batch) in mpdus.chunks(chunk).enumerate() {
            let start = at * chunk;
            let _ = decryptor.process_batch(batch, |i, _| written.output(start + i, batch[i]));
            // A batch ends with an eviction.
            let size = decryptor.state_size();
            assert!(size.within(max), "state {size:?} over {max} after the batch at frame {start}");
            written.after_step(&decryptor);
        }
    }
    assert_eq!(decryptor.stats().packets_read, mpdus.len() as u64);
}

/// The protected MPDUs whose decryption was written (Retry bit cleared), each with the
/// index of the input frame that wrote it.
#[derive(Default)]
struct Written {
    frames: std::collections::HashMap<Vec<u8>, usize>,
    /// Links and group transmitters evicted so far.
    evicted: u64,
}

impl Written {
    /// Input frame `index` (`mpdu`) wrote a frame (an A-MSDU, several).
    fn output(&mut self, index: usize, mpdu: &[u8]) -> Result<(), ()> {
        let Some(key) = replay_key(mpdu) else { return Ok(()) };
        let first = *self.frames.entry(key).or_insert(index);
        assert_eq!(first, index, "frame {index} was written already as frame {first}: a replay got through");
        Ok(())
    }

    fn after_step(&mut self, decryptor: &Decryptor) {
        let evicted = decryptor.stats().evicted;
        let evicted = evicted.links + evicted.groups;
        if evicted != self.evicted {
            self.evicted = evicted;
            self.frames.clear();
        }
    }
}

/// What identifies a protected MPDU to replay protection: its octets with the Retry bit
/// cleared; `None` for WEP (no Extended IV: no replay counter) and unprotected frames.
fn replay_key(mpdu: &[u8]) -> Option<Vec<u8>> {
    let frame = Frame::new_checked(mpdu, Rules::default()).ok()?;
    let body = frame.body();
    if !frame.frame_control().protected() || body.get(3)? & 0x20 == 0 {
        return None;
    }
    let mut key = mpdu.to_vec();
    key[1] &= !0x08;
    Some(key)
}
