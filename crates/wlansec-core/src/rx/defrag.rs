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

/// An MSDU being reassembled.
struct Partial {
    protection: Option<Protection>,
    sequence: u16,
    next_fragment: u8,
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

/// Fragment caches of every transmitter.
#[derive(Default)]
pub struct Defragmenter {
    partial: HashMap<MacAddr, Partial>,
    defences: Defences,
}

impl Defragmenter {
    pub fn new(defences: Defences) -> Self {
        Defragmenter { partial: HashMap::default(), defences }
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
        if !more && sc.fragment_number() == 0 {
            self.partial.remove(&ta);
            return Ok(Reassembly::Complete);
        }
        if sc.fragment_number() == 0 {
            let partial =
                Partial { protection, sequence: sc.sequence_number(), next_fragment: 1, mpdu: std::mem::take(mpdu) };
            self.partial.insert(ta, partial);
            return Ok(Reassembly::Pending);
        }
        let Some(partial) = self.partial.get_mut(&ta) else {
            return Err(Error::Malformed("fragment without its first fragment; dropped"));
        };
        if partial.sequence != sc.sequence_number() || partial.next_fragment != sc.fragment_number() {
            self.partial.remove(&ta);
            return Err(Error::Malformed("fragment out of order; MSDU dropped"));
        }
        if let Err(attack) = continues(partial.protection, protection, self.defences) {
            self.partial.remove(&ta);
            return Err(attack.into());
        }
        partial.mpdu.extend_from_slice(&mpdu[h..]);
        partial.next_fragment += 1;
        partial.protection = protection;
        if more {
            return Ok(Reassembly::Pending);
        }
        let partial = self.partial.remove(&ta).ok_or(Error::Malformed("fragment state lost"))?;
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
    }

    /// Forget the MSDU in progress from one transmitter.
    pub fn forget(&mut self, ta: MacAddr) {
        // Called for every whole frame: skip hashing the address when nothing is held.
        if !self.partial.is_empty() {
            self.partial.remove(&ta);
        }
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
        let header = HeaderRepr {
            frame_control: FrameControl(
                FrameControl::new(FrameType::Data, 8).0 | if more { FrameControl::MORE_FRAGMENTS } else { 0 },
            ),
            duration: 0,
            addr1: MacAddr([2, 0, 0, 0, 0, 2]),
            addr2: TA,
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
}
