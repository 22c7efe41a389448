//! The host-offload engine: fast CCMP-128 and the Enhanced CCMP-N mode.
//!
//! * [`enhanced`]: Enhanced CCMP-N (reference model, RSN selectors, negotiation).
//! * [`framing`]: CCMP framing around any sealer, so each engine suite is a `FrameSuite`.

pub mod enhanced;
pub mod framing;

pub use enhanced::{EnhancedCcm, Variant, Ways};
pub use framing::{Framed, Sealer};

use crate::error::Result;
use enhanced::{MIC_LEN, NONCE_LEN};

/// Enhanced CCMP-N as a frame suite (MPDU layout identical to CCMP-128).
pub type EnhancedCcmp = Framed<EnhancedCcm>;

impl EnhancedCcmp {
    /// Key Enhanced CCMP-N with a 16-octet temporal key.
    pub fn keyed(tk: &[u8], ways: Ways, variant: Variant) -> Result<Self> {
        Ok(Framed::new(EnhancedCcm::new(tk, ways, variant)?))
    }
}

impl Sealer for EnhancedCcm {
    fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &mut [u8; MIC_LEN]) -> Result<()> {
        EnhancedCcm::seal(self, nonce, aad, data, mic)
    }
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &[u8; MIC_LEN]) -> Result<()> {
        EnhancedCcm::open(self, nonce, aad, data, mic)
    }
}
