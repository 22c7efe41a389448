//! CCMP (IEEE 802.11-2016 12.5.3): CCM with a 13-octet nonce built from the frame, the
//! masked MAC header as AAD, an 8-octet PN header and an 8-octet (CCMP-128) or 16-octet
//! (CCMP-256) MIC.
//!
//! Protected MPDU: `MAC header | PN0 PN1 0 KeyID|ExtIV PN2..PN5 | encrypted data | MIC`.

use aes::cipher::{consts::U16, BlockCipherEncrypt, KeyInit};
use aes::{Aes128, Aes256};

use crate::ccm::Ccm;
use crate::error::{Error, Result};
use crate::suite::mpdu::{self, Pn, ReplayClass, PN_HEADER_LEN};
use crate::suite::{Decapsulated, FrameSuite, Peeked};
use crate::wire::{Frame, Rules};

/// Nonce Flags bit 4: a management frame (802.11w and later).
const NONCE_MANAGEMENT: u8 = 0x10;

/// CCMP keyed with one temporal key, with MIC length `MIC`.
pub struct Ccmp<C, const MIC: usize> {
    ccm: Ccm<C>,
    rules: Rules,
}

/// CCMP-128: AES-128, 16-octet TK, 8-octet MIC.
pub type Ccmp128 = Ccmp<Aes128, 8>;
/// CCMP-256: AES-256, 32-octet TK, 16-octet MIC.
pub type Ccmp256 = Ccmp<Aes256, 16>;

impl<C, const MIC: usize> Ccmp<C, MIC>
where
    C: BlockCipherEncrypt<BlockSize = U16> + KeyInit,
{
    /// Key the suite with a temporal key of the cipher's key length.
    pub fn new(tk: &[u8]) -> Result<Self> {
        let cipher = C::new_from_slice(tk).map_err(|_| Error::KeyLength { expected: C::key_size(), got: tk.len() })?;
        Ok(Ccmp { ccm: Ccm::new(cipher), rules: Rules::default() })
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

/// The 13-octet CCM nonce: Flags (priority, management) || A2 || PN5..PN0.
pub fn nonce<T: AsRef<[u8]>>(frame: &Frame<T>, pn: Pn) -> Result<[u8; 13]> {
    let a2 = frame.addr2().ok_or(Error::Unsupported("frame without Address 2"))?;
    let mut n = [0u8; 13];
    let class = ReplayClass::of(frame);
    n[0] = class.priority() | if frame.frame_control().is_management() { NONCE_MANAGEMENT } else { 0 };
    n[1..7].copy_from_slice(&a2.0);
    n[7..13].copy_from_slice(&pn.to_be_bytes());
    Ok(n)
}

impl<C, const MIC: usize> FrameSuite for Ccmp<C, MIC>
where
    C: BlockCipherEncrypt<BlockSize = U16> + KeyInit,
{
    fn overhead(&self) -> usize {
        PN_HEADER_LEN + MIC
    }

    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        mpdu::seal_in_place(buf, mpdu_len, pn, key_id, self.rules, MIC, |frame, aad, data, mic| {
            self.ccm.seal(&nonce(frame, pn)?, aad, data, mic)
        })
    }

    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        mpdu::peek(buf, self.rules, MIC, "CCMP MPDU")
    }

    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        mpdu::open_in_place(buf, self.rules, MIC, "CCMP MPDU", |frame, pn, aad, data, mic| {
            self.ccm.open(&nonce(frame, pn)?, aad, data, mic)
        })
    }
}
