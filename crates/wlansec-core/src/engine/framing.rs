//! The CCMP framing (PN header, masked-header AAD, nonce, 8-octet MIC behind the data) around
//! any CCM-like sealer with a 13-octet nonce, so the engine's suites (Enhanced CCMP-N, the
//! fast CCMP-128) are MPDU-compatible with `suite::Ccmp128` without repeating its framing.

use crate::error::Result;
use crate::suite::ccmp::nonce;
use crate::suite::mpdu::{self, Aad, Pn, PnHeader, PN_HEADER_LEN};
use crate::suite::{Decapsulated, FrameSuite, Peeked};
use crate::wire::{Frame, FrameControl, Rules};

use super::enhanced::{MIC_LEN, NONCE_LEN};

/// An authenticated cipher with CCMP's nonce and MIC lengths, in place, detached MIC.
pub trait Sealer {
    fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &mut [u8; MIC_LEN]) -> Result<()>;
    /// Verify and decrypt; on failure `data` is left as ciphertext and `MicFailure` returned.
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &[u8; MIC_LEN]) -> Result<()>;
}

/// A `Sealer` inside CCMP framing: a `FrameSuite`.
pub struct Framed<S> {
    sealer: S,
    rules: Rules,
}

impl<S: Sealer> Framed<S> {
    pub fn new(sealer: S) -> Self {
        Framed { sealer, rules: Rules::default() }
    }

    pub fn with_rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    pub fn sealer(&self) -> &S {
        &self.sealer
    }
}

/// Where the CCM inputs of one MPDU are, once its framing is done.
pub(crate) struct Prepared {
    pub nonce: [u8; NONCE_LEN],
    pub aad: Aad,
    /// The data octets (plaintext or ciphertext) inside the buffer.
    pub data: core::ops::Range<usize>,
}

/// Turn the plaintext MPDU in `buf[..mpdu_len]` into a protected one awaiting encryption:
/// Protected bit set, PN header inserted, data moved behind it. Returns the layout and the
/// protected length.
pub(crate) fn prepare_encapsulate(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
) -> Result<(Prepared, usize)> {
    let mut pn_header = [0u8; PN_HEADER_LEN];
    PnHeader { pn, key_id }.emit(&mut pn_header)?;
    let h = mpdu::insert_security_header(buf, mpdu_len, rules, &pn_header, MIC_LEN)?;
    let out_len = mpdu_len + PN_HEADER_LEN + MIC_LEN;
    let frame = Frame::new_checked(&buf[..h], rules)?;
    let aad = Aad::new(&frame, rules);
    let nonce = nonce(&frame, pn)?;
    let data = h + PN_HEADER_LEN..out_len - MIC_LEN;
    Ok((Prepared { nonce, aad, data }, out_len))
}

/// Check and parse the protected MPDU that is all of `buf`.
pub(crate) fn prepare_decapsulate(buf: &[u8], rules: Rules) -> Result<(Prepared, Peeked)> {
    let peeked = peek(buf, rules)?;
    let frame = Frame::new_checked(buf, rules)?;
    let aad = Aad::new(&frame, rules);
    let nonce = nonce(&frame, peeked.pn)?;
    let h = frame.header_len();
    let data = h + PN_HEADER_LEN..buf.len() - MIC_LEN;
    Ok((Prepared { nonce, aad, data }, peeked))
}

/// After the MIC verified and the data was decrypted in place: clear Protected and close
/// the gap of the PN header.
pub(crate) fn finish_decapsulate(
    buf: &mut [u8],
    rules: Rules,
    prepared: &Prepared,
    peeked: Peeked,
) -> Result<Decapsulated> {
    let mut frame = Frame::new_checked(&mut *buf, rules)?;
    frame.set_flag(FrameControl::PROTECTED, false)?;
    let h = frame.header_len();
    buf.copy_within(prepared.data.clone(), h);
    Ok(Decapsulated { mpdu_len: h + prepared.data.len(), pn: peeked.pn, key_id: peeked.key_id, class: peeked.class })
}

fn peek(buf: &[u8], rules: Rules) -> Result<Peeked> {
    mpdu::peek(buf, rules, MIC_LEN, "CCMP MPDU")
}

impl<S: Sealer> FrameSuite for Framed<S> {
    fn overhead(&self) -> usize {
        PN_HEADER_LEN + MIC_LEN
    }

    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        let (prepared, out_len) = prepare_encapsulate(buf, mpdu_len, pn, key_id, self.rules)?;
        let (data, mic) = buf[prepared.data.start..out_len].split_at_mut(prepared.data.len());
        let mic: &mut [u8; MIC_LEN] = mic.try_into().expect("MIC_LEN octets by construction");
        self.sealer.seal(&prepared.nonce, prepared.aad.as_slice(), data, mic)?;
        Ok(out_len)
    }

    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        peek(buf, self.rules)
    }

    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        let (prepared, peeked) = prepare_decapsulate(buf, self.rules)?;
        let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
        let mic: &[u8; MIC_LEN] = (&*mic).try_into().expect("MIC_LEN octets by construction");
        self.sealer.open(&prepared.nonce, prepared.aad.as_slice(), data, mic)?;
        finish_decapsulate(buf, self.rules, &prepared, peeked)
    }
}
