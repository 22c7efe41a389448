//! The capture decryptor's key tracker: follows every network's beacons and every station's
//! 4-way and group key handshakes, and holds the keys they install, each by the link or
//! transmitter whose frames it opens. A pairwise key is installed only after the
//! supplicant's message 2 MIC verifies under the derived KCK, so a wrong passphrase
//! installs nothing and is counted; each key has its own replay counters per direction, and
//! a retransmitted message 3 (the same key again) never resets them. TDLS direct links are
//! keyed from the TPK handshake in the setup frames their peers send through the AP, and a
//! Deauthentication or Disassociation ends a link's keys.
//!
//! What an outsider can make it follow is bounded: a network's SSID and suites, once a
//! verified handshake proved them, no beacon changes; a link's key is replaced only by a
//! fresh handshake (a TK never installed on the link before, an EAPOL-Key Replay Counter
//! above the last verified one), and the key it replaces keeps its replay counters for the
//! frames still sent under it; and at most [`DEFAULT_MAX_STATE`] (or the limit given) links,
//! handshakes, networks, group-key transmitters and 802.11w links are kept, the least
//! recently used evicted first (those without keys before those with) and counted.

// foldhash: randomly seeded (HashDoS-resistant for addresses read from a capture) and
// several times faster than SipHash on these short keys, looked up per frame.
use core::hash::BuildHasher;

use foldhash::HashMap;
use indexmap::IndexMap;

use crate::error::{Error, HandshakeError, Result};
use crate::registry::SuiteId;
use crate::rsn::eapol::{self, DescriptorType, EapolKey, KeyInfo, Message};
use crate::rsn::element::ft::{self as ft_elements, FtElement};
use crate::rsn::element::{kde_type, key_data_items, GtkKde, KeyDataItem, IEEE_OUI};
use crate::rsn::kdf::ft;
use crate::rsn::tdls::TpkMessage;
use crate::rsn::{
    derive_ptk_with, Akm, AkmKeys, CipherSuite, KeyDescriptorVersion, MfpPolicy, Ptk, RsnElementRepr, Secret,
};
use crate::rx::{DataFrame, RxKey, Security};
use crate::suite::tkip::Role;
use crate::wire::mgmt::{subtype, ManagementBody, STATUS_SUCCESS};
use crate::wire::tdls::{SetupAction, SetupRepr, TdlsFrame};
use crate::wire::{Frame, HeaderRepr, MacAddr, Rules};

mod given;

pub use given::Keys;

use super::integrity::Integrity;
use super::Stats;

/// How many links, handshakes, networks, group-key transmitters and 802.11w links the
/// tracker keeps at most by default (each kind apart).
pub const DEFAULT_MAX_STATE: usize = 4096;

/// Messages 2 kept per handshake while its message 1 is missing (retransmissions; more are
/// a flood: the oldest goes).
const PENDING_M2: usize = 4;

/// TKs remembered per link (their fingerprints), never installed on it again.
const REMEMBERED_TKS: usize = 8;

/// Of entries ranked by `(priority, last used)` (all distinct), the smallest rank kept so
/// that `keep` remain; `None` when there are no more than that.
fn eviction_cutoff(mut ranks: Vec<(bool, u64)>, keep: usize) -> Option<(bool, u64)> {
    let evict = ranks.len().checked_sub(keep).filter(|&n| n > 0)?;
    let (_, cutoff, _) = ranks.select_nth_unstable(evict);
    Some(*cutoff)
}

/// How many entries of a kind remain after an eviction: three quarters of the limit, so an
/// eviction's pass over the entries is paid for by a quarter of the limit's insertions
/// (O(1) per frame, amortized).
fn after_eviction(max: usize) -> usize {
    max - max / 4
}

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
    group: Option<CipherSuite>,
    akm: Option<Akm>,
    /// The group management cipher (802.11w), when the RSN element names one.
    group_mgmt: Option<CipherSuite>,
    /// The Diffie-Hellman group of an OWE association request (it picks OWE's hash).
    owe_group: Option<u16>,
    /// Whether the AP's RSN element offers management frame protection (MFPC).
    mfp_capable: Option<bool>,
    /// A verified handshake of this BSS fixed its SSID (the one its PMK was derived from,
    /// else the one announced then) and suites: beacons and probe responses no longer
    /// change them.
    proven: bool,
    /// When a frame last told of the network (the tracker's clock).
    used: u64,
}

impl Network {
    /// The Key MIC field length this network's EAPOL-Key frames have, when its AKM says.
    fn mic_len(&self) -> Option<usize> {
        self.akm.and_then(|akm| AkmKeys::of(akm, self.owe_group).ok()).map(|k| k.mic_len())
    }
}

/// A checked view of an EAPOL-Key frame whose Key MIC field length the frame does not say:
/// the length `hint` gives (the network's AKM), else the first that fits.
fn eapol_view(eapol: &[u8], hint: Option<usize>) -> Option<EapolKey<&[u8]>> {
    hint.into_iter().chain([16, 24, 32]).find_map(|len| EapolKey::new_checked_with_mic_len(eapol, len).ok())
}

/// A receive key for `cipher`; `receiver` is the handshake side that receives under it,
/// which picks TKIP's Michael key (None reads it off each frame).
fn rx_key(cipher: CipherSuite, tk: &[u8], receiver: Option<Role>, rules: Rules) -> Result<RxKey> {
    let key = RxKey::new(SuiteId::from_cipher(cipher)?, tk, rules)?;
    Ok(match receiver {
        Some(role) => key.with_receiver_role(role),
        None => key,
    })
}

/// A pairwise key with one receive state per direction.
struct PairwiseKey {
    tk: Secret,
    from_authenticator: RxKey,
    from_supplicant: RxKey,
}

impl PairwiseKey {
    fn new(cipher: CipherSuite, tk: Secret, rules: Rules) -> Result<Self> {
        Ok(PairwiseKey {
            from_authenticator: rx_key(cipher, tk.as_bytes(), Some(Role::Supplicant), rules)?,
            from_supplicant: rx_key(cipher, tk.as_bytes(), Some(Role::Authenticator), rules)?,
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
    /// The ANonces before it (a message 1 replayed between a genuine message 1 and its
    /// message 2 must not make that message 2 fail).
    older_anonces: [Option<[u8; 32]>; 3],
    /// Message 2 frames waiting for an ANonce (message 1 was not captured), at most
    /// [`PENDING_M2`].
    pending_m2: Vec<Vec<u8>>,
    /// The EAPOL-Key Replay Counter of the last message 2 that installed a key: within the
    /// association, a message 2 with a counter not above it installs nothing new.
    verified_counter: Option<u64>,
    /// When a message of it was last seen (the tracker's clock).
    used: u64,
    ptk: Option<Ptk>,
    cipher: Option<CipherSuite>,
    /// The key hierarchy of the PTK: its MIC checks messages 3 and group messages 1.
    keys: Option<AkmKeys>,
}

/// A pairwise link and the keys in use on it: under Key ID 0, and with Extended Key ID
/// (IEEE 802.11-2020 12.7.6.4) a second one under Key ID 1, so frames under the old PTK
/// still open while the new one takes over.
#[derive(Default)]
struct Link {
    /// The authenticator of the handshake whose key is installed.
    authenticator: Option<MacAddr>,
    keys: [Option<PairwiseKey>; 2],
    /// The Key ID the last message 3 gave its PTK in a Key ID KDE (Extended Key ID in use).
    extended_key_id: Option<u8>,
    /// A Deauthentication or Disassociation dropped the keys and no handshake keyed the link
    /// since.
    ended: bool,
    /// The key the last handshake replaced (without Extended Key ID): the frames still sent
    /// under it (messages 3 and 4, data until the supplicant installs the new one) open
    /// under it, with its own replay counters, when they fail under the new one.
    previous: Option<PairwiseKey>,
    /// Fingerprints of the last [`REMEMBERED_TKS`] TKs installed on the link (0: none): a
    /// replayed handshake never installs one of them again with fresh replay counters.
    installed: [u64; REMEMBERED_TKS],
    /// When a frame of the link was last seen (the tracker's clock).
    used: u64,
}

impl Link {
    /// The index of the key a frame under `key_id` opens with: its own, else the other one
    /// (a link without Extended Key ID has one key, whatever Key ID its frames name).
    fn index(&self, key_id: u8) -> usize {
        let own = usize::from(key_id & 1);
        if self.keys[own].is_some() || self.keys[1 - own].is_none() {
            own
        } else {
            1 - own
        }
    }

    fn holds(&self, tk: &Secret) -> Option<usize> {
        self.keys.iter().position(|k| k.as_ref().is_some_and(|k| k.tk == *tk))
    }

    fn has_key(&self) -> bool {
        self.keys.iter().any(Option::is_some)
    }

    fn installed_before(&self, fingerprint: u64) -> bool {
        self.installed.contains(&fingerprint)
    }

    /// Remember a TK installed on the link (the oldest remembered goes).
    fn remember(&mut self, fingerprint: u64) {
        if !self.installed_before(fingerprint) {
            self.installed.rotate_right(1);
            self.installed[0] = fingerprint;
        }
    }

    /// Install `key` in `index`; without Extended Key ID the key it replaces stays as the
    /// previous one.
    fn install(&mut self, index: usize, key: PairwiseKey, fingerprint: u64) {
        self.remember(fingerprint);
        let replaced = self.keys[index].replace(key);
        if self.extended_key_id.is_none() {
            self.previous = replaced;
        }
    }
}

/// Group keys of one transmitter (the AP of a BSS; each station of an IBSS), by Key ID.
#[derive(Default)]
struct Group {
    keys: [Option<(Secret, RxKey)>; 4],
    /// When a frame under them was last seen (the tracker's clock).
    used: u64,
}

/// The links by their two addresses; a link keeps its place between evictions (which the
/// decryptor runs only between frames, when no [`KeySlot`] is held), so a [`KeySlot`] names
/// it by place and its keys are found without hashing again.
type Links = IndexMap<LinkId, Link, foldhash::fast::RandomState>;

/// Where a protected frame's key is looked up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum KeySlot {
    Wep,
    /// A pairwise key: its link's place in the tracker's links, whether the frame came from
    /// the authenticator, and its Key ID.
    Pairwise(usize, bool, u8),
    /// A pairwise frame of a link on which no handshake or key was seen: no key.
    UnknownLink,
    /// A group key of a transmitter, by Key ID.
    Group(MacAddr, u8),
}

/// Networks, handshakes and the keys they installed.
pub(super) struct KeyTracker {
    keys: Keys,
    rules: Rules,
    networks: HashMap<MacAddr, Network>,
    handshakes: HashMap<HandshakeId, Handshake>,
    links: Links,
    /// Group keys by the address that sends frames under them.
    groups: HashMap<MacAddr, Group>,
    /// IGTKs by the address that sends group-addressed management frames under them.
    integrity: Integrity,
    wep: Option<RxKey>,
    /// AKMs of the handshakes seen (each once), for the errors that name them.
    akms_seen: Vec<Akm>,
    /// Links using management frame protection (802.11w), whose stations ignore unprotected
    /// Deauthentication and Disassociation frames; when they were last told of.
    pmf_links: HashMap<LinkId, u64>,
    /// The most entries of each kind kept.
    max: usize,
    /// Ticks once per touch of an entry, so each entry's last use is distinct.
    clock: u64,
    /// Links created (a link evicted and seen again counts again).
    links_created: usize,
    /// Seeds the fingerprints of installed TKs.
    fingerprints: foldhash::quality::RandomState,
}

impl KeyTracker {
    pub(super) fn new(keys: Keys, rules: Rules) -> Result<Self> {
        keys.check()?;
        let wep = keys.wep.first().map(|key| given::wep_key(key, rules)).transpose()?;
        Ok(KeyTracker {
            keys,
            rules,
            networks: HashMap::default(),
            handshakes: HashMap::default(),
            links: Links::default(),
            groups: HashMap::default(),
            integrity: Integrity::default(),
            wep,
            akms_seen: Vec::new(),
            pmf_links: HashMap::default(),
            max: DEFAULT_MAX_STATE,
            clock: 0,
            links_created: 0,
            fingerprints: foldhash::quality::RandomState::default(),
        })
    }

    /// Whether a PMK of a known SSID was given (whose verified handshake proves it).
    pub(super) fn proves_ssids(&self) -> bool {
        self.keys.pmk_ssids.iter().any(Option::is_some)
    }

    /// Keep at most `max` entries of each kind (at least 4).
    pub(super) fn set_max(&mut self, max: usize) {
        self.max = max.max(4);
    }

    fn now(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn fingerprint(&self, tk: &Secret) -> u64 {
        self.fingerprints.hash_one(tk.as_bytes()).max(1)
    }

    /// The link `id`, created (and counted) if new, marked as used now.
    fn link_entry(&mut self, id: LinkId) -> &mut Link {
        let now = self.now();
        let created = &mut self.links_created;
        let link = self.links.entry(id).or_insert_with(|| {
            *created += 1;
            Link::default()
        });
        link.used = now;
        link
    }

    /// Whether more entries of some kind are kept than the limit allows (a comparison per
    /// kind: the decryptor asks between frames).
    pub(super) fn over_limit(&self) -> bool {
        let max = self.max;
        self.links.len() > max
            || self.handshakes.len() > max
            || self.networks.len() > max
            || self.groups.len() > max
            || self.pmf_links.len() > max
    }

    /// Evict the least recently used entries of each kind over the limit (those without
    /// keys first), counting them. Moves links: only between frames, when no [`KeySlot`]
    /// is held.
    pub(super) fn evict(&mut self, stats: &mut Stats) {
        let keep = after_eviction(self.max);
        if self.links.len() > self.max {
            // Links that had keys (whose TKs are remembered) go after those that never had.
            let rank = |l: &Link| (l.has_key() || l.installed[0] != 0, l.used);
            let ranks = self.links.values().map(rank).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.links.len();
                self.links.retain(|_, l| rank(l) >= cutoff);
                stats.evicted.links += (before - self.links.len()) as u64;
            }
        }
        if self.handshakes.len() > self.max {
            let ranks = self.handshakes.values().map(|h| (h.ptk.is_some(), h.used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.handshakes.len();
                self.handshakes.retain(|_, h| (h.ptk.is_some(), h.used) >= cutoff);
                stats.evicted.handshakes += (before - self.handshakes.len()) as u64;
            }
        }
        if self.networks.len() > self.max {
            let ranks = self.networks.values().map(|n| (n.proven, n.used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.networks.len();
                self.networks.retain(|_, n| (n.proven, n.used) >= cutoff);
                stats.evicted.networks += (before - self.networks.len()) as u64;
            }
        }
        if self.groups.len() > self.max {
            let ranks = self.groups.values().map(|g| (true, g.used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.groups.len();
                self.groups.retain(|_, g| (true, g.used) >= cutoff);
                stats.evicted.groups += (before - self.groups.len()) as u64;
            }
        }
        if self.pmf_links.len() > self.max {
            let ranks = self.pmf_links.values().map(|&used| (true, used)).collect();
            if let Some(cutoff) = eviction_cutoff(ranks, keep) {
                let before = self.pmf_links.len();
                self.pmf_links.retain(|_, &mut used| (true, used) >= cutoff);
                stats.evicted.pmf_links += (before - self.pmf_links.len()) as u64;
            }
        }
    }

    /// How many entries of each kind are kept now: (links, handshakes, networks, groups,
    /// 802.11w links), and the messages 2 waiting.
    pub(super) fn state_size(&self) -> (usize, usize, usize, usize, usize, usize) {
        let pending = self.handshakes.values().map(|h| h.pending_m2.len()).sum();
        (self.links.len(), self.handshakes.len(), self.networks.len(), self.groups.len(), self.pmf_links.len(), pending)
    }

    /// Stations (links) on which a handshake or key was seen.
    pub(super) fn links_seen(&self) -> usize {
        self.links_created
    }

    /// The AKMs of the 4-way handshakes seen, each once.
    pub(super) fn akms_seen(&self) -> &[Akm] {
        &self.akms_seen
    }

    /// Whether the network `bss` announced the SSID `wanted` (or announced none).
    pub(super) fn ssid_matches(&self, wanted: Option<&[u8]>, bss: MacAddr) -> bool {
        match (wanted, self.networks.get(&bss).and_then(|n| n.ssid.as_deref())) {
            (Some(wanted), Some(seen)) => wanted == seen,
            _ => true,
        }
    }

    /// Beacons and probe responses give SSID and RSN element; association requests the
    /// station's chosen suites (an RSN element before a WPA one).
    pub(super) fn learn_network(&mut self, mpdu: &[u8], rules: Rules) {
        let Ok(frame) = Frame::new_checked(mpdu, rules) else { return };
        let kind = frame.frame_control().subtype();
        if ![subtype::BEACON, subtype::PROBE_RESPONSE, subtype::ASSOCIATION_REQUEST].contains(&kind) {
            return;
        }
        let Some(bss) = frame.addr3() else { return };
        let Some(elements) = ManagementBody::parse(kind, frame.body()).ok().and_then(|b| b.elements()) else {
            return;
        };
        let now = self.now();
        let network = self.networks.entry(bss).or_default();
        network.used = now;
        let rsn = elements.rsn().or(elements.wpa()).and_then(|e| RsnElementRepr::parse(e).ok());
        let mfp_capable = rsn.as_ref().map(|(_, r)| r.mfp().is_ok_and(|p| p != MfpPolicy::Disabled));
        if kind == subtype::ASSOCIATION_REQUEST {
            // Both sides capable: the association uses 802.11w (12.6.3).
            if let Some(sta) = frame.addr2().filter(|_| mfp_capable == Some(true) && network.mfp_capable != Some(false))
            {
                self.pmf_links.insert(link_id(frame.addr1(), sta), now);
            }
        }
        // What a verified handshake proved, a beacon (perhaps forged: it carries no MIC)
        // does not change.
        if network.proven {
            return;
        }
        if let Some(ssid) = elements.ssid() {
            network.ssid = Some(ssid.to_vec());
        }
        if kind != subtype::ASSOCIATION_REQUEST && mfp_capable.is_some() {
            network.mfp_capable = mfp_capable;
        }
        if let Some((_, rsn)) = rsn {
            network.pairwise = rsn.pairwise_ciphers.first().copied();
            network.group = Some(rsn.group_cipher);
            network.akm = rsn.akms.first().copied();
            network.group_mgmt = rsn.group_mgmt_cipher;
        }
        let owe = elements
            .iter()
            .filter_map(|e| e.ok())
            .find(|e| e.id() == ft_elements::EXTENSION_ID)
            .and_then(|e| ft_elements::owe_group(e.data()));
        if owe.is_some() {
            network.owe_group = owe;
        }
    }

    /// Verify BIP on a group-addressed robust management frame (counted in `stats`).
    pub(super) fn check_bip(&mut self, mpdu: &[u8], stats: &mut Stats) {
        self.integrity.check(mpdu, self.rules, stats);
    }

    /// Follow one EAPOL-Key frame of a handshake. Bad messages are counted and ignored:
    /// they never install a key.
    pub(super) fn handshake(&mut self, header: &HeaderRepr, eapol: &[u8], stats: &mut Stats) {
        if self.try_handshake(header, eapol, stats).is_err() {
            stats.bad_handshake_messages += 1;
        }
    }

    fn try_handshake(&mut self, header: &HeaderRepr, eapol: &[u8], stats: &mut Stats) -> Result<()> {
        if self.keys.pmks.is_empty() {
            return Ok(());
        }
        let ta = header.addr2;
        let ra = header.addr1;
        let bss = header.bssid().unwrap_or(header.addr2);
        let hint = self.networks.get(&bss).and_then(Network::mic_len);
        // Other EAPOL frames (EAP, Start, Logoff) are not part of a key handshake.
        let Some(view) = eapol_view(eapol, hint) else {
            return Ok(());
        };
        let frame = view.frame().to_vec();
        self.link_entry(link_id(ta, ra));
        match view.message() {
            Message::FourWay1 => self.new_anonce((ta, ra), bss, view.nonce(), stats),
            Message::FourWay2 => {
                let id = (ra, ta);
                let handshake = self.handshake_entry(id);
                if handshake.anonce.is_none() {
                    if handshake.pending_m2.len() == PENDING_M2 {
                        handshake.pending_m2.remove(0);
                    }
                    handshake.pending_m2.push(frame);
                    return Ok(());
                }
                self.message2(id, bss, &frame, stats)
            }
            Message::FourWay3 => {
                let id = (ta, ra);
                if self.handshakes.get(&id).and_then(|h| h.anonce) != Some(view.nonce()) {
                    self.new_anonce(id, bss, view.nonce(), stats)?;
                }
                self.group_key_message(id, bss, &frame, stats)
            }
            Message::Group1 => self.group_key_message((ta, ra), bss, &frame, stats),
            Message::FourWay4 | Message::Group2 | Message::Request => Ok(()),
        }
    }

    /// Message 1 (or a message 3 whose ANonce is new): take the ANonce and try the
    /// messages 2 that were waiting for it.
    fn new_anonce(&mut self, id: HandshakeId, bss: MacAddr, anonce: [u8; 32], stats: &mut Stats) -> Result<()> {
        let handshake = self.handshake_entry(id);
        if handshake.anonce.is_some_and(|a| a != anonce) && !handshake.older_anonces.contains(&handshake.anonce) {
            handshake.older_anonces.rotate_right(1);
            handshake.older_anonces[0] = handshake.anonce;
        }
        handshake.anonce = Some(anonce);
        for m2 in std::mem::take(&mut handshake.pending_m2) {
            self.message2(id, bss, &m2, stats)?;
        }
        Ok(())
    }

    /// The handshake `id`, created if new, marked as used now.
    fn handshake_entry(&mut self, id: HandshakeId) -> &mut Handshake {
        let now = self.now();
        let handshake = self.handshakes.entry(id).or_default();
        handshake.used = now;
        handshake
    }

    /// Derive the PTK for a message 2 under each PMK and install the one whose MIC
    /// verifies. Of a pair's two
    /// IBSS handshakes, the one whose authenticator has the larger address keys the link
    /// (IEEE 802.11-2020 12.6.10.1); a smaller one keys it only until then.
    fn message2(&mut self, id: HandshakeId, bss: MacAddr, frame: &[u8], stats: &mut Stats) -> Result<()> {
        let network = self.networks.get(&bss).cloned().unwrap_or_default();
        let (aa, spa) = id;
        let handshake = self
            .handshakes
            .get_mut(&id)
            .ok_or(HandshakeError::Unexpected { expected: Some(Message::FourWay1), got: Message::FourWay2 })?;
        let view = eapol_view(frame, network.mic_len()).ok_or(Error::Malformed("EAPOL-Key message 2"))?;
        let version = view.key_info().version()?;
        let (cipher, akm) = suites_of(view.key_data(), version, &network);
        // Bounded: an AKM suite selector is any 32-bit number.
        if !self.akms_seen.contains(&akm) && self.akms_seen.len() < 16 {
            self.akms_seen.push(akm);
        }
        let keys = AkmKeys::of(akm, network.owe_group)?;
        let tk_len = cipher.tk_len().ok_or(Error::Unsupported("pairwise cipher with no known TK length"))?;
        let anonce = handshake
            .anonce
            .ok_or(HandshakeError::Unexpected { expected: Some(Message::FourWay1), got: Message::FourWay2 })?;
        let snonce = view.nonce();
        let ft_ids = if akm.is_ft() { Some(ft_ids(view.key_data(), &network, akm, spa)?) } else { None };
        let integrity = keys.integrity_of(version);
        let mut verified = None;
        let anonces = [Some(anonce)].into_iter().chain(handshake.older_anonces).flatten();
        'anonces: for anonce in anonces {
            for (i, pmk) in self.keys.pmks.iter().enumerate() {
                let ptk = match &ft_ids {
                    Some((ids, r0kh_id)) => {
                        let ids = ft::Ids { r0kh_id, ..ids.clone() };
                        ft::derive_ptk(&keys, pmk.as_bytes(), &ids, tk_len, aa, &anonce, &snonce)?.0
                    }
                    None => derive_ptk_with(pmk, &keys, tk_len, aa, spa, &anonce, &snonce)?,
                };
                if eapol::verify_mic_with(integrity, ptk.kck.as_bytes(), frame).is_ok() {
                    verified = Some((i, ptk));
                    break 'anonces;
                }
            }
        }
        let Some((pmk_index, ptk)) = verified else {
            stats.mic_mismatches += 1;
            return Err(Error::MicFailure);
        };
        let tk = ptk.tk.clone();
        let fingerprint = self.fingerprints.hash_one(tk.as_bytes()).max(1);
        let counter = view.replay_counter();
        let link = self.links.get(&link_id(aa, spa));
        let current = link.is_some_and(|l| l.holds(&tk).is_some());
        // A key is replaced only by a fresh handshake: a TK the link never had, under a
        // Replay Counter above the last verified one (a verbatim replay of an older
        // handshake would put its key back with fresh replay counters, and the frames sent
        // under it would open a second time).
        let stale = handshake.verified_counter.is_some_and(|last| counter <= last)
            || link.is_some_and(|l| l.installed_before(fingerprint));
        if stale && !current {
            stats.replayed_handshakes += 1;
            return Err(HandshakeError::Unexpected { expected: None, got: Message::FourWay2 }.into());
        }
        stats.handshakes += 1;
        handshake.verified_counter = Some(handshake.verified_counter.map_or(counter, |last| last.max(counter)));
        handshake.cipher = Some(cipher);
        handshake.ptk = Some(ptk);
        handshake.keys = Some(keys);
        // The handshake proves the network: the SSID its PMK was derived from (else the one
        // announced until now) and its suites stay whatever beacons say later.
        let ssid = self.keys.ssid_of_pmk(pmk_index).map(<[u8]>::to_vec);
        let now = self.now();
        let network = self.networks.entry(bss).or_default();
        network.used = now;
        network.proven = true;
        if ssid.is_some() {
            network.ssid = ssid;
        }
        let rules = self.rules;
        let link = self.link_entry(link_id(aa, spa));
        let preferred = link.authenticator.is_none_or(|current| aa >= current);
        if preferred && !current {
            // With Extended Key ID the new PTK takes the other Key ID (message 3 says which);
            // the old one stays for the frames still sent under it.
            let index = link.extended_key_id.map_or(0, |last| usize::from(1 - (last & 1)));
            link.install(index, PairwiseKey::new(cipher, tk, rules)?, fingerprint);
        }
        if preferred {
            link.authenticator = Some(aa);
        }
        link.ended = false;
        Ok(())
    }

    /// Message 3 or group message 1 from authenticator `id.0`: verify its MIC under the KCK
    /// of a handshake between the two (its own; a group message 1 in an IBSS may come
    /// under the pair's other one), decrypt the Key Data under that KEK and install the
    /// GTK it carries as the sender's.
    fn group_key_message(&mut self, id: HandshakeId, bss: MacAddr, frame: &[u8], stats: &mut Stats) -> Result<()> {
        let network = self.networks.get(&bss).cloned().unwrap_or_default();
        let mut candidates = [id, (id.1, id.0)]
            .into_iter()
            .filter_map(|h| self.handshakes.get(&h))
            .filter(|h| h.ptk.is_some())
            .peekable();
        if candidates.peek().is_none() {
            return Ok(());
        }
        let verifies = |h: &Handshake| {
            let (Some(ptk), Some(keys)) = (&h.ptk, &h.keys) else { return false };
            let view = EapolKey::new_checked_with_mic_len(frame, keys.mic_len());
            let Some(version) = view.ok().and_then(|v| v.key_info().version().ok()) else { return false };
            eapol::verify_mic_with(keys.integrity_of(version), ptk.kck.as_bytes(), frame).is_ok()
        };
        let handshake = candidates.find(|h| verifies(h)).ok_or(Error::MicFailure)?;
        let (Some(ptk), Some(keys)) = (&handshake.ptk, &handshake.keys) else {
            return Ok(());
        };
        let view = EapolKey::new_checked_with_mic_len(frame, keys.mic_len())?;
        let info = view.key_info();
        let version = info.version()?;
        if !info.has(KeyInfo::ENCRYPTED_KEY_DATA) && view.descriptor_type()? == DescriptorType::Rsn {
            return Ok(());
        }
        let plain = eapol::decrypt_key_data(version, ptk.kek.as_bytes(), &view.key_iv(), view.key_data())?;
        if info.has(KeyInfo::PAIRWISE) {
            place_by_key_id(&mut self.links, id, &ptk.tk, &plain);
        }
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
                .ok_or(HandshakeError::NoGtk)?;
            let kde = GtkKde::parse(kde)?;
            (kde.key_id, Secret::from_slice(kde.gtk)?)
        };
        if gtk.is_all_zero() {
            return Err(HandshakeError::AllZeroKey.into());
        }
        if view.descriptor_type()? == DescriptorType::Rsn {
            self.integrity.learn(id.0, &plain, network.group_mgmt, stats)?;
        }
        let now = self.now();
        let group = self.groups.entry(id.0).or_default();
        group.used = now;
        let slot = &mut group.keys[usize::from(key_id & 3)];
        if slot.as_ref().is_some_and(|(k, _)| *k == gtk) {
            return Ok(());
        }
        let gtk_len = group_cipher.tk_len().unwrap_or(gtk.len());
        let rx = rx_key(group_cipher, &gtk.as_bytes()[..gtk_len.min(gtk.len())], None, self.rules)?;
        *slot = Some((gtk, rx));
        stats.group_keys += 1;
        Ok(())
    }

    /// Follow a TDLS frame that two stations exchange through the AP. A Setup Response or
    /// Confirm gives the TPK (from its FTE's nonces and its Link Identifier); when its FTE
    /// MIC verifies under the TPK-KCK, the TPK-TK keys the direct link between the peers,
    /// the initiator taking the authenticator's place so each direction has its own replay
    /// counters. A MIC that does not verify installs nothing and is counted.
    pub(super) fn tdls(&mut self, payload: &[u8], stats: &mut Stats) {
        // 85: success, the peer in power save mode (9.4.1.9), which tshark accepts too.
        const SUCCESS_POWER_SAVE: u16 = 85;
        let Ok(frame) = TdlsFrame::new_checked(payload) else { return };
        let Ok(setup) = SetupRepr::parse(&frame) else { return };
        if setup.action == SetupAction::Request || ![STATUS_SUCCESS, SUCCESS_POWER_SAVE].contains(&setup.status) {
            return;
        }
        match self.tpk_handshake(&setup, stats) {
            Ok(()) => {}
            Err(Error::MicFailure) => stats.tdls_mic_failures += 1,
            Err(_) => stats.bad_handshake_messages += 1,
        }
    }

    fn tpk_handshake(&mut self, setup: &SetupRepr<'_>, stats: &mut Stats) -> Result<()> {
        let message = TpkMessage::find(setup.elements)?;
        let tpk = message.tpk()?;
        message.verify(tpk.kck.as_bytes(), setup.action)?;
        let fingerprint = self.fingerprint(&tpk.tk);
        let rules = self.rules;
        let link = self.link_entry(link_id(message.link.initiator, message.link.responder));
        // The same setup frame is seen twice (to the AP and from it), a Confirm after its
        // Response: the key installed once keeps its replay counters. A replayed older setup
        // installs its TPK no second time.
        if link.holds(&tpk.tk).is_none() {
            if link.installed_before(fingerprint) {
                stats.replayed_handshakes += 1;
                return Ok(());
            }
            link.extended_key_id = None;
            link.keys[1] = None;
            link.install(0, PairwiseKey::new(message.pairwise, tpk.tk, rules)?, fingerprint);
            stats.tdls_keys += 1;
        }
        link.authenticator = Some(message.link.initiator);
        link.ended = false;
        Ok(())
    }

    /// A protected management frame verified on the link between `a` and `b`: it uses 802.11w.
    pub(super) fn pmf_seen(&mut self, a: MacAddr, b: MacAddr) {
        let now = self.now();
        self.pmf_links.insert(link_id(a, b), now);
    }

    /// A Deauthentication or Disassociation between `a` and `b` ends the link's PTKSA
    /// (11.3.5): its keys are dropped until a new handshake keys it again — when the frame
    /// was protected and opened under the link's key, or the link does not use 802.11w
    /// (whose stations ignore unprotected ones, so a forged one changes nothing).
    pub(super) fn link_ended(&mut self, a: MacAddr, b: MacAddr, verified: bool, stats: &mut Stats) {
        let id = link_id(a, b);
        if !verified && self.pmf_links.contains_key(&id) {
            return;
        }
        let Some(link) = self.links.get_mut(&id).filter(|l| l.has_key()) else { return };
        // The TKs it had stay remembered: a replay of their handshakes installs none again.
        *link = Link { ended: true, installed: link.installed, used: link.used, ..Link::default() };
        self.handshakes.remove(&(a, b));
        self.handshakes.remove(&(b, a));
        stats.links_ended += 1;
        // 802.11w is negotiated again at the next association.
        self.pmf_links.remove(&id);
    }

    /// Whether the pairwise key of `slot` was dropped by a Deauthentication or Disassociation.
    pub(super) fn ended(&self, slot: KeySlot) -> bool {
        matches!(slot, KeySlot::Pairwise(at, ..) if self.links.get_index(at).is_some_and(|(_, l)| l.ended))
    }

    /// Where the key of the protected data frame `mpdu` is (installing a given TK or GTK
    /// on first sight).
    pub(super) fn slot_of(&mut self, data: &DataFrame, mpdu: &[u8]) -> Result<KeySlot> {
        let header = &data.header;
        Ok(match data.security {
            Security::Plaintext => return Err(Error::NotProtected),
            Security::Wep { .. } => KeySlot::Wep,
            Security::ExtIv { key_id } if header.addr1.is_group() => {
                self.install_given_gtk(header.addr2, key_id, mpdu);
                KeySlot::Group(header.addr2, key_id)
            }
            Security::ExtIv { key_id } => {
                let id = link_id(header.addr1, header.addr2);
                self.install_given_tk(id, header.addr2, mpdu);
                self.clock += 1;
                let Some((at, _, link)) = self.links.get_full_mut(&id) else { return Ok(KeySlot::UnknownLink) };
                link.used = self.clock;
                KeySlot::Pairwise(at, link.authenticator == Some(header.addr2), key_id)
            }
        })
    }

    /// The key a fresh handshake replaced on the link of `slot` (without Extended Key ID):
    /// for a frame that fails under the key that replaced it.
    pub(super) fn previous_key_mut(&mut self, slot: KeySlot) -> Option<&mut RxKey> {
        let KeySlot::Pairwise(at, from_authenticator, _) = slot else { return None };
        let key = self.links.get_index_mut(at)?.1.previous.as_mut()?;
        Some(if from_authenticator { &mut key.from_authenticator } else { &mut key.from_supplicant })
    }

    pub(super) fn has_previous_key(&self, slot: KeySlot) -> bool {
        matches!(slot, KeySlot::Pairwise(at, ..) if self.links.get_index(at).is_some_and(|(_, l)| l.previous.is_some()))
    }

    pub(super) fn key(&self, slot: KeySlot) -> Option<&RxKey> {
        match slot {
            KeySlot::Wep => self.wep.as_ref(),
            KeySlot::UnknownLink => None,
            KeySlot::Pairwise(at, from_authenticator, key_id) => {
                let (_, link) = self.links.get_index(at)?;
                let key = link.keys[link.index(key_id)].as_ref()?;
                Some(if from_authenticator { &key.from_authenticator } else { &key.from_supplicant })
            }
            KeySlot::Group(bss, key_id) => {
                self.groups.get(&bss)?.keys[usize::from(key_id & 3)].as_ref().map(|(_, rx)| rx)
            }
        }
    }

    pub(super) fn key_mut(&mut self, slot: KeySlot) -> Option<&mut RxKey> {
        match slot {
            KeySlot::Wep => self.wep.as_mut(),
            KeySlot::UnknownLink => None,
            KeySlot::Pairwise(at, from_authenticator, key_id) => {
                let (_, link) = self.links.get_index_mut(at)?;
                let key = link.keys[link.index(key_id)].as_mut()?;
                Some(if from_authenticator { &mut key.from_authenticator } else { &mut key.from_supplicant })
            }
            KeySlot::Group(bss, key_id) => {
                self.groups.get_mut(&bss)?.keys[usize::from(key_id & 3)].as_mut().map(|(_, rx)| rx)
            }
        }
    }
}

/// The pairwise cipher and AKM a message 2 names in its RSN/WPA element, else what the
/// network announced, else what the key descriptor version implies.
fn suites_of(key_data: &[u8], version: KeyDescriptorVersion, network: &Network) -> (CipherSuite, Akm) {
    let element = key_data_items(key_data).filter_map(|i| i.ok()).find_map(|i| match i {
        KeyDataItem::Element { element, .. } => RsnElementRepr::parse(element).ok(),
        KeyDataItem::Kde { .. } => None,
    });
    let by_version = match version {
        // The AKM-defined version is most often SAE's.
        KeyDescriptorVersion::AkmDefined => (CipherSuite::Ccmp128, Akm::Sae),
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

/// What the FT key hierarchy of a message 2 is named by: the SSID the network announced,
/// the MDID of the Mobility Domain element and the key holders of the Fast BSS Transition
/// element the message carries (from the association response, 12.7.6.3); the R0KH-ID
/// is returned apart, owned.
fn ft_ids<'a>(key_data: &[u8], network: &'a Network, akm: Akm, spa: MacAddr) -> Result<(ft::Ids<'a>, Vec<u8>)> {
    let ssid =
        network.ssid.as_deref().ok_or(Error::Unsupported("FT handshake of a network whose SSID was not seen"))?;
    let mut mdid = None;
    let mut fte = None;
    let fte_mic_len = if akm == Akm::FtIeee8021xSha384 { 24 } else { 16 };
    for item in key_data_items(key_data).filter_map(|i| i.ok()) {
        if let KeyDataItem::Element { id, element } = item {
            match id {
                ft_elements::MOBILITY_DOMAIN_ID => mdid = Some(ft_elements::mdid(&element[2..])?),
                ft_elements::FAST_BSS_TRANSITION_ID => fte = Some(FtElement::parse(&element[2..], fte_mic_len)?),
                _ => {}
            }
        }
    }
    let missing = Error::Malformed("FT message 2 without its Mobility Domain and FT elements");
    let (Some(mdid), Some(fte)) = (mdid, fte) else { return Err(missing) };
    let (Some(r0kh_id), Some(r1kh_id)) = (fte.r0kh_id, fte.r1kh_id) else { return Err(missing) };
    Ok((ft::Ids { ssid, mdid, r0kh_id: &[], r1kh_id, spa }, r0kh_id.to_vec()))
}

/// Message 3 under Extended Key ID: move its PTK to the Key ID its Key ID KDE names.
fn place_by_key_id(links: &mut Links, (aa, spa): HandshakeId, tk: &Secret, key_data: &[u8]) {
    let key_id = key_data_items(key_data).filter_map(|i| i.ok()).find_map(|i| match i {
        KeyDataItem::Kde { oui: IEEE_OUI, data_type: kde_type::KEY_ID, data: [id, ..] } => Some(id & 1),
        _ => None,
    });
    let (Some(key_id), Some(link)) = (key_id, links.get_mut(&link_id(aa, spa))) else { return };
    if let Some(at) = link.holds(tk).filter(|&at| at != usize::from(key_id)) {
        link.keys[usize::from(key_id)] = link.keys[at].take();
    }
    link.extended_key_id = Some(key_id);
}
