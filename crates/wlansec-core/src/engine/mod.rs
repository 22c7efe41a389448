//! The host-offload engine: fast CCMP-128 and the Enhanced CCMP-N mode.
//!
//! * [`batch`]: the [`Engine`] (run-time backend dispatch), single-frame and multi-buffer
//!   seal/open, MPDU batches, and [`FastCcmp`], the engine as a `FrameSuite`.
//! * [`enhanced`]: Enhanced CCMP-N (reference model, RSN selectors, negotiation).
//! * [`framing`]: `suite::ccmp`'s framing with the engine's MIC length, for the batch
//!   paths. The engine's suites ([`EnhancedCcmp`], [`FastCcmp`]) are `suite::Ccmp` around
//!   an engine `suite::Sealer`, so CCMP framing exists once.
//! * [`key`]: engine keys (TK, mode, AES schedules).
//! * [`percore`]: the per-core engine: one pinned worker per core behind a submission and
//!   a completion ring (submit a burst of frames, poll completions), each worker owning its
//!   stations' keys, PN and replay counters, so each station's frames stay in order.
//! * [`sharded`]: the multi-core engine as whole calls ([`sharded::FrameBatch`]) on `percore`.
//!
//! Backends ([`Backend`], chosen at run time): `portable` (the `aes` crate), `aesni` (AES-NI,
//! also built with AVX-512VL for 32 registers) and `vaes`: four lanes per 512-bit VAESENC
//! where the CPU has AVX-512 (`Avx512Vaes`), two lanes per 256-bit VAESENC where it has VAES
//! and AVX2 but no AVX-512 (`Avx2Vaes`, e.g. Zen 3). Each implements `kernel::Kernel` on
//! registers of one, two or four lanes; batches run through the lane scheduler in `lanes`,
//! single frames (CCMP-128 and Enhanced CCMP-N) through `stitched`, whose loop keeps the
//! round keys and every lane's state in registers.
//!
//! Unsafe code: a kernel value is the proof that the CPU has its features (the accelerated
//! ones are made only by a safe `#[target_feature]` constructor, reached after
//! `Backend::is_available`), so the kernels' register methods are safe. What stays `unsafe`
//! is the entry from the dispatcher and the loads and stores through raw pointers into the
//! frames' data, each block with a `SAFETY` comment stating why it is in bounds.
//!
//! Module dependencies: each module uses only modules below it, so there is no cycle.
//!
//! ```text
//! sharded
//!    └─► percore                           (rings, workers; a worker frames and batches)
//!          └─► batch ────────────────────────► framing ─► crate::suite::ccmp (the framing)
//!                └─► aesni, vaes, portable (kernels: implement kernel::Kernel)
//!                      └─► stitched, lanes (one frame; the multi-buffer lane scheduler)
//!                            └─► kernel    (the Kernel trait, the frame task, block helpers)
//!                                  └─► key (TK, mode, AES schedules, expanded here only)
//!                                        └─► enhanced (reference model, Ways, Variant, constants)
//! ```

#[cfg(target_arch = "x86_64")]
mod aesni;
pub mod batch;
pub mod enhanced;
pub mod framing;
mod kernel;
pub mod key;
mod lanes;
pub mod percore;
mod portable;
pub mod sharded;
mod stitched;
#[cfg(target_arch = "x86_64")]
mod vaes;

pub use batch::{Backend, Engine, FastCcmp, Job, MpduJob};
pub use enhanced::{EnhancedCcm, Variant, Ways};
pub use key::{Key, Mode};

use crate::error::Result;
use crate::suite::{Ccmp, Sealer};
use enhanced::{MIC_LEN, NONCE_LEN};

/// Enhanced CCMP-N as a frame suite (reference model; MPDU layout identical to CCMP-128).
pub type EnhancedCcmp = Ccmp<EnhancedCcm, MIC_LEN>;

impl EnhancedCcmp {
    /// Key Enhanced CCMP-N with a 16-octet temporal key.
    pub fn keyed(tk: &[u8], ways: Ways, variant: Variant) -> Result<Self> {
        Ok(Ccmp::from_sealer(EnhancedCcm::new(tk, ways, variant)?))
    }
}

impl Sealer<MIC_LEN> for EnhancedCcm {
    fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &mut [u8; MIC_LEN]) -> Result<()> {
        EnhancedCcm::seal(self, nonce, aad, data, mic)
    }
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &[u8; MIC_LEN]) -> Result<()> {
        EnhancedCcm::open(self, nonce, aad, data, mic)
    }
}
