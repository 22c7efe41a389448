//! One frame's latency: a frame sealed with nothing of the calls around it in flight (LFENCE
//! on each side), beside the same frame back to back, for CCMP-128 and Enhanced N = 2, 4, 8.

use anyhow::Result;
use serde::Serialize;
use wlansec_core::engine::{Engine, Key, Mode, Ways};
use wlansec_core::gen::ChaCha8Rng;

use super::clock::Clock;
use super::frames::{random_bytes, AAD_LEN};

/// The `alone` rows' frame sizes: where Enhanced N = 8 and 4 are the same number of AES steps
/// deep (64) and a full frame.
const ALONE_SIZES: [usize; 2] = [64, 1500];

/// One frame sealed with nothing before or after it in flight (LFENCE on each side), beside
/// the same frames back to back as the single and Enhanced rows time them: the latency of
/// one frame's dependency chain against the throughput of many.
#[derive(Serialize)]
pub struct Alone {
    pub mode: &'static str,
    pub lanes: usize,
    pub frame_bytes: usize,
    pub cycles_per_frame_alone: f64,
    pub cycles_per_frame_back_to_back: f64,
}

/// `Alone` rows: one frame per call under CCMP-128 and Enhanced N = 2, 4, 8, at the sizes of
/// `ALONE_SIZES`, timed with LFENCE before and after each call (no instruction of the call
/// before or after overlaps it) and without.
pub fn measure(clock: &Clock, engine: Engine, rng: &mut ChaCha8Rng) -> Result<Vec<Alone>> {
    let tk = random_bytes(rng, 16);
    let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
    let aad = random_bytes(rng, AAD_LEN);
    let mut rows = Vec::new();
    for bytes in ALONE_SIZES {
        let mut data = random_bytes(rng, bytes);
        for ways in Ways::ALL {
            let key = Key::new(&tk, Mode::enhanced(ways))?;
            let mut seal = |fenced: bool| {
                clock.measure(|| {
                    if fenced {
                        fence();
                    }
                    engine.seal(&key, &nonce, &aad, &mut data).expect("engine on checked parameters");
                    if fenced {
                        fence();
                    }
                })
            };
            let (alone, back_to_back) = (seal(true), seal(false));
            rows.push(Alone {
                mode: if ways == Ways::N1 { "single" } else { "enhanced" },
                lanes: ways.count(),
                frame_bytes: bytes,
                cycles_per_frame_alone: alone.cycles,
                cycles_per_frame_back_to_back: back_to_back.cycles,
            });
        }
    }
    Ok(rows)
}

/// Wait until every earlier instruction has completed before any later one starts (LFENCE
/// dispatch-serializes on Intel and on AMD under Linux).
fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: LFENCE has no operands and no effect on memory; SSE2 is part of x86_64.
    unsafe {
        core::arch::x86_64::_mm_lfence()
    };
}
