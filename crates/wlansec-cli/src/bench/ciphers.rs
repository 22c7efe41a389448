//! `wlansec bench ciphers`: the cipher comparison of the 2009 wireless power study (AES,
//! DES, 3DES, RC2, Blowfish, RC6) redone on today's CPU with today's AEADs beside them:
//! encrypt and decrypt time, throughput, cycles and instructions per byte, and energy per
//! byte on the study's text and video file sizes, with `openssl speed` as the anchor.
//!
//! Plots and the study's published ratios beside ours: `python -m wlansec_lab.ciphers FILE`.

mod catalog;
mod data;
mod measure;
mod openssl;

#[cfg(test)]
mod kat;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{anyhow, bail, ensure, Context, Result};
use clap::Parser;
use serde::Serialize;
use wlansec_core::gen::{ChaCha8Rng, Rng, SeedableRng};
use zeroize::Zeroizing;

use crate::progress::Progress;

use super::cpu;

use catalog::Variant;
use data::{DataFile, Kind};
use measure::{median, EnergyMeter};

#[derive(Parser)]
pub struct Args {
    /// A subset that finishes in under two minutes: 4 files, 3 repeats, sweep on one small file.
    #[arg(long)]
    quick: bool,
    /// Data files to use, comma-separated (e.g. text-321KB,video-4006KB); default: all nine
    /// (--quick: text-321KB,text-1327KB,text-4211KB,video-4006KB).
    #[arg(long, value_delimiter = ',')]
    files: Vec<String>,
    /// Cipher variants to run, comma-separated labels (e.g. AES-128-CBC); default: all (see --list).
    #[arg(long, value_delimiter = ',')]
    ciphers: Vec<String>,
    /// Timed repeats per cipher × file × direction (medians are reported); default 5, --quick 3.
    #[arg(long)]
    repeats: Option<usize>,
    /// Skip the Blowfish key-size sweep (32..448 bits).
    #[arg(long)]
    no_sweep: bool,
    /// Skip the `openssl speed -evp` anchor.
    #[arg(long)]
    no_openssl: bool,
    /// Seconds per `openssl speed` run (one encrypt and one decrypt run per cipher).
    #[arg(long, default_value_t = 1)]
    openssl_seconds: u32,
    /// Also count instructions per byte with valgrind/callgrind (slow: ~2 minutes).
    #[arg(long)]
    instructions: bool,
    /// Use the energy model E = V × I × t even where RAPL is present.
    #[arg(long)]
    energy_model: bool,
    /// Supply voltage of the energy model, volts (default: the study's; see --list).
    #[arg(long, default_value_t = measure::DEFAULT_VOLTS)]
    volts: f64,
    /// Average current of the energy model, amperes (default: the study's cited 270 mA).
    #[arg(long, default_value_t = measure::DEFAULT_AMPS)]
    amps: f64,
    /// Declared battery capacity in watt-hours, for "% of battery per run".
    #[arg(long, default_value_t = measure::DEFAULT_BATTERY_WH)]
    battery_wh: f64,
    /// Write one record per measurement to FILE (schema: docs/schemas/bench-ciphers.schema.json).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the generated data files into DIR and exit.
    #[arg(long, value_name = "DIR")]
    write_data: Option<PathBuf>,
    /// List cipher variants, data files and energy-model defaults, and exit.
    #[arg(long)]
    list: bool,
    /// Internal: the workload callgrind counts (LABEL:encrypt|decrypt:BYTES).
    #[arg(long, hide = true)]
    count_kernel: Option<String>,
}

/// One measurement: the schema's required fields first (docs/schemas/bench-ciphers.schema.json).
#[derive(Serialize, Clone, Debug)]
struct Record {
    cipher: String,
    key_bits: u32,
    mode: String,
    direction: &'static str,
    data: String,
    bytes: usize,
    mb_per_s: f64,
    cycles_per_byte: Option<f64>,
    energy_uj_per_byte: f64,
    energy_method: &'static str,
    #[serde(rename = "impl")]
    implementation: &'static str,
    /// Median wall time of one run, seconds.
    wall_s: f64,
    /// Median thread CPU time of one run, seconds (None for OpenSSL, which reports rates).
    cpu_s: Option<f64>,
    /// Share of the declared battery one run uses, percent.
    battery_percent: f64,
    instructions_per_byte: Option<f64>,
    repeats: usize,
}

#[derive(Serialize)]
struct Meta {
    command: String,
    wlansec_version: &'static str,
    /// The commit the binary was built from (`-dirty`: with changed sources).
    commit: &'static str,
    cpu: String,
    tsc_hz: Option<f64>,
    cycles_note: &'static str,
    energy: EnergyMeter,
    battery_wh: f64,
    battery_note: &'static str,
    repeats: usize,
    quick: bool,
    /// Which AES the RustCrypto rows ran: the hardware instructions or the portable backend.
    aes_backend: &'static str,
    openssl: Option<String>,
    openssl_block_bytes: usize,
    /// `OPENSSL_ia32cap` as set for the anchor (e.g. masking AES-NI), None when unset.
    openssl_ia32cap: Option<String>,
    instructions_method: Option<&'static str>,
    mb: &'static str,
}

#[derive(Serialize)]
struct Report {
    schema: &'static str,
    meta: Meta,
    records: Vec<Record>,
}

const QUICK_FILES: [&str; 4] = ["text-321KB", "text-1327KB", "text-4211KB", "video-4006KB"];
/// The Blowfish sweep runs on one mid-sized text file (the small one with --quick).
const SWEEP_FILE: &str = "text-1327KB";
const QUICK_SWEEP_FILE: &str = "text-321KB";
/// Seeds the bench's keys: fixed so runs are comparable; keys never leave the process.
const KEY_SEED: u64 = 0x5eed_c1f3;
/// Callgrind counts the difference between these two workload sizes, cancelling start-up.
const KERNEL_SIZES: [usize; 2] = [32 * 1024, 160 * 1024];

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(spec) = &args.count_kernel {
        return count_kernel(spec).map(|()| ExitCode::SUCCESS);
    }
    if args.list {
        list();
        return Ok(ExitCode::SUCCESS);
    }
    ensure!(
        args.volts > 0.0 && args.amps > 0.0 && args.battery_wh > 0.0,
        "--volts, --amps and --battery-wh must be positive"
    );
    let files = select_files(&args)?;
    if let Some(dir) = &args.write_data {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for f in &files {
            let path = dir.join(format!("{}.{}", f.name(), if f.kind == Kind::Text { "txt" } else { "ts" }));
            std::fs::write(&path, f.generate()).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let variants = select_variants(&args)?;
    let repeats = args.repeats.unwrap_or(if args.quick { 3 } else { 5 });
    ensure!(repeats >= 1, "--repeats must be at least 1");
    let energy = EnergyMeter::new(args.volts, args.amps, args.energy_model);
    let tsc_hz = measure::calibrate_tsc();
    let bench = Bench { energy: &energy, tsc_hz, repeats, battery_wh: args.battery_wh };

    // Blowfish's sweep only where Blowfish was asked for; it shares one file.
    let sweep: Vec<Variant> = if args.no_sweep || !variants.iter().any(|v| v.algorithm == catalog::Algorithm::Blowfish)
    {
        Vec::new()
    } else {
        catalog::blowfish_sweep()
    };
    let sweep_file = data::find(if args.quick { QUICK_SWEEP_FILE } else { SWEEP_FILE })?;

    let mut plan: Vec<(Variant, DataFile)> = Vec::new();
    for f in &files {
        plan.extend(variants.iter().map(|v| (*v, *f)));
    }
    plan.extend(sweep.iter().map(|v| (*v, sweep_file)));

    let mut records = Vec::new();
    let mut current: Option<(DataFile, Vec<u8>)> = None;
    let mut progress = Progress::new(plan.len());
    for (n, (variant, file)) in plan.iter().enumerate() {
        if current.as_ref().map(|(f, _)| f) != Some(file) {
            current = Some((*file, file.generate()));
        }
        let (_, plain) = current.as_ref().expect("just generated");
        progress.step(n + 1, &format!("{:<28} {:<13}", variant.label(), file.name()));
        records.extend(bench.measure(*variant, file, plain)?);
    }
    progress.finish();

    let openssl_version = if args.no_openssl {
        None
    } else {
        let version = openssl::version()?;
        records.extend(bench.openssl_anchor(&variants, args.openssl_seconds)?);
        Some(version)
    };

    let instructions_method = if args.instructions {
        count_instructions(&variants, &mut records)?;
        Some("valgrind --tool=callgrind: Ir of the whole process at 160 KiB minus at 32 KiB of data, divided by 128 KiB; decrypt = (encrypt+decrypt) − encrypt; under valgrind's emulated CPUID (no AVX-512)")
    } else {
        None
    };

    print_table(&records, &energy);
    if let Some(path) = &args.json {
        let report = Report {
            schema: "wlansec-bench-ciphers/1",
            meta: Meta {
                command: std::env::args().collect::<Vec<_>>().join(" "),
                wlansec_version: env!("CARGO_PKG_VERSION"),
                commit: env!("WLANSEC_COMMIT"),
                cpu: cpu::model_name(),
                tsc_hz,
                cycles_note:
                    "cycles are time-stamp-counter ticks (constant nominal rate), calibrated against the wall clock",
                energy: energy.clone(),
                battery_wh: args.battery_wh,
                battery_note: "declared capacity, not from the study (it names none)",
                repeats,
                quick: args.quick,
                aes_backend: aes_backend(),
                openssl: openssl_version,
                openssl_block_bytes: openssl::BLOCK,
                openssl_ia32cap: std::env::var("OPENSSL_ia32cap").ok(),
                instructions_method,
                mb: "1 MB = 10^6 bytes",
            },
            records,
        };
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}; plots: python -m wlansec_lab.ciphers {}", path.display(), path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn select_files(args: &Args) -> Result<Vec<DataFile>> {
    if !args.files.is_empty() {
        return args.files.iter().map(|n| data::find(n)).collect();
    }
    if args.quick {
        QUICK_FILES.iter().map(|n| data::find(n)).collect()
    } else {
        Ok(data::all())
    }
}

fn select_variants(args: &Args) -> Result<Vec<Variant>> {
    if args.ciphers.is_empty() {
        Ok(catalog::variants())
    } else {
        args.ciphers.iter().map(|l| catalog::find(l)).collect()
    }
}

fn list() {
    println!("cipher variants:");
    for v in catalog::variants() {
        println!("  {}", v.label());
    }
    println!("Blowfish key sweep (CBC, one file):");
    for v in catalog::blowfish_sweep() {
        println!("  {}", v.label());
    }
    println!("data files:");
    for f in data::all() {
        println!("  {:<14} {:>9} bytes", f.name(), f.len());
    }
    println!("energy model defaults: V = {} V, I = {} A", measure::DEFAULT_VOLTS, measure::DEFAULT_AMPS);
    println!("  source: {}", measure::MODEL_SOURCE);
    println!("battery: {} Wh (declared)", measure::DEFAULT_BATTERY_WH);
}

/// Deterministic key material for a variant.
fn key_for(v: &Variant) -> Zeroizing<Vec<u8>> {
    let mut rng = ChaCha8Rng::seed_from_u64(KEY_SEED ^ u64::from(v.key_bits));
    let mut key = Zeroizing::new(vec![0u8; v.key_len()]);
    rng.fill_bytes(&mut key);
    key
}

struct Bench<'a> {
    energy: &'a EnergyMeter,
    tsc_hz: Option<f64>,
    repeats: usize,
    battery_wh: f64,
}

impl Bench<'_> {
    /// Times `repeats` encryptions and decryptions of `plain` (after one untimed warm-up),
    /// checking every round trip, and returns one record per direction.
    fn measure(&self, variant: Variant, file: &DataFile, plain: &[u8]) -> Result<[Record; 2]> {
        let engine = variant.engine(&key_for(&variant))?;
        let mut ct = vec![0u8; engine.max_ciphertext_len(plain.len())];
        let mut back = vec![0u8; plain.len() + 64];
        let mut samples = [Vec::new(), Vec::new()];
        for round in 0..=self.repeats {
            let (ct_len, enc) = measure::sample(self.energy, || engine.encrypt(plain, &mut ct));
            let ct_len = ct_len?;
            let (pt_len, dec) = measure::sample(self.energy, || engine.decrypt(&ct[..ct_len], &mut back));
            let pt_len = pt_len?;
            if back[..pt_len] != *plain {
                bail!("{} on {}: decryption did not give back the plaintext", variant.label(), file.name());
            }
            if round > 0 {
                samples[0].push(enc);
                samples[1].push(dec);
            }
        }
        let [enc, dec] = samples;
        Ok([self.record(variant, file, "encrypt", &enc), self.record(variant, file, "decrypt", &dec)])
    }

    fn record(&self, v: Variant, file: &DataFile, direction: &'static str, samples: &[measure::Sample]) -> Record {
        let bytes = file.len() as f64;
        let wall = median(samples.iter().map(|s| s.wall.as_secs_f64()).collect());
        let cpu = median(samples.iter().map(|s| s.cpu.as_secs_f64()).collect());
        let ticks: Option<Vec<f64>> = samples.iter().map(|s| s.ticks.map(|t| t as f64)).collect();
        let joules = median(samples.iter().map(|s| self.energy.joules(s)).collect());
        let rapl = samples.iter().all(|s| s.rapl_joules.is_some());
        Record {
            cipher: v.algorithm.name().to_owned(),
            key_bits: v.key_bits,
            mode: v.mode.name().to_owned(),
            direction,
            data: file.name(),
            bytes: file.len(),
            mb_per_s: bytes / wall / 1e6,
            cycles_per_byte: ticks.map(|t| median(t) / bytes),
            energy_uj_per_byte: joules * 1e6 / bytes,
            energy_method: if rapl { "rapl" } else { "model" },
            implementation: "wlansec",
            wall_s: wall,
            cpu_s: Some(cpu),
            battery_percent: self.battery_percent(joules),
            instructions_per_byte: None,
            repeats: samples.len(),
        }
    }

    fn battery_percent(&self, joules: f64) -> f64 {
        joules / (self.battery_wh * 3600.0) * 100.0
    }

    /// `openssl speed -evp` for each anchor whose variant is in this run, both directions.
    fn openssl_anchor(&self, variants: &[Variant], seconds: u32) -> Result<Vec<Record>> {
        let wanted: Vec<_> = openssl::ANCHORS
            .iter()
            .filter(|a| {
                variants.iter().any(|v| v.algorithm == a.algorithm && v.key_bits == a.key_bits && v.mode == a.mode)
            })
            .collect();
        let mut records = Vec::new();
        let mut progress = Progress::new(wanted.len());
        for (n, a) in wanted.iter().enumerate() {
            for (direction, decrypt) in [("encrypt", false), ("decrypt", true)] {
                progress.step(n + 1, &format!("openssl speed -evp {:<20} {:<8}", a.evp, direction));
                let rate = openssl::speed(a.evp, decrypt, seconds)?;
                let bytes = openssl::BLOCK as f64;
                // OpenSSL reports a rate only: the time of one block is bytes / rate, and
                // energy can only come from the model (RAPL cannot single out its blocks).
                let seconds_per_block = bytes / rate;
                let joules = self.energy.model_joules(seconds_per_block);
                records.push(Record {
                    cipher: a.algorithm.name().to_owned(),
                    key_bits: a.key_bits,
                    mode: a.mode.name().to_owned(),
                    direction,
                    data: format!("openssl-speed-{}B", openssl::BLOCK),
                    bytes: openssl::BLOCK,
                    mb_per_s: rate / 1e6,
                    cycles_per_byte: self.tsc_hz.map(|hz| hz / rate),
                    energy_uj_per_byte: joules * 1e6 / bytes,
                    energy_method: "model",
                    implementation: "openssl",
                    wall_s: seconds_per_block,
                    cpu_s: None,
                    battery_percent: self.battery_percent(joules),
                    instructions_per_byte: None,
                    repeats: 1,
                });
            }
        }
        progress.finish();
        Ok(records)
    }
}

/// The `aes` crate's backend in this build: `--cfg aes_backend="soft"` (RUSTFLAGS, see
/// scripts/bench-ciphers-soft-aes.sh) forces its portable fixsliced code; otherwise it picks
/// AES-NI at run time where the CPU has it.
fn aes_backend() -> &'static str {
    if cfg!(aes_backend = "soft") {
        return "soft (forced: --cfg aes_backend=\"soft\", fixsliced constant-time, no AES instructions)";
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if std::arch::is_x86_feature_detected!("aes") {
        return "AES-NI (detected at run time)";
    }
    "soft (no AES instructions on this CPU)"
}

fn print_table(records: &[Record], energy: &EnergyMeter) {
    println!(
        "{:<18} {:>4} {:<11} {:<20} {:<7} {:>9} {:>8} {:>9} {:>10} {:>8} {:<7}",
        "cipher", "bits", "mode", "data", "dir", "MB/s", "cyc/B", "µJ/B", "batt %", "instr/B", "impl"
    );
    for r in records {
        let opt = |x: Option<f64>, p: usize| x.map_or("-".to_owned(), |v| format!("{v:.p$}"));
        println!(
            "{:<18} {:>4} {:<11} {:<20} {:<7} {:>9.1} {:>8} {:>9.5} {:>10.2e} {:>8} {:<7}",
            r.cipher,
            r.key_bits,
            r.mode,
            r.data,
            r.direction,
            r.mb_per_s,
            opt(r.cycles_per_byte, 2),
            r.energy_uj_per_byte,
            r.battery_percent,
            opt(r.instructions_per_byte, 1),
            r.implementation
        );
    }
    match energy.method {
        "rapl" => println!("energy: Intel RAPL package energy (wlansec rows); OpenSSL rows: model V × I × t"),
        _ => println!(
            "energy: model E = V × I × t_cpu with V = {} V, I = {} A (no RAPL on this machine); source: {}",
            energy.volts, energy.amps, energy.model_source
        ),
    }
}

/// Fills `instructions_per_byte` of every wlansec record from callgrind counts.
fn count_instructions(variants: &[Variant], records: &mut [Record]) -> Result<()> {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .context("running valgrind (is it installed? see scripts/setup.sh)")?;
    let exe = std::env::current_exe().context("finding the wlansec executable")?;
    let span = (KERNEL_SIZES[1] - KERNEL_SIZES[0]) as f64;
    let mut progress = Progress::new(variants.len());
    for (n, v) in variants.iter().enumerate() {
        progress.step(n + 1, &format!("callgrind {:<28}", v.label()));
        let ir = |direction: &str, bytes: usize| callgrind_ir(&exe, &format!("{}:{direction}:{bytes}", v.label()));
        let enc = (ir("encrypt", KERNEL_SIZES[1])? - ir("encrypt", KERNEL_SIZES[0])?) as f64 / span;
        let both = (ir("decrypt", KERNEL_SIZES[1])? - ir("decrypt", KERNEL_SIZES[0])?) as f64 / span;
        for r in records.iter_mut().filter(|r| {
            r.implementation == "wlansec"
                && r.cipher == v.algorithm.name()
                && r.key_bits == v.key_bits
                && r.mode == v.mode.name()
        }) {
            r.instructions_per_byte = Some(if r.direction == "encrypt" { enc } else { both - enc });
        }
    }
    progress.finish();
    Ok(())
}

/// Instructions (callgrind's Ir) of a whole `--count-kernel` child process.
fn callgrind_ir(exe: &std::path::Path, spec: &str) -> Result<u64> {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .args(["bench", "ciphers", "--count-kernel", spec])
        .output()
        .context("running valgrind --tool=callgrind")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(out.status.success(), "callgrind run of {spec} failed: {}", stderr.lines().last().unwrap_or(""));
    stderr
        .lines()
        .find_map(|l| l.split("Collected :").nth(1)?.trim().parse().ok())
        .ok_or_else(|| anyhow!("callgrind run of {spec}: no \"Collected\" line in its output"))
}

/// The counted workload: fixed-cost set-up (the same at every size), then encrypt `bytes`
/// octets, and for `decrypt` decrypt them again.
fn count_kernel(spec: &str) -> Result<()> {
    let mut parts = spec.rsplitn(3, ':');
    let (Some(bytes), Some(direction), Some(label)) = (parts.next(), parts.next(), parts.next()) else {
        bail!("--count-kernel wants LABEL:encrypt|decrypt:BYTES, got {spec:?}");
    };
    let bytes: usize = bytes.parse().map_err(|_| anyhow!("--count-kernel: bad byte count {bytes:?}"))?;
    let largest = KERNEL_SIZES[1];
    ensure!(bytes <= largest, "--count-kernel: at most {largest} bytes");
    let variant = catalog::find(label)?;
    let mut plain = vec![0u8; largest];
    ChaCha8Rng::seed_from_u64(1).fill_bytes(&mut plain);
    let engine = variant.engine(&key_for(&variant))?;
    let mut ct = vec![0u8; engine.max_ciphertext_len(largest)];
    let mut back = vec![0u8; engine.max_ciphertext_len(largest)];
    let ct_len = engine.encrypt(&plain[..bytes], &mut ct)?;
    match direction {
        "encrypt" => {}
        "decrypt" => {
            let n = engine.decrypt(&ct[..ct_len], &mut back)?;
            ensure!(back[..n] == plain[..bytes], "round trip failed");
        }
        other => bail!("--count-kernel: direction must be encrypt or decrypt, not {other:?}"),
    }
    std::hint::black_box(&ct);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant round-trips a prefix of every data file with an odd length (so CBC
    /// pads a partial block and the per-frame engines end on a short frame); AES-128-CBC
    /// round-trips every file whole.
    #[test]
    fn round_trips_on_every_data_file() {
        let all: Vec<_> = catalog::variants().into_iter().chain(catalog::blowfish_sweep()).collect();
        for file in data::all() {
            let plain = file.generate();
            for v in &all {
                let whole = v.algorithm == catalog::Algorithm::Aes && v.key_bits == 128 && v.mode == catalog::Mode::Cbc;
                let plain = if whole { &plain[..] } else { &plain[..20_001] };
                let engine = v.engine(&key_for(v)).unwrap_or_else(|e| panic!("{}: {e}", v.label()));
                let mut ct = vec![0u8; engine.max_ciphertext_len(plain.len())];
                let n = engine.encrypt(plain, &mut ct).unwrap();
                assert_ne!(&ct[..plain.len()], plain, "{} left {} unchanged", v.label(), file.name());
                let mut back = vec![0u8; plain.len() + 32];
                let m = engine.decrypt(&ct[..n], &mut back).unwrap();
                assert_eq!(&back[..m], plain, "{} on {}", v.label(), file.name());
            }
        }
    }

    #[test]
    fn tampering_is_refused_by_the_authenticated_engines() {
        for label in ["ChaCha20-Poly1305-256-AEAD", "AES-GCM-128-AEAD", "CCMP-128-CCMP-frames"] {
            let v = catalog::find(label).unwrap();
            let engine = v.engine(&key_for(&v)).unwrap();
            let plain = vec![7u8; 4000];
            let mut ct = vec![0u8; engine.max_ciphertext_len(plain.len())];
            let n = engine.encrypt(&plain, &mut ct).unwrap();
            ct[n - 20] ^= 1;
            let mut back = vec![0u8; plain.len()];
            assert!(engine.decrypt(&ct[..n], &mut back).is_err(), "{label} accepted a flipped bit");
        }
    }

    #[test]
    fn bad_keys_and_names_are_errors() {
        let v = catalog::find("aes-128-cbc").unwrap();
        assert!(v.engine(&[0u8; 15]).is_err());
        assert!(catalog::find("AES-512-CBC").is_err());
        assert!(count_kernel("AES-128-CBC:sideways:16").is_err());
        for label in ["AES-128-CBC", "CCMP-128-CCMP-frames"] {
            assert!(count_kernel(&format!("{label}:decrypt:{}", KERNEL_SIZES[1])).is_ok(), "{label}");
        }
        let cbc = v.engine(&[0u8; 16]).unwrap();
        let mut out = [0u8; 64];
        assert!(cbc.decrypt(&[1u8; 17], &mut out).is_err());
    }
}
