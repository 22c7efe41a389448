//! Reassembly of fragmented MSDUs, one MSDU in progress per transmitter.
//!
//! A fragment joins the MSDU in progress only if it carries the same sequence number, the
//! next fragment number, arrived under the same installed key (or, like the first, without
//! protection) and, under a replay-protected key, with the next packet number: the
//! FragAttacks defences against mixing fragments across keys (CVE-2020-24587), plaintext
//! and protected fragments (CVE-2020-26147) and non-consecutive PNs (CVE-2020-26146).

// foldhash: randomly seeded (HashDoS-resistant for addresses read from a capture) and
// several times faster than SipHash on these short keys, looked up per frame.
use foldhash::HashMap;

use crate::error::{Attack, Error, Result};
use crate::wire::{Frame, FrameControl, HeaderRepr, MacAddr, Rules, SequenceControl};

use super::key::KeyTag;
use super::Defences;

/// What protected a fragment: the installed key's tag and the fragment's packet number
/// (`None` for a suite without replay-protected PNs), or nothing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Protection {
    pub key: KeyTag,
    pub pn: Option<u64>,
}

/// The most MSDUs in progress a [`Defragmenter`] holds by default: one per transmitter, and
/// as many transmitters as the decryptor keeps links ([`crate::decrypt::DEFAULT_MAX_STATE`]).
pub const MAX_PARTIALS: usize = 4096;

/// The most octets (allocated) the MSDUs in progress hold together by default: a first
/// fragment can be as long as a capture's snapshot length allows, so a count alone would
/// not bound the memory.
pub const MAX_PARTIAL_OCTETS: usize = 8 << 20;

/// How many frames (fragments and whole MPDUs) the pipeline may receive after an MSDU's
/// latest fragment before that MSDU expires: its next fragment is then an orphan. The
/// standard's dot11MaxReceiveLifetime (512 TU) counted in frames, not time, as a capture
/// decryptor read from a pipe has no clock of its own; fragments of one MSDU are sent back
/// to back, so any number of frames this large means the rest was lost.
pub const PARTIAL_LIFETIME: u64 = 1 << 14;

/// An MSDU being reassembled.
struct Partial {
    protection: Option<Protection>,
    sequence: u16,
    next_fragment: u8,
    /// The frame clock when its latest fragment arrived (unique: the clock ticks per frame).
    last: u64,
    /// The first fragment's MAC header, then the MSDU so far.
    mpdu: Vec<u8>,
}

/// What a fragment did to its transmitter's MSDU in progress.
#[derive(Debug, PartialEq, Eq)]
pub enum Reassembly {
    /// The fragment was kept; the MSDU is not complete yet.
    Pending,
    /// The MSDU is complete: its plaintext MPDU (first header, More Fragments clear,
    /// fragment number 0, the whole MSDU behind) is now in the caller's buffer.
    Complete,
}

/// Fragment caches of every transmitter, bounded: at most [`MAX_PARTIALS`] MSDUs in
/// progress holding at most [`MAX_PARTIAL_OCTETS`] together (a transmitter is any address
/// a frame claims, so an outsider sending first fragments from ever new addresses would
/// otherwise grow it without end). Past a bound the MSDUs whose latest fragment is oldest
/// are dropped, down to three quarters of it (so the pass over the cache is paid for by a
/// quarter of the bound's insertions), and counted: a partial MSDU is expendable, its
/// sender's next fragment is an orphan as after a lost one.
pub struct Defragmenter {
    partial: HashMap<MacAddr, Partial>,
    defences: Defences,
    max: usize,
    max_octets: usize,
    /// Octets allocated by the MSDUs in progress.
    held: usize,
    /// Frames received (fragments and whole MPDUs): the age of an MSDU in progress.
    clock: u64,
    evicted: u64,
    expired: u64,
}

impl Default for Defragmenter {
    fn default() -> Self {
        Defragmenter::new(Defences::default())
    }
}

impl Defragmenter {
    pub fn new(defences: Defences) -> Self {
        Defragmenter {
            partial: HashMap::default(),
            defences,
            max: MAX_PARTIALS,
            max_octets: MAX_PARTIAL_OCTETS,
            held: 0,
            clock: 0,
            evicted: 0,
            expired: 0,
        }
    }

    /// The same with at most `max` MSDUs in progress (at least 1).
    pub fn with_max(mut self, max: usize) -> Self {
        self.max = max.max(1);
        self
    }

    /// MSDUs in progress now.
    pub fn len(&self) -> usize {
        self.partial.len()
    }

    pub fn is_empty(&self) -> bool {
        self.partial.is_empty()
    }

    /// MSDUs in progress dropped to keep within the bounds.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// MSDUs in progress dropped because their next fragment came too late (or never).
    pub fn expired(&self) -> u64 {
        self.expired
    }

    /// Take the plaintext MPDU in `mpdu` (whole, or one fragment) from `ta`. An unfragmented
    /// MPDU is complete as it is (and drops any MSDU in progress from `ta`); the last
    /// fragment of an MSDU leaves the reassembled MPDU in `mpdu`.
    pub fn push(
        &mut self,
        ta: MacAddr,
        mpdu: &mut Vec<u8>,
        rules: Rules,
        protection: Option<Protection>,
    ) -> Result<Reassembly> {
        let frame = Frame::new_checked(&mpdu[..], rules)?;
        let more = frame.frame_control().more_fragments();
        let sc = frame.sequence_control().unwrap_or_default();
        let h = frame.header_len();
        self.clock += 1;
        let now = self.clock;
        if !more && sc.fragment_number() == 0 {
            self.remove(ta);
            return Ok(Reassembly::Complete);
        }
        if sc.fragment_number() == 0 {
            // A copy of its own length: the caller's buffer keeps its capacity, which a cache
            // of thousands of first fragments would otherwise hold many times over.
            let partial = Partial {
                protection,
                sequence: sc.sequence_number(),
                next_fragment: 1,
                last: now,
                mpdu: mpdu.to_vec(),
            };
            self.held += partial.mpdu.capacity();
            if let Some(old) = self.partial.insert(ta, partial) {
                self.held -= old.mpdu.capacity();
            }
            self.keep_within_bounds();
            return Ok(Reassembly::Pending);
        }
        let Some(partial) = self.partial.get_mut(&ta) else {
            return Err(Error::Malformed("fragment without its first fragment; dropped"));
        };
        if now - partial.last > PARTIAL_LIFETIME {
            self.remove(ta);
            self.expired += 1;
            return Err(Error::Malformed("fragment of an MSDU that expired; dropped"));
        }
        if partial.sequence != sc.sequence_number() || partial.next_fragment != sc.fragment_number() {
            self.remove(ta);
            return Err(Error::Malformed("fragment out of order; MSDU dropped"));
        }
        if let Err(attack) = continues(partial.protection, protection, self.defences) {
            self.remove(ta);
            return Err(attack.into());
        }
        let capacity = partial.mpdu.capacity();
        partial.mpdu.extend_from_slice(&mpdu[h..]);
        partial.next_fragment += 1;
        partial.protection = protection;
        partial.last = now;
        self.held += partial.mpdu.capacity() - capacity;
        if more {
            self.keep_within_bounds();
            return Ok(Reassembly::Pending);
        }
        let partial = self.remove(ta).ok_or(Error::Malformed("fragment state lost"))?;
        *mpdu = partial.mpdu;
        let mut first = Frame::new_checked(&mut mpdu[..], rules)?;
        first.set_flag(FrameControl::MORE_FRAGMENTS, false)?;
        first.set_sequence_control(SequenceControl::new(sc.sequence_number(), 0));
        Ok(Reassembly::Complete)
    }

    /// Forget every MSDU in progress (a key was installed or a peer (re)associated), so no
    /// fragment received before can be joined to one received after (CVE-2020-24586).
    pub fn clear(&mut self) {
        self.partial.clear();
        self.held = 0;
    }

    /// Forget the MSDU in progress from one transmitter. Called for every whole frame, which
    /// the frame clock counts.
    pub fn forget(&mut self, ta: MacAddr) {
        self.clock += 1;
        // Skip hashing the address when nothing is held.
        if !self.partial.is_empty() {
            self.remove(ta);
        }
    }

    fn remove(&mut self, ta: MacAddr) -> Option<Partial> {
        let partial = self.partial.remove(&ta)?;
        self.held -= partial.mpdu.capacity();
        Some(partial)
    }

    /// Past a bound, drop the expired MSDUs in progress, then the least recently continued
    /// ones down to three quarters of each bound.
    fn keep_within_bounds(&mut self) {
        if self.partial.len() <= self.max && self.held <= self.max_octets {
            return;
        }
        let now = self.clock;
        let before = self.partial.len();
        self.partial.retain(|_, p| now - p.last <= PARTIAL_LIFETIME);
        self.expired += (before - self.partial.len()) as u64;
        let (keep, keep_octets) = (self.max - self.max / 4, self.max_octets - self.max_octets / 4);
        let mut ages: Vec<(u64, usize)> = self.partial.values().map(|p| (p.last, p.mpdu.capacity())).collect();
        let mut held: usize = ages.iter().map(|&(_, octets)| octets).sum();
        ages.sort_unstable();
        let mut drop = 0;
        while ages.len() - drop > keep || held > keep_octets {
            held -= ages[drop].1;
            drop += 1;
        }
        if let Some(&(cutoff, _)) = drop.checked_sub(1).and_then(|i| ages.get(i)) {
            self.partial.retain(|_, p| p.last > cutoff);
        }
        self.evicted += drop as u64;
        self.held = held;
    }
}

/// Whether a fragment protected by `next` may follow one protected by `previous`, or the
/// attack it would let through.
fn continues(
    previous: Option<Protection>,
    next: Option<Protection>,
    defences: Defences,
) -> core::result::Result<(), Attack> {
    match (previous, next) {
        (None, None) => Ok(()),
        (Some(p), Some(n)) => {
            if p.key != n.key && defences.fragments_under_one_key {
                return Err(Attack::MixedKeyFragments);
            }
            if p.pn.zip(n.pn).is_some_and(|(p, n)| n != p + 1) && defences.consecutive_fragment_pns {
                return Err(Attack::NonConsecutiveFragmentPns);
            }
            Ok(())
        }
        _ if defences.no_mixed_plaintext_fragments => Err(Attack::MixedPlaintextFragments),
        _ => Ok(()),
    }
}

/// The header of the MSDU a plaintext MPDU holds.
pub fn header_of(mpdu: &[u8], rules: Rules) -> Result<(HeaderRepr, usize)> {
    let frame = Frame::new_checked(mpdu, rules)?;
    Ok((HeaderRepr::parse(&frame)?, frame.header_len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{FrameType, QosControl};

    const TA: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);

    fn fragment(seq: u16, frag: u8, more: bool, body: &[u8]) -> Vec<u8> {
        fragment_from(TA, seq, frag, more, body)
    }

    fn fragment_from(ta: MacAddr, seq: u16, frag: u8, more: bool, body: &[u8]) -> Vec<u8> {
        let header = HeaderRepr {
            frame_control: FrameControl(
                FrameControl::new(FrameType::Data, 8).0 | if more { FrameControl::MORE_FRAGMENTS } else { 0 },
            ),
            duration: 0,
            addr1: MacAddr([2, 0, 0, 0, 0, 2]),
            addr2: ta,
            addr3: MacAddr([2, 0, 0, 0, 0, 2]),
            sequence_control: SequenceControl::new(seq, frag),
            addr4: None,
            qos_control: Some(QosControl(0)),
            ht_control: None,
        };
        let mut mpdu = vec![0u8; header.header_len()];
        header.emit(&mut mpdu, Rules::default()).unwrap();
        mpdu.extend_from_slice(body);
        mpdu
    }

    fn under(key: KeyTag, pn: u64) -> Option<Protection> {
        Some(Protection { key, pn: Some(pn) })
    }

    #[test]
    fn consecutive_fragments_under_one_key_reassemble() {
        let key = KeyTag::fresh();
        let mut d = Defragmenter::new(Defences::ALL);
        let mut f = fragment(7, 0, true, b"hello ");
        assert_eq!(d.push(TA, &mut f, Rules::default(), under(key, 10)).unwrap(), Reassembly::Pending);
        let mut f = fragment(7, 1, true, b"fragmented ");
        assert_eq!(d.push(TA, &mut f, Rules::default(), under(key, 11)).unwrap(), Reassembly::Pending);
        let mut f = fragment(7, 2, false, b"world");
        assert_eq!(d.push(TA, &mut f, Rules::default(), under(key, 12)).unwrap(), Reassembly::Complete);
        let (header, h) = header_of(&f, Rules::default()).unwrap();
        assert_eq!(&f[h..], b"hello fragmented world");
        assert!(!header.frame_control.more_fragments());
        assert_eq!(header.sequence_control, SequenceControl::new(7, 0));
    }

    #[test]
    fn fragments_under_another_key_plaintext_or_a_pn_gap_are_dropped() {
        let (key, other) = (KeyTag::fresh(), KeyTag::fresh());
        for second in [under(other, 2), None, under(key, 3), under(key, 1)] {
            let mut d = Defragmenter::new(Defences::ALL);
            let mut f = fragment(1, 0, true, b"a");
            d.push(TA, &mut f, Rules::default(), under(key, 1)).unwrap();
            let mut f = fragment(1, 1, false, b"b");
            assert!(d.push(TA, &mut f, Rules::default(), second).is_err(), "{second:?}");
        }
        let mut d = Defragmenter::new(Defences::ALL);
        let mut f = fragment(1, 0, true, b"a");
        d.push(TA, &mut f, Rules::default(), None).unwrap();
        let mut f = fragment(1, 1, false, b"b");
        assert!(d.push(TA, &mut f, Rules::default(), under(key, 1)).is_err());
    }

    #[test]
    fn out_of_order_orphan_and_cleared_fragments_are_dropped() {
        let key = KeyTag::fresh();
        let mut d = Defragmenter::new(Defences::ALL);
        let mut f = fragment(1, 1, false, b"orphan");
        assert!(d.push(TA, &mut f, Rules::default(), under(key, 1)).is_err());
        let mut f = fragment(2, 0, true, b"a");
        d.push(TA, &mut f, Rules::default(), under(key, 1)).unwrap();
        let mut f = fragment(2, 2, false, b"c");
        assert!(d.push(TA, &mut f, Rules::default(), under(key, 2)).is_err());
        let mut f = fragment(3, 0, true, b"a");
        d.push(TA, &mut f, Rules::default(), under(key, 3)).unwrap();
        d.clear();
        let mut f = fragment(3, 1, false, b"b");
        assert!(d.push(TA, &mut f, Rules::default(), under(key, 4)).is_err());
    }

    /// The `i`th address of a flood, none of them `TA`.
    fn flooder(i: u32) -> MacAddr {
        let [a, b, c, d] = i.to_be_bytes();
        MacAddr([2, 0xdd, a, b, c, d])
    }

    #[test]
    fn a_flood_of_first_fragments_from_distinct_transmitters_stays_bounded_and_a_real_msdu_reassembles() {
        let key = KeyTag::fresh();
        let mut d = Defragmenter::new(Defences::ALL);
        let mut flood = (0..100_000).map(flooder);
        let mut flood_some = |d: &mut Defragmenter, n: usize| {
            for ta in flood.by_ref().take(n) {
                let mut f = fragment_from(ta, 9, 0, true, &[0x55; 300]);
                assert_eq!(d.push(ta, &mut f, Rules::default(), None).unwrap(), Reassembly::Pending);
                assert!(d.len() <= MAX_PARTIALS, "{} MSDUs in progress", d.len());
                assert!(d.held <= MAX_PARTIAL_OCTETS);
            }
        };
        flood_some(&mut d, 50_000);
        // The real MSDU's fragments with a thousand forged first fragments between each two:
        // it is continued more recently than most of the cache, so eviction passes it by.
        let bodies: [&[u8]; 3] = [b"hello ", b"fragmented ", b"world"];
        for (i, body) in bodies.iter().enumerate() {
            let last = i == bodies.len() - 1;
            let mut f = fragment(7, i as u8, !last, body);
            let done = d.push(TA, &mut f, Rules::default(), under(key, 10 + i as u64)).unwrap();
            if last {
                assert_eq!(done, Reassembly::Complete);
                let (_, h) = header_of(&f, Rules::default()).unwrap();
                assert_eq!(&f[h..], b"hello fragmented world");
            } else {
                assert_eq!(done, Reassembly::Pending);
                flood_some(&mut d, 1_000);
            }
        }
        flood_some(&mut d, usize::MAX);
        assert!(d.evicted() >= 100_000 - MAX_PARTIALS as u64, "{} evicted", d.evicted());
        assert!(d.len() <= MAX_PARTIALS);
        // A flooder's fragment whose first was evicted is an orphan, as after a lost one.
        let mut f = fragment_from(flooder(0), 9, 1, false, b"late");
        assert!(d.push(flooder(0), &mut f, Rules::default(), None).is_err());
    }

    #[test]
    fn long_first_fragments_are_bounded_by_their_octets() {
        let mut d = Defragmenter::new(Defences::ALL);
        for i in 0..10_000 {
            let mut f = fragment_from(flooder(i), 1, 0, true, &[0xaa; 60_000]);
            d.push(flooder(i), &mut f, Rules::default(), None).unwrap();
            assert!(d.held <= MAX_PARTIAL_OCTETS, "{} octets held", d.held);
        }
        assert!(d.len() < MAX_PARTIAL_OCTETS / 60_000);
        assert!(d.evicted() > 9_000);
        assert_eq!(d.held, d.partial.values().map(|p| p.mpdu.capacity()).sum::<usize>());
    }

    #[test]
    fn an_msdu_whose_next_fragment_comes_too_late_has_expired() {
        let key = KeyTag::fresh();
        let mut d = Defragmenter::new(Defences::ALL);
        let mut f = fragment(3, 0, true, b"a");
        d.push(TA, &mut f, Rules::default(), under(key, 1)).unwrap();
        // The next fragment is the lifetime's last frame after it: still in time.
        for i in 0..PARTIAL_LIFETIME as u32 - 1 {
            d.forget(flooder(i)); // whole frames from others
        }
        let mut f = fragment(3, 1, true, b"b");
        assert_eq!(d.push(TA, &mut f, Rules::default(), under(key, 2)).unwrap(), Reassembly::Pending);
        // ... and now one frame too late.
        for i in 0..PARTIAL_LIFETIME as u32 {
            d.forget(flooder(i));
        }
        let mut f = fragment(3, 2, false, b"c");
        assert!(d.push(TA, &mut f, Rules::default(), under(key, 3)).is_err());
        assert_eq!((d.expired(), d.len(), d.held), (1, 0, 0));
    }
}
