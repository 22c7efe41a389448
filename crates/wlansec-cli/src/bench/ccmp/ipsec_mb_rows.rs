//! intel-ipsec-mb as the anchor: its AES-CCM-128 managers, its job and burst rows on the
//! multi-buffer rows' own frames and keys (checked octet for octet against the engine before
//! any is timed), and per setting wlansec's multi-buffer row against its fastest row.

use anyhow::{Context, Result};
use serde::Serialize;
use wlansec_core::engine::Engine;

use crate::bench::ipsec_mb::{self, Api, Arch, CcmInput, IpsecMb, KeySchedule};

use super::clock::{Clock, Measured};
use super::frames::{MIXED, SIZES};

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

/// One setting: wlansec's multi-buffer row against intel-ipsec-mb's fastest.
#[derive(Serialize)]
pub struct Versus {
    /// `multibuffer` (frames of `frame_bytes` octets) or `mixed` (their mean).
    pub mode: &'static str,
    pub frame_bytes: usize,
    pub wlansec_multibuffer_cycles_per_byte: f64,
    /// intel-ipsec-mb's fastest row at this size (architecture and API).
    pub ipsec_mb_best: &'static str,
    pub ipsec_mb_cycles_per_byte: f64,
    /// intel-ipsec-mb's cycles/byte over wlansec's: above 1, wlansec is faster.
    pub wlansec_speedup: f64,
}

/// intel-ipsec-mb's managers: init_mb_mgr_auto's first, then AVX2's where auto picked
/// AVX-512 (the AVX-512 code of 1.3 is the slower one on short frames).
pub fn open() -> Result<Vec<IpsecMb>> {
    let auto = IpsecMb::open(None)?;
    let avx2 = auto.arch() == Arch::Avx512 && std::arch::is_x86_feature_detected!("avx2");
    let mut libs = vec![auto];
    if avx2 {
        libs.push(IpsecMb::open(Some(Arch::Avx2))?);
    }
    Ok(libs)
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

/// Per size and for the mixed lengths, where both have rows.
pub fn versus(results: &[Measured]) -> Vec<Versus> {
    let settings = SIZES.iter().map(|&bytes| ("multibuffer", Some(bytes))).chain([(MIXED, None)]);
    settings
        .filter_map(|(mode, bytes)| {
            let at_size = results.iter().filter(|r| r.mode == mode && bytes.is_none_or(|b| r.frame_bytes == b));
            let wlansec = at_size.clone().find(|r| r.implementation == "wlansec")?;
            let best = at_size
                .filter(|r| r.implementation.starts_with("ipsec-mb"))
                .min_by(|a, b| a.cycles_per_byte.total_cmp(&b.cycles_per_byte))?;
            Some(Versus {
                mode,
                frame_bytes: wlansec.frame_bytes,
                wlansec_multibuffer_cycles_per_byte: wlansec.cycles_per_byte,
                ipsec_mb_best: best.implementation,
                ipsec_mb_cycles_per_byte: best.cycles_per_byte,
                wlansec_speedup: best.cycles_per_byte / wlansec.cycles_per_byte,
            })
        })
        .collect()
}
