//! A station's binary exponential backoff (10.3.3 of IEEE 802.11-2020) with a seeded RNG, so
//! that a run of the medium is reproducible.

use wlansec_core::gen::{below, ChaCha8Rng, SeedableRng};

use super::phy::{AccessCategory, Phy};

/// dot11ShortRetryLimit: attempts of a frame without RTS/CTS before it is dropped.
pub const RETRY_LIMIT: u32 = 7;

/// What to do with a frame after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Send it again after a backoff drawn from the doubled window.
    Retry,
    /// The retry limit is reached: drop it (the window is reset).
    Drop,
}

/// Contention window state of one sender and access category.
#[derive(Clone, Debug)]
pub struct Backoff {
    cw_min: u32,
    cw_max: u32,
    cw: u32,
    attempts: u32,
    rng: ChaCha8Rng,
}

impl Backoff {
    pub fn new(phy: Phy, access: AccessCategory, seed: u64) -> Backoff {
        let cw_min = phy.cw_min(access);
        Backoff { cw_min, cw_max: phy.cw_max(access), cw: cw_min, attempts: 0, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// Backoff slots for the next attempt: uniform in 0..=CW.
    pub fn draw(&mut self) -> u32 {
        below(&mut self.rng, u64::from(self.cw) + 1) as u32
    }

    /// The current contention window CW.
    pub fn cw(&self) -> u32 {
        self.cw
    }

    /// The frame was acknowledged: CW back to CWmin.
    pub fn on_success(&mut self) {
        self.cw = self.cw_min;
        self.attempts = 0;
    }

    /// No ACK (collision or frame error): CW = min(2·CW + 1, CWmax), or drop at the retry limit.
    pub fn on_failure(&mut self) -> AfterFailure {
        self.attempts += 1;
        if self.attempts >= RETRY_LIMIT {
            self.on_success();
            return AfterFailure::Drop;
        }
        self.cw = (2 * self.cw + 1).min(self.cw_max);
        AfterFailure::Retry
    }
}
