//! Anti-clogging tokens (IEEE 802.11-2020 12.4.6): past a threshold of open commits, the
//! access point answers a commit without a valid token by ANTI_CLOGGING_TOKEN_REQUIRED and a
//! token, before it derives any password element, so a flood of commits from forged
//! addresses costs it one HMAC each. token = HMAC-SHA256(secret, peer address); the secret
//! is replaced every [`AntiClogging::ROTATION_PERIOD`] seconds and the previous one still
//! accepted, so a token stays valid for one to two periods.

use core::fmt;

use rand_chacha::rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::keys::hmac;
use crate::rsn::kdf::KdfHash;
use crate::wire::MacAddr;

pub struct AntiClogging {
    threshold: usize,
    current: Zeroizing<[u8; 32]>,
    previous: Zeroizing<[u8; 32]>,
    rotate_at: u64,
}

impl AntiClogging {
    /// hostapd's default of dot11RSNASAEAntiCloggingThreshold.
    pub const DEFAULT_THRESHOLD: usize = 5;
    /// Seconds between secret rotations.
    pub const ROTATION_PERIOD: u64 = 60;

    pub fn new(threshold: usize, rng: &mut impl CryptoRng) -> AntiClogging {
        let mut current = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(current.as_mut());
        let mut previous = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(previous.as_mut());
        AntiClogging { threshold, current, previous, rotate_at: Self::ROTATION_PERIOD }
    }

    /// Whether a commit must carry a token while `open` commits are in progress.
    pub fn required(&self, open: usize) -> bool {
        open >= self.threshold
    }

    /// The token for `peer` under the current secret.
    pub fn token(&self, peer: MacAddr) -> Vec<u8> {
        hmac(KdfHash::Sha256, self.current.as_ref(), &[&peer.0]).to_vec()
    }

    /// Whether `token` is `peer`'s under the current or the previous secret (constant time).
    pub fn check(&self, peer: MacAddr, token: &[u8]) -> bool {
        let current = hmac(KdfHash::Sha256, self.current.as_ref(), &[&peer.0]);
        let previous = hmac(KdfHash::Sha256, self.previous.as_ref(), &[&peer.0]);
        bool::from(current.as_slice().ct_eq(token) | previous.as_slice().ct_eq(token))
    }

    /// Advance the clock to `now` (seconds): rotates the secret when its period is over.
    pub fn tick(&mut self, now: u64, rng: &mut impl CryptoRng) {
        if now >= self.rotate_at {
            self.previous = self.current.clone();
            rng.fill_bytes(self.current.as_mut());
            self.rotate_at = now + Self::ROTATION_PERIOD;
        }
    }
}

impl fmt::Debug for AntiClogging {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AntiClogging")
            .field("threshold", &self.threshold)
            .field("rotate_at", &self.rotate_at)
            .finish_non_exhaustive()
    }
}
