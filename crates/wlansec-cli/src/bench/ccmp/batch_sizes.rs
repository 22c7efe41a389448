//! Both sides at every batch size: one stream of frames (each under one of a few stations'
//! keys) sealed in calls of 8, 32, 128 and 512 frames, and as one call of the whole stream,
//! by the wlansec engine and by every intel-ipsec-mb manager through its job and burst APIs.
//! intel-ipsec-mb flushes its queue at the end of every call, so its stream row keeps the
//! queue full and flushes once; the engine's stream row is one `seal_batch` of every frame.
//! The comparison (`ipsec_mb_rows::versus`) takes each side at its fastest of these.

use anyhow::{Context, Result};
use serde::Serialize;
use wlansec_core::engine::{Engine, Job, Key, Mode};
use wlansec_core::gen::{self, ChaCha8Rng};

use crate::bench::ipsec_mb::{self, Api, CcmInput, IpsecMb, KeySchedule};

use super::clock::{Clock, Measured, Sample};
use super::frames::{random_bytes, AAD_LEN, BATCHES, MIXED, MIXED_LENGTHS, STREAM_STATIONS};

/// One implementation sealing the stream in calls of `frames_per_call` frames.
#[derive(Serialize, Clone)]
pub struct BatchRow {
    #[serde(rename = "impl")]
    pub implementation: &'static str,
    /// `multibuffer` (frames of `frame_bytes` octets) or `mixed` (their mean).
    pub mode: &'static str,
    pub frame_bytes: usize,
    pub frames_per_call: usize,
    /// The whole stream in one call (intel-ipsec-mb: one flush, at the end).
    pub stream: bool,
    /// Frames in the stream.
    pub frames: usize,
    pub cycles_per_byte: f64,
    pub gb_per_s: f64,
    pub us_per_frame: f64,
}

/// One setting's stream: payloads, and the station keys frame `i` takes in turn (`i %
/// tks.len()`).
pub struct Stream {
    pub mode: &'static str,
    pub buffers: Vec<Vec<u8>>,
    pub tks: Vec<[u8; 16]>,
    pub nonce: [u8; 13],
    pub aad: Vec<u8>,
}

impl Stream {
    /// `frames` frames of `bytes` octets (`None`: lengths drawn uniformly from
    /// `MIXED_LENGTHS`).
    pub fn new(rng: &mut ChaCha8Rng, frames: usize, bytes: Option<usize>) -> Self {
        let nonce = random_bytes(rng, 13).try_into().expect("13 octets");
        let aad = random_bytes(rng, AAD_LEN);
        let tks = (0..STREAM_STATIONS).map(|_| random_bytes(rng, 16).try_into().expect("16 octets")).collect();
        let (shortest, longest) = (*MIXED_LENGTHS.start(), *MIXED_LENGTHS.end());
        let buffers = (0..frames)
            .map(|_| {
                let len = bytes.unwrap_or_else(|| shortest + gen::below(rng, (longest - shortest + 1) as u64) as usize);
                random_bytes(rng, len)
            })
            .collect();
        Stream { mode: if bytes.is_some() { "multibuffer" } else { MIXED }, buffers, tks, nonce, aad }
    }

    fn octets(&self) -> usize {
        self.buffers.iter().map(Vec::len).sum()
    }

    fn row(&self, clock: &Clock, implementation: &'static str, frames_per_call: usize, sample: Sample) -> BatchRow {
        let (frames, octets) = (self.buffers.len(), self.octets());
        let Measured { cycles_per_byte, gb_per_s, us_per_frame, .. } =
            clock.result(implementation, self.mode, frames_per_call, octets.div_ceil(frames), sample, frames, octets);
        BatchRow {
            implementation,
            mode: self.mode,
            frame_bytes: octets.div_ceil(frames),
            frames_per_call,
            stream: frames_per_call == frames,
            frames,
            cycles_per_byte,
            gb_per_s,
            us_per_frame,
        }
    }
}

/// The calls each side is timed at: every batch size the stream holds, then the stream.
fn frames_per_call(frames: usize) -> impl Iterator<Item = usize> {
    BATCHES.into_iter().filter(move |&b| b < frames).chain([frames])
}

/// The engine's and every manager's rows on `stream`, each manager and API first checked
/// against the engine on the whole stream in one call.
pub fn measure(clock: &Clock, engine: Engine, ipsec_mb: &[IpsecMb], stream: &mut Stream) -> Result<Vec<BatchRow>> {
    let frames = stream.buffers.len();
    let mut rows = Vec::new();
    let keys: Vec<Key> =
        stream.tks.iter().map(|tk| Key::new(tk, Mode::CCMP128)).collect::<wlansec_core::Result<_>>()?;
    for per_call in frames_per_call(frames) {
        let (nonce, aad, buffers) = (stream.nonce, &stream.aad, &mut stream.buffers);
        let sample = clock.measure(|| {
            for (call, chunk) in buffers.chunks_mut(per_call).enumerate() {
                let mut jobs: Vec<Job> = chunk
                    .iter_mut()
                    .enumerate()
                    .map(|(i, b)| Job::new(&keys[(call * per_call + i) % keys.len()], nonce, aad, b))
                    .collect();
                engine.seal_batch(&mut jobs).expect("engine on checked parameters");
            }
        });
        rows.push(stream.row(clock, "wlansec", per_call, sample));
    }
    if ipsec_mb.is_empty() {
        return Ok(rows);
    }
    let inputs: Vec<CcmInput> = stream
        .buffers
        .iter()
        .enumerate()
        .map(|(i, payload)| CcmInput {
            tk: stream.tks[i % stream.tks.len()],
            nonce: stream.nonce,
            aad: stream.aad.clone(),
            payload: payload.clone(),
        })
        .collect();
    for lib in ipsec_mb {
        let schedules: Vec<KeySchedule> = stream.tks.iter().map(|tk| lib.key_schedule(tk)).collect();
        for api in Api::ALL {
            ipsec_mb::check_agreement(lib, engine, api, &inputs)
                .with_context(|| format!("bench ccmp: a stream of {frames} {} frames", stream.mode))?;
            for per_call in frames_per_call(frames) {
                let (nonce, aad, buffers) = (stream.nonce, &stream.aad, &mut stream.buffers);
                let mut failure = None;
                let sample = clock.measure(|| {
                    for (call, chunk) in buffers.chunks_mut(per_call).enumerate() {
                        let mut jobs: Vec<ipsec_mb::Frame> = chunk
                            .iter_mut()
                            .enumerate()
                            .map(|(i, b)| {
                                let schedule = &schedules[(call * per_call + i) % schedules.len()];
                                ipsec_mb::Frame::new(schedule, nonce, aad, b)
                            })
                            .collect();
                        if let Err(error) = lib.seal(api, &mut jobs) {
                            failure.get_or_insert(error);
                        }
                    }
                });
                if let Some(error) = failure {
                    return Err(error.context(format!("bench ccmp: {per_call} frames per call, timed loop")));
                }
                rows.push(stream.row(clock, ipsec_mb::row_name(lib.arch(), api), per_call, sample));
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use wlansec_core::gen::SeedableRng;

    use super::super::{clock, ipsec_mb_rows};
    use super::*;

    /// Every manager this CPU runs, both APIs, at every batch size and the stream, beside the
    /// engine at each; and the comparison takes each side's fastest of them. Needs
    /// libipsec-mb (missing: `skipped:`, or a failure under WLANSEC_REQUIRE_ALL=1) and a CPU
    /// with AES-NI and AVX (the bench's clock).
    #[test]
    fn every_batch_size_and_the_stream_for_every_api_and_manager_with_ipsec_mb() {
        let Ok(clock) = clock::calibrate(true) else {
            println!("skipped: the bench's clock needs AES-NI and AVX");
            return;
        };
        let libs = match IpsecMb::open_every_manager() {
            Ok(libs) => libs,
            Err(why) => {
                let required = std::env::var_os("WLANSEC_REQUIRE_ALL").is_some_and(|v| v == "1");
                assert!(!required, "WLANSEC_REQUIRE_ALL=1, and {why:#}");
                println!("skipped: {why:#}");
                return;
            }
        };
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let frames = 1024;
        let mut rows = Vec::new();
        for bytes in [Some(64), None] {
            let mut stream = Stream::new(&mut rng, frames, bytes);
            rows.extend(measure(&clock, Engine::new(), &libs, &mut stream).unwrap());
        }
        let mut names = vec!["wlansec"];
        names.extend(libs.iter().flat_map(|lib| Api::ALL.map(|api| ipsec_mb::row_name(lib.arch(), api))));
        for mode in ["multibuffer", MIXED] {
            for name in &names {
                let calls: Vec<(usize, bool)> = rows
                    .iter()
                    .filter(|r| r.mode == mode && r.implementation == *name)
                    .map(|r| (r.frames_per_call, r.stream))
                    .collect();
                assert_eq!(
                    calls,
                    [(8, false), (32, false), (128, false), (512, false), (frames, true)],
                    "{mode} {name}"
                );
            }
        }
        let versus = ipsec_mb_rows::versus(&rows);
        assert_eq!(versus.len(), 2);
        for v in &versus {
            let at = |wlansec: bool| {
                rows.iter()
                    .filter(|r| r.mode == v.mode && (r.implementation == "wlansec") == wlansec)
                    .min_by(|a, b| a.cycles_per_byte.total_cmp(&b.cycles_per_byte))
                    .unwrap()
            };
            let (ours, theirs) = (at(true), at(false));
            assert_eq!(
                (v.wlansec_frames_per_call, v.wlansec_cycles_per_byte),
                (ours.frames_per_call, ours.cycles_per_byte)
            );
            assert_eq!(
                (v.ipsec_mb_best, v.ipsec_mb_frames_per_call, v.ipsec_mb_cycles_per_byte),
                (theirs.implementation, theirs.frames_per_call, theirs.cycles_per_byte)
            );
            assert_eq!(v.wlansec_speedup, theirs.cycles_per_byte / ours.cycles_per_byte);
        }
    }
}
