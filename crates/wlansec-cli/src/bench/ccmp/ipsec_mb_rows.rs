//! intel-ipsec-mb as the anchor: its AES-CCM-128 managers, its job and burst rows on the
//! multi-buffer rows' own frames and keys (checked octet for octet against the engine before
//! any is timed), and per setting each side at its fastest batch size against the other.

use anyhow::{Context, Result};
use serde::Serialize;
use wlansec_core::engine::Engine;

use crate::bench::ipsec_mb::{self, Api, CcmInput, IpsecMb, KeySchedule};

use super::batch_sizes::BatchRow;
use super::clock::{Clock, Measured};

/// CCMP frames behind random 802.11 headers added to the agreement check at each size.
const CHECK_FRAMES: usize = 16;

/// The library as this run found it.
#[derive(Serialize)]
pub struct IpsecMbInfo {
    /// The library's version at run time, and the architecture init_mb_mgr_auto chose.
    pub version: Option<String>,
    pub arch: Option<&'static str>,
    /// The architectures whose managers were timed.
    pub archs_timed: Vec<&'static str>,
    /// Why its rows are missing, when they are.
    pub not_run: Option<String>,
}

impl IpsecMbInfo {
    /// What `open` gave: the managers, or why there are none.
    pub fn of(libs: &Result<Vec<IpsecMb>>) -> Self {
        IpsecMbInfo {
            version: libs.as_ref().ok().map(|libs| libs[0].version()),
            arch: libs.as_ref().ok().map(|libs| libs[0].arch().name()),
            archs_timed: libs.iter().flatten().map(|l| l.arch().name()).collect(),
            not_run: libs.as_ref().err().map(|why| format!("{why:#}")),
        }
    }
}

/// One setting: each side at its fastest batch size (`batch_sizes`), wlansec's engine
/// against intel-ipsec-mb's fastest manager, API and batch size.
#[derive(Serialize)]
pub struct Versus {
    /// `multibuffer` (frames of `frame_bytes` octets) or `mixed` (their mean).
    pub mode: &'static str,
    pub frame_bytes: usize,
    /// wlansec's fastest frames per call (`_stream`: the whole stream in one call).
    pub wlansec_frames_per_call: usize,
    pub wlansec_stream: bool,
    pub wlansec_cycles_per_byte: f64,
    /// intel-ipsec-mb's fastest row (architecture and API) and its frames per call
    /// (`_stream`: the whole stream, one flush at the end).
    pub ipsec_mb_best: &'static str,
    pub ipsec_mb_frames_per_call: usize,
    pub ipsec_mb_stream: bool,
    pub ipsec_mb_cycles_per_byte: f64,
    /// intel-ipsec-mb's cycles/byte over wlansec's, both at their best: above 1, wlansec is
    /// faster.
    pub wlansec_speedup: f64,
}

/// intel-ipsec-mb's job and burst rows (`mode`) on the multi-buffer row's frames (`buffers`,
/// one per station key in `tks`), after checking both APIs against the engine on those
/// frames and on CCMP frames behind random 802.11 headers.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    clock: &Clock,
    engine: Engine,
    lib: &IpsecMb,
    mode: &'static str,
    tks: &[[u8; 16]],
    nonce: [u8; 13],
    aad: &[u8],
    buffers: &mut [Vec<u8>],
) -> Result<Vec<Measured>> {
    let (frames, octets) = (buffers.len(), buffers.iter().map(Vec::len).sum::<usize>());
    let bytes = octets.div_ceil(frames);
    let schedules: Vec<KeySchedule> = tks.iter().map(|tk| lib.key_schedule(tk)).collect();
    let mut inputs: Vec<CcmInput> = tks
        .iter()
        .zip(buffers.iter())
        .map(|(tk, payload)| CcmInput { tk: *tk, nonce, aad: aad.to_vec(), payload: payload.clone() })
        .collect();
    // Its own seed: the other rows' frames stay the same with or without the library.
    inputs.extend(ipsec_mb::ccmp_frames(bytes as u64, bytes, CHECK_FRAMES)?);
    let mut rows = Vec::new();
    for api in Api::ALL {
        ipsec_mb::check_agreement(lib, engine, api, &inputs)
            .with_context(|| format!("bench ccmp: {bytes}-byte frames"))?;
        let mut failure = None;
        let sample = clock.measure(|| {
            let mut jobs: Vec<ipsec_mb::Frame> =
                buffers.iter_mut().zip(&schedules).map(|(b, s)| ipsec_mb::Frame::new(s, nonce, aad, b)).collect();
            if let Err(error) = lib.seal(api, &mut jobs) {
                failure.get_or_insert(error);
            }
        });
        if let Some(error) = failure {
            return Err(error.context(format!("bench ccmp: {bytes}-byte frames, timed loop")));
        }
        let name = ipsec_mb::row_name(lib.arch(), api);
        rows.push(clock.result(name, mode, frames, bytes, sample, frames, octets));
    }
    Ok(rows)
}

/// Per setting of the batch-size rows, in their order, where both sides have rows.
pub fn versus(rows: &[BatchRow]) -> Vec<Versus> {
    let mut settings: Vec<(&'static str, usize)> = Vec::new();
    for r in rows {
        if !settings.contains(&(r.mode, r.frame_bytes)) {
            settings.push((r.mode, r.frame_bytes));
        }
    }
    let fastest = |mode: &str, bytes: usize, wlansec: bool| {
        rows.iter()
            .filter(|r| r.mode == mode && r.frame_bytes == bytes && (r.implementation == "wlansec") == wlansec)
            .min_by(|a, b| a.cycles_per_byte.total_cmp(&b.cycles_per_byte))
    };
    settings
        .into_iter()
        .filter_map(|(mode, bytes)| {
            let (ours, theirs) = (fastest(mode, bytes, true)?, fastest(mode, bytes, false)?);
            Some(Versus {
                mode,
                frame_bytes: bytes,
                wlansec_frames_per_call: ours.frames_per_call,
                wlansec_stream: ours.stream,
                wlansec_cycles_per_byte: ours.cycles_per_byte,
                ipsec_mb_best: theirs.implementation,
                ipsec_mb_frames_per_call: theirs.frames_per_call,
                ipsec_mb_stream: theirs.stream,
                ipsec_mb_cycles_per_byte: theirs.cycles_per_byte,
                wlansec_speedup: theirs.cycles_per_byte / ours.cycles_per_byte,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(implementation: &'static str, frames_per_call: usize, cycles_per_byte: f64) -> BatchRow {
        BatchRow {
            implementation,
            mode: "multibuffer",
            frame_bytes: 1500,
            frames_per_call,
            stream: frames_per_call == 4096,
            frames: 4096,
            cycles_per_byte,
            gb_per_s: 1.0,
            us_per_frame: 1.0,
        }
    }

    /// Neither side's per-call row stands for it: each is taken at its fastest batch size,
    /// whichever that is, and the ratio is of those two.
    #[test]
    fn versus_takes_each_side_at_its_fastest_batch_size() {
        let rows = [
            row("wlansec", 8, 0.50),
            row("wlansec", 512, 0.40),
            row("wlansec", 4096, 0.45),
            row("ipsec-mb avx512 job", 32, 0.80),
            row("ipsec-mb avx512 job", 4096, 0.60),
            row("ipsec-mb avx2 burst", 512, 0.70),
        ];
        let [v] = &versus(&rows)[..] else { panic!("one setting") };
        assert_eq!((v.wlansec_frames_per_call, v.wlansec_stream, v.wlansec_cycles_per_byte), (512, false, 0.40));
        assert_eq!(
            (v.ipsec_mb_best, v.ipsec_mb_frames_per_call, v.ipsec_mb_stream, v.ipsec_mb_cycles_per_byte),
            ("ipsec-mb avx512 job", 4096, true, 0.60)
        );
        assert!((v.wlansec_speedup - 1.5).abs() < 1e-12);
        assert!(versus(&rows[..3]).is_empty(), "no intel-ipsec-mb rows: no comparison");
    }
}
