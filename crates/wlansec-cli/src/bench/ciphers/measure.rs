//! Clocks and energy: wall time, thread CPU time, the time-stamp counter calibrated against
//! the wall clock, and energy from Intel RAPL when the machine exposes it, else the study's
//! model E = V × I × t.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

/// CPU time this thread has used.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer; CLOCK_THREAD_CPUTIME_ID
    // is always supported on Linux, and on failure `ts` stays zero.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The time-stamp counter: it ticks at a constant (nominal) rate, not the core clock, so
/// "cycles" here are reference cycles.
#[cfg(target_arch = "x86_64")]
pub fn tsc() -> Option<u64> {
    // SAFETY: RDTSC has no preconditions on x86_64.
    Some(unsafe { core::arch::x86_64::_rdtsc() })
}

#[cfg(not(target_arch = "x86_64"))]
pub fn tsc() -> Option<u64> {
    None
}

/// TSC ticks per second, from the counter's advance over a 100 ms wall-clock interval.
pub fn calibrate_tsc() -> Option<f64> {
    let (t0, c0) = (Instant::now(), tsc()?);
    std::thread::sleep(Duration::from_millis(100));
    let (c1, t1) = (tsc()?, Instant::now());
    Some((c1 - c0) as f64 / (t1 - t0).as_secs_f64())
}

/// What one timed operation cost.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub wall: Duration,
    pub cpu: Duration,
    pub ticks: Option<u64>,
    /// Joules read from RAPL over the operation, when RAPL is present.
    pub rapl_joules: Option<f64>,
}

/// Runs `op` once and reports its cost.
pub fn sample<T>(energy: &EnergyMeter, op: impl FnOnce() -> T) -> (T, Sample) {
    let e0 = energy.rapl_read();
    let (w0, c0, t0) = (Instant::now(), thread_cpu_time(), tsc());
    let out = std::hint::black_box(op());
    let (t1, c1, w1) = (tsc(), thread_cpu_time(), Instant::now());
    let e1 = energy.rapl_read();
    let ticks = t0.zip(t1).map(|(a, b)| b.wrapping_sub(a));
    let rapl_joules = e0.zip(e1).map(|(a, b)| energy.rapl_delta_joules(a, b));
    (out, Sample { wall: w1 - w0, cpu: c1.saturating_sub(c0), ticks, rapl_joules })
}

pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => xs[n / 2],
        _ => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// Where the default supply voltage and current of the energy model come from.
pub const MODEL_SOURCE: &str = "lab/published/cipher_power_wireless_2009.json: I = 270 mA per clock cycle \
(Intel 486DX2, the study's cited [26]); V = 1 V from the study's setup line \"a laptop 1V 2.4 GHz CPU\" \
(as printed; the only voltage the text gives)";
pub const DEFAULT_VOLTS: f64 = 1.0;
pub const DEFAULT_AMPS: f64 = 0.270;
/// A declared battery, not from the study (which gives none): a typical laptop pack.
pub const DEFAULT_BATTERY_WH: f64 = 50.0;

const RAPL_PACKAGE: &str = "/sys/class/powercap/intel-rapl:0";

/// How energy is obtained: RAPL package energy, or the study's E = V × I × t_cpu.
#[derive(Clone, Debug, Serialize)]
pub struct EnergyMeter {
    pub method: &'static str,
    pub volts: f64,
    pub amps: f64,
    pub model_source: &'static str,
    #[serde(skip)]
    rapl: Option<(PathBuf, u64)>,
}

impl EnergyMeter {
    /// RAPL if `/sys/class/powercap/intel-rapl:0/energy_uj` is readable (and not refused
    /// by `force_model`), else the model with the given V and I.
    pub fn new(volts: f64, amps: f64, force_model: bool) -> Self {
        let rapl = (!force_model).then(|| {
            let dir = PathBuf::from(RAPL_PACKAGE);
            let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok()?.trim().parse::<u64>().ok();
            read("energy_uj")?;
            Some((dir.join("energy_uj"), read("max_energy_range_uj").unwrap_or(u64::MAX)))
        });
        let rapl = rapl.flatten();
        let method = if rapl.is_some() { "rapl" } else { "model" };
        EnergyMeter { method, volts, amps, model_source: MODEL_SOURCE, rapl }
    }

    fn rapl_read(&self) -> Option<u64> {
        let (path, _) = self.rapl.as_ref()?;
        std::fs::read_to_string(path).ok()?.trim().parse().ok()
    }

    fn rapl_delta_joules(&self, before: u64, after: u64) -> f64 {
        let range = self.rapl.as_ref().map_or(u64::MAX, |(_, r)| *r);
        let uj = if after >= before { after - before } else { range - before + after };
        uj as f64 * 1e-6
    }

    /// Joules of one operation: measured when RAPL is present, else V × I × CPU time.
    pub fn joules(&self, s: &Sample) -> f64 {
        s.rapl_joules.unwrap_or_else(|| self.model_joules(s.cpu.as_secs_f64()))
    }

    pub fn model_joules(&self, seconds: f64) -> f64 {
        self.volts * self.amps * seconds
    }
}
