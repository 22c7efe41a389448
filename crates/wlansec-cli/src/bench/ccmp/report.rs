//! The report: what the run measured, printed as tables and written as JSON (the layout
//! tests/python/test_bench_ccmp.py checks).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use super::alone::Alone;
use super::batch_sizes::BatchRow;
use super::bound::Bound;
use super::clock::Measured;
use super::frames::{MIXED, MIXED_LENGTHS, SIZES};
use super::ipsec_mb_rows::Versus;
use super::machine::Machine;
use super::mic_ctr::MicCtr;
use super::sharded::Scaling;

/// The JSON layout's version. 2: `batch_sizes` added, and `versus_ipsec_mb` compares each
/// side at its fastest batch size (1: wlansec's multibuffer row against intel-ipsec-mb's
/// rows of as many frames per call).
pub const SCHEMA: u32 = 2;

/// Everything one run measured.
#[derive(Serialize)]
pub struct Report {
    pub schema: u32,
    pub machine: Machine,
    pub results: Vec<Measured>,
    /// Both sides on one stream of frames per setting, at every batch size and as one call.
    pub batch_sizes: Vec<BatchRow>,
    pub bound: Bound,
    /// The published tables' layout: CBC-MAC and CTR time per frame for 1-, 2-, 4-, 8-way.
    pub mic_ctr_split: Vec<MicCtr>,
    /// One frame's latency: the single and Enhanced rows' frames each alone.
    pub alone: Vec<Alone>,
    /// The per-core engine on 1 to N cores (one worker thread each, fed from the caller).
    pub threads: Vec<Scaling>,
    /// The per-core engine inline: the calling thread the worker of its own core.
    pub inline: Vec<Scaling>,
    /// Per setting of `batch_sizes`: each side at its fastest batch size.
    pub versus_ipsec_mb: Vec<Versus>,
    /// How the settings are defined (what is inside the timed loop).
    pub notes: Vec<String>,
}

/// What each setting times.
pub const NOTES: [&str; 9] = [
    "multibuffer: batches of 4 x lanes frames, each under its own station key; every \
     station's AES round keys are expanded once (engine::Key, as an AP caches each \
     station's schedule), outside the timed loop; per frame the loop builds the job \
     (nonce, AAD, B0/A0) and seals it",
    "single, enhanced: one frame per call, key expanded once outside the timed loop; \
     openssl: key set once, nonce and lengths per frame",
    "mixed: multi-buffer on one call of 64 frames whose payload lengths are drawn uniformly \
     from 28 to 1500 octets (seeded: the same frames every run), each under its own station \
     key expanded outside the timed loop, wlansec and intel-ipsec-mb on the same frames; \
     bytes is their mean length, cycles/byte and GB/s are over all their octets, the bound \
     that of a frame of the mean length",
    "alone: one frame per call (CCMP-128 and Enhanced N = 2, 4, 8, key expanded once), core \
     cycles per frame with LFENCE before and after every call, so that nothing of the calls \
     around it runs beside it (its dependency chain's latency), and back to back as the \
     single and enhanced rows time it (consecutive frames overlap: their AES throughput)",
    "threads: the per-core engine (one worker thread per core, pinned, each behind a \
     submission and a completion ring) on 1 to N cores, N the cores the process may run on; \
     64 stations, a stream of 8192 frames of 1500 octets (mode multibuffer) \
     or of lengths drawn from 28 to 1500 octets (mode mixed; frame_bytes their mean), \
     submitted in bursts of 64 as the rings (1024 frames per core) take them, the caller \
     waiting for half of what they hold before it polls and refills them, timed \
     from the first submission to the last completion (PN assignment, framing, replay \
     checks and the hand-off through the rings included; filling the packets is outside); \
     median over the repeats, each row with the load average just before it, its speed-up \
     over one core, and its speed as a fraction of the multi-buffer kernel's row of the same \
     mode (of_kernel: one thread, batches in the nearest caches) and of the kernel on one \
     thread sealing (opening) the same stream in one call, refilled first \
     (of_kernel_same_frames). The calling thread submits and polls besides the workers: \
     on N cores it shares a core with one of them",
    "inline: the per-core engine with the calling thread as its one worker \
     (PerCoreEngine::inline), on the threads rows' streams and bursts: submitting works \
     every whole chunk of 64 frames at once, on the core that filled them. On N cores, N \
     threads each pinned to a core and working the stations of its share through an \
     engine of its own (a pipeline with a thread per core), started together and timed \
     from the first start to the last end; speedup is over the threads row of one core \
     (fed from another)",
    "ipsec-mb ARCH job, ipsec-mb ARCH burst: intel-ipsec-mb's AES-CCM-128 (13-octet nonce, \
     the AAD and 8-octet MIC of the multibuffer row) on the multibuffer row's frames under \
     the same station keys, expanded once by IMB_AES_KEYEXP_128 outside the timed loop; per \
     call all frames are submitted (job: IMB_SUBMIT_JOB per frame; burst: IMB_SUBMIT_BURST) \
     and then flushed, every job's status checked, as wlansec's batch checks its jobs (the \
     _NOCHECK variants skip that); lanes = frames per call (the library picks its lanes). \
     ARCH: the manager init_mb_mgr_auto sets up, then every other this CPU runs (AVX2, AVX, \
     SSE; 1.3's AVX-512 CCM is the slower on short frames). The generic burst API is \
     the one that takes CCM jobs: 1.3's cipher-only and hash-only bursts \
     (IMB_SUBMIT_CIPHER_BURST, IMB_SUBMIT_HASH_BURST) take no AEAD. Before timing, at every \
     size, each manager's and API's ciphertext and MIC are checked equal to the engine's on \
     those frames and on 16 frames behind random 802.11 headers (AAD 22 to 30 octets); a \
     difference stops the bench",
    "batch_sizes: per frame size and for mixed lengths, one stream of 4096 frames (--quick: \
     1024), each under one of 64 station keys in turn (expanded outside the timed loop), \
     sealed in calls of 8, 32, 128 and 512 frames and as one call of the whole stream, by \
     the engine (seal_batch per call) and by every intel-ipsec-mb manager the CPU runs, job \
     and burst API (per call all frames submitted, then the queue flushed: in the stream \
     row, jobs are submitted as the manager accepts them and its queue is flushed once, at \
     the end; the burst API also flushes when the queue has no room for the next burst); \
     each manager and API first checked against the engine on the whole stream. Every row \
     times the whole stream: only the frames per call differ",
    "versus_ipsec_mb (schema 2): per setting of batch_sizes, the engine at its fastest \
     frames per call against intel-ipsec-mb's fastest manager, API and frames per call; \
     wlansec_speedup is the latter's cycles/byte over the former's",
];

/// The tables on standard output.
pub fn print(report: &Report) {
    let m = &report.machine;
    println!(
        "CPU: {} ({} backend); TSC {:.3} GHz; core clock {:.3} GHz (TSC/core {:.3}); {}",
        m.cpu,
        m.backend,
        m.tsc_hz / 1e9,
        m.core_hz / 1e9,
        m.tsc_per_core_cycle,
        m.openssl
    );
    let b = &report.bound;
    println!(
        "AESENC: latency {:.2} cycles, throughput {:.2} cycles/instr{}",
        b.aesenc_latency_cycles,
        b.aesenc_throughput_cycles,
        b.vaesenc_zmm_throughput_cycles
            .map_or(String::new(), |v| format!("; VAESENC zmm {v:.2} cycles/instr (4 blocks)"))
    );
    for step in &b.lane_steps {
        println!(
            "multi-buffer step on {} registers alone, {} lanes: {:.1} cycles ({:.3} cycles/byte at 1500 bytes)",
            step.registers, step.lanes, step.cycles_per_step, step.cycles_per_byte_1500
        );
    }
    println!();
    println!(
        "{:<21} {:<12} {:>5} {:>6} {:>8} {:>8} {:>10} {:>9} {:>8}",
        "impl", "mode", "lanes", "bytes", "cyc/B", "GB/s", "us/frame", "bound", "of bound"
    );
    for (r, bound) in report.results.iter().zip(&b.per_result) {
        println!(
            "{:<21} {:<12} {:>5} {:>6} {:>8.3} {:>8.3} {:>10.3} {:>9.3} {:>7.0}%",
            r.implementation,
            r.mode,
            r.lanes,
            r.frame_bytes,
            r.cycles_per_byte,
            r.gb_per_s,
            r.us_per_frame,
            bound.bound_cycles_per_byte,
            100.0 * bound.fraction_of_bound
        );
    }
    println!();
    println!("Published layout: MIC (CBC-MAC) and CTR time, us per frame");
    print!("{:>6}", "bytes");
    for ways in [1, 2, 4, 8] {
        print!(" {:>10} {:>10}", format!("MIC {ways}-way"), format!("CTR {ways}-way"));
    }
    println!();
    for &bytes in &SIZES {
        print!("{bytes:>6}");
        for ways in [1, 2, 4, 8] {
            if let Some(row) = report.mic_ctr_split.iter().find(|r| r.ways == ways && r.frame_bytes == bytes) {
                print!(" {:>10.3} {:>10.3}", row.mic_us_per_frame, row.ctr_us_per_frame);
            }
        }
        println!();
    }
    println!();
    println!("One frame alone (LFENCE around each call) and back to back, core cycles per frame");
    for a in &report.alone {
        println!(
            "{:>6} bytes {:<8} {}: alone {:>8.1}, back to back {:>8.1}",
            a.frame_bytes, a.mode, a.lanes, a.cycles_per_frame_alone, a.cycles_per_frame_back_to_back
        );
    }
    println!();
    print_per_core(&report.threads, &report.inline);
    print_batch_sizes(report);
    println!("load average at start: {:.2} {:.2} {:.2}", m.load_average[0], m.load_average[1], m.load_average[2]);
    println!();
    for note in &report.notes {
        println!("note: {note}");
    }
}

/// The per-core engine's rows: fed from another core on 1 to N cores, then inline.
pub fn print_per_core(threads: &[Scaling], inline: &[Scaling]) {
    let fed = threads.iter().map(|t| (t, format!("{} core(s)", t.threads)));
    for (t, workers) in fed.chain(inline.iter().map(|t| (t, format!("{} core(s) inline", t.threads)))) {
        let setting = match t.mode {
            MIXED => format!("mixed (mean {})", t.frame_bytes),
            _ => format!("{}-byte", t.frame_bytes),
        };
        let same = 100.0 * t.of_kernel_same_frames;
        // `--per-core-only` measures no kernel rows: no share of them to print.
        let of_kernel = if t.of_kernel.is_finite() {
            format!("{:.0}% of the multi-buffer kernel, {same:.0}% of it on the same stream", 100.0 * t.of_kernel)
        } else {
            format!("{same:.0}% of the multi-buffer kernel on the same stream")
        };
        println!(
            "per-core engine, {:<9} {workers}, {} x {setting} frames: {:>9.0} frames/s {:.3} GB/s (x{:.2} one \
             core; {of_kernel}; load {:.2} {:.2} {:.2})",
            t.direction,
            t.frames,
            t.frames_per_s,
            t.gb_per_s,
            t.speedup,
            t.load_average[0],
            t.load_average[1],
            t.load_average[2]
        );
    }
}

/// The batch-size rows, one line per implementation and setting, and each side at its best.
fn print_batch_sizes(report: &Report) {
    let rows = &report.batch_sizes;
    let Some(first) = rows.first() else { return };
    let per_line = rows.iter().take_while(|r| (r.implementation, r.mode) == (first.implementation, first.mode)).count();
    println!(
        "A stream of {} frames per setting, by frames per call (stream: all in one call), cycles/byte:",
        first.frames
    );
    print!("{:<12} {:<21}", "bytes", "impl");
    for r in &rows[..per_line] {
        print!(" {:>9}", if r.stream { "stream".to_string() } else { r.frames_per_call.to_string() });
    }
    println!();
    for line in rows.chunks(per_line) {
        let setting = match line[0].mode {
            MIXED => format!("mixed {}", line[0].frame_bytes),
            _ => line[0].frame_bytes.to_string(),
        };
        print!("{setting:<12} {:<21}", line[0].implementation);
        for r in line {
            print!(" {:>9.3}", r.cycles_per_byte);
        }
        println!();
    }
    println!();
    if report.versus_ipsec_mb.is_empty() {
        return;
    }
    let m = &report.machine;
    println!(
        "intel-ipsec-mb {} (init_mb_mgr_auto: {}); each side at its fastest frames per call, cycles/byte:",
        m.intel_ipsec_mb.version.as_deref().unwrap_or("?"),
        m.intel_ipsec_mb.arch.unwrap_or("?")
    );
    let calls = |per_call: usize, stream: bool| {
        if stream {
            "the stream".to_string()
        } else {
            format!("{per_call} frames/call")
        }
    };
    for v in &report.versus_ipsec_mb {
        let setting = match v.mode {
            MIXED => format!("mixed {}..{} (mean {})", MIXED_LENGTHS.start(), MIXED_LENGTHS.end(), v.frame_bytes),
            _ => format!("{:>6}", v.frame_bytes),
        };
        println!(
            "{setting} bytes: wlansec {:.3} ({}), {} {:.3} ({}): wlansec x{:.2}",
            v.wlansec_cycles_per_byte,
            calls(v.wlansec_frames_per_call, v.wlansec_stream),
            v.ipsec_mb_best,
            v.ipsec_mb_cycles_per_byte,
            calls(v.ipsec_mb_frames_per_call, v.ipsec_mb_stream),
            v.wlansec_speedup
        );
    }
    println!();
}

/// The report as JSON into `path`.
pub fn write_json(report: &Report, path: &Path) -> Result<()> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = BufWriter::new(file);
    serde_json::to_writer_pretty(&mut out, report)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}
