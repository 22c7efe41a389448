//! An engine key: the temporal key, the mode it was negotiated for (CCMP-128 or Enhanced
//! CCMP-N), and its AES-128 schedule for each backend.

use aes::cipher::KeyInit;
use aes::Aes128;
use zeroize::Zeroize;

use crate::error::{Error, Result};

use super::enhanced::{Variant, Ways};

/// CCMP-128 (`Ways::N1`) or Enhanced CCMP-N and its variant.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub struct Mode {
    pub ways: Ways,
    pub variant: Variant,
}

impl Mode {
    pub const CCMP128: Mode = Mode { ways: Ways::N1, variant: Variant::DomainSeparated };

    pub fn enhanced(ways: Ways) -> Self {
        Mode { ways, variant: Variant::DomainSeparated }
    }
}

/// AES-128 round keys, 16-octet aligned so the accelerated kernels can load them directly.
#[derive(Clone, Zeroize)]
#[repr(C, align(16))]
pub(crate) struct RoundKeys(pub(crate) [[u8; 16]; 11]);

/// A temporal key ready for the engine. Key material is zeroized on drop.
pub struct Key {
    pub(crate) soft: Aes128,
    /// Filled only when the CPU has AES-NI (expanded with AESKEYGENASSIST).
    pub(crate) round_keys: RoundKeys,
    pub(crate) mode: Mode,
}

impl Drop for Key {
    fn drop(&mut self) {
        self.round_keys.zeroize();
    }
}

impl Key {
    pub fn new(tk: &[u8], mode: Mode) -> Result<Self> {
        let tk: &[u8; 16] = tk.try_into().map_err(|_| Error::KeyLength { expected: 16, got: tk.len() })?;
        let soft = Aes128::new(tk.into());
        let mut round_keys = RoundKeys([[0; 16]; 11]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("aes") {
            // SAFETY: AES-NI is present (checked just above).
            unsafe { super::aesni::expand_key(tk, &mut round_keys) };
        }
        Ok(Key { soft, round_keys, mode })
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
}
