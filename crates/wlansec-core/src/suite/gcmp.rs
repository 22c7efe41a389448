//! GCMP (IEEE 802.11-2016 12.5.5): AES-GCM with a 12-octet nonce `A2 || PN5..PN0`, the
//! same masked-header AAD and 8-octet PN header as CCMP, and a 16-octet MIC.
//!
//! Protected MPDU: `MAC header | PN0 PN1 0 KeyID|ExtIV PN2..PN5 | encrypted data | MIC`.

use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInOut, KeyInit, Nonce, Tag};
use aes_gcm::{Aes128Gcm, Aes256Gcm};

use crate::error::{Error, Result};
use crate::suite::mpdu::{self, MacHeader, Pn, PN_HEADER_LEN};
use crate::suite::{Decapsulated, FrameSuite, Peeked};
use crate::wire::{Frame, Rules};

/// Octets of the GCMP MIC.
pub const MIC_LEN: usize = 16;
const WHAT: &str = "GCMP MPDU";

/// GCMP keyed with one temporal key.
pub struct Gcmp<A> {
    aead: A,
    rules: Rules,
}

/// GCMP-128: AES-128-GCM, 16-octet TK.
pub type Gcmp128 = Gcmp<Aes128Gcm>;
/// GCMP-256: AES-256-GCM, 32-octet TK.
pub type Gcmp256 = Gcmp<Aes256Gcm>;

impl<A: GcmAead> Gcmp<A> {
    pub fn new(tk: &[u8]) -> Result<Self> {
        let aead = A::new_from_slice(tk).map_err(|_| Error::KeyLength { expected: A::key_size(), got: tk.len() })?;
        Ok(Gcmp { aead, rules: Rules::default() })
    }

    /// Use another edition's header and AAD rules.
    pub fn with_rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    /// The AES-GCM inside, for callers that frame the nonce and AAD themselves.
    pub fn aead(&self) -> &A {
        &self.aead
    }

    /// AES-GCM over `data` in place with explicit nonce and AAD; returns the MIC. For
    /// checking published vectors whose AAD does not follow the rule (see
    /// tests/vectors/README.md §5.3).
    pub fn seal_raw(&self, nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Result<[u8; MIC_LEN]> {
        let tag = self
            .aead
            .encrypt_inout_detached(&Nonce::<A>::from(*nonce), aad, data.into())
            .map_err(|_| Error::Unsupported("GCM input longer than the mode allows"))?;
        let mut out = [0u8; MIC_LEN];
        out.copy_from_slice(&tag);
        Ok(out)
    }
}

/// An AES-GCM with GCMP's 96-bit nonce and 128-bit tag.
pub trait GcmAead: AeadInOut<NonceSize = U12, TagSize = U16> + KeyInit {}
impl<A: AeadInOut<NonceSize = U12, TagSize = U16> + KeyInit> GcmAead for A {}

/// The 12-octet GCM nonce: A2 || PN5..PN0 (no flags octet, hence no priority).
pub fn nonce<T: AsRef<[u8]>>(frame: &Frame<T>, pn: Pn) -> Result<[u8; 12]> {
    frame.addr2().ok_or(Error::Unsupported("frame without Address 2"))?;
    Ok(nonce_of(&MacHeader::of(frame), pn))
}

/// `nonce` from a header already parsed (data or management: Address 2 is there).
fn nonce_of(header: &MacHeader, pn: Pn) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..6].copy_from_slice(header.addr2());
    n[6..].copy_from_slice(&pn.to_be_bytes());
    n
}

impl<A: GcmAead> FrameSuite for Gcmp<A> {
    fn overhead(&self) -> usize {
        PN_HEADER_LEN + MIC_LEN
    }

    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        let (prepared, out_len) =
            mpdu::prepare_encapsulate(buf, mpdu_len, pn, key_id, self.rules, MIC_LEN, false, nonce_of)?;
        let (data, mic) = buf[prepared.data.start..out_len].split_at_mut(prepared.data.len());
        mic.copy_from_slice(&self.seal_raw(&prepared.nonce, prepared.aad.as_slice(), data)?);
        Ok(out_len)
    }

    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        mpdu::peek(buf, self.rules, MIC_LEN, WHAT)
    }

    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        let (prepared, peeked) = mpdu::prepare_decapsulate(buf, self.rules, MIC_LEN, WHAT, nonce_of)?;
        let (data, mic) = buf[prepared.data.start..].split_at_mut(prepared.data.len());
        let tag = Tag::<A>::try_from(&*mic).map_err(|_| Error::MicFailure)?;
        self.aead
            .decrypt_inout_detached(&Nonce::<A>::from(prepared.nonce), prepared.aad.as_slice(), data.into(), &tag)
            .map_err(|_| Error::MicFailure)?;
        mpdu::finish_decapsulate(buf, prepared.data, peeked, mpdu::Gap::DataBack)
    }
}
