//! The published tables' layout: the time of a frame's CBC-MAC (the MIC) and of its CTR
//! encryption, each alone, 1-, 2-, 4- and 8-way, with the `aes` crate's pipelined AES.

use aes::cipher::{Array, BlockCipherEncrypt, KeyInit};
use aes::Aes128;
use serde::Serialize;
use wlansec_core::gen::ChaCha8Rng;

use super::clock::Clock;
use super::frames::{random_bytes, SIZES};

/// One frame size and number of ways.
#[derive(Serialize)]
pub struct MicCtr {
    pub ways: usize,
    pub frame_bytes: usize,
    pub mic_us_per_frame: f64,
    pub ctr_us_per_frame: f64,
}

/// The published layout: an N-way CBC-MAC (N chains advanced together) and an N-way CTR
/// (N counter blocks per step), each alone, with the `aes` crate's pipelined AES.
pub fn measure(clock: &Clock, rng: &mut ChaCha8Rng) -> Vec<MicCtr> {
    let cipher = Aes128::new(&random_bytes(rng, 16)[..].try_into().expect("16 octets"));
    let mut rows = Vec::new();
    for ways in [1usize, 2, 4, 8] {
        for &bytes in &SIZES {
            let data = random_bytes(rng, bytes);
            let blocks: Vec<[u8; 16]> = data
                .chunks(16)
                .map(|c| {
                    let mut b = [0u8; 16];
                    b[..c.len()].copy_from_slice(c);
                    b
                })
                .collect();
            let mut states = vec![Array::<u8, _>::default(); ways];
            let mic = clock.measure(|| {
                // B0 and the two AAD blocks per chain, then the data round robin.
                for _ in 0..3 {
                    cipher.encrypt_blocks(&mut states);
                }
                for group in blocks.chunks(ways) {
                    for (state, block) in states.iter_mut().zip(group) {
                        for (s, b) in state.iter_mut().zip(block) {
                            *s ^= b;
                        }
                    }
                    cipher.encrypt_blocks(&mut states[..group.len()]);
                }
                std::hint::black_box(&states);
            });
            let mut counters = vec![Array::<u8, _>::default(); ways];
            let mut output = data.clone();
            let ctr = clock.measure(|| {
                for (step, chunk) in output.chunks_mut(16 * ways).enumerate() {
                    for (lane, counter) in counters.iter_mut().enumerate() {
                        counter[14..].copy_from_slice(&((step * ways + lane + 1) as u16).to_be_bytes());
                    }
                    let mut keystream = counters.clone();
                    cipher.encrypt_blocks(&mut keystream);
                    for (byte, k) in chunk.iter_mut().zip(keystream.iter().flatten()) {
                        *byte ^= k;
                    }
                }
                std::hint::black_box(&output);
            });
            rows.push(MicCtr {
                ways,
                frame_bytes: bytes,
                mic_us_per_frame: mic.ticks / clock.tsc_hz * 1e6,
                ctr_us_per_frame: ctr.ticks / clock.tsc_hz * 1e6,
            });
        }
    }
    rows
}
