//! The transmit side of one MSDU: one MPDU, or fragments no longer than the fragmentation
//! threshold (IEEE 802.11-2016 10.4), each protected on its own with the next packet number,
//! so the fragments of an MSDU carry consecutive PNs as a receiver's defences require. TKIP
//! adds its Michael MIC to the MSDU before it is fragmented (12.5.2.3).
//!
//! The generator (`synth`) and the emulated WLAN both send through here.

use crate::error::{Error, Result};
use crate::suite::{FrameSuite, Transmitter};
use crate::wire::{FrameControl, HeaderRepr, Rules, SequenceControl};

/// The fragment number is 4 bits: an MSDU has at most 16 fragments.
pub const MAX_FRAGMENTS: usize = 16;
/// The frame check sequence, counted by the threshold though the card adds it.
pub const FCS_LEN: usize = 4;

/// dot11FragmentationThreshold: no MPDU (MAC header, body, security overhead, FCS) of a
/// fragmented MSDU is longer than this. The range is hostapd's `fragm_threshold`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentationThreshold(u16);

impl FragmentationThreshold {
    pub const MIN: u16 = 256;
    pub const MAX: u16 = 2346;

    pub fn new(octets: u16) -> Result<Self> {
        if !(Self::MIN..=Self::MAX).contains(&octets) {
            return Err(Error::OutOfRange {
                what: "fragmentation threshold",
                min: Self::MIN.into(),
                max: Self::MAX.into(),
                got: octets.into(),
            });
        }
        Ok(FragmentationThreshold(octets))
    }

    pub fn octets(self) -> u16 {
        self.0
    }

    /// The body of each fragment but the last when an MSDU of `msdu_len` octets behind a
    /// `header_len`-octet header must be fragmented under `suite`, or `None` when its MPDU
    /// fits the threshold whole. Even, as 10.4 asks of every fragment but the last.
    pub fn fragment_body(self, header_len: usize, msdu_len: usize, suite: Option<&dyn FrameSuite>) -> Option<usize> {
        let (whole, per_fragment) = suite.map_or((0, 0), |s| (s.overhead(), s.fragment_overhead()));
        let limit = usize::from(self.0);
        if header_len + msdu_len + whole + FCS_LEN <= limit {
            return None;
        }
        Some((limit - header_len - per_fragment - FCS_LEN) & !1)
    }
}

/// The MPDU of a whole MSDU behind `header`, protected by `tx` when one is given.
pub fn whole<S: FrameSuite>(
    header: HeaderRepr,
    msdu: &[u8],
    tx: Option<&mut Transmitter<S>>,
    rules: Rules,
) -> Result<Vec<u8>> {
    let room = tx.as_ref().map_or(0, |t| t.suite().overhead());
    let (mut mpdu, len) = unprotected(header, msdu, room, rules)?;
    let len = match tx {
        Some(tx) => tx.protect(&mut mpdu, len)?,
        None => len,
    };
    mpdu.truncate(len);
    Ok(mpdu)
}

/// The fragments of the MSDU behind `header`, `fragment_body` octets each (the last
/// shorter), numbered from 0 under the header's sequence number, protected by `tx` when one
/// is given. Refused when the MSDU would need more than [`MAX_FRAGMENTS`].
pub fn fragments<S: FrameSuite>(
    header: HeaderRepr,
    msdu: &[u8],
    mut tx: Option<&mut Transmitter<S>>,
    fragment_body: usize,
    rules: Rules,
) -> Result<Vec<Vec<u8>>> {
    let mut msdu = msdu.to_vec();
    if let Some(tx) = tx.as_ref() {
        let (mpdu, len) = unprotected(header, &msdu, 0, rules)?;
        if let Some(mic) = tx.suite().msdu_mic(&mpdu[..len])? {
            msdu.extend_from_slice(&mic);
        }
    }
    let count = msdu.len().div_ceil(fragment_body.max(1));
    if fragment_body == 0 || count > MAX_FRAGMENTS {
        return Err(Error::OutOfRange {
            what: "fragments per MSDU",
            min: 1,
            max: MAX_FRAGMENTS as u64,
            got: if fragment_body == 0 { u64::MAX } else { count as u64 },
        });
    }
    let room = tx.as_ref().map_or(0, |t| t.suite().fragment_overhead());
    let sequence = header.sequence_control.sequence_number();
    let mut out = Vec::with_capacity(count);
    for (n, chunk) in msdu.chunks(fragment_body).enumerate() {
        let mut h = header;
        h.sequence_control = SequenceControl::new(sequence, n as u8);
        h.frame_control = h.frame_control.with_flag(FrameControl::MORE_FRAGMENTS, n + 1 < count);
        let (mut mpdu, len) = unprotected(h, chunk, room, rules)?;
        let len = match tx.as_mut() {
            Some(tx) => tx.protect_fragment(&mut mpdu, len)?,
            None => len,
        };
        mpdu.truncate(len);
        out.push(mpdu);
    }
    Ok(out)
}

/// `header` and `body` in a buffer with `room` octets to spare; returns it and the MPDU's length.
fn unprotected(header: HeaderRepr, body: &[u8], room: usize, rules: Rules) -> Result<(Vec<u8>, usize)> {
    let h = header.header_len();
    let mut mpdu = vec![0u8; h + body.len() + room];
    header.emit(&mut mpdu, rules)?;
    mpdu[h..h + body.len()].copy_from_slice(body);
    Ok((mpdu, h + body.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::SuiteId;
    use crate::rx::{Pipeline, RxKey};
    use crate::wire::{FrameType, MacAddr, QosControl};

    fn header() -> HeaderRepr {
        HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, 8).with_flag(FrameControl::TO_DS, true),
            duration: 0,
            addr1: MacAddr([2, 0, 0, 0, 0, 1]),
            addr2: MacAddr([2, 0, 0, 0, 0, 2]),
            addr3: MacAddr([2, 0, 0, 0, 0, 3]),
            sequence_control: SequenceControl::new(42, 0),
            addr4: None,
            qos_control: Some(QosControl(0)),
            ht_control: None,
        }
    }

    fn msdu(len: usize) -> Vec<u8> {
        let mut m = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
        m.extend((0..len - 8).map(|i| i as u8));
        m
    }

    #[test]
    fn threshold_range_is_hostapds() {
        assert!(FragmentationThreshold::new(255).is_err());
        assert!(FragmentationThreshold::new(2347).is_err());
        assert_eq!(FragmentationThreshold::new(256).unwrap().octets(), 256);
    }

    /// Every suite: fragments no longer than the threshold, consecutive PNs, and the
    /// receive pipeline gives back the MSDU (TKIP's Michael MIC checked on the whole).
    #[test]
    fn fragments_fit_the_threshold_and_reassemble_under_every_suite() {
        let rules = Rules::default();
        let threshold = FragmentationThreshold::new(300).unwrap();
        for (suite, key) in [
            (SuiteId::Ccmp128, &[1u8; 16][..]),
            (SuiteId::Ccmp256, &[2u8; 32][..]),
            (SuiteId::Gcmp128, &[3u8; 16][..]),
            (SuiteId::Tkip, &[4u8; 32][..]),
            (SuiteId::Wep104, &[5u8; 13][..]),
        ] {
            let body = msdu(1000);
            let mut tx = Transmitter::new(suite.keyed(key, rules).unwrap(), 0);
            let fb = threshold.fragment_body(header().header_len(), body.len(), Some(tx.suite())).unwrap();
            let frags = fragments(header(), &body, Some(&mut tx), fb, rules).unwrap();
            assert!(frags.len() > 1, "{suite:?}");
            assert!(frags.iter().all(|f| f.len() + FCS_LEN <= 300), "{suite:?}");
            let mut rx = Pipeline::new(rules);
            let mut key = RxKey::new(suite, key, rules).unwrap();
            let (last, first) = frags.split_last().unwrap();
            for f in first {
                assert!(rx.receive(f, Some(&mut key)).unwrap().is_none(), "{suite:?}");
            }
            let delivered = rx.receive(last, Some(&mut key)).unwrap().unwrap();
            assert_eq!(&delivered.mpdu()[delivered.header_len..], &body[..], "{suite:?}");
        }
    }

    #[test]
    fn a_short_msdu_is_not_fragmented() {
        let threshold = FragmentationThreshold::new(2346).unwrap();
        assert_eq!(threshold.fragment_body(26, 1500, None), None);
        let whole = whole::<Box<dyn FrameSuite>>(header(), &msdu(100), None, Rules::default()).unwrap();
        assert_eq!(whole.len(), 26 + 100);
    }

    #[test]
    fn more_than_sixteen_fragments_is_refused() {
        let err = fragments::<Box<dyn FrameSuite>>(header(), &msdu(1700), None, 100, Rules::default()).unwrap_err();
        assert!(matches!(err, Error::OutOfRange { got: 17, .. }), "{err}");
        assert!(fragments::<Box<dyn FrameSuite>>(header(), &msdu(1600), None, 100, Rules::default()).is_ok());
    }
}
