//! `wlansec bench ccmp`: CCMP-128 throughput and latency of OpenSSL, RustCrypto `ccm` and
//! the wlansec engine (single frame, multi-buffer, Enhanced N = 2/4/8) side by side in one
//! run, in core cycles per byte (TSC, with the TSC-to-core-clock ratio measured in the run),
//! GB/s and µs per frame; the AES-NI bound from AESENC latency/throughput measured in the
//! same run; the published layout's MIC (CBC-MAC) and CTR times for 1-, 2-, 4-, 8-way
//! settings; one frame's latency alone (LFENCE around each call) beside its time back to
//! back; and the per-core engine on 1 to N cores and inline. Medians of repeats.
//! Where intel-ipsec-mb is installed, its AES-CCM-128 (job API and burst API) on the
//! multi-buffer row's frames and keys, checked octet for octet against the engine first; and
//! both sides on one long stream of frames at every batch size (calls of 8 to 512 frames, and
//! the whole stream in one call: intel-ipsec-mb's queue kept full, one flush at the end),
//! every "ahead" comparing each side at its fastest.
//!
//! Frames are payloads of `frame_bytes` octets with a 22-octet AAD and an 8-octet MIC, as in
//! the published figures.

mod alone;
mod batch_sizes;
mod bound;
mod clock;
mod frames;
mod ipsec_mb_rows;
mod machine;
mod mic_ctr;
mod report;
mod sharded;
mod throughput;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use wlansec_core::engine::{Backend, Engine};
use wlansec_core::gen::{ChaCha8Rng, SeedableRng};

use super::cpu;
use super::ipsec_mb::IpsecMb;

use batch_sizes::Stream;
use frames::{MIXED, QUICK_STREAM_FRAMES, SIZES, STREAM_FRAMES};
use ipsec_mb_rows::IpsecMbInfo;
use machine::{CpuFlags, Machine};
use report::Report;

#[derive(clap::Args)]
pub struct Args {
    /// Fewer, shorter repeats: the whole run takes well under a minute.
    #[arg(long)]
    quick: bool,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Only the per-core engine's rows (fed from another core, and inline) beside the kernel
    /// on the same frames: a short look, or a run under a profiler (no JSON, and no
    /// share of the kernel's rows, which it does not measure).
    #[arg(long, conflicts_with = "json")]
    per_core_only: bool,
    /// Engine backend (default: the fastest this CPU runs).
    #[arg(long, value_parser = ["portable", "aes-ni", "avx512-vaes", "avx2-vaes"])]
    backend: Option<String>,
    /// Lanes a batch keeps in flight (default: the backend's on this CPU; 16 only on avx512-vaes).
    #[arg(long, value_parser = ["8", "16"])]
    lanes: Option<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let load_average = machine::load_average();
    let clock = clock::calibrate(args.quick)?;
    let engine = match args.backend.as_deref() {
        None => Engine::new(),
        Some(name) => {
            Engine::with_backend(Backend::ALL.into_iter().find(|b| b.name() == name).context("backend name")?)?
        }
    };
    let engine = match args.lanes.as_deref() {
        None => engine,
        Some(lanes) => engine.with_lanes(lanes.parse().context("lane count")?)?,
    };
    eprintln!(
        "bench ccmp: TSC {:.3} GHz, {:.3} TSC ticks per core cycle, backend {}, {} lanes, {} repeats",
        clock.tsc_hz / 1e9,
        clock.tsc_per_core_cycle,
        engine.backend().name(),
        engine.lanes(),
        clock.repeats
    );
    if args.per_core_only {
        eprintln!("bench ccmp: per-core engine on 1 to {} cores, and inline", sharded::cores());
        let rows = sharded::measure(&clock, engine, &mut ChaCha8Rng::seed_from_u64(1), |_, _| f64::NAN)?;
        report::print_per_core(&rows.threads, &rows.inline);
        return Ok(ExitCode::SUCCESS);
    }
    let ipsec_mb = IpsecMb::open_every_manager();
    match &ipsec_mb {
        Ok(libs) => eprintln!(
            "bench ccmp: intel-ipsec-mb {} (init_mb_mgr_auto: {}; timed: {})",
            libs[0].version(),
            libs[0].arch().name(),
            libs.iter().map(|l| l.arch().name()).collect::<Vec<_>>().join(", ")
        ),
        Err(why) => eprintln!("bench ccmp: no intel-ipsec-mb rows: {why:#}"),
    }
    let mut bound = bound::measure(&clock);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut results = Vec::new();
    for &bytes in &SIZES {
        eprintln!("bench ccmp: {bytes}-byte frames");
        results.extend(throughput::measure_size(
            &clock,
            engine,
            ipsec_mb.as_deref().unwrap_or_default(),
            bytes,
            &mut rng,
        )?);
    }
    eprintln!("bench ccmp: frames of mixed lengths");
    results.extend(throughput::measure_mixed(&clock, engine, ipsec_mb.as_deref().unwrap_or_default(), &mut rng)?);
    bound.per_result = bound::per_result(&bound, &results, engine.backend());
    let stream_frames = if args.quick { QUICK_STREAM_FRAMES } else { STREAM_FRAMES };
    let mut batch_sizes = Vec::new();
    // Its own seed: the other rows' frames stay the same as before these rows existed.
    let mut stream_rng = ChaCha8Rng::seed_from_u64(2);
    for bytes in SIZES.map(Some).into_iter().chain([None]) {
        let what = bytes.map_or("mixed-length".to_string(), |b| format!("{b}-byte"));
        eprintln!("bench ccmp: a stream of {stream_frames} {what} frames at every batch size");
        let mut stream = Stream::new(&mut stream_rng, stream_frames, bytes);
        batch_sizes.extend(batch_sizes::measure(&clock, engine, ipsec_mb.as_deref().unwrap_or_default(), &mut stream)?);
    }
    eprintln!("bench ccmp: MIC/CTR split");
    let mic_ctr_split = mic_ctr::measure(&clock, &mut rng);
    eprintln!("bench ccmp: one frame alone");
    let alone = alone::measure(&clock, engine, &mut rng)?;
    eprintln!("bench ccmp: per-core engine on 1 to {} cores, and inline", sharded::cores());
    // The kernel's row of a mode: at the frame size for `multibuffer`, the one row for
    // mixed lengths.
    let kernel_gb_per_s = |mode: &str, bytes: usize| {
        results
            .iter()
            .find(|r| r.implementation == "wlansec" && r.mode == mode && (mode == MIXED || r.frame_bytes == bytes))
            .map_or(f64::NAN, |r| r.gb_per_s)
    };
    let sharded::Rows { threads, inline } = sharded::measure(&clock, engine, &mut rng, kernel_gb_per_s)?;
    let versus_ipsec_mb = ipsec_mb_rows::versus(&batch_sizes);
    let mut notes: Vec<String> = report::NOTES.iter().map(|n| n.to_string()).collect();
    if let Err(why) = &ipsec_mb {
        notes.push(format!("no intel-ipsec-mb rows: {why:#}"));
    }
    let report = Report {
        machine: Machine {
            commit: env!("WLANSEC_COMMIT"),
            cpu: cpu::model_name(),
            cpu_flags: CpuFlags::detect(),
            backend: engine.backend().name(),
            backend_forced: args.backend.is_some(),
            tsc_hz: clock.tsc_hz,
            tsc_per_core_cycle: clock.tsc_per_core_cycle,
            core_hz: clock.tsc_hz / clock.tsc_per_core_cycle,
            repeats: clock.repeats,
            openssl: openssl::version::version().to_string(),
            load_average,
            intel_ipsec_mb: IpsecMbInfo::of(&ipsec_mb),
        },
        schema: report::SCHEMA,
        results,
        batch_sizes,
        bound,
        mic_ctr_split,
        alone,
        threads,
        inline,
        versus_ipsec_mb,
        notes,
    };
    report::print(&report);
    if let Some(path) = &args.json {
        report::write_json(&report, path)?;
        eprintln!("bench ccmp: wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
