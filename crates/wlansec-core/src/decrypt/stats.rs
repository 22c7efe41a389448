//! What the decryptor did with every frame it read: airdecap-ng's counts, what the
//! handshakes told, and why a frame read was not written.

use foldhash::HashMap;

use crate::error::{Error, Result};

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
    /// IGTKs installed (802.11w, from message 3 or group message 1).
    pub igtks: u64,
    /// Group-addressed robust management frames whose BIP MIC verified.
    pub bip_verified: u64,
    /// ... whose BIP MIC failed (forged or altered), or whose MME is malformed.
    pub bip_failures: u64,
    /// ... refused as replays (IPN not above the last accepted).
    pub bip_replays: u64,
    /// ... carrying an MME whose IGTK was not seen.
    pub bip_no_key: u64,
    /// TDLS peer keys installed: Setup Responses or Confirms whose FTE MIC verified under
    /// the TPK-KCK their nonces give.
    pub tdls_keys: u64,
    /// TDLS Setup Responses or Confirms whose FTE MIC did not verify (forged or altered).
    pub tdls_mic_failures: u64,
    /// Deauthentications and Disassociations that ended a link's keys (protected and
    /// verified, or unprotected on a link without 802.11w).
    pub links_ended: u64,
    /// Protected frames of a link whose keys a Deauthentication or Disassociation dropped,
    /// before a new handshake keyed it again.
    pub after_link_ended: u64,
    /// Frames written out: one per MSDU in the Ethernet form, one per (reassembled) MPDU
    /// in the 802.11 form.
    pub written: u64,
    /// Protected individually addressed management frames (802.11w), opened under the PTK;
    /// their failures are counted with the data frames' (integrity, replay, no key).
    pub protected_management: u64,
    /// ... decrypted.
    pub decrypted_management: u64,
    /// Management frames (followed for networks and keys, BIP-checked; never written).
    pub management: u64,
    /// Control frames and data frames without an MSDU (Null, QoS Null).
    pub no_msdu: u64,
    /// Data frames of another network than the one asked for (-b, -e).
    pub other_network: u64,
    /// Unprotected EAPOL frames: the handshakes, followed and not written.
    pub eapol: u64,
    /// Frames too short or malformed to classify as 802.11 frames.
    pub unparsable: u64,
    /// Fragments joined into an MSDU completed by a later fragment (written with it).
    pub fragments_joined: u64,
    /// Frames decrypted but not written, by reason.
    pub not_written: NotWritten,
    /// Messages 2 (and TDLS setups) whose MIC verified but which would have put back a key
    /// the link had before, or came under a Replay Counter not above the last verified one:
    /// replays of an older handshake, which install nothing.
    pub replayed_handshakes: u64,
    /// State evicted to keep memory bounded, by kind.
    pub evicted: Evicted,
}

/// What the decryptor evicted, least recently used first, to keep at most its limit of
/// each kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Evicted {
    /// Links (stations) and their keys.
    pub links: u64,
    /// 4-way handshakes, pending or done.
    pub handshakes: u64,
    /// Networks (what beacons and probe responses told).
    pub networks: u64,
    /// Transmitters of group frames and their group keys.
    pub groups: u64,
    /// Links known to use 802.11w.
    pub pmf_links: u64,
    /// Per-station statistics (their counts go to the total of evicted stations).
    pub stations: u64,
    /// MSDUs in reassembly dropped by the fragment cache's bound or their fragments' lifetime.
    pub fragments: u64,
}

impl Evicted {
    pub fn total(&self) -> u64 {
        self.links + self.handshakes + self.networks + self.groups + self.pmf_links + self.stations + self.fragments
    }
}

/// Why a decrypted frame was not written.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct NotWritten {
    /// Fragments held for reassembly whose MSDU was never completed.
    pub fragments_held: u64,
    /// Refused by the receive pipeline after decryption (a FragAttacks defence, a bad
    /// reassembly).
    pub refused_after_decryption: u64,
    /// MSDUs shorter than an 802.2 LLC header (Ethernet form only).
    pub no_llc_header: u64,
    /// LLC MSDUs without an RFC 1042 SNAP header and longer than an 802.3 length field
    /// allows (Ethernet form only).
    pub llc_too_long: u64,
    /// A-MSDU subframes that do not parse (Ethernet form only).
    pub bad_amsdu_subframes: u64,
    /// Decrypted protected management frames, which carry no MSDU (Ethernet form only).
    pub management_frames: u64,
}

impl NotWritten {
    pub fn total(&self) -> u64 {
        self.fragments_held
            + self.refused_after_decryption
            + self.no_llc_header
            + self.llc_too_long
            + self.bad_amsdu_subframes
            + self.management_frames
    }

    /// Count an MSDU that has no Ethernet form.
    pub(super) fn no_ethernet_form(&mut self, error: &Error) {
        match error {
            Error::OutOfRange { .. } => self.llc_too_long += 1,
            _ => self.no_llc_header += 1,
        }
    }
}

/// The reasons a frame read was not written, as [`Stats::not_written_by_reason`] gives
/// their counts (the names the JSON summary uses).
pub const NOT_WRITTEN_REASONS: [&str; 18] = [
    "management",
    "no_msdu",
    "other_network",
    "plaintext",
    "eapol_handshake",
    "integrity_failure",
    "no_pairwise_key",
    "key_dropped_at_deauthentication",
    "no_group_key",
    "replay",
    "malformed",
    "unparsable",
    "fragment_held",
    "refused_after_decryption",
    "no_llc_header",
    "llc_too_long_for_802_3",
    "bad_amsdu_subframe",
    "management_frame_no_msdu",
];

/// What became of the frames of one BSS and station (see [`super::Decryptor::links`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct LinkCounts {
    pub read: u64,
    pub decrypted: u64,
    pub written: u64,
    pub fragments_joined: u64,
    /// By reason, in the order of [`NOT_WRITTEN_REASONS`].
    pub not_written: [u64; NOT_WRITTEN_REASONS.len()],
}

impl LinkCounts {
    /// The totals of `stats`, to take the difference one frame makes.
    // Inlined with `add_change` into `LinkTally::enter`: as calls, the totals just stored
    // on the stack were loaded back two at a time, which stalled on store forwarding
    // (a quarter of the time around `enter`, `perf annotate`).
    #[inline]
    pub(super) fn of(stats: &Stats) -> Self {
        LinkCounts {
            read: stats.packets_read,
            decrypted: stats.decrypted(),
            written: stats.written,
            fragments_joined: stats.fragments_joined,
            not_written: stats.not_written_by_reason(),
        }
    }

    /// Add what changed from `before` to `after`. Wrapping: a frame that completes an MSDU
    /// takes its earlier fragments out of `fragment_held`, which they were counted in on
    /// this same link, so the sums come out right.
    #[inline]
    pub(super) fn add_change(&mut self, before: &LinkCounts, after: &LinkCounts) {
        let add = |sum: &mut u64, b: u64, a: u64| *sum = sum.wrapping_add(a.wrapping_sub(b));
        add(&mut self.read, before.read, after.read);
        add(&mut self.decrypted, before.decrypted, after.decrypted);
        add(&mut self.written, before.written, after.written);
        add(&mut self.fragments_joined, before.fragments_joined, after.fragments_joined);
        for (i, sum) in self.not_written.iter_mut().enumerate() {
            add(sum, before.not_written[i], after.not_written[i]);
        }
    }

    /// Add another link's counts (to sum the stations of one BSS).
    pub fn merge(&mut self, other: &LinkCounts) {
        self.add_change(&LinkCounts::default(), other);
    }

    /// The reasons with a count, and the counts.
    pub fn not_written_by_reason(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        NOT_WRITTEN_REASONS.iter().copied().zip(self.not_written).filter(|&(_, n)| n > 0)
    }
}

/// What became of each BSS's and station's frames, tallied a run at a time: consecutive
/// frames mostly share a link, so the run's counts are the change in the totals since it
/// began, settled into the link's entry when another link's frame comes (a frame then costs
/// a comparison, not a look-up and two snapshots). At most `max` links are kept: the least
/// recently settled go, their counts added to `evicted`.
pub(super) struct LinkTally<L> {
    /// Each link's counts and when they were last settled.
    settled: HashMap<L, (LinkCounts, u64)>,
    /// The link of the frames being counted (`None`: frames of no link, counted in the totals
    /// only), and the totals when its run began.
    current: Option<L>,
    since: LinkCounts,
    /// Counts the settlements, so each link's last one is distinct.
    clock: u64,
    max: usize,
    /// The counts of the links evicted, summed.
    evicted: LinkCounts,
}

impl<L> LinkTally<L> {
    pub(super) fn with_max(max: usize) -> Self {
        LinkTally {
            settled: HashMap::default(),
            current: None,
            since: LinkCounts::default(),
            clock: 0,
            max: max.max(4),
            evicted: LinkCounts::default(),
        }
    }

    pub(super) fn set_max(&mut self, max: usize) {
        self.max = max.max(4);
    }

    /// The summed counts of the links evicted.
    pub(super) fn evicted(&self) -> LinkCounts {
        self.evicted
    }

    pub(super) fn len(&self) -> usize {
        self.settled.len()
    }
}

impl<L: Copy + Eq + core::hash::Hash + Ord> LinkTally<L> {
    /// The next frame is `link`'s: call before it changes `stats`.
    pub(super) fn enter(&mut self, link: Option<L>, stats: &mut Stats) {
        if link == self.current {
            return;
        }
        let now = LinkCounts::of(stats);
        if let Some(current) = self.current {
            self.clock += 1;
            let entry = self.settled.entry(current).or_default();
            entry.0.add_change(&self.since, &now);
            entry.1 = self.clock;
            if self.settled.len() > self.max {
                self.evict(stats);
            }
        }
        self.current = link;
        self.since = now;
    }

    /// Evict the least recently settled links down to three quarters of the limit (a pass
    /// paid for by a quarter of the limit's new links).
    fn evict(&mut self, stats: &mut Stats) {
        let keep = self.max - self.max / 4;
        let mut stamps: Vec<u64> = self.settled.values().map(|&(_, used)| used).collect();
        let Some(evict) = stamps.len().checked_sub(keep).filter(|&n| n > 0) else { return };
        let (_, &mut cutoff, _) = stamps.select_nth_unstable(evict);
        let evicted = &mut self.evicted;
        self.settled.retain(|_, (counts, used)| {
            let keep = *used >= cutoff;
            if !keep {
                evicted.merge(counts);
                stats.evicted.stations += 1;
            }
            keep
        });
    }

    /// Every link's counts up to `stats`, sorted.
    pub(super) fn counts(&self, stats: &Stats) -> Vec<(L, LinkCounts)> {
        let mut settled: HashMap<L, LinkCounts> = self.settled.iter().map(|(&l, &(c, _))| (l, c)).collect();
        if let Some(current) = self.current {
            settled.entry(current).or_default().add_change(&self.since, &LinkCounts::of(stats));
        }
        let mut links: Vec<_> = settled.into_iter().collect();
        links.sort_unstable_by_key(|&(l, _)| l);
        links
    }
}

impl Stats {
    /// Every frame read that was not written, by reason, in the order of
    /// [`NOT_WRITTEN_REASONS`].
    pub fn not_written_by_reason(&self) -> [u64; NOT_WRITTEN_REASONS.len()] {
        let n = &self.not_written;
        [
            self.management,
            self.no_msdu,
            self.other_network,
            self.plaintext_data,
            self.eapol,
            self.bad_integrity,
            self.no_key,
            self.after_link_ended,
            self.no_group_key,
            self.replays,
            self.malformed,
            self.unparsable,
            n.fragments_held,
            n.refused_after_decryption,
            n.no_llc_header,
            n.llc_too_long,
            n.bad_amsdu_subframes,
            n.management_frames,
        ]
    }

    /// Count a protected frame's outcome.
    pub(super) fn count(&mut self, wep: bool, result: &Result<()>) {
        match result {
            Ok(()) if wep => self.decrypted_wep += 1,
            Ok(()) => self.decrypted_wpa += 1,
            // Decrypted, then refused by a defence of the receive pipeline.
            Err(Error::Attack(_)) => {
                self.count(wep, &Ok(()));
                self.not_written.refused_after_decryption += 1;
            }
            Err(Error::MicFailure | Error::IcvFailure) => self.bad_integrity += 1,
            Err(Error::Replay { .. }) => self.replays += 1,
            Err(Error::NoKey { group: true }) => self.no_group_key += 1,
            Err(Error::NoKey { group: false }) => self.no_key += 1,
            Err(_) => self.malformed += 1,
        }
    }

    /// Count a protected management frame's outcome.
    pub(super) fn count_management(&mut self, result: &Result<()>) {
        match result {
            Ok(()) => self.decrypted_management += 1,
            // Not written for the same reasons as a data frame (key.open never yields an
            // Attack, which would count as decrypted data).
            Err(_) => self.count(false, result),
        }
    }

    /// Frames decrypted (WEP, WPA data and protected management frames).
    pub fn decrypted(&self) -> u64 {
        self.decrypted_wep + self.decrypted_wpa + self.decrypted_management
    }

    /// The fragment numbered `last` completed an MSDU: the `last` fragments held before it
    /// were written with it.
    pub(super) fn join_fragments(&mut self, last: u8) {
        let joined = u64::from(last).min(self.not_written.fragments_held);
        self.not_written.fragments_held -= joined;
        self.fragments_joined += joined;
    }

    pub(super) fn installed_keys(&self) -> (u64, u64) {
        (self.handshakes, self.group_keys)
    }
}
