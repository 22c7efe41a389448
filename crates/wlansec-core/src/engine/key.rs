//! An engine key: the temporal key, the mode it was negotiated for (CCMP-128 or Enhanced
//! CCMP-N), and its AES-128 schedules. The one place keys are expanded: the kernels only
//! read the schedule they need (the `aes` crate's for the portable kernel, the round keys
//! for AES-NI and VAES).

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
            // SAFETY: `expand_key` needs only AES-NI, which is present (checked just above).
            unsafe { expand_key(tk, &mut round_keys) };
        }
        Ok(Key { soft, round_keys, mode })
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
}

/// AES-128 key expansion with AESKEYGENASSIST.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "aes")]
fn expand_key(tk: &[u8; 16], out: &mut RoundKeys) {
    use core::arch::x86_64::*;

    #[target_feature(enable = "aes")]
    #[inline]
    fn step(key: __m128i, assist: __m128i) -> __m128i {
        let assist = _mm_shuffle_epi32::<0xff>(assist);
        let mut key = key;
        key = _mm_xor_si128(key, _mm_slli_si128::<4>(key));
        key = _mm_xor_si128(key, _mm_slli_si128::<4>(key));
        key = _mm_xor_si128(key, _mm_slli_si128::<4>(key));
        _mm_xor_si128(key, assist)
    }
    // SAFETY: `tk` is 16 readable octets.
    let mut k = unsafe { _mm_loadu_si128(tk.as_ptr().cast()) };
    let mut keys = [k; 11];
    macro_rules! round {
        ($i:expr, $rcon:expr) => {
            k = step(k, _mm_aeskeygenassist_si128::<$rcon>(k));
            keys[$i] = k;
        };
    }
    round!(1, 0x01);
    round!(2, 0x02);
    round!(3, 0x04);
    round!(4, 0x08);
    round!(5, 0x10);
    round!(6, 0x20);
    round!(7, 0x40);
    round!(8, 0x80);
    round!(9, 0x1b);
    round!(10, 0x36);
    for (dst, key) in out.0.iter_mut().zip(keys) {
        // SAFETY: `dst` is 16 writable octets.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), key) };
    }
}
