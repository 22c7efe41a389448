//! CCMP (IEEE 802.11-2016 12.5.3): CCM with a 13-octet nonce built from the frame, the
//! masked MAC header as AAD, an 8-octet PN header and an 8-octet (CCMP-128) or 16-octet
//! (CCMP-256) MIC.
//!
//! Protected MPDU: `MAC header | PN0 PN1 0 KeyID|ExtIV PN2..PN5 | encrypted data | MIC`.
//!
//! The one CCMP framing (nonce, counter block A_0, AAD and PN header through `mpdu`, the
//! length limit): [`Ccmp`] puts it around any [`Sealer`] (a CCM-like cipher with CCMP's
//! nonce), so the reference suites (the golden model `crate::ccm::Ccm`) and the engine's
//! (Enhanced CCMP-N, the fast CCMP-128) produce the same MPDUs; the engine's batched paths
//! (through `engine::framing`, at CCMP-128's MIC length) and the receive pipeline call
//! `prepare_encapsulate`, `prepare_decapsulate` and `open_prepared` here too.

use aes::cipher::{consts::U16, BlockCipherEncrypt, KeyInit};
use aes::{Aes128, Aes256};

use crate::ccm::Ccm;
use crate::error::{Error, Result};
use crate::suite::mpdu::{self, MacHeader, Pn, PN_HEADER_LEN};
use crate::suite::{Decapsulated, FrameSuite, Peeked};
use crate::wire::{Frame, Rules};

/// CCMP's CCM nonce length (L = 2 length octets).
pub const NONCE_LEN: usize = 13;
/// The most data one CCMP MPDU carries: what CCM's 2-octet length field describes.
pub const MAX_PAYLOAD: usize = 0xffff;
/// Nonce Flags bit 4: a management frame (802.11w and later).
const NONCE_MANAGEMENT: u8 = 0x10;
const WHAT: &str = "CCMP MPDU";

/// An authenticated cipher with CCMP's nonce and a `MIC`-octet MIC, in place, detached MIC.
pub trait Sealer<const MIC: usize> {
    fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &mut [u8; MIC]) -> Result<()>;
    /// Verify and decrypt; on failure `data` is left as ciphertext and `MicFailure` returned.
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &[u8; MIC]) -> Result<()>;
}

/// A `Sealer` with a `MIC`-octet MIC inside CCMP framing: a `FrameSuite`.
pub struct Ccmp<S, const MIC: usize> {
    sealer: S,
    rules: Rules,
}

/// CCMP-128: AES-128, 16-octet TK, 8-octet MIC.
pub type Ccmp128 = Ccmp<Ccm<Aes128>, 8>;
/// CCMP-256: AES-256, 32-octet TK, 16-octet MIC.
pub type Ccmp256 = Ccmp<Ccm<Aes256>, 16>;

impl<S: Sealer<MIC>, const MIC: usize> Ccmp<S, MIC> {
    pub fn from_sealer(sealer: S) -> Self {
        Ccmp { sealer, rules: Rules::default() }
    }

    /// Use another edition's header and AAD rules (e.g. 802.11i-2004, SPP A-MSDU).
    pub fn with_rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The cipher inside, for callers that frame the nonce and AAD themselves.
    pub fn sealer(&self) -> &S {
        &self.sealer
    }
}

impl<C, const MIC: usize> Ccmp<Ccm<C>, MIC>
where
    C: BlockCipherEncrypt<BlockSize = U16> + KeyInit,
{
    /// The reference suite keyed with a temporal key of the cipher's key length.
    pub fn new(tk: &[u8]) -> Result<Self> {
        let cipher = C::new_from_slice(tk).map_err(|_| Error::KeyLength { expected: C::key_size(), got: tk.len() })?;
        Ok(Ccmp::from_sealer(Ccm::new(cipher)))
    }
}

impl<C: BlockCipherEncrypt<BlockSize = U16>, const MIC: usize> Sealer<MIC> for Ccm<C> {
    fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &mut [u8; MIC]) -> Result<()> {
        Ccm::seal(self, nonce, aad, data, mic)
    }
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &[u8; MIC]) -> Result<()> {
        Ccm::open(self, nonce, aad, data, mic)
    }
}

/// The 13-octet CCM nonce: Flags (priority, management) || A2 || PN5..PN0.
pub fn nonce<T: AsRef<[u8]>>(frame: &Frame<T>, pn: Pn) -> Result<[u8; NONCE_LEN]> {
    frame.addr2().ok_or(Error::Unsupported("frame without Address 2"))?;
    Ok(CounterBlock::of(&MacHeader::of(frame), pn).nonce())
}

/// CCM's counter block A_0 (RFC 3610 2.3 with L = 2: Flags 0x01 || nonce || counter 0), the
/// form in which the engine's kernels take the nonce: its 16 octets in order, so a kernel
/// loads it as one block. It is composed in registers and stored whole (one 16-octet store,
/// `with_nonce_bits`): as a 13-octet array written in pieces and copied on (by the
/// compiler, as two overlapping words), loads that spanned several recent stores stalled,
/// the framing's hottest instructions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct CounterBlock([u8; 16]);

impl CounterBlock {
    /// Flags 0x01 (L = 2) in the first octet, the nonce from the second, counter 0.
    #[inline(always)]
    fn with_nonce_bits(nonce: u128) -> Self {
        let block = (1 << 120) | (nonce << 16);
        // In one vector register, so that it is stored with one 16-octet store: as a u128 it
        // is two 8-octet stores, and a kernel's 16-octet load of it right after (one frame
        // per call) waits until both reach the cache (Enhanced-8 of 64 octets on a Zen 3:
        // about 20 cycles, 5 % of the frame; one frame of 64 octets 4.82 -> 4.53 cycles/byte).
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{__m128i, _mm_set_epi64x};
            let high = ((block >> 64) as u64).swap_bytes() as i64;
            let low = (block as u64).swap_bytes() as i64;
            // SAFETY: SSE2 is part of x86_64; __m128i and [u8; 16] have the same size and
            // every bit pattern is valid for both.
            CounterBlock(unsafe { core::mem::transmute::<__m128i, [u8; 16]>(_mm_set_epi64x(low, high)) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        CounterBlock(block.to_be_bytes())
    }

    /// A_0 of a header already parsed (data or management: Address 2 is there) and `pn`.
    #[inline(always)]
    pub(crate) fn of(header: &MacHeader, pn: Pn) -> Self {
        let management = header.frame_control().is_management();
        let flags = header.replay_class().priority() | if management { NONCE_MANAGEMENT } else { 0 };
        Self::with_nonce_bits(
            (u128::from(flags) << 96) | (u128::from(header.addr2_be()) << 48) | u128::from(pn.value()),
        )
    }

    /// A_0 of a 13-octet nonce, read in pieces that do not overlap: a 13-octet copy is two
    /// overlapping 8-octet stores, and a load of octets 5..13 spans both (a stall that made
    /// a 64-octet frame's `Job::new` cost 1.36 -> 1.46 cycles/byte in `wlansec bench ccmp`).
    #[inline(always)]
    pub(crate) fn from_nonce(nonce: &[u8; NONCE_LEN]) -> Self {
        let (head, tail) = nonce.split_first_chunk::<8>().expect("13 octets");
        let (middle, last) = tail.split_first_chunk::<4>().expect("5 octets");
        Self::with_nonce_bits(
            (u128::from(u64::from_be_bytes(*head)) << 40)
                | (u128::from(u32::from_be_bytes(*middle)) << 8)
                | u128::from(last[0]),
        )
    }

    /// The 13-octet CCM nonce inside.
    pub(crate) fn nonce(&self) -> [u8; NONCE_LEN] {
        *self.0[1..].first_chunk().expect("13 octets")
    }

    pub(crate) fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

/// Where the CCM inputs of one CCMP MPDU are, once its framing is done: the nonce inside
/// its counter block A_0.
pub(crate) type Prepared = mpdu::Prepared<CounterBlock>;

/// `mpdu::prepare_encapsulate` with CCMP's nonce and a `MIC`-octet MIC, refusing data the
/// CCM length field cannot describe (`check_payload`). Inlined, with the framing it calls,
/// so that the layout is built where the caller keeps it: returned through memory, its
/// fields' word stores stalled the block loads that copied it on.
#[inline(always)]
pub(crate) fn prepare_encapsulate<const MIC: usize>(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
    headroom: bool,
) -> Result<(Prepared, usize)> {
    let (prepared, out_len) =
        mpdu::prepare_encapsulate(buf, mpdu_len, pn, key_id, rules, MIC, headroom, CounterBlock::of)?;
    check_payload(prepared.data.len())?;
    Ok((prepared, out_len))
}

/// `mpdu::prepare_decapsulate` with CCMP's nonce and a `MIC`-octet MIC (inlined, as
/// `prepare_encapsulate`).
#[inline(always)]
pub(crate) fn prepare_decapsulate<const MIC: usize>(buf: &[u8], rules: Rules) -> Result<(Prepared, Peeked)> {
    mpdu::prepare_decapsulate(buf, rules, MIC, WHAT, CounterBlock::of)
}

/// The rest of a decapsulation once `prepare_decapsulate` parsed `buf` (and a receiver
/// checked the Key ID and the replay counter): `open` verifies and decrypts the data in
/// place, then the data moves back over the PN header (`Gap::DataBack`).
#[inline]
pub(crate) fn open_prepared<const MIC: usize>(
    buf: &mut [u8],
    prepared: Prepared,
    peeked: Peeked,
    open: impl FnOnce(&[u8; NONCE_LEN], &[u8], &mut [u8], &[u8; MIC]) -> Result<()>,
) -> Result<Decapsulated> {
    let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
    let mic: &[u8; MIC] = (&*mic).try_into().expect("MIC octets by construction");
    open(&prepared.nonce.nonce(), prepared.aad.as_slice(), data, mic)?;
    mpdu::finish_decapsulate(buf, prepared.data, peeked, mpdu::Gap::DataBack)
}

/// Why a CCMP MPDU cannot carry `len` octets of data, if it cannot: more than CCM's
/// 2-octet length field (L = 2) holds.
#[inline(always)]
pub(crate) fn check_payload(len: usize) -> Result<()> {
    match len > MAX_PAYLOAD {
        true => Err(Error::Unsupported("payload too long for the CCMP length field")),
        false => Ok(()),
    }
}

impl<S: Sealer<MIC>, const MIC: usize> FrameSuite for Ccmp<S, MIC> {
    fn overhead(&self) -> usize {
        PN_HEADER_LEN + MIC
    }

    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        let (prepared, out_len) = prepare_encapsulate::<MIC>(buf, mpdu_len, pn, key_id, self.rules, false)?;
        let (data, mic) = buf[prepared.data.start..out_len].split_at_mut(prepared.data.len());
        let mic: &mut [u8; MIC] = mic.try_into().expect("MIC octets by construction");
        self.sealer.seal(&prepared.nonce.nonce(), prepared.aad.as_slice(), data, mic)?;
        Ok(out_len)
    }

    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        mpdu::peek(buf, self.rules, MIC, WHAT)
    }

    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        let (prepared, peeked) = prepare_decapsulate::<MIC>(buf, self.rules)?;
        open_prepared::<MIC>(buf, prepared, peeked, |nonce, aad, data, mic| self.sealer.open(nonce, aad, data, mic))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes};

    /// `CounterBlock` composes the nonce in a word: it must give the octets of 12.5.3.3.4
    /// (Flags: priority, management; A2; PN5..PN0) for every header shape.
    #[test]
    fn nonce_matches_the_octet_layout() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut mpdu = Vec::new();
        for _ in 0..2000 {
            mpdu.clear();
            gen::random_mpdu(&mut rng, Shapes::default(), 3, &mut mpdu);
            let frame = Frame::new_checked(&mpdu[..], Rules::default()).unwrap();
            let pn = Pn::new(rng.next_u64() & Pn::MAX).unwrap();
            let priority = frame.qos_control().map_or(0, |qc| qc.tid());
            let flags = priority | if frame.frame_control().is_management() { 0x10 } else { 0 };
            let mut expected = vec![flags];
            expected.extend_from_slice(&frame.addr2().unwrap().0);
            expected.extend_from_slice(&pn.value().to_be_bytes()[2..]);
            assert_eq!(nonce(&frame, pn).unwrap().to_vec(), expected);
            // The two ways to A_0, from the header and from the nonce, are one block.
            let a0 = CounterBlock::of(&MacHeader::of(&frame), pn);
            assert_eq!(a0, CounterBlock::from_nonce(&nonce(&frame, pn).unwrap()));
            assert_eq!((a0.as_bytes()[0], &a0.as_bytes()[14..]), (0x01, &[0u8, 0][..]), "flags, counter 0");
        }
    }
}
