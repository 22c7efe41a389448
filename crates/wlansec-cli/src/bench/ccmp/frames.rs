//! The frames every measurement draws: the payload sizes of the per-size rows, the mixed
//! lengths, the AAD's length, and random octets from the run's seeded generator.

use wlansec_core::gen::{ChaCha8Rng, Rng};

/// Payload octets of the per-size rows.
pub const SIZES: [usize; 6] = [64, 256, 512, 1024, 1500, 2304];
/// The mixed-lengths rows' mode, frames per call and payload lengths (a TCP ACK's to a
/// full Ethernet frame's).
pub const MIXED: &str = "mixed";
pub const MIXED_FRAMES: usize = 64;
pub const MIXED_LENGTHS: std::ops::RangeInclusive<usize> = 28..=1500;
pub const AAD_LEN: usize = 22;
/// Frames per call of the batch-size rows; after them, the whole stream in one call.
pub const BATCHES: [usize; 4] = [8, 32, 128, 512];
/// Frames of the stream the batch-size rows walk (`--quick`: fewer), and the stations
/// whose keys they take in turn.
pub const STREAM_FRAMES: usize = 4096;
pub const QUICK_STREAM_FRAMES: usize = 1024;
pub const STREAM_STATIONS: usize = 64;

/// `len` octets from `rng`.
pub fn random_bytes(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}
