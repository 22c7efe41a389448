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

use crate::error::{Error, Result};
use crate::registry::SuiteId;
use crate::rsn::element::owe as owe_elements;
use crate::rsn::sae::SaeMessage;
use crate::rsn::{Akm, AkmKeys, CipherSuite, MfpPolicy, Ptk, RsnElementRepr, Secret};
use crate::rx::{DataFrame, RxKey, Security};
use crate::suite::tkip::Role;
use crate::wire::mgmt::{subtype, ManagementBody};
use crate::wire::{Frame, MacAddr, Rules};

mod eviction;
mod given;
mod handshake;

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
    /// The Diffie-Hellman group of an OWE association request or an SAE commit (it picks the
    /// hash of OWE's and SAE-EXT-KEY's key hierarchy).
    dh_group: Option<u16>,
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
        self.akm.and_then(|akm| AkmKeys::of(akm, self.dh_group).ok()).map(|k| k.mic_len())
    }
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
    pub(in crate::decrypt) fn new(keys: Keys, rules: Rules) -> Result<Self> {
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
    pub(in crate::decrypt) fn proves_ssids(&self) -> bool {
        self.keys.pmk_ssids.iter().any(Option::is_some)
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

    /// Stations (links) on which a handshake or key was seen.
    pub(in crate::decrypt) fn links_seen(&self) -> usize {
        self.links_created
    }

    /// The AKMs of the 4-way handshakes seen, each once.
    pub(in crate::decrypt) fn akms_seen(&self) -> &[Akm] {
        &self.akms_seen
    }

    /// Whether the network `bss` announced the SSID `wanted` (or announced none).
    pub(in crate::decrypt) fn ssid_matches(&self, wanted: Option<&[u8]>, bss: MacAddr) -> bool {
        match (wanted, self.networks.get(&bss).and_then(|n| n.ssid.as_deref())) {
            (Some(wanted), Some(seen)) => wanted == seen,
            _ => true,
        }
    }

    /// Beacons and probe responses give SSID and RSN element; association requests the
    /// station's chosen suites (an RSN element before a WPA one); SAE commits their group.
    pub(in crate::decrypt) fn learn_network(&mut self, mpdu: &[u8], rules: Rules) {
        let Ok(frame) = Frame::new_checked(mpdu, rules) else { return };
        let kind = frame.frame_control().subtype();
        if kind == subtype::AUTHENTICATION {
            if let (Some(bss), Ok(SaeMessage::Commit(commit))) = (frame.addr3(), SaeMessage::parse(frame.body())) {
                let network = self.networks.entry(bss).or_default();
                if !network.proven {
                    network.dh_group = Some(commit.group.id());
                }
            }
            return;
        }
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
            .find(|e| e.id() == owe_elements::EXTENSION_ID)
            .and_then(|e| owe_elements::owe_group(e.data()));
        if owe.is_some() {
            network.dh_group = owe;
        }
    }

    /// Verify BIP on a group-addressed robust management frame (counted in `stats`).
    pub(in crate::decrypt) fn check_bip(&mut self, mpdu: &[u8], stats: &mut Stats) {
        self.integrity.check(mpdu, self.rules, stats);
    }

    /// A protected management frame verified on the link between `a` and `b`: it uses 802.11w.
    pub(in crate::decrypt) fn pmf_seen(&mut self, a: MacAddr, b: MacAddr) {
        let now = self.now();
        self.pmf_links.insert(link_id(a, b), now);
    }

    /// A Deauthentication or Disassociation between `a` and `b` ends the link's PTKSA
    /// (11.3.5): its keys are dropped until a new handshake keys it again — when the frame
    /// was protected and opened under the link's key, or the link does not use 802.11w
    /// (whose stations ignore unprotected ones, so a forged one changes nothing).
    pub(in crate::decrypt) fn link_ended(&mut self, a: MacAddr, b: MacAddr, verified: bool, stats: &mut Stats) {
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
    pub(in crate::decrypt) fn ended(&self, slot: KeySlot) -> bool {
        matches!(slot, KeySlot::Pairwise(at, ..) if self.links.get_index(at).is_some_and(|(_, l)| l.ended))
    }

    /// Where the key of the protected data frame `mpdu` is (installing a given TK or GTK
    /// on first sight).
    pub(in crate::decrypt) fn slot_of(&mut self, data: &DataFrame, mpdu: &[u8]) -> Result<KeySlot> {
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
    pub(in crate::decrypt) fn previous_key_mut(&mut self, slot: KeySlot) -> Option<&mut RxKey> {
        let KeySlot::Pairwise(at, from_authenticator, _) = slot else { return None };
        let key = self.links.get_index_mut(at)?.1.previous.as_mut()?;
        Some(if from_authenticator { &mut key.from_authenticator } else { &mut key.from_supplicant })
    }

    pub(in crate::decrypt) fn has_previous_key(&self, slot: KeySlot) -> bool {
        matches!(slot, KeySlot::Pairwise(at, ..) if self.links.get_index(at).is_some_and(|(_, l)| l.previous.is_some()))
    }

    pub(in crate::decrypt) fn key(&self, slot: KeySlot) -> Option<&RxKey> {
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

    pub(in crate::decrypt) fn key_mut(&mut self, slot: KeySlot) -> Option<&mut RxKey> {
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
