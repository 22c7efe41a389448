//! The transmit side of the generator's keys.

use crate::error::Result;
use crate::registry::SuiteId;
use crate::rsn::CipherSuite;
use crate::suite::{FrameSuite, PnCounter, Tkip, Transmitter};
use crate::wire::{Frame, HeaderRepr, Rules};

/// The transmit side of one key. TKIP stands apart: the Michael MIC is added to the MSDU
/// before it is fragmented, and each fragment is then encrypted on its own.
pub(super) enum Tx {
    Frame(Transmitter<Box<dyn FrameSuite>>),
    Tkip { tkip: Tkip, pn: PnCounter, key_id: u8 },
}

impl Tx {
    pub(super) fn new(cipher: CipherSuite, key: &[u8], key_id: u8) -> Result<Self> {
        Ok(match cipher {
            CipherSuite::Tkip => Tx::Tkip { tkip: Tkip::new(key)?, pn: PnCounter::default(), key_id },
            _ => Tx::Frame(Transmitter::new(SuiteId::from_cipher(cipher)?.keyed(key, Rules::default())?, key_id)),
        })
    }

    /// Protect a whole MSDU's MPDU (`fragment` false) or one fragment of an MSDU that
    /// already carries its Michael MIC.
    pub(super) fn protect(&mut self, buf: &mut [u8], mpdu_len: usize, fragment: bool) -> Result<usize> {
        match self {
            Tx::Frame(tx) => tx.protect(buf, mpdu_len),
            Tx::Tkip { tkip, pn, key_id } if fragment => tkip.encapsulate_mpdu(buf, mpdu_len, pn.next_pn()?, *key_id),
            Tx::Tkip { tkip, pn, key_id } => tkip.encapsulate(buf, mpdu_len, pn.next_pn()?, *key_id),
        }
    }

    /// The Michael MIC to append to an MSDU before fragmenting it (TKIP only).
    pub(super) fn michael(&self, header: &HeaderRepr, msdu: &[u8]) -> Result<Option<[u8; 8]>> {
        let Tx::Tkip { tkip, .. } = self else {
            return Ok(None);
        };
        let mut mpdu = vec![0u8; header.header_len()];
        header.emit(&mut mpdu, Rules::default())?;
        mpdu.extend_from_slice(msdu);
        let frame = Frame::new_checked(&mpdu[..], Rules::default())?;
        tkip.msdu_mic(&frame, msdu, true).map(Some)
    }
}
