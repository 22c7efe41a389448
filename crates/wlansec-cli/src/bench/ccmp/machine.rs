//! What a run ran on: the CPU and its features, the engine backend, the clocks, the versions
//! of OpenSSL and intel-ipsec-mb, and the load on the (shared) machine.

use serde::Serialize;

use super::ipsec_mb_rows::IpsecMbInfo;

/// The report's header.
#[derive(Serialize)]
pub struct Machine {
    /// The commit the binary was built from (`-dirty`: with changed sources).
    pub commit: &'static str,
    pub cpu: String,
    /// The CPU features the engines' choices turn on.
    pub cpu_flags: CpuFlags,
    /// The engine backend of this run: runtime dispatch's choice unless `--backend` forced one.
    pub backend: &'static str,
    pub backend_forced: bool,
    pub tsc_hz: f64,
    /// TSC ticks per core clock cycle, measured with a chain of dependent ADDs.
    pub tsc_per_core_cycle: f64,
    pub core_hz: f64,
    pub repeats: usize,
    pub openssl: String,
    /// /proc/loadavg (1, 5, 15 minutes) when the run started: the machine is shared.
    pub load_average: [f64; 3],
    pub intel_ipsec_mb: IpsecMbInfo,
}

/// The CPU features the engines' choices turn on.
#[derive(Serialize)]
pub struct CpuFlags {
    aes: bool,
    vaes: bool,
    vpclmulqdq: bool,
    avx2: bool,
    avx512f: bool,
    avx512vl: bool,
}

impl CpuFlags {
    pub fn detect() -> Self {
        CpuFlags {
            aes: std::arch::is_x86_feature_detected!("aes"),
            vaes: std::arch::is_x86_feature_detected!("vaes"),
            vpclmulqdq: std::arch::is_x86_feature_detected!("vpclmulqdq"),
            avx2: std::arch::is_x86_feature_detected!("avx2"),
            avx512f: std::arch::is_x86_feature_detected!("avx512f"),
            avx512vl: std::arch::is_x86_feature_detected!("avx512vl"),
        }
    }
}

/// /proc/loadavg's 1, 5 and 15 minutes (NaN where unreadable).
pub fn load_average() -> [f64; 3] {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut fields = text.split_whitespace().map(|f| f.parse().unwrap_or(f64::NAN));
    [(); 3].map(|_| fields.next().unwrap_or(f64::NAN))
}
