//! Capture decryption, airdecap-ng style: follow every station's 4-way and group key
//! handshakes in a capture, derive its keys from the PMK (or take a TK or WEP key given
//! outright), and decrypt the protected data frames of every suite, pairwise and group.
//!
//! A [`Decryptor`] is fed one 802.11 MPDU at a time (no radiotap header, no FCS) in
//! capture order. A pairwise key is installed only after the supplicant's message 2 MIC
//! verifies under the derived KCK, so a wrong passphrase decrypts nothing and is reported;
//! each key has its own replay counters per direction, and a retransmitted message 3 (the
//! same key again) never resets them.

use std::collections::HashMap;

use crate::engine::enhanced::MIC_LEN;
use crate::engine::{framing, Engine, FastCcmp, Job, Key, Mode};
use crate::error::{Error, Result};
use crate::rsn::eapol::{self, DescriptorType, EapolKey, KeyInfo, Message, ETHERTYPE_EAPOL};
use crate::rsn::element::{kde_type, key_data_items, GtkKde, KeyDataItem, IEEE_OUI};
use crate::rsn::{derive_ptk, Akm, CipherSuite, KeyDescriptorVersion, Pmk, Ptk, RsnElementRepr, Secret};
use crate::suite::tkip::Role;
use crate::suite::{Ccmp256, Decapsulated, FrameSuite, Gcmp128, Gcmp256, Receiver, ReplayCounters, Tkip, Wep};
use crate::wire::llc::{self, SNAP_HEADER_LEN};
use crate::wire::{EthernetRepr, Frame, FrameControl, HeaderRepr, MacAddr, Rules, SequenceControl};

/// What the decryptor is given to find keys with.
pub enum Keys {
    /// The PMK of a PSK network (from passphrase and SSID, or given): pairwise keys come
    /// from each station's 4-way handshake, group keys from messages 3 and group message 1.
    Pmk(Pmk),
    /// One temporal key used for every pairwise link. The cipher is the network's (from its
    /// beacon), else CCMP-128 for a 16-octet key and TKIP for a 32-octet one.
    Tk(Secret),
    /// A static WEP key (5 or 13 octets) for every frame.
    Wep(Secret),
}

/// How decrypted frames are written out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OutputForm {
    /// Ethernet II: DA, SA and the EtherType from the SNAP header.
    Ethernet,
    /// The 802.11 MPDU with Protected cleared (fragments reassembled into one frame).
    Ieee80211,
}

/// The counts airdecap-ng prints, plus what the handshakes told.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    pub packets_read: u64,
    pub plaintext_data: u64,
    pub wep_data: u64,
    pub wpa_data: u64,
    pub decrypted_wep: u64,
    pub decrypted_wpa: u64,
    /// Protected frames whose integrity check failed under the key that should fit.
    pub bad_integrity: u64,
    /// Protected unicast frames of a station whose handshake was not seen.
    pub no_key: u64,
    /// Protected group frames whose GTK was not seen (no message 3 or group message 1).
    pub no_group_key: u64,
    /// Protected frames refused as replays.
    pub replays: u64,
    /// 4-way handshakes whose message 2 MIC verified (keys installed).
    pub handshakes: u64,
    /// Messages 2 whose MIC did not verify under the derived KCK: a wrong passphrase/PMK.
    pub mic_mismatches: u64,
    /// Group keys installed (from message 3 or group message 1).
    pub group_keys: u64,
    /// Handshake messages refused (forged MIC, bad key data, unknown link).
    pub bad_handshake_messages: u64,
    /// Protected frames that failed for another reason (truncated, malformed).
    pub malformed: u64,
}

const NO_GROUP_KEY: &str = "no group key for this frame (message 3 or group message 1 not captured)";
const NO_PAIRWISE_KEY: &str = "no key for this station (its 4-way handshake was not captured)";

/// The link a pairwise key protects: the two addresses in a fixed order.
type LinkId = (MacAddr, MacAddr);

fn link_id(a: MacAddr, b: MacAddr) -> LinkId {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// What a beacon, probe response or association request told about a network.
#[derive(Clone, Debug, Default)]
struct Network {
    ssid: Option<Vec<u8>>,
    pairwise: Option<CipherSuite>,
    akm: Option<Akm>,
}

/// The receive state of one key. TKIP stands apart: its fragments are decrypted one by one
/// and the Michael MIC is checked on the reassembled MSDU.
enum Rx {
    /// CCMP-128 on the fast engine, which can also open many frames at once.
    Fast {
        key: Box<Key>,
        replay: ReplayCounters,
    },
    Frame(Receiver<Box<dyn FrameSuite>>),
    Tkip {
        tkip: Tkip,
        replay: ReplayCounters,
    },
}

impl Rx {
    /// `receiver`: the handshake side that receives under this key, which picks TKIP's
    /// Michael key (frame direction cannot tell in an IBSS); None reads it off each frame.
    fn new(cipher: CipherSuite, key: &[u8], receiver: Option<Role>) -> Result<Self> {
        Ok(match cipher {
            CipherSuite::Tkip => Rx::Tkip {
                tkip: match receiver {
                    Some(role) => Tkip::new(key)?.with_role(role),
                    None => Tkip::new(key)?,
                },
                replay: ReplayCounters::default(),
            },
            CipherSuite::Ccmp128 => {
                Rx::Fast { key: Box::new(Key::new(key, Mode::CCMP128)?), replay: ReplayCounters::default() }
            }
            _ => Rx::Frame(Receiver::new(data_suite(cipher, key)?)),
        })
    }

    /// Verify, replay-check and decrypt one protected MPDU (a TKIP fragment without its
    /// Michael check, which waits for the whole MSDU).
    fn unprotect(&mut self, buf: &mut [u8], rules: Rules) -> Result<Decapsulated> {
        match self {
            Rx::Fast { key, replay } => {
                let (prepared, peeked) = framing::prepare_decapsulate(buf, rules)?;
                replay.check(peeked.class, peeked.pn)?;
                let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
                let mic: &[u8; MIC_LEN] = (&*mic).try_into().map_err(|_| Error::Malformed("CCMP MIC"))?;
                Engine::new().open(key, &prepared.nonce, prepared.aad.as_slice(), data, mic)?;
                let done = framing::finish_decapsulate(buf, rules, &prepared, peeked)?;
                replay.commit(done.class, done.pn);
                Ok(done)
            }
            Rx::Frame(rx) => rx.unprotect(buf),
            Rx::Tkip { tkip, replay } => {
                let peeked = tkip.peek(buf)?;
                replay.check(peeked.class, peeked.pn)?;
                let done = if is_fragment(&Frame::new_checked(&*buf, rules)?) {
                    tkip.decapsulate_mpdu(buf)?
                } else {
                    tkip.decapsulate(buf)?
                };
                replay.commit(done.class, done.pn);
                Ok(done)
            }
        }
    }
}

fn is_fragment<T: AsRef<[u8]>>(frame: &Frame<T>) -> bool {
    frame.frame_control().more_fragments() || frame.sequence_control().is_some_and(|sc| sc.fragment_number() != 0)
}

/// A pairwise key with one receive state per direction.
struct PairwiseKey {
    tk: Secret,
    from_authenticator: Rx,
    from_supplicant: Rx,
}

impl PairwiseKey {
    fn new(cipher: CipherSuite, tk: Secret) -> Result<Self> {
        Ok(PairwiseKey {
            from_authenticator: Rx::new(cipher, tk.as_bytes(), Some(Role::Supplicant))?,
            from_supplicant: Rx::new(cipher, tk.as_bytes(), Some(Role::Authenticator))?,
            tk,
        })
    }
}

/// A 4-way handshake: (authenticator, supplicant). In an IBSS each pair of stations runs
/// two, one with each station as authenticator.
type HandshakeId = (MacAddr, MacAddr);

/// One 4-way handshake in progress (or done).
#[derive(Default)]
struct Handshake {
    anonce: Option<[u8; 32]>,
    /// Message 2 frames waiting for an ANonce (message 1 was not captured).
    pending_m2: Vec<Vec<u8>>,
    ptk: Option<Ptk>,
    cipher: Option<CipherSuite>,
}

/// A pairwise link and the key in use on it.
#[derive(Default)]
struct Link {
    /// The authenticator of the handshake whose key is installed.
    authenticator: Option<MacAddr>,
    key: Option<PairwiseKey>,
}

/// Group keys of one transmitter (the AP of a BSS; each station of an IBSS), by Key ID.
#[derive(Default)]
struct Group {
    keys: [Option<(Secret, Rx)>; 4],
}

/// An MSDU being reassembled from its fragments.
struct Partial {
    /// The key its fragments were decrypted with (TKIP checks Michael on the whole MSDU).
    slot: KeySlot,
    sequence: u16,
    next_fragment: u8,
    header: Vec<u8>,
    body: Vec<u8>,
}

/// The capture-decryption engine.
pub struct Decryptor {
    keys: Keys,
    ssid: Option<Vec<u8>>,
    bssid: Option<MacAddr>,
    form: OutputForm,
    rules: Rules,
    networks: HashMap<MacAddr, Network>,
    handshakes: HashMap<HandshakeId, Handshake>,
    links: HashMap<LinkId, Link>,
    /// Group keys by the address that sends frames under them.
    groups: HashMap<MacAddr, Group>,
    wep: Option<Rx>,
    fragments: HashMap<MacAddr, Partial>,
    stats: Stats,
    work: Vec<u8>,
    /// Frames waiting for one engine batch: (index, key, length), and their buffers.
    pending: Vec<(usize, KeySlot, usize)>,
    batch_bufs: Vec<Vec<u8>>,
}

/// Where a protected frame's key is looked up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum KeySlot {
    Wep,
    /// A pairwise key, and whether the frame came from the authenticator.
    Pairwise(LinkId, bool),
    /// A group key of a transmitter, by Key ID.
    Group(MacAddr, u8),
}

impl Decryptor {
    /// `ssid` limits decryption to the network with that SSID (as announced in beacons);
    /// `bssid` to one BSS.
    pub fn new(keys: Keys, ssid: Option<&[u8]>, bssid: Option<MacAddr>, form: OutputForm) -> Result<Self> {
        let wep = match &keys {
            Keys::Wep(key) => Some(Rx::new(wep_cipher(key.len())?, key.as_bytes(), None)?),
            _ => None,
        };
        Ok(Decryptor {
            keys,
            ssid: ssid.map(<[u8]>::to_vec),
            bssid,
            form,
            rules: Rules::default(),
            networks: HashMap::new(),
            handshakes: HashMap::new(),
            links: HashMap::new(),
            groups: HashMap::new(),
            wep,
            fragments: HashMap::new(),
            stats: Stats::default(),
            work: Vec::with_capacity(4096),
            pending: Vec::new(),
            batch_bufs: Vec::new(),
        })
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Stations (links) on which a handshake or key was seen.
    pub fn stations_seen(&self) -> usize {
        self.links.len()
    }

    /// Feed one captured MPDU; returns the decrypted frame to write, if this MPDU completed
    /// one. Errors name why a protected frame could not be decrypted; the caller counts
    /// them and goes on (they are also counted in [`Stats`]).
    pub fn process(&mut self, mpdu: &[u8]) -> Result<Option<&[u8]>> {
        self.stats.packets_read += 1;
        let frame = Frame::new_checked(mpdu, self.rules)?;
        let fc = frame.frame_control();
        if fc.is_management() {
            self.learn_network(&frame);
            return Ok(None);
        }
        // Data subtypes with bit 2 set (Null, QoS Null, CF-*) carry no MSDU.
        if !fc.is_data() || fc.subtype() & 0x4 != 0 {
            return Ok(None);
        }
        let header = HeaderRepr::parse(&frame)?;
        let bss = transmitter_bss(&header);
        if self.bssid.is_some_and(|b| b != bss) || !self.ssid_matches(bss) {
            return Ok(None);
        }
        if !fc.protected() {
            // Counted as airdecap-ng does: EAPOL frames are not "plaintext data".
            match eapol_payload(frame.body()) {
                Some(eapol) => self.handshake(&header, eapol),
                None => self.stats.plaintext_data += 1,
            }
            return Ok(None);
        }
        let wep = is_wep(frame.body());
        if wep {
            self.stats.wep_data += 1;
        } else {
            self.stats.wpa_data += 1;
        }
        let result = self.decrypt(mpdu, &header, wep);
        match &result {
            Ok(_) if wep => self.stats.decrypted_wep += 1,
            Ok(_) => self.stats.decrypted_wpa += 1,
            Err(Error::MicFailure | Error::IcvFailure) => self.stats.bad_integrity += 1,
            Err(Error::Replay { .. }) => self.stats.replays += 1,
            Err(Error::Unsupported(why)) if why.starts_with(NO_GROUP_KEY) => self.stats.no_group_key += 1,
            Err(Error::Unsupported(why)) if why.starts_with(NO_PAIRWISE_KEY) => self.stats.no_key += 1,
            Err(_) => self.stats.malformed += 1,
        }
        let (plain_len, slot) = result?;
        self.complete_msdu(plain_len, slot)
    }

    /// Feed MPDUs in capture order, like [`Decryptor::process`] one by one; `emit(i, frame)`
    /// receives each decrypted frame with the index of the MPDU that completed it. Runs of
    /// whole CCMP-128 frames with known keys are opened together across the engine's lanes;
    /// their replay checks and output keep capture order. Per-frame errors are counted in
    /// [`Stats`]; an error from `emit` stops the batch.
    pub fn process_batch<E>(
        &mut self,
        mpdus: &[&[u8]],
        mut emit: impl FnMut(usize, &[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        let mut pending = std::mem::take(&mut self.pending);
        for (i, mpdu) in mpdus.iter().enumerate() {
            if let Some(slot) = self.fast_slot(mpdu) {
                self.stats.packets_read += 1;
                self.stats.wpa_data += 1;
                pending.push((i, slot, mpdu.len()));
                let buf = self.batch_bufs.get_mut(pending.len() - 1);
                match buf {
                    Some(buf) => {
                        buf.clear();
                        buf.extend_from_slice(mpdu);
                    }
                    None => self.batch_bufs.push(mpdu.to_vec()),
                }
                continue;
            }
            self.open_pending(&mut pending, &mut emit)?;
            if let Ok(Some(frame)) = self.process(mpdu) {
                emit(i, frame)?;
            }
        }
        let result = self.open_pending(&mut pending, &mut emit);
        self.pending = pending;
        result
    }

    /// The key of a protected, unfragmented data frame that the fast engine can open now.
    fn fast_slot(&mut self, mpdu: &[u8]) -> Option<KeySlot> {
        let frame = Frame::new_checked(mpdu, self.rules).ok()?;
        let fc = frame.frame_control();
        if !fc.is_data() || !fc.protected() || fc.subtype() & 0x4 != 0 || is_fragment(&frame) || is_wep(frame.body()) {
            return None;
        }
        let header = HeaderRepr::parse(&frame).ok()?;
        let bss = transmitter_bss(&header);
        if self.bssid.is_some_and(|b| b != bss) || !self.ssid_matches(bss) {
            return None;
        }
        let slot = self.slot_of(mpdu, &header, false).ok()?;
        matches!(self.rx(slot), Some(Rx::Fast { .. })).then_some(slot)
    }

    /// Open the pending frames in one engine batch, then replay-check, count and emit
    /// them in order.
    fn open_pending<E>(
        &mut self,
        pending: &mut Vec<(usize, KeySlot, usize)>,
        emit: &mut impl FnMut(usize, &[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        if pending.is_empty() {
            return Ok(());
        }
        let rules = self.rules;
        let mut bufs = std::mem::take(&mut self.batch_bufs);
        let mut layout = Vec::with_capacity(pending.len());
        let mut failed_mic = Vec::with_capacity(pending.len());
        {
            let mut jobs = Vec::with_capacity(pending.len());
            for (&(_, slot, len), buf) in pending.iter().zip(bufs.iter_mut()) {
                let buf = &mut buf[..len];
                let key = match self.rx_ref(slot) {
                    Some(Rx::Fast { key, .. }) => key,
                    _ => {
                        layout.push(None);
                        continue;
                    }
                };
                let Ok((prepared, peeked)) = framing::prepare_decapsulate(buf, rules) else {
                    layout.push(None);
                    continue;
                };
                let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
                let mut job = Job::new(key, prepared.nonce, &[], data);
                job.mic.copy_from_slice(&mic[..MIC_LEN]);
                layout.push(Some((prepared, peeked)));
                jobs.push(job);
            }
            let auds: Vec<_> = layout.iter().flatten().map(|(p, _)| p.aad).collect();
            for (job, aad) in jobs.iter_mut().zip(&auds) {
                job.aad = aad.as_slice();
            }
            let verified: Vec<bool> = if Engine::new().open_batch(&mut jobs).is_ok() {
                jobs.iter().map(|j| j.verified).collect()
            } else {
                vec![false; jobs.len()]
            };
            drop(jobs);
            let mut verified = verified.into_iter();
            for entry in layout.iter_mut() {
                let failed = entry.is_some() && !verified.next().unwrap_or(false);
                if failed {
                    *entry = None;
                }
                failed_mic.push(failed);
            }
        }
        let mut result = Ok(());
        let keys_at_start = (self.stats.handshakes, self.stats.group_keys);
        for (((&(i, slot, len), buf), entry), failed) in pending.iter().zip(bufs.iter_mut()).zip(layout).zip(failed_mic)
        {
            let Some((prepared, peeked)) = entry else {
                if failed && keys_at_start != (self.stats.handshakes, self.stats.group_keys) {
                    // A handshake earlier in this batch changed keys: this frame may be
                    // under the new key, so it goes through the ordinary path (which
                    // counts it itself).
                    self.stats.packets_read -= 1;
                    self.stats.wpa_data -= 1;
                    if let Ok(Some(frame)) = self.process(&buf[..len]) {
                        result = emit(i, frame);
                    }
                } else if failed {
                    self.stats.bad_integrity += 1;
                } else {
                    self.stats.malformed += 1;
                }
                if result.is_err() {
                    break;
                }
                continue;
            };
            let Some(Rx::Fast { replay, .. }) = self.rx(slot) else {
                continue;
            };
            if replay.check(peeked.class, peeked.pn).is_err() {
                self.stats.replays += 1;
                continue;
            }
            let Ok(done) = framing::finish_decapsulate(&mut buf[..len], rules, &prepared, peeked) else {
                self.stats.malformed += 1;
                continue;
            };
            replay.commit(done.class, done.pn);
            self.stats.decrypted_wpa += 1;
            std::mem::swap(&mut self.work, buf);
            self.work.truncate(done.mpdu_len);
            if let Ok(Some(frame)) = self.complete_msdu(done.mpdu_len, slot) {
                result = emit(i, frame);
            }
            std::mem::swap(&mut self.work, buf);
            if result.is_err() {
                break;
            }
        }
        self.batch_bufs = bufs;
        pending.clear();
        result
    }

    fn ssid_matches(&self, bss: MacAddr) -> bool {
        match (&self.ssid, self.networks.get(&bss).and_then(|n| n.ssid.as_ref())) {
            (Some(wanted), Some(seen)) => wanted == seen,
            _ => true,
        }
    }

    /// Beacons and probe responses give SSID and RSN element; association requests the
    /// station's chosen suites.
    fn learn_network<T: AsRef<[u8]>>(&mut self, frame: &Frame<T>) {
        const ASSOC_REQUEST: u8 = 0;
        const PROBE_RESPONSE: u8 = 5;
        const BEACON: u8 = 8;
        let (fixed, bss) = match frame.frame_control().subtype() {
            BEACON | PROBE_RESPONSE => (12, frame.addr3()),
            ASSOC_REQUEST => (4, frame.addr3()),
            _ => return,
        };
        let (Some(bss), Some(elements)) = (bss, frame.body().get(fixed..)) else {
            return;
        };
        let network = self.networks.entry(bss).or_default();
        for item in key_data_items(elements) {
            let Ok(item) = item else { break };
            let element = match item {
                KeyDataItem::Element { id: 0, element } => {
                    network.ssid = Some(element[2..].to_vec());
                    continue;
                }
                KeyDataItem::Element { element, .. } => element.to_vec(),
                // A vendor element: rebuild it whole, the WPA element is one of these.
                KeyDataItem::Kde { oui, data_type, data } => {
                    let mut whole = vec![0xdd, (data.len() + 4) as u8];
                    whole.extend_from_slice(&oui);
                    whole.push(data_type);
                    whole.extend_from_slice(data);
                    whole
                }
            };
            if let Ok((_, rsn)) = RsnElementRepr::parse(&element) {
                network.pairwise = rsn.pairwise_ciphers.first().copied();
                network.akm = rsn.akms.first().copied();
            }
        }
    }

    /// Follow one EAPOL-Key frame of a handshake. Bad messages are counted and ignored:
    /// they never install a key.
    fn handshake(&mut self, header: &HeaderRepr, eapol: &[u8]) {
        if let Err(err) = self.try_handshake(header, eapol) {
            if err != Error::Unsupported("not an EAPOL-Key frame") {
                self.stats.bad_handshake_messages += 1;
            }
        }
    }

    fn try_handshake(&mut self, header: &HeaderRepr, eapol: &[u8]) -> Result<()> {
        let Keys::Pmk(_) = &self.keys else {
            return Ok(());
        };
        let view = EapolKey::new_checked(eapol).map_err(|_| Error::Unsupported("not an EAPOL-Key frame"))?;
        let ta = header.addr2;
        let ra = header.addr1;
        let bss = transmitter_bss(header);
        let frame = view.frame().to_vec();
        self.links.entry(link_id(ta, ra)).or_default();
        match view.message() {
            Message::FourWay1 => self.new_anonce((ta, ra), bss, view.nonce()),
            Message::FourWay2 => {
                let id = (ra, ta);
                let handshake = self.handshakes.entry(id).or_default();
                if handshake.anonce.is_none() {
                    handshake.pending_m2.push(frame);
                    return Ok(());
                }
                self.message2(id, bss, &frame)
            }
            Message::FourWay3 => {
                let id = (ta, ra);
                if self.handshakes.get(&id).and_then(|h| h.anonce) != Some(view.nonce()) {
                    self.new_anonce(id, bss, view.nonce())?;
                }
                self.group_key_message(id, bss, &frame)
            }
            Message::Group1 => self.group_key_message((ta, ra), bss, &frame),
            Message::FourWay4 | Message::Group2 | Message::Request => Ok(()),
        }
    }

    /// Message 1 (or a message 3 whose ANonce is new): take the ANonce and try the
    /// messages 2 that were waiting for it.
    fn new_anonce(&mut self, id: HandshakeId, bss: MacAddr, anonce: [u8; 32]) -> Result<()> {
        let handshake = self.handshakes.entry(id).or_default();
        handshake.anonce = Some(anonce);
        for m2 in std::mem::take(&mut handshake.pending_m2) {
            self.message2(id, bss, &m2)?;
        }
        Ok(())
    }

    /// Derive the PTK for a message 2 and install it if its MIC verifies. Of a pair's two
    /// IBSS handshakes, the one whose authenticator has the larger address keys the link
    /// (IEEE 802.11-2020 12.6.10.1); a smaller one keys it only until then.
    fn message2(&mut self, id: HandshakeId, bss: MacAddr, frame: &[u8]) -> Result<()> {
        let Keys::Pmk(pmk) = &self.keys else {
            return Ok(());
        };
        let network = self.networks.get(&bss).cloned().unwrap_or_default();
        let (aa, spa) = id;
        let handshake = self.handshakes.get_mut(&id).ok_or(Error::Malformed("message 2 on an unknown link"))?;
        let view = EapolKey::new_checked(frame)?;
        let version = view.key_info().version()?;
        let (cipher, akm) = suites_of(view.key_data(), version, &network);
        let anonce = handshake.anonce.ok_or(Error::Malformed("message 2 without an ANonce"))?;
        let ptk = derive_ptk(pmk, akm, cipher, aa, spa, &anonce, &view.nonce())?;
        if eapol::verify_mic(ptk.kck.as_bytes(), frame).is_err() {
            self.stats.mic_mismatches += 1;
            return Err(Error::MicFailure);
        }
        self.stats.handshakes += 1;
        let tk = ptk.tk.clone();
        handshake.cipher = Some(cipher);
        handshake.ptk = Some(ptk);
        let link = self.links.entry(link_id(aa, spa)).or_default();
        let preferred = link.authenticator.is_none_or(|current| aa >= current);
        let same_key = link.key.as_ref().is_some_and(|k| k.tk == tk);
        if preferred && !same_key {
            link.key = Some(PairwiseKey::new(cipher, tk)?);
        }
        if preferred {
            link.authenticator = Some(aa);
        }
        Ok(())
    }

    /// Message 3 or group message 1 from authenticator `id.0`: verify its MIC under the KCK
    /// of a handshake between the two (its own; a group message 1 in an IBSS may come
    /// under the pair's other one), decrypt the Key Data under that KEK and install the
    /// GTK it carries as the sender's.
    fn group_key_message(&mut self, id: HandshakeId, bss: MacAddr, frame: &[u8]) -> Result<()> {
        let network = self.networks.get(&bss).cloned().unwrap_or_default();
        let mut candidates = [id, (id.1, id.0)]
            .into_iter()
            .filter_map(|h| self.handshakes.get(&h))
            .filter(|h| h.ptk.is_some())
            .peekable();
        if candidates.peek().is_none() {
            return Ok(());
        }
        let handshake = candidates
            .find(|h| h.ptk.as_ref().is_some_and(|p| eapol::verify_mic(p.kck.as_bytes(), frame).is_ok()))
            .ok_or(Error::MicFailure)?;
        let Some(ptk) = &handshake.ptk else {
            return Ok(());
        };
        let view = EapolKey::new_checked(frame)?;
        let info = view.key_info();
        let version = info.version()?;
        if !info.has(KeyInfo::ENCRYPTED_KEY_DATA) && view.descriptor_type()? == DescriptorType::Rsn {
            return Ok(());
        }
        let plain = eapol::decrypt_key_data(version, ptk.kek.as_bytes(), &view.key_iv(), view.key_data())?;
        let group_cipher = group_cipher_of(&plain, version, &network, handshake.cipher);
        let (key_id, gtk) = if view.descriptor_type()? == DescriptorType::Wpa {
            // WPA (pre-RSN) group message 1: the Key Data is the bare GTK.
            if info.has(KeyInfo::PAIRWISE) {
                return Ok(());
            }
            let len = usize::from(view.key_length()).min(plain.len());
            (info.wpa_key_index(), Secret::from_slice(&plain[..len])?)
        } else {
            let kde = key_data_items(&plain)
                .filter_map(|i| i.ok())
                .find_map(|i| match i {
                    KeyDataItem::Kde { oui, data_type, data } if oui == IEEE_OUI && data_type == kde_type::GTK => {
                        Some(data)
                    }
                    _ => None,
                })
                .ok_or(Error::Malformed("group key message without a GTK KDE"))?;
            let kde = GtkKde::parse(kde)?;
            (kde.key_id, Secret::from_slice(kde.gtk)?)
        };
        if gtk.is_all_zero() {
            return Err(Error::Malformed("all-zero GTK refused"));
        }
        let slot = &mut self.groups.entry(id.0).or_default().keys[usize::from(key_id & 3)];
        if slot.as_ref().is_some_and(|(k, _)| *k == gtk) {
            return Ok(());
        }
        let gtk_len = group_cipher.tk_len().unwrap_or(gtk.len());
        let rx = Rx::new(group_cipher, &gtk.as_bytes()[..gtk_len.min(gtk.len())], None)?;
        *slot = Some((gtk, rx));
        self.stats.group_keys += 1;
        Ok(())
    }

    /// Decrypt the protected MPDU into `self.work`; returns the plaintext MPDU's length and
    /// the key that decrypted it.
    fn decrypt(&mut self, mpdu: &[u8], header: &HeaderRepr, wep: bool) -> Result<(usize, KeySlot)> {
        let slot = self.slot_of(mpdu, header, wep)?;
        let mut work = std::mem::take(&mut self.work);
        work.clear();
        work.extend_from_slice(mpdu);
        let rules = self.rules;
        let result = match self.rx(slot) {
            Some(rx) => rx.unprotect(&mut work, rules),
            None if matches!(slot, KeySlot::Group(..)) => Err(Error::Unsupported(NO_GROUP_KEY)),
            None => Err(Error::Unsupported(NO_PAIRWISE_KEY)),
        };
        self.work = work;
        let done = result?;
        self.work.truncate(done.mpdu_len);
        Ok((done.mpdu_len, slot))
    }

    /// Where the key of a protected frame is (installing a given TK on first sight).
    fn slot_of(&mut self, mpdu: &[u8], header: &HeaderRepr, wep: bool) -> Result<KeySlot> {
        Ok(if wep {
            KeySlot::Wep
        } else if header.addr1.is_group() {
            KeySlot::Group(header.addr2, key_id_of(mpdu, self.rules)?)
        } else {
            let id = link_id(header.addr1, header.addr2);
            self.install_given_tk(id, header.addr2);
            let from_authenticator = self.links.get(&id).is_some_and(|l| l.authenticator == Some(header.addr2));
            KeySlot::Pairwise(id, from_authenticator)
        })
    }

    fn rx_ref(&self, slot: KeySlot) -> Option<&Rx> {
        match slot {
            KeySlot::Wep => self.wep.as_ref(),
            KeySlot::Pairwise(id, from_authenticator) => {
                let key = self.links.get(&id)?.key.as_ref()?;
                Some(if from_authenticator { &key.from_authenticator } else { &key.from_supplicant })
            }
            KeySlot::Group(bss, key_id) => {
                self.groups.get(&bss)?.keys[usize::from(key_id & 3)].as_ref().map(|(_, rx)| rx)
            }
        }
    }

    fn rx(&mut self, slot: KeySlot) -> Option<&mut Rx> {
        match slot {
            KeySlot::Wep => self.wep.as_mut(),
            KeySlot::Pairwise(id, from_authenticator) => {
                let key = self.links.get_mut(&id)?.key.as_mut()?;
                Some(if from_authenticator { &mut key.from_authenticator } else { &mut key.from_supplicant })
            }
            KeySlot::Group(bss, key_id) => {
                self.groups.get_mut(&bss)?.keys[usize::from(key_id & 3)].as_mut().map(|(_, rx)| rx)
            }
        }
    }

    /// With `--tk`, every link gets the given key the first time one of its frames is seen;
    /// the AP is the side that announced a network, else the receiver of the first frame.
    fn install_given_tk(&mut self, id: LinkId, ta: MacAddr) {
        let Keys::Tk(tk) = &self.keys else { return };
        if self.links.get(&id).is_some_and(|l| l.key.is_some()) {
            return;
        }
        let ra = if id.0 == ta { id.1 } else { id.0 };
        let ap = if self.networks.contains_key(&ta) { ta } else { ra };
        let cipher = self.networks.get(&ap).and_then(|n| n.pairwise).unwrap_or(if tk.len() == 16 {
            CipherSuite::Ccmp128
        } else {
            CipherSuite::Tkip
        });
        // Which side is the authenticator is a guess here, so TKIP reads each frame's
        // direction instead.
        let key = (|| -> Result<PairwiseKey> {
            Ok(PairwiseKey {
                tk: tk.clone(),
                from_authenticator: Rx::new(cipher, tk.as_bytes(), None)?,
                from_supplicant: Rx::new(cipher, tk.as_bytes(), None)?,
            })
        })();
        if let Ok(key) = key {
            let link = self.links.entry(id).or_default();
            link.authenticator = Some(ap);
            link.key = Some(key);
        }
    }

    /// Take the plaintext MPDU in `self.work` through reassembly and into the output form.
    fn complete_msdu(&mut self, plain_len: usize, slot: KeySlot) -> Result<Option<&[u8]>> {
        let frame = Frame::new_checked(&self.work[..plain_len], self.rules)?;
        let header = HeaderRepr::parse(&frame)?;
        let h = frame.header_len();
        let more = header.frame_control.more_fragments();
        let sc = header.sequence_control;
        if !more && sc.fragment_number() == 0 {
            self.fragments.remove(&header.addr2);
            return self.emit(&header, h).map(Some);
        }
        let ta = header.addr2;
        if sc.fragment_number() == 0 {
            let partial = Partial {
                slot,
                sequence: sc.sequence_number(),
                next_fragment: 1,
                header: self.work[..h].to_vec(),
                body: self.work[h..plain_len].to_vec(),
            };
            self.fragments.insert(ta, partial);
            return Ok(None);
        }
        let Some(partial) = self.fragments.get_mut(&ta) else {
            return Ok(None);
        };
        if partial.sequence != sc.sequence_number() || partial.next_fragment != sc.fragment_number() {
            self.fragments.remove(&ta);
            return Err(Error::Malformed("fragment out of order; MSDU dropped"));
        }
        partial.body.extend_from_slice(&self.work[h..plain_len]);
        partial.next_fragment += 1;
        if more {
            return Ok(None);
        }
        let partial = self.fragments.remove(&ta).ok_or(Error::Malformed("fragment state lost"))?;
        self.work.clear();
        self.work.extend_from_slice(&partial.header);
        self.work.extend_from_slice(&partial.body);
        let mut first = Frame::new_checked(&mut self.work[..], self.rules)?;
        first.set_flag(FrameControl::MORE_FRAGMENTS, false)?;
        first.set_sequence_control(SequenceControl::new(sc.sequence_number(), 0));
        let h = first.header_len();
        let header = HeaderRepr::parse(&first)?;
        let work = std::mem::take(&mut self.work);
        let rules = self.rules;
        let michael = match self.rx(partial.slot) {
            Some(Rx::Tkip { tkip, .. }) => {
                Frame::new_checked(&work[..], rules).and_then(|first| tkip.verify_msdu(&first, first.body())).map(Some)
            }
            _ => Ok(None),
        };
        self.work = work;
        if let Some(msdu_len) = michael? {
            self.work.truncate(h + msdu_len);
        }
        self.emit(&header, h).map(Some)
    }

    /// The MSDU in `self.work[h..]` in the output form, in `self.out`.
    fn emit(&mut self, header: &HeaderRepr, h: usize) -> Result<&[u8]> {
        let ethertype = llc::parse_snap(&self.work[h..]);
        if ethertype == Ok(ETHERTYPE_EAPOL) {
            // A handshake sent under the pairwise key (a rekey): follow it too.
            let eapol = self.work[h + SNAP_HEADER_LEN..].to_vec();
            self.handshake(header, &eapol);
        }
        match self.form {
            OutputForm::Ieee80211 => Ok(&self.work),
            OutputForm::Ethernet => {
                // The Ethernet header replaces the end of the MAC header and the SNAP
                // header in place (a MAC header is at least 24 octets), so the payload
                // is never copied.
                let start = h + SNAP_HEADER_LEN - llc::ETHERNET_HEADER_LEN;
                EthernetRepr { dst: header.da(), src: header.sa(), ethertype: ethertype? }
                    .emit(&mut self.work[start..])?;
                Ok(&self.work[start..])
            }
        }
    }
}

/// The BSS a data frame belongs to, named as airdecap-ng does: A3 in an IBSS, the AP's
/// address otherwise, the transmitter for a 4-address (WDS) frame.
fn transmitter_bss(header: &HeaderRepr) -> MacAddr {
    header.bssid().unwrap_or(header.addr2)
}

/// The EAPOL frame behind an RFC 1042 SNAP header with EtherType 888E.
fn eapol_payload(msdu: &[u8]) -> Option<&[u8]> {
    (llc::parse_snap(msdu).ok()? == ETHERTYPE_EAPOL).then(|| &msdu[SNAP_HEADER_LEN..])
}

/// WEP frames leave the Ext IV bit clear; TKIP, CCMP and GCMP set it.
fn is_wep(body: &[u8]) -> bool {
    body.get(3).is_some_and(|b| b & 0x20 == 0)
}

fn key_id_of(mpdu: &[u8], rules: Rules) -> Result<u8> {
    let frame = Frame::new_checked(mpdu, rules)?;
    let octet =
        frame.body().get(3).ok_or(Error::Truncated { what: "security header", needed: 4, got: frame.body().len() })?;
    Ok(octet >> 6)
}

/// The pairwise cipher and AKM a message 2 names in its RSN/WPA element, else what the
/// network announced, else what the key descriptor version implies.
fn suites_of(key_data: &[u8], version: KeyDescriptorVersion, network: &Network) -> (CipherSuite, Akm) {
    let element = key_data_items(key_data).filter_map(|i| i.ok()).find_map(|i| match i {
        KeyDataItem::Element { element, .. } => RsnElementRepr::parse(element).ok(),
        KeyDataItem::Kde { .. } => None,
    });
    let by_version = match version {
        KeyDescriptorVersion::HmacMd5Rc4 => (CipherSuite::Tkip, Akm::Psk),
        KeyDescriptorVersion::HmacSha1Aes => (CipherSuite::Ccmp128, Akm::Psk),
        KeyDescriptorVersion::AesCmac => (CipherSuite::Ccmp128, Akm::PskSha256),
    };
    let from_element = element.map(|(_, e)| (e.pairwise_ciphers.first().copied(), e.akms.first().copied()));
    let (cipher, akm) = from_element.unwrap_or((network.pairwise, network.akm));
    (cipher.unwrap_or(by_version.0), akm.unwrap_or(by_version.1))
}

/// The group cipher: from the RSN element in message 3's Key Data, else the pairwise one.
fn group_cipher_of(
    key_data: &[u8],
    version: KeyDescriptorVersion,
    network: &Network,
    pairwise: Option<CipherSuite>,
) -> CipherSuite {
    let from_element = key_data_items(key_data).filter_map(|i| i.ok()).find_map(|i| match i {
        KeyDataItem::Element { element, .. } => RsnElementRepr::parse(element).ok().map(|(_, e)| e.group_cipher),
        KeyDataItem::Kde { .. } => None,
    });
    from_element.or(pairwise).or(network.pairwise).unwrap_or(if version == KeyDescriptorVersion::HmacMd5Rc4 {
        CipherSuite::Tkip
    } else {
        CipherSuite::Ccmp128
    })
}

fn wep_cipher(key_len: usize) -> Result<CipherSuite> {
    match key_len {
        5 => Ok(CipherSuite::Wep40),
        13 => Ok(CipherSuite::Wep104),
        got => Err(Error::KeyLength { expected: 13, got }),
    }
}

/// A data-confidentiality suite keyed with `tk`.
pub fn data_suite(cipher: CipherSuite, tk: &[u8]) -> Result<Box<dyn FrameSuite>> {
    Ok(match cipher {
        // The fast engine (AES-NI/VAES), MPDU-compatible with `suite::Ccmp128`.
        CipherSuite::Ccmp128 => Box::new(FastCcmp::keyed(Engine::new(), tk, Mode::CCMP128)?),
        CipherSuite::Ccmp256 => Box::new(Ccmp256::new(tk)?),
        CipherSuite::Gcmp128 => Box::new(Gcmp128::new(tk)?),
        CipherSuite::Gcmp256 => Box::new(Gcmp256::new(tk)?),
        CipherSuite::Tkip => Box::new(Tkip::new(tk)?),
        CipherSuite::Wep40 | CipherSuite::Wep104 => Box::new(Wep::new(tk)?),
        _ => return Err(Error::Unsupported("cipher suite without a data-frame implementation")),
    })
}
