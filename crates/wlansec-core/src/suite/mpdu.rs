//! The MPDU-level pieces that CCMP and GCMP share (IEEE 802.11-2016 12.5.3.2, 12.5.3.3.3,
//! 12.5.5.3.3): the 8-octet PN header, the AAD built from the masked MAC header, the replay
//! counter a frame belongs to, and the framing of an MPDU around the suite's AEAD, split
//! into prepare and finish so that batches can run the AEAD of many MPDUs in between.

use crate::error::{Error, Result};
use crate::suite::{Decapsulated, Peeked};
use crate::wire::{Frame, FrameControl, MacAddr, QosControl, Rules};

/// Length of the CCMP/GCMP header that follows the MAC header.
pub const PN_HEADER_LEN: usize = 8;

const EXT_IV: u8 = 0x20;

/// A 48-bit packet number.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Default, Hash)]
pub struct Pn(u64);

impl Pn {
    pub const MAX: u64 = (1 << 48) - 1;

    pub fn new(value: u64) -> Result<Self> {
        if value > Self::MAX {
            return Err(Error::Malformed("packet number wider than 48 bits"));
        }
        Ok(Pn(value))
    }

    pub fn value(self) -> u64 {
        self.0
    }

    /// PN5..PN0, most significant octet first, as in the nonce.
    pub fn to_be_bytes(self) -> [u8; 6] {
        let b = self.0.to_be_bytes();
        [b[2], b[3], b[4], b[5], b[6], b[7]]
    }
}

/// The CCMP/GCMP header: `PN0 PN1 Rsvd KeyID-octet PN2 PN3 PN4 PN5`, with Ext IV (bit 5 of
/// the KeyID octet) always set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PnHeader {
    pub pn: Pn,
    pub key_id: u8,
}

impl PnHeader {
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let h = bytes.get(..PN_HEADER_LEN).ok_or(Error::Truncated {
            what: "CCMP/GCMP header",
            needed: PN_HEADER_LEN,
            got: bytes.len(),
        })?;
        if h[3] & EXT_IV == 0 {
            return Err(Error::ExtIvNotSet);
        }
        let pn = u64::from_le_bytes([h[0], h[1], h[4], h[5], h[6], h[7], 0, 0]);
        Ok(PnHeader { pn: Pn(pn), key_id: h[3] >> 6 })
    }

    /// What a receiver learns from this PN header and the MAC header before it.
    fn peeked(&self, header: &MacHeader) -> Peeked {
        Peeked { pn: self.pn, key_id: self.key_id, class: header.replay_class() }
    }

    pub fn emit(&self, out: &mut [u8; PN_HEADER_LEN]) -> Result<()> {
        if self.key_id > 3 {
            return Err(Error::Malformed("Key ID must be 0..=3"));
        }
        let p = self.pn.0.to_le_bytes();
        *out = [p[0], p[1], 0, (self.key_id << 6) | EXT_IV, p[2], p[3], p[4], p[5]];
        Ok(())
    }
}

/// What the CCMP/GCMP framing reads from the MAC header of one data or management frame,
/// read once per MPDU: the AAD, the nonce and the replay class are all built from it.
#[derive(Clone, Copy)]
pub(crate) struct MacHeader<'a> {
    fc: FrameControl,
    /// Frame Control through Sequence Control, in the frame's own buffer: a copy read back
    /// at other offsets than it was written would stall store forwarding. All zeros for a
    /// control frame, whose header is shorter.
    base: &'a [u8; BASE_HEADER_LEN],
    addr4: Option<MacAddr>,
    qos: Option<QosControl>,
}

/// Frame Control, Duration, A1-A3 and Sequence Control: the start of every data and
/// management header.
const BASE_HEADER_LEN: usize = 24;

impl<'a> MacHeader<'a> {
    pub(crate) fn of<T: AsRef<[u8]>>(frame: &'a Frame<T>) -> Self {
        let base = frame.header().first_chunk().unwrap_or(&[0; BASE_HEADER_LEN]);
        MacHeader { fc: frame.frame_control(), base, addr4: frame.addr4(), qos: frame.qos_control() }
    }

    pub(crate) fn frame_control(&self) -> FrameControl {
        self.fc
    }

    /// Address 2 (the transmitter), present in every data and management frame.
    pub(crate) fn addr2(&self) -> &[u8] {
        &self.base[10..16]
    }

    /// Address 2 as a 48-bit big-endian number (its first octet most significant), read as
    /// one word.
    pub(crate) fn addr2_be(&self) -> u64 {
        u64::from_be_bytes(self.base[8..16].try_into().expect("8 octets")) & 0xffff_ffff_ffff
    }

    pub(crate) fn replay_class(&self) -> ReplayClass {
        ReplayClass::from_fields(self.fc, self.qos)
    }
}

/// The additional authenticated data of one MPDU: 22 to 30 octets, zero-padded to 32.
#[derive(Clone, Copy)]
pub struct Aad {
    bytes: [u8; 32],
    len: usize,
}

impl Aad {
    /// Build the AAD from a frame's MAC header: FC with subtype (data frames only), Retry,
    /// Power Management and More Data masked, Protected set, Order masked when the frame
    /// has a QoS Control field (802.11n and later); A1-A3; SC with the sequence number
    /// masked; A4 if present; QC with only the TID (and A-MSDU Present under SPP A-MSDU).
    pub fn new<T: AsRef<[u8]>>(frame: &Frame<T>, rules: Rules) -> Self {
        Self::of(&MacHeader::of(frame), rules)
    }

    /// Composed in integer registers and stored as two whole 16-octet blocks: the engine
    /// reads the AAD (and the compiler copies it) in blocks, and a block load that spans
    /// several smaller recent stores waits for them to retire (a store-forwarding stall,
    /// the engine's hottest framing instructions when the AAD was written field by field).
    pub(crate) fn of(header: &MacHeader, rules: Rules) -> Self {
        let fc = header.fc;
        let mut masked = fc.0 & !(FrameControl::RETRY | FrameControl::POWER_MANAGEMENT | FrameControl::MORE_DATA);
        masked |= FrameControl::PROTECTED;
        if fc.is_data() {
            masked &= !0x0070;
        }
        if header.qos.is_some() && rules.ht_control {
            masked &= !FrameControl::ORDER;
        }
        let base = header.base;
        let le64 = |at: usize| u64::from_le_bytes(base[at..at + 8].try_into().expect("8 octets"));
        // Octets 0..16: FC, then the header from A1 (Duration skipped) through A3's second octet.
        let block0 = [u64::from(masked) | (le64(2) & !0xffff), le64(10)];
        // Octets 16..32: the rest of A3, SC with the fragment number only, then A4 and QC
        // where present, zero padding.
        let qc = header.qos.map_or(0, |qc| {
            let amsdu = rules.spp_amsdu && rules.ht_control && qc.amsdu_present();
            u64::from(qc.tid() | if amsdu { QosControl::AMSDU_PRESENT as u8 } else { 0 })
        });
        let (a4, qc_at) = header.addr4.map_or((0, 0), |MacAddr(a4)| (le48(&a4), 48));
        let after_sc = a4 | (qc << qc_at);
        let a3_sc = ((le64(16) >> 16) & 0xffff_ffff) | (u64::from(base[22] & 0x0f) << 32);
        let block1 = [a3_sc | (after_sc << 48), after_sc >> 16];
        let len = 22 + if header.addr4.is_some() { 6 } else { 0 } + if header.qos.is_some() { 2 } else { 0 };
        let mut bytes = [0u8; 32];
        let (first, second) = bytes.split_at_mut(16);
        *first.first_chunk_mut().expect("16 octets") = whole_block(block0);
        *second.first_chunk_mut().expect("16 octets") = whole_block(block1);
        Aad { bytes, len }
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Six octets as a little-endian word, read in registers (not through a padded copy on the
/// stack, which a word load would read back with a stall).
#[inline(always)]
fn le48(octets: &[u8; 6]) -> u64 {
    let (low, high) = octets.split_at(4);
    u64::from(u32::from_le_bytes(low.try_into().expect("4 octets")))
        | (u64::from(u16::from_le_bytes(high.try_into().expect("2 octets"))) << 32)
}

/// The 16 octets of two little-endian words, from one vector register, so that they are
/// stored whole.
#[inline(always)]
fn whole_block([low, high]: [u64; 2]) -> [u8; 16] {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128i, _mm_set_epi64x};
        // SAFETY: SSE2 is part of x86-64; `__m128i` and `[u8; 16]` are both 16 plain octets.
        unsafe { core::mem::transmute::<__m128i, [u8; 16]>(_mm_set_epi64x(high as i64, low as i64)) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        (u128::from(low) | u128::from(high) << 64).to_le_bytes()
    }
}

/// Which receive replay counter a frame is checked against (12.5.3.4.4): one per TID for
/// QoS data, one for non-QoS data, one for robust management frames.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum ReplayClass {
    Tid(u8),
    NonQosData,
    Management,
}

impl ReplayClass {
    pub const COUNT: usize = 18;

    pub fn of<T: AsRef<[u8]>>(frame: &Frame<T>) -> Self {
        Self::from_fields(frame.frame_control(), frame.qos_control())
    }

    fn from_fields(fc: FrameControl, qos: Option<QosControl>) -> Self {
        match qos {
            Some(qc) => ReplayClass::Tid(qc.tid()),
            None if fc.is_management() => ReplayClass::Management,
            None => ReplayClass::NonQosData,
        }
    }

    pub fn index(self) -> usize {
        match self {
            ReplayClass::Tid(tid) => usize::from(tid & 0x0f),
            ReplayClass::NonQosData => 16,
            ReplayClass::Management => 17,
        }
    }

    /// The priority a CCMP nonce carries: the TID for QoS data, else 0.
    pub fn priority(self) -> u8 {
        match self {
            ReplayClass::Tid(tid) => tid & 0x0f,
            _ => 0,
        }
    }
}

/// Check that a frame can be protected: management or data, version 0.
pub fn check_protectable<T: AsRef<[u8]>>(frame: &Frame<T>) -> Result<()> {
    let fc = frame.frame_control();
    if fc.is_data() || fc.is_management() {
        Ok(())
    } else {
        Err(Error::Unsupported("only data and management frames can be protected"))
    }
}

/// Make room for a suite's security header in the plaintext MPDU in `buf[..mpdu_len]`: check
/// the frame can be protected and that `buf` has room for `security_header` and a trailer of
/// `trailer_len` octets, set Protected, move the body behind the MAC header to open a gap,
/// and write `security_header` into it. Returns the MAC header length. Every suite frames
/// its MPDUs this way (IEEE 802.11-2016 12.3.2.2, 12.5.2.2, 12.5.3.2, 12.5.5.2).
pub(crate) fn insert_security_header(
    buf: &mut [u8],
    mpdu_len: usize,
    rules: Rules,
    security_header: &[u8],
    trailer_len: usize,
) -> Result<usize> {
    let (h, ()) = open_security_gap(buf, mpdu_len, rules, security_header, trailer_len, false, |_| ())?;
    Ok(h)
}

/// `insert_security_header`, with `read` run on the checked plaintext MAC header before it
/// changes (so that the header is parsed once). With `headroom` the plaintext MPDU starts
/// `security_header.len()` octets into `buf` and the MAC header moves forward into that
/// head room instead of the body back, so the protected MPDU starts at `buf[0]` either way
/// and the body stays where it is (a copy of a few octets instead of the whole body).
fn open_security_gap<R>(
    buf: &mut [u8],
    mpdu_len: usize,
    rules: Rules,
    security_header: &[u8],
    trailer_len: usize,
    headroom: bool,
    read: impl FnOnce(&Frame<&mut [u8]>) -> R,
) -> Result<(usize, R)> {
    let gap = security_header.len();
    let out_len = mpdu_len + gap + trailer_len;
    if buf.len() < out_len {
        return Err(Error::BufferTooSmall { needed: out_len, got: buf.len() });
    }
    let start = if headroom { gap } else { 0 };
    let frame = Frame::new_checked(&mut buf[start..start + mpdu_len], rules)?;
    check_protectable(&frame)?;
    let read = read(&frame);
    let fc = frame.frame_control().with_flag(FrameControl::PROTECTED, true);
    let h = frame.header_len();
    match headroom {
        true => move_header(buf, gap, 0, h),
        false => buf.copy_within(h..mpdu_len, h + gap),
    }
    // Protected is set where the header ends up, after the move: set before, its 2-octet
    // store would stall the move's block loads.
    *buf.first_chunk_mut().expect("a checked MAC header") = fc.to_bytes();
    buf[h..h + gap].copy_from_slice(security_header);
    Ok((h, read))
}

/// Move the `len`-octet MAC header at `buf[from..]` to `buf[to..]` (the two may overlap):
/// two overlapping fixed-size block copies, both read before either is written, instead of
/// a call to a variable-length memmove. MAC headers are 24 to 36 octets.
#[inline(always)]
fn move_header(buf: &mut [u8], from: usize, to: usize, len: usize) {
    #[inline(always)]
    fn blocks<const N: usize>(buf: &mut [u8], from: usize, to: usize, len: usize) {
        let head: [u8; N] = *buf[from..].first_chunk().expect("a whole MAC header");
        let tail: [u8; N] = *buf[..from + len].last_chunk().expect("a whole MAC header");
        *buf[to..].first_chunk_mut().expect("room for the MAC header") = head;
        *buf[..to + len].last_chunk_mut().expect("room for the MAC header") = tail;
    }
    debug_assert!((16..=64).contains(&len), "a MAC header");
    match len <= 32 {
        true => blocks::<16>(buf, from, to, len),
        false => blocks::<32>(buf, from, to, len),
    }
}

/// The protected MPDU that is all of `buf`, checked to be a data or management frame with
/// Protected set and at least `overhead` octets (security header and trailer) after its MAC
/// header; `what` names the suite in the error.
pub(crate) fn protected_frame<'a>(
    buf: &'a [u8],
    rules: Rules,
    overhead: usize,
    what: &'static str,
) -> Result<Frame<&'a [u8]>> {
    let frame = Frame::new_checked(buf, rules)?;
    check_protectable(&frame)?;
    if !frame.frame_control().protected() {
        return Err(Error::NotProtected);
    }
    let needed = frame.header_len() + overhead;
    if buf.len() < needed {
        return Err(Error::Truncated { what, needed, got: buf.len() });
    }
    Ok(frame)
}

/// Where the AEAD inputs of one CCMP/GCMP MPDU are, once its framing is done.
pub(crate) struct Prepared<N> {
    /// The suite's nonce (CCMP's inside its counter block A_0, GCMP's 12 octets).
    pub nonce: N,
    pub aad: Aad,
    /// The data octets (plaintext or ciphertext) inside the buffer; the MIC follows them.
    pub data: core::ops::Range<usize>,
}

/// Turn the plaintext MPDU in `buf[..mpdu_len]` into a protected one awaiting encryption:
/// Protected bit set, PN header inserted, data moved behind it, room for a `mic_len`-octet
/// MIC behind the data. `nonce` builds the suite's nonce from the MAC header and the PN.
/// Returns the layout and the protected length. With `headroom` the plaintext MPDU is
/// `buf[PN_HEADER_LEN..][..mpdu_len]` and its MAC header moves instead of its data (see
/// `open_security_gap`); the protected MPDU starts at `buf[0]` either way.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn prepare_encapsulate<N>(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
    mic_len: usize,
    headroom: bool,
    nonce: impl FnOnce(&MacHeader, Pn) -> N,
) -> Result<(Prepared<N>, usize)> {
    let mut pn_header = [0u8; PN_HEADER_LEN];
    PnHeader { pn, key_id }.emit(&mut pn_header)?;
    // The AAD sets Protected itself, and the nonce does not read it: both can come from
    // the plaintext header.
    let (h, (nonce, aad)) = open_security_gap(buf, mpdu_len, rules, &pn_header, mic_len, headroom, |frame| {
        let header = MacHeader::of(frame);
        (nonce(&header, pn), Aad::of(&header, rules))
    })?;
    let out_len = mpdu_len + PN_HEADER_LEN + mic_len;
    let data = h + PN_HEADER_LEN..out_len - mic_len;
    Ok((Prepared { nonce, aad, data }, out_len))
}

/// Check and parse the protected MPDU that is all of `buf`, the inverse of
/// `prepare_encapsulate` (`what` names the suite in errors).
#[inline(always)]
pub(crate) fn prepare_decapsulate<N>(
    buf: &[u8],
    rules: Rules,
    mic_len: usize,
    what: &'static str,
    nonce: impl FnOnce(&MacHeader, Pn) -> N,
) -> Result<(Prepared<N>, Peeked)> {
    let (frame, pn_header) = parse_protected(buf, rules, mic_len, what)?;
    let header = MacHeader::of(&frame);
    let peeked = pn_header.peeked(&header);
    let aad = Aad::of(&header, rules);
    let nonce = nonce(&header, peeked.pn);
    let data = frame.header_len() + PN_HEADER_LEN..buf.len() - mic_len;
    Ok((Prepared { nonce, aad, data }, peeked))
}

/// Where the plaintext MPDU ends up when `finish_decapsulate` closes the PN header's gap.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Gap {
    /// The data moves back over the PN header: the MPDU is `buf[..mpdu_len]`.
    DataBack,
    /// The MAC header moves forward over the PN header, the data stays (a pooled buffer
    /// with head room): the MPDU is `buf[PN_HEADER_LEN..][..mpdu_len]`.
    HeaderForward,
    /// The buffer holds no PN header (a receiver copied the MPDU in without it): only
    /// Protected is cleared, nothing moves; the MPDU is `buf[..mpdu_len]`.
    None,
}

/// After the MIC verified and the data was decrypted in place: clear Protected and close
/// the gap of the PN header as `gap` says. `buf` holds the MAC header that
/// `prepare_decapsulate` parsed, with the data at `data` (`Prepared::data`), so it is not
/// parsed again.
// Inlined like the rest of the receive path: as a call it cost the sharded engine's
// unprotect about 2% (measured with `wlansec bench ccmp`).
#[inline]
pub(crate) fn finish_decapsulate(
    buf: &mut [u8],
    data: core::ops::Range<usize>,
    peeked: Peeked,
    gap: Gap,
) -> Result<Decapsulated> {
    let h = data.start - PN_HEADER_LEN;
    let needed = match gap {
        Gap::None => h + data.len(),
        _ => data.end,
    };
    let Some(&fc) = buf.get(..needed).and_then(|mpdu| mpdu.first_chunk::<2>()) else {
        return Err(Error::BufferTooSmall { needed, got: buf.len() });
    };
    let fc = FrameControl(u16::from_le_bytes(fc)).with_flag(FrameControl::PROTECTED, false).to_bytes();
    // Protected is cleared after the move, where the header ends up: cleared before, its
    // 2-octet store would stall the header move's block loads.
    let header_at = match gap {
        Gap::DataBack => {
            buf.copy_within(data.clone(), h);
            0
        }
        Gap::HeaderForward => {
            move_header(buf, 0, PN_HEADER_LEN, h);
            PN_HEADER_LEN
        }
        Gap::None => 0,
    };
    *buf[header_at..].first_chunk_mut().expect("the MAC header, checked above") = fc;
    Ok(Decapsulated { mpdu_len: h + data.len(), pn: peeked.pn, key_id: peeked.key_id, class: peeked.class })
}

/// Read the PN header of a protected CCMP/GCMP MPDU (`what` names the suite in errors).
pub(crate) fn peek(buf: &[u8], rules: Rules, mic_len: usize, what: &'static str) -> Result<Peeked> {
    let (frame, pn_header) = parse_protected(buf, rules, mic_len, what)?;
    Ok(pn_header.peeked(&MacHeader::of(&frame)))
}

/// The one parse of a protected CCMP/GCMP MPDU: its checked MAC header and its PN header.
#[inline]
fn parse_protected<'b>(
    buf: &'b [u8],
    rules: Rules,
    mic_len: usize,
    what: &'static str,
) -> Result<(Frame<&'b [u8]>, PnHeader)> {
    let frame = protected_frame(buf, rules, PN_HEADER_LEN + mic_len, what)?;
    let pn_header = PnHeader::parse(frame.body())?;
    Ok((frame, pn_header))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, ChaCha8Rng, SeedableRng, Shapes};

    /// The AAD octet by octet as IEEE 802.11-2016 12.5.3.3.3 lists its fields.
    fn field_by_field_aad<T: AsRef<[u8]>>(frame: &Frame<T>, rules: Rules) -> Vec<u8> {
        let h = frame.header();
        let fc = frame.frame_control();
        // Subtype bits 4..6 (data only); Retry, Power Management, More Data; Protected;
        // Order when there is a QoS Control field and +HTC is understood.
        let fc0 = if fc.is_data() { h[0] & !0x70 } else { h[0] };
        let mut fc1 = (h[1] & !(0x08 | 0x10 | 0x20)) | 0x40;
        if frame.qos_control().is_some() && rules.ht_control {
            fc1 &= !0x80;
        }
        let mut aad = vec![fc0, fc1];
        aad.extend_from_slice(&h[4..22]); // A1, A2, A3
        aad.extend_from_slice(&[h[22] & 0x0f, 0]); // SC: fragment number only
        if let Some(a4) = frame.addr4() {
            aad.extend_from_slice(&a4.0);
        }
        if let Some(qc) = frame.qos_control() {
            let amsdu = rules.spp_amsdu && rules.ht_control;
            aad.extend_from_slice(&[qc.0 as u8 & if amsdu { 0x8f } else { 0x0f }, 0]);
        }
        aad
    }

    /// `move_header`'s two fixed-size block copies move every MAC header length (and every
    /// length they take) as a plain `copy_within` does, forward and back, over the octets
    /// around it.
    #[test]
    fn header_move_matches_copy_within_for_every_length() {
        for len in 16..=64 {
            for (from, to) in [(PN_HEADER_LEN, 0), (0, PN_HEADER_LEN), (3, 3)] {
                let original: Vec<u8> = (1..=len as u8 + 2 * PN_HEADER_LEN as u8).collect();
                let (mut moved, mut expected) = (original.clone(), original);
                move_header(&mut moved, from, to, len);
                expected.copy_within(from..from + len, to);
                assert_eq!(moved, expected, "{len} octets from {from} to {to}");
            }
        }
    }

    /// `Aad::of` composes the AAD in words: it must give the field-by-field octets for
    /// every header shape (A4, QoS, +HTC, management) under every rule set.
    #[test]
    fn aad_matches_the_field_by_field_construction() {
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        let mut lengths = std::collections::BTreeSet::new();
        let mut mpdu = Vec::new();
        for _ in 0..4000 {
            mpdu.clear();
            gen::random_mpdu(&mut rng, Shapes::default(), 3, &mut mpdu);
            for (ht_control, spp_amsdu) in [(true, false), (true, true), (false, false), (false, true)] {
                let rules = Rules { ht_control, spp_amsdu };
                let frame = Frame::new_checked(&mpdu[..], rules).unwrap();
                let aad = Aad::new(&frame, rules);
                assert_eq!(aad.as_slice(), field_by_field_aad(&frame, rules), "{:02x?} {rules:?}", frame.header());
                assert!(aad.bytes[aad.len..].iter().all(|&b| b == 0), "padding stays zero");
                lengths.insert((frame.header_len(), aad.len, frame.frame_control().is_management()));
            }
        }
        let shapes = [(24, 22, false), (24, 22, true), (26, 24, false), (30, 24, false), (30, 28, false)];
        let more = [(28, 22, true), (32, 30, false), (36, 30, false)];
        assert!(shapes.iter().chain(&more).all(|s| lengths.contains(s)), "every shape seen: {lengths:?}");
    }

    #[test]
    fn pn_header_layout_matches_the_standard_example() {
        let header = PnHeader { pn: Pn::new(0xb503_9776_e70c).unwrap(), key_id: 0 };
        let mut out = [0u8; 8];
        header.emit(&mut out).unwrap();
        assert_eq!(out, [0x0c, 0xe7, 0x00, 0x20, 0x76, 0x97, 0x03, 0xb5]);
        assert_eq!(PnHeader::parse(&out).unwrap(), header);
    }

    #[test]
    fn pn_header_refuses_bad_input() {
        assert_eq!(PnHeader::parse(&[0x0c, 0xe7, 0x00, 0x00, 0, 0, 0, 0]), Err(Error::ExtIvNotSet));
        assert!(matches!(PnHeader::parse(&[0; 7]), Err(Error::Truncated { .. })));
        let bad = PnHeader { pn: Pn::new(1).unwrap(), key_id: 4 };
        assert!(bad.emit(&mut [0; 8]).is_err());
        assert!(Pn::new(1 << 48).is_err());
    }

    /// `finish_decapsulate` works from the layout `prepare_decapsulate` found, without
    /// parsing the header again: a buffer too short for that layout is a typed error.
    #[test]
    fn finish_refuses_a_buffer_shorter_than_the_prepared_layout() {
        let mut mpdu = vec![0u8; 26 + PN_HEADER_LEN + 4 + 8];
        mpdu[0] = 0x88; // QoS data
        mpdu[1] = 0x40; // Protected
        mpdu[26 + 3] = EXT_IV;
        let (prepared, peeked) = prepare_decapsulate(&mpdu, Rules::default(), 8, "test", |_, _| [0u8; 13]).unwrap();
        assert_eq!(prepared.data, 34..38);
        for gap in [Gap::DataBack, Gap::HeaderForward, Gap::None] {
            let short = &mut mpdu.clone()[..25];
            let result = finish_decapsulate(short, prepared.data.clone(), peeked, gap);
            assert!(matches!(result, Err(Error::BufferTooSmall { got: 25, .. })), "{gap:?}: {result:?}");
        }
        let done = finish_decapsulate(&mut mpdu, prepared.data, peeked, Gap::DataBack).unwrap();
        assert_eq!((done.mpdu_len, mpdu[1]), (30, 0x00), "Protected cleared, data behind the MAC header");
    }
}
