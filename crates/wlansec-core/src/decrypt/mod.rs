//! Capture decryption, airdecap-ng style: follow every station's 4-way and group key
//! handshakes in a capture, derive its keys from the PMK (or take a TK or WEP key given
//! outright), and decrypt the protected data frames of every suite, pairwise and group.
//!
//! A [`Decryptor`] is a thin loop: each 802.11 MPDU (no radiotap header, no FCS), in capture
//! order, is classified (`rx::classify`), its key found by the `tracker` (which follows the
//! handshakes and holds the keys), and taken through the receive pipeline the emulated WLAN
//! uses too (`rx`: decapsulation, replay check, reassembly, A-MSDU, Ethernet); the caller
//! writes what comes out.

mod batch;
mod integrity;
mod stats;
mod tracker;

use core::cell::Cell;

use stats::LinkTally;
pub use stats::{Evicted, LinkCounts, NotWritten, Stats, NOT_WRITTEN_REASONS};
pub use tracker::{Keys, DEFAULT_MAX_STATE};

use crate::error::{Error, Result};
use crate::rx::batch::Batch;
use crate::rx::{classify, Class, DataFrame, Delivered, Pipeline, Security};
use crate::wire::{Frame, HeaderRepr, MacAddr, Rules};
use batch::Batched;
use tracker::{KeySlot, KeyTracker};

/// How decrypted frames are written out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OutputForm {
    /// Ethernet II: DA, SA and the EtherType from the SNAP header; an MSDU with any other
    /// 802.2 LLC as an 802.3 length frame (one frame per A-MSDU subframe).
    Ethernet,
    /// The 802.11 MPDU with Protected cleared (fragments reassembled into one frame).
    Ieee80211,
}

/// Why [`Decryptor::process`] stopped: the frame could not be decrypted (it is counted in
/// [`Stats`] too), or the caller's `emit` failed.
#[derive(Debug, PartialEq, Eq)]
pub enum Rejected<E> {
    Frame(Error),
    Output(E),
}

impl<E> From<Error> for Rejected<E> {
    fn from(e: Error) -> Self {
        Rejected::Frame(e)
    }
}

/// The capture-decryption loop.
pub struct Decryptor {
    ssid: Option<Vec<u8>>,
    bssid: Option<MacAddr>,
    form: OutputForm,
    rules: Rules,
    tracker: KeyTracker,
    /// The BSS whose SSID was last checked against `ssid`, the handshakes verified then,
    /// and whether it matched: data frames mostly come from one network, so this saves a
    /// look-up per frame. Forgotten at every management frame (one may tell a network's
    /// SSID), every eviction and every verified handshake (which proves one).
    ssid_checked: Cell<Option<(MacAddr, u64, bool)>>,
    pipeline: Pipeline,
    stats: Stats,
    /// What became of each BSS's and station's frames.
    links: LinkTally<Link>,
    batch: Batch<Batched>,
}

/// A BSS (its BSSID) and a station in it; the station of a group-addressed frame is its
/// group address.
pub type Link = (MacAddr, MacAddr);

/// How many entries of each kind of state the decryptor keeps now (see
/// [`Decryptor::with_max_state`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct StateSize {
    pub links: usize,
    pub handshakes: usize,
    pub networks: usize,
    pub groups: usize,
    pub pmf_links: usize,
    /// Messages 2 waiting for their message 1, over all handshakes.
    pub pending_m2: usize,
    /// Per-station statistics.
    pub stations: usize,
    /// MSDUs in reassembly.
    pub fragments: usize,
}

impl StateSize {
    /// Whether every kind is within `max` (the messages 2 within a few per handshake).
    pub fn within(&self, max: usize) -> bool {
        [self.links, self.handshakes, self.networks, self.groups, self.pmf_links, self.stations, self.fragments]
            .iter()
            .all(|&n| n <= max)
            && self.pending_m2 <= 4 * self.handshakes
    }
}

impl Decryptor {
    /// `ssid` limits decryption to the network with that SSID (as announced in beacons);
    /// `bssid` to one BSS.
    pub fn new(keys: Keys, ssid: Option<&[u8]>, bssid: Option<MacAddr>, form: OutputForm) -> Result<Self> {
        let rules = Rules::default();
        Ok(Decryptor {
            ssid: ssid.map(<[u8]>::to_vec),
            bssid,
            form,
            rules,
            tracker: KeyTracker::new(keys, rules)?,
            ssid_checked: Cell::new(None),
            pipeline: Pipeline::new(rules),
            stats: Stats::default(),
            links: LinkTally::with_max(DEFAULT_MAX_STATE),
            batch: Batch::default(),
        })
    }

    /// Keep at most `max` (at least 4) links, handshakes, networks, group-key transmitters,
    /// 802.11w links, per-station statistics and MSDUs in reassembly each (default [`DEFAULT_MAX_STATE`]): the
    /// least recently used are evicted (those without keys first) and counted in
    /// [`Stats::evicted`], so any stream decrypts in bounded memory. Between evictions a
    /// kind may hold up to a window of frames more.
    pub fn with_max_state(mut self, max: usize) -> Self {
        self.tracker.set_max(max);
        self.links.set_max(max);
        self.pipeline = self.pipeline.with_fragment_limit(max);
        self
    }

    /// How much state is kept now.
    pub fn state_size(&self) -> StateSize {
        let (links, handshakes, networks, groups, pmf_links, pending_m2) = self.tracker.state_size();
        let (stations, fragments) = (self.links.len(), self.pipeline.fragments_held());
        StateSize { links, handshakes, networks, groups, pmf_links, pending_m2, stations, fragments }
    }

    /// The summed counts of the stations whose statistics were evicted.
    pub fn evicted_link_counts(&self) -> LinkCounts {
        self.links.evicted()
    }

    /// Evict state over the limit: only between frames, when no key slot is held.
    fn evict(&mut self) {
        if self.tracker.over_limit() {
            self.tracker.evict(&mut self.stats);
            self.ssid_checked.set(None);
        }
    }

    pub fn stats(&self) -> Stats {
        let mut stats = self.stats;
        stats.evicted.fragments = self.pipeline.fragments_dropped();
        stats
    }

    /// What became of the frames of each BSS and station, sorted. Frames without both (control
    /// frames, unparsable ones) count in [`Decryptor::stats`] only.
    pub fn links(&self) -> Vec<(Link, LinkCounts)> {
        self.links.counts(&self.stats)
    }

    /// Stations (links) on which a handshake or key was seen.
    pub fn stations_seen(&self) -> usize {
        self.tracker.links_seen()
    }

    /// The AKM suites of the 4-way handshakes seen (each once): the CLI names them when
    /// nothing could be derived (an unsupported AKM, or SAE/OWE given only a passphrase).
    pub fn akms_seen(&self) -> &[crate::rsn::Akm] {
        self.tracker.akms_seen()
    }

    /// Feed one captured MPDU; each decrypted frame it completes goes to `emit`.
    pub fn process<E>(
        &mut self,
        mpdu: &[u8],
        emit: impl FnMut(&[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), Rejected<E>> {
        self.evict();
        self.links.enter(link_of(mpdu, self.rules), &mut self.stats);
        self.process_frame(mpdu, emit)
    }

    fn process_frame<E>(
        &mut self,
        mpdu: &[u8],
        mut emit: impl FnMut(&[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), Rejected<E>> {
        self.stats.packets_read += 1;
        let class = classify(mpdu, self.rules).inspect_err(|_| self.stats.unparsable += 1)?;
        let data = match class {
            Class::Management { .. } if is_protected_unicast(mpdu, self.rules) => {
                return self.protected_management(mpdu, &mut emit);
            }
            Class::Management { subtype } => {
                self.stats.management += 1;
                self.tracker.learn_network(mpdu, self.rules);
                self.ssid_checked.set(None);
                self.tracker.check_bip(mpdu, &mut self.stats);
                if let Some((a, b)) = ends_link(subtype, mpdu, self.rules) {
                    self.tracker.link_ended(a, b, false, &mut self.stats);
                }
                return Ok(());
            }
            Class::Other => {
                self.stats.no_msdu += 1;
                return Ok(());
            }
            Class::Data(data) if !self.wanted(&data) => {
                self.stats.other_network += 1;
                if data.security == Security::Plaintext && self.tracker.proves_ssids() {
                    self.follow_other_network(&data, mpdu);
                }
                return Ok(());
            }
            Class::Data(data) => data,
        };
        let wep = match data.security {
            Security::Plaintext => return self.plaintext(mpdu),
            Security::Wep { .. } => true,
            Security::ExtIv { .. } => false,
        };
        if wep {
            self.stats.wep_data += 1;
        } else {
            self.stats.wpa_data += 1;
        }
        let slot = self.tracker.slot_of(&data, mpdu)?;
        let Some(key) = self.tracker.key_mut(slot) else {
            return Err(Rejected::Frame(self.no_key(slot, |stats, e| stats.count(wep, e))));
        };
        let fragment_number = data.header.sequence_control.fragment_number();
        let received = match self.pipeline.receive(mpdu, Some(key)) {
            // Another given key may fit: another station's, or a rekey's (whose packet
            // numbers start again, so its frames look like replays under the old key).
            Err(Error::MicFailure | Error::IcvFailure | Error::Replay { .. })
                if self.tracker.has_other_given_key(slot) && self.tracker.switch_given_key(slot, mpdu) =>
            {
                self.pipeline.receive(mpdu, self.tracker.key_mut(slot))
            }
            // Sent under the key the last handshake replaced (before the new one was in use
            // on both sides): opened under it, with its own replay counters.
            Err(Error::MicFailure) if self.tracker.has_previous_key(slot) => {
                match self.pipeline.receive(mpdu, self.tracker.previous_key_mut(slot)) {
                    Err(Error::MicFailure) => Err(Error::MicFailure),
                    under_previous => under_previous,
                }
            }
            received => received,
        };
        self.stats.count(wep, &received.as_ref().map(|_| ()).map_err(Clone::clone));
        match received? {
            Some(delivered) => {
                if delivered.reassembled {
                    self.stats.join_fragments(fragment_number);
                }
                deliver(delivered, self.form, &mut self.tracker, &mut self.stats, &mut emit).map_err(Rejected::Output)
            }
            None => {
                self.stats.not_written.fragments_held += 1;
                Ok(())
            }
        }
    }

    /// An unprotected data frame of a network whose announced SSID is not the one asked
    /// for: a beacon may lie, so its handshake messages are followed all the same when a PMK
    /// of a known SSID may verify them (and then prove the network's SSID); what fails
    /// under our keys is not counted (it is another network's).
    fn follow_other_network(&mut self, data: &DataFrame, mpdu: &[u8]) {
        if self.bssid.is_some_and(|b| !data.in_bss(b)) {
            return;
        }
        let Ok(Some(delivered)) = self.pipeline.receive(mpdu, None) else { return };
        let mut scratch = Stats::default();
        for msdu in delivered.msdus().flatten() {
            if let Some(eapol) = msdu.eapol() {
                self.tracker.handshake(&delivered.header, eapol, &mut scratch);
            }
        }
        self.stats.handshakes += scratch.handshakes;
        self.stats.group_keys += scratch.group_keys;
        self.stats.igtks += scratch.igtks;
        self.stats.replayed_handshakes += scratch.replayed_handshakes;
    }

    /// An unprotected data frame: followed if it is a handshake message, else only counted
    /// (as airdecap-ng does: EAPOL frames are not "plaintext data"); never written out.
    fn plaintext<E>(&mut self, mpdu: &[u8]) -> core::result::Result<(), Rejected<E>> {
        let received = self.pipeline.receive(mpdu, None).inspect_err(|_| self.stats.plaintext_data += 1)?;
        let Some(delivered) = received else {
            self.stats.plaintext_data += 1;
            return Ok(());
        };
        let mut eapol_seen = false;
        for msdu in delivered.msdus().flatten() {
            if let Some(eapol) = msdu.eapol() {
                self.tracker.handshake(&delivered.header, eapol, &mut self.stats);
                eapol_seen = true;
            }
            if let Some(tdls) = msdu.tdls() {
                self.tracker.tdls(tdls, &mut self.stats);
            }
        }
        if eapol_seen {
            self.stats.eapol += 1;
        } else {
            self.stats.plaintext_data += 1;
        }
        Ok(())
    }

    /// A protected individually addressed management frame (802.11w: Deauthentication,
    /// Disassociation, robust Action): opened under its link's PTK, whose receive state keeps
    /// a replay counter for management frames apart from the data TIDs'. It carries no MSDU,
    /// so only the 802.11 form writes it.
    fn protected_management<E>(
        &mut self,
        mpdu: &[u8],
        emit: &mut impl FnMut(&[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), Rejected<E>> {
        self.stats.protected_management += 1;
        let frame = Frame::new_checked(mpdu, self.rules)?;
        let header = HeaderRepr::parse(&frame)?;
        let body = frame.body();
        let key_id = *body.get(3).ok_or(Error::Truncated { what: "security header", needed: 4, got: body.len() })? >> 6;
        // Keyed like a data frame of the same link (a management frame's BSSID is A3).
        let data = DataFrame { header, security: Security::ExtIv { key_id } };
        if !self.wanted(&data) {
            self.stats.other_network += 1;
            return Ok(());
        }
        let slot = self.tracker.slot_of(&data, mpdu)?;
        let Some(key) = self.tracker.key_mut(slot) else {
            return Err(Rejected::Frame(self.no_key(slot, Stats::count_management)));
        };
        let mut plain = mpdu.to_vec();
        let opened = key.open(&mut plain);
        self.stats.count_management(&opened.as_ref().map(|_| ()).map_err(Clone::clone));
        plain.truncate(opened?.mpdu_len);
        self.tracker.pmf_seen(header.addr1, header.addr2);
        if let Some((a, b)) = ends_link(frame.frame_control().subtype(), mpdu, self.rules) {
            self.tracker.link_ended(a, b, true, &mut self.stats);
        }
        match self.form {
            OutputForm::Ieee80211 => {
                emit(&plain).map_err(Rejected::Output)?;
                self.stats.written += 1;
            }
            OutputForm::Ethernet => self.stats.not_written.management_frames += 1,
        }
        Ok(())
    }

    /// Whether a data frame belongs to the network asked for.
    fn wanted(&self, data: &DataFrame) -> bool {
        self.bssid.is_none_or(|b| data.in_bss(b)) && self.ssid_matches(data.bss())
    }

    /// Whether the network `bss` announced the SSID asked for (or none was asked for, or
    /// it announced none).
    fn ssid_matches(&self, bss: MacAddr) -> bool {
        let handshakes = self.stats.handshakes;
        if let Some((_, _, matches)) = self.ssid_checked.get().filter(|&(b, h, _)| b == bss && h == handshakes) {
            return matches;
        }
        let matches = self.tracker.ssid_matches(self.ssid.as_deref(), bss);
        self.ssid_checked.set(Some((bss, handshakes, matches)));
        matches
    }
}

impl Decryptor {
    /// A protected frame whose key is not there: counted by `count` as having none, or
    /// apart when a Deauthentication or Disassociation dropped its link's keys.
    fn no_key(&mut self, slot: KeySlot, count: impl FnOnce(&mut Stats, &Result<()>)) -> Error {
        let error = Error::NoKey { group: matches!(slot, KeySlot::Group(..)) };
        if self.tracker.ended(slot) {
            self.stats.after_link_ended += 1;
        } else {
            count(&mut self.stats, &Err(error.clone()));
        }
        error
    }
}

/// The link of a data or management frame (see [`link_of_header`]).
fn link_of(mpdu: &[u8], rules: Rules) -> Option<Link> {
    let frame = Frame::new_checked(mpdu, rules).ok()?;
    let fc = frame.frame_control();
    if !fc.is_data() && !fc.is_management() {
        return None;
    }
    Some(link_of_header(&HeaderRepr::parse(&frame).ok()?))
}

/// The BSS and station of a frame: its BSSID (a 4-address frame's transmitter), and the
/// other of its receiver and transmitter (a group receiver as is).
fn link_of_header(header: &HeaderRepr) -> Link {
    let bss = header.bssid().unwrap_or(header.addr2);
    let station = if header.addr1.is_group() || header.addr1 != bss { header.addr1 } else { header.addr2 };
    (bss, station)
}

/// The two ends of the link an individually addressed Deauthentication or Disassociation
/// ends (a group-addressed one from an AP ends every station's: not followed).
fn ends_link(subtype: u8, mpdu: &[u8], rules: Rules) -> Option<(MacAddr, MacAddr)> {
    use crate::wire::mgmt::subtype::{DEAUTHENTICATION, DISASSOCIATION};
    let frame = Frame::new_checked(mpdu, rules).ok()?;
    let ends = [DEAUTHENTICATION, DISASSOCIATION].contains(&subtype) && !frame.addr1().is_group();
    Some((frame.addr1(), frame.addr2().filter(|_| ends)?))
}

/// Whether `mpdu` is a protected individually addressed frame (a robust management frame
/// under the PTK; group-addressed ones carry BIP's MME in the clear instead).
fn is_protected_unicast(mpdu: &[u8], rules: Rules) -> bool {
    Frame::new_checked(mpdu, rules).is_ok_and(|f| f.frame_control().protected() && !f.addr1().is_group())
}

/// Write one delivered MSDU in the output form, counting what is written and what has no
/// Ethernet form; an EAPOL frame sent under a pairwise key (a rekey) is also followed as a
/// handshake, a TDLS setup frame as a TPK handshake.
fn deliver<E>(
    delivered: Delivered<'_>,
    form: OutputForm,
    tracker: &mut KeyTracker,
    stats: &mut Stats,
    emit: &mut impl FnMut(&[u8]) -> core::result::Result<(), E>,
) -> core::result::Result<(), E> {
    for msdu in delivered.msdus().flatten() {
        if let Some(eapol) = msdu.eapol() {
            tracker.handshake(&delivered.header, eapol, stats);
        }
        if let Some(tdls) = msdu.tdls() {
            tracker.tdls(tdls, stats);
        }
    }
    match form {
        OutputForm::Ieee80211 => {
            emit(delivered.mpdu())?;
            stats.written += 1;
        }
        OutputForm::Ethernet if !delivered.is_amsdu() => match delivered.into_ethernet() {
            Ok(frame) => {
                emit(frame)?;
                stats.written += 1;
            }
            Err(e) => stats.not_written.no_ethernet_form(&e),
        },
        OutputForm::Ethernet => {
            for msdu in delivered.msdus() {
                let Ok(msdu) = msdu else {
                    stats.not_written.bad_amsdu_subframes += 1;
                    continue;
                };
                match msdu.to_ethernet() {
                    Ok(frame) => {
                        emit(&frame)?;
                        stats.written += 1;
                    }
                    Err(e) => stats.not_written.no_ethernet_form(&e),
                }
            }
        }
    }
    Ok(())
}
