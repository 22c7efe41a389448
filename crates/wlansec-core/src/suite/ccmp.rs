//! CCMP (IEEE 802.11-2016 12.5.3): CCM with a 13-octet nonce built from the frame, the
//! masked MAC header as AAD, an 8-octet PN header and an 8-octet (CCMP-128) or 16-octet
//! (CCMP-256) MIC.
//!
//! Protected MPDU: `MAC header | PN0 PN1 0 KeyID|ExtIV PN2..PN5 | encrypted data | MIC`.
//!
//! The one CCMP framing: [`Ccmp`] puts it around any [`Sealer`] (a CCM-like cipher with
//! CCMP's nonce), so the reference suites (`crate::ccm::Ccm`) and the engine's (Enhanced
//! CCMP-N, the fast CCMP-128) produce the same MPDUs.

use aes::cipher::{consts::U16, BlockCipherEncrypt, KeyInit};
use aes::{Aes128, Aes256};

use crate::ccm::Ccm;
use crate::error::{Error, Result};
use crate::suite::mpdu::{self, MacHeader, Pn, PN_HEADER_LEN};
use crate::suite::{Decapsulated, FrameSuite, Peeked};
use crate::wire::{Frame, Rules};

/// CCMP's CCM nonce length (L = 2 length octets).
pub const NONCE_LEN: usize = 13;
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
    Ok(nonce_in(counter_block_0(&MacHeader::of(frame), pn)))
}

/// CCM's counter block A_0 (RFC 3610 2.3 with L = 2: Flags 0x01 || nonce || counter 0) as a
/// big-endian number, the form in which the engine's kernels take the nonce.
pub(crate) type CounterBlock = u128;

/// A_0 of a header already parsed (data or management: Address 2 is there), composed and
/// kept in registers. As a 13-octet array it was written in pieces and copied on (by the
/// compiler, as two overlapping words) with loads that spanned several recent stores and
/// stalled: the framing's hottest instructions.
fn counter_block_0(header: &MacHeader, pn: Pn) -> CounterBlock {
    let management = header.frame_control().is_management();
    let flags = header.replay_class().priority() | if management { NONCE_MANAGEMENT } else { 0 };
    // 0x01, nonce Flags, A2, PN5..PN0, counter 0.
    (1 << 120) | (u128::from(flags) << 112) | (u128::from(header.addr2_be()) << 64) | (u128::from(pn.value()) << 16)
}

/// The 13-octet CCM nonce in counter block `a0`.
fn nonce_in(a0: CounterBlock) -> [u8; NONCE_LEN] {
    *a0.to_be_bytes()[1..].first_chunk().expect("13 octets")
}

/// Where the CCM inputs of one CCMP MPDU are, once its framing is done: the nonce inside
/// its counter block A_0.
pub(crate) type Prepared = mpdu::Prepared<CounterBlock>;

impl Prepared {
    /// The 13-octet CCM nonce.
    pub(crate) fn ccm_nonce(&self) -> [u8; NONCE_LEN] {
        nonce_in(self.nonce)
    }
}

/// `mpdu::prepare_encapsulate` with CCMP's nonce and a `mic_len`-octet MIC. Inlined, with
/// the framing it calls, so that the layout is built where the caller keeps it: returned
/// through memory, its fields' word stores stalled the block loads that copied it on.
#[inline(always)]
pub(crate) fn prepare_encapsulate(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
    mic_len: usize,
    headroom: bool,
) -> Result<(Prepared, usize)> {
    mpdu::prepare_encapsulate(buf, mpdu_len, pn, key_id, rules, mic_len, headroom, counter_block_0)
}

/// `mpdu::prepare_decapsulate` with CCMP's nonce and a `mic_len`-octet MIC (inlined, as
/// `prepare_encapsulate`).
#[inline(always)]
pub(crate) fn prepare_decapsulate(buf: &[u8], rules: Rules, mic_len: usize) -> Result<(Prepared, Peeked)> {
    mpdu::prepare_decapsulate(buf, rules, mic_len, WHAT, counter_block_0)
}

impl<S: Sealer<MIC>, const MIC: usize> FrameSuite for Ccmp<S, MIC> {
    fn overhead(&self) -> usize {
        PN_HEADER_LEN + MIC
    }

    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        let (prepared, out_len) = prepare_encapsulate(buf, mpdu_len, pn, key_id, self.rules, MIC, false)?;
        let (data, mic) = buf[prepared.data.start..out_len].split_at_mut(prepared.data.len());
        let mic: &mut [u8; MIC] = mic.try_into().expect("MIC octets by construction");
        self.sealer.seal(&prepared.ccm_nonce(), prepared.aad.as_slice(), data, mic)?;
        Ok(out_len)
    }

    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        mpdu::peek(buf, self.rules, MIC, WHAT)
    }

    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        let (prepared, peeked) = prepare_decapsulate(buf, self.rules, MIC)?;
        let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
        let mic: &[u8; MIC] = (&*mic).try_into().expect("MIC octets by construction");
        self.sealer.open(&prepared.ccm_nonce(), prepared.aad.as_slice(), data, mic)?;
        mpdu::finish_decapsulate(buf, &prepared, peeked, mpdu::Gap::DataBack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes};

    /// `nonce_of` writes the nonce as two words: it must give the octets of 12.5.3.3.4
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
        }
    }
}
