//! Keys given outright (temporal keys, group keys, WEP keys), several of each kind, and how
//! the one that fits a link or transmitter is found: each candidate is tried on a copy of
//! the frame, and the first that opens it is installed. With one key of a kind nothing is
//! tried: that key is installed as it is, as before several could be given.

use crate::error::{Error, Result};
use crate::registry::SuiteId;
use crate::rsn::{pmk_from_passphrase, CipherSuite, Pmk, Secret};
use crate::rx::RxKey;
use crate::wire::{MacAddr, Rules};

use super::{rx_key, KeySlot, KeyTracker, Link, LinkId, PairwiseKey};

/// What the decryptor is given to find keys with; any mix, several of each kind.
#[derive(Default)]
pub struct Keys {
    /// PMKs (from passphrase and SSID, given, or an 802.1X MSK's first 32 octets): each
    /// station's pairwise key comes from its 4-way handshake under the PMK whose message 2
    /// MIC verifies; group keys from messages 3 and group message 1.
    pub pmks: Vec<Pmk>,
    /// The SSID each PMK was derived from, at its place in `pmks` (missing or `None`: a PMK
    /// given as it is). A handshake verified under such a PMK proves its network's SSID: no
    /// beacon changes it afterwards, and it is followed even where a beacon announced
    /// another. [`Keys::push_passphrase`] keeps the two in step.
    pub pmk_ssids: Vec<Option<Vec<u8>>>,
    /// Temporal keys for pairwise links. The
    /// cipher is the network's (from its beacon), else CCMP-128 for a 16-octet key and
    /// TKIP for a 32-octet one.
    pub tks: Vec<Secret>,
    /// Group temporal keys, tried on each transmitter's group frames.
    pub gtks: Vec<Secret>,
    /// Static WEP keys (5 or 13 octets).
    pub wep: Vec<Secret>,
}

impl Keys {
    pub fn pmk(pmk: Pmk) -> Self {
        Keys { pmks: vec![pmk], ..Keys::default() }
    }

    /// The PMK of `passphrase` on the network `ssid` (PBKDF2), remembered with its SSID.
    pub fn push_passphrase(&mut self, passphrase: &str, ssid: &[u8]) -> Result<()> {
        let pmk = pmk_from_passphrase(passphrase, ssid)?;
        self.pmk_ssids.resize(self.pmks.len(), None);
        self.pmk_ssids.push(Some(ssid.to_vec()));
        self.pmks.push(pmk);
        Ok(())
    }

    /// The PMK candidates of an 802.1X MSK: its first 256 bits (the PMK), its first 384
    /// (Suite B 192-bit's PMK) and its second 256 bits (FT's XXKey) (IEEE 802.11-2020
    /// 12.7.1.3, 12.7.1.7.3); a handshake takes the one its message 2 verifies under.
    pub fn push_msk(&mut self, msk: &[u8]) -> Result<()> {
        let pmk = msk.get(..32).ok_or(Error::KeyLength { expected: 32, got: msk.len() })?;
        self.pmks.push(Pmk::from_bytes(pmk)?);
        for candidate in [msk.get(..48), msk.get(32..64)].into_iter().flatten() {
            self.pmks.push(Pmk::from_bytes(candidate)?);
        }
        Ok(())
    }

    /// The SSID the PMK at `index` was derived from, if it was.
    pub(super) fn ssid_of_pmk(&self, index: usize) -> Option<&[u8]> {
        self.pmk_ssids.get(index)?.as_deref()
    }

    pub fn tk(tk: Secret) -> Self {
        Keys { tks: vec![tk], ..Keys::default() }
    }

    pub fn wep(key: Secret) -> Self {
        Keys { wep: vec![key], ..Keys::default() }
    }

    /// Refuse a temporal key of a length no suite has: it would decrypt nothing, silently.
    pub(super) fn check(&self) -> Result<()> {
        for tk in self.tks.iter().chain(&self.gtks) {
            if ![16, 32].contains(&tk.len()) {
                return Err(Error::KeyLength { expected: if tk.len() < 16 { 16 } else { 32 }, got: tk.len() });
            }
        }
        for key in &self.wep {
            SuiteId::wep(key.len())?;
        }
        Ok(())
    }

    /// Candidates for a pairwise link.
    pub(super) fn pairwise(&self) -> impl Iterator<Item = &Secret> {
        self.tks.iter()
    }

    /// Candidates for a transmitter's group frames.
    pub(super) fn group(&self) -> impl Iterator<Item = &Secret> {
        self.gtks.iter()
    }
}

/// The cipher of a given temporal key: the network's, else the one its length implies.
fn cipher_of(key: &Secret, announced: Option<CipherSuite>) -> CipherSuite {
    let fits = |c: CipherSuite| c.tk_len().is_none_or(|len| len == key.len());
    announced.filter(|&c| fits(c)).unwrap_or(if key.len() == 16 { CipherSuite::Ccmp128 } else { CipherSuite::Tkip })
}

/// The first of `candidates` (built into receive keys by `build`) that opens a copy of
/// `mpdu`, freshly built so no trial touches its replay counters; `None` when none does.
fn first_that_opens<'k>(
    candidates: impl Iterator<Item = &'k Secret>,
    mpdu: &[u8],
    mut build: impl FnMut(&Secret) -> Result<RxKey>,
) -> Option<&'k Secret> {
    let mut trial = Vec::with_capacity(mpdu.len());
    candidates.into_iter().find(|secret| {
        trial.clear();
        trial.extend_from_slice(mpdu);
        build(secret).and_then(|mut key| key.open(&mut trial)).is_ok()
    })
}

/// A WEP key for every frame, as `Keys::wep` gave them.
pub(super) fn wep_key(key: &Secret, rules: Rules) -> Result<RxKey> {
    RxKey::new(SuiteId::wep(key.len())?, key.as_bytes(), rules)
}

impl KeyTracker {
    /// With given TKs, every link gets one the first time one of its frames is seen: the
    /// first that opens that frame (else the first); the AP is the side that announced a
    /// network, else the receiver of the first frame.
    pub(super) fn install_given_tk(&mut self, id: LinkId, ta: MacAddr, mpdu: &[u8]) {
        if self.keys.tks.is_empty() || self.links.get(&id).is_some_and(Link::has_key) {
            return;
        }
        let ra = if id.0 == ta { id.1 } else { id.0 };
        let ap = if self.networks.contains_key(&ta) { ta } else { ra };
        let announced = self.networks.get(&ap).and_then(|n| n.pairwise);
        let rules = self.rules;
        let build = |tk: &Secret| rx_key(cipher_of(tk, announced), tk.as_bytes(), None, rules);
        let tk = match self.keys.tks.as_slice() {
            [only] => only,
            several => first_that_opens(several.iter(), mpdu, build).unwrap_or(&several[0]),
        };
        // Which side is the authenticator is a guess here, so TKIP reads each frame's
        // direction instead.
        let key = build(tk).and_then(|from_authenticator| Ok((from_authenticator, build(tk)?))).map(
            |(from_authenticator, from_supplicant)| PairwiseKey { tk: tk.clone(), from_authenticator, from_supplicant },
        );
        if let Ok(key) = key {
            let link = self.link_entry(id);
            link.authenticator = Some(ap);
            link.keys[0] = Some(key);
        }
    }

    /// With given GTKs, a transmitter's Key ID gets one the first time it sends a
    /// group frame under it: the first that opens that frame, else the first.
    pub(super) fn install_given_gtk(&mut self, ta: MacAddr, key_id: u8, mpdu: &[u8]) {
        let slot = usize::from(key_id & 3);
        self.clock += 1;
        let now = self.clock;
        let group = self.groups.get_mut(&ta);
        let installed = group.is_some_and(|g| {
            g.used = now;
            g.keys[slot].is_some()
        });
        if installed || self.keys.gtks.is_empty() {
            return;
        }
        let announced = self.networks.get(&ta).and_then(|n| n.group);
        let rules = self.rules;
        let build = |gtk: &Secret| rx_key(cipher_of(gtk, announced), gtk.as_bytes(), None, rules);
        let first = self.keys.group().next();
        let several = self.keys.gtks.len() > 1;
        let gtk = if several { first_that_opens(self.keys.group(), mpdu, build).or(first) } else { first };
        if let Some((gtk, Ok(rx))) = gtk.map(|g| (g.clone(), build(g))) {
            let group = self.groups.entry(ta).or_default();
            group.used = now;
            group.keys[slot] = Some((gtk, rx));
        }
    }

    /// After an integrity failure under the key in `slot`: whether another given key of its
    /// kind opens `mpdu`; if one does, it replaces the installed key.
    pub(in crate::decrypt) fn switch_given_key(&mut self, slot: KeySlot, mpdu: &[u8]) -> bool {
        let rules = self.rules;
        match slot {
            KeySlot::Wep => {
                let build = |key: &Secret| wep_key(key, rules);
                let Some(key) = first_that_opens(self.keys.wep.iter(), mpdu, build) else { return false };
                self.wep = build(key).ok();
            }
            KeySlot::UnknownLink => return false,
            KeySlot::Pairwise(at, _, key_id) => {
                let Some((&id, link)) = self.links.get_index_mut(at) else { return false };
                let index = link.index(key_id);
                let current = link.keys[index].as_ref().map(|k| &k.tk);
                let ap = link.authenticator.unwrap_or(id.0);
                let announced = self.networks.get(&ap).and_then(|n| n.pairwise);
                let build = |tk: &Secret| rx_key(cipher_of(tk, announced), tk.as_bytes(), None, rules);
                let others = self.keys.pairwise().filter(|tk| Some(*tk) != current);
                let Some(tk) = first_that_opens(others, mpdu, build) else { return false };
                let (Ok(from_authenticator), Ok(from_supplicant)) = (build(tk), build(tk)) else { return false };
                link.keys[index] = Some(PairwiseKey { tk: tk.clone(), from_authenticator, from_supplicant });
            }
            KeySlot::Group(ta, key_id) => {
                let group = self.groups.entry(ta).or_default();
                let entry = &mut group.keys[usize::from(key_id & 3)];
                let current = entry.as_ref().map(|(k, _)| k);
                let announced = self.networks.get(&ta).and_then(|n| n.group);
                let build = |gtk: &Secret| rx_key(cipher_of(gtk, announced), gtk.as_bytes(), None, rules);
                let others = self.keys.group().filter(|gtk| Some(*gtk) != current);
                let Some(gtk) = first_that_opens(others, mpdu, build) else { return false };
                let Ok(rx) = build(gtk) else { return false };
                *entry = Some((gtk.clone(), rx));
            }
        }
        true
    }

    /// Whether a key of the kind `slot` takes was given besides the one installed there.
    pub(in crate::decrypt) fn has_other_given_key(&self, slot: KeySlot) -> bool {
        match slot {
            KeySlot::Wep => self.keys.wep.len() > 1,
            KeySlot::UnknownLink => self.keys.pairwise().next().is_some(),
            KeySlot::Pairwise(at, _, key_id) => {
                let current =
                    self.links.get_index(at).and_then(|(_, l)| l.keys[l.index(key_id)].as_ref()).map(|k| &k.tk);
                self.keys.pairwise().any(|tk| Some(tk) != current)
            }
            KeySlot::Group(ta, key_id) => {
                let current = self.groups.get(&ta).and_then(|g| g.keys[usize::from(key_id & 3)].as_ref());
                self.keys.group().any(|gtk| Some(gtk) != current.map(|(k, _)| k))
            }
        }
    }
}
