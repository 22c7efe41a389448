//! Analytical saturation throughput per security mode and PHY (docs/airtime.md): the airtime
//! model's prediction that the emulated medium is compared against.
//!
//! `cargo run --release -p wlansec-wlan --example saturation [-- --out FILE] [--access dcf|be]
//! [--ip-bytes N]`: prints a table and writes JSON (default out/airtime/saturation.json).

use std::path::PathBuf;

use serde_json::json;
use wlansec_wlan::airtime::{saturation, simulated_saturation, AccessCategory, Exchange, Phy};
use wlansec_wlan::security::SecurityMode;

const PHYS: [(&str, usize); 10] = [
    ("g54", 1),
    ("a54", 1),
    ("n-mcs7-20", 1),
    ("n-mcs7-40", 1),
    ("n-mcs7-40-sgi", 1),
    ("n-mcs7-40", 32),
    ("n-mcs7-40-sgi", 32),
    ("ac-mcs9-80", 1),
    ("ac-mcs9-80", 32),
    ("ac-mcs9-80-sgi", 32),
];
const MODES: [&str; 5] = ["open", "wep", "tkip", "ccmp", "enhanced"];
const STATIONS: [usize; 4] = [1, 2, 5, 10];
/// Contended cases also simulated slot by slot (successful exchanges per run, seed 1).
const SIMULATED: [usize; 2] = [2, 10];
const SIMULATED_SUCCESSES: u64 = 100_000;

fn main() {
    let mut out = PathBuf::from("out/airtime/saturation.json");
    let mut access = AccessCategory::BestEffort;
    let mut ip_bytes = 1500;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| fail(&format!("{arg} needs a value")));
        match arg.as_str() {
            "--out" => out = PathBuf::from(value()),
            "--access" => {
                access = match value().as_str() {
                    "dcf" => AccessCategory::Dcf,
                    "be" => AccessCategory::BestEffort,
                    other => fail(&format!("--access {other}: use dcf or be")),
                }
            }
            "--ip-bytes" => ip_bytes = value().parse().unwrap_or_else(|_| fail("--ip-bytes takes a number")),
            other => fail(&format!("unknown argument {other}")),
        }
    }

    println!(
        "Saturation throughput (IP Mbit/s, all stations together), {ip_bytes}-byte IP packets, {access:?}, no RTS/CTS"
    );
    println!(
        "{:<15} {:>6} {:<9} {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "phy",
        "A-MPDU",
        "mode",
        "MPDU",
        "DATA µs",
        "cycle µs",
        "1 STA",
        "2 STA",
        "2 sim",
        "5 STA",
        "10 STA",
        "10 sim",
        "vs open"
    );
    println!("(N STA: Bianchi's model; N sim: slot-by-slot backoff simulation, {SIMULATED_SUCCESSES} exchanges; vs open: 1 STA)");
    let mut rows = Vec::new();
    for (name, mpdus) in PHYS {
        let phy: Phy = name.parse().unwrap_or_else(|e| fail(&format!("{e}")));
        let access = if mpdus > 1 { AccessCategory::BestEffort } else { access };
        let mut open_single = None;
        for mode_name in MODES {
            let mode: SecurityMode = mode_name.parse().unwrap_or_else(|e: wlansec_wlan::Error| fail(&e.to_string()));
            let exchange = Exchange::aggregated(phy, access, mode.overhead(), ip_bytes, mpdus)
                .unwrap_or_else(|e| fail(&format!("{name} {mode}: {e}")));
            let throughput: Vec<f64> =
                STATIONS.iter().map(|&n| saturation(&exchange, n).throughput_bps / 1e6).collect();
            let simulated: Vec<f64> = SIMULATED
                .iter()
                .map(|&n| simulated_saturation(&exchange, n, SIMULATED_SUCCESSES, 1).throughput_bps / 1e6)
                .collect();
            let open = *open_single.get_or_insert(throughput[0]);
            let cost = 100.0 * (throughput[0] / open - 1.0);
            println!(
                "{:<15} {:>6} {:<9} {:>5} {:>8.1} {:>8.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}%",
                name,
                mpdus,
                mode_name,
                exchange.mpdu_bytes(),
                exchange.data_time().as_secs_f64() * 1e6,
                exchange.cycle_time().as_secs_f64() * 1e6,
                throughput[0],
                throughput[1],
                simulated[0],
                throughput[2],
                throughput[3],
                simulated[1],
                cost
            );
            rows.push(json!({
                "phy": name,
                "ampdu_mpdus": mpdus,
                "access": format!("{access:?}"),
                "mode": mode_name,
                "security_overhead_bytes": mode.overhead(),
                "mpdu_bytes": exchange.mpdu_bytes(),
                "psdu_bytes": exchange.psdu_bytes(),
                "data_us": exchange.data_time().as_secs_f64() * 1e6,
                "cycle_us": exchange.cycle_time().as_secs_f64() * 1e6,
                "throughput_mbps": STATIONS.iter().zip(&throughput)
                    .map(|(n, s)| (n.to_string(), json!(s))).collect::<serde_json::Map<_, _>>(),
                "simulated_throughput_mbps": SIMULATED
                    .iter()
                    .zip(&simulated)
                    .map(|(n, s)| (n.to_string(), json!(s)))
                    .collect::<serde_json::Map<_, _>>(),
                "single_station_vs_open_percent": cost,
            }));
        }
    }
    let doc = json!({
        "model": "wlansec_wlan::airtime (IEEE 802.11-2020 TXTIME; Bianchi 2000 saturation; slot-by-slot backoff simulation); docs/airtime.md",
        "simulated_successes": SIMULATED_SUCCESSES,
        "command": "cargo run --release -p wlansec-wlan --example saturation",
        "ip_bytes": ip_bytes,
        "rows": rows,
    });
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    }
    std::fs::write(&out, serde_json::to_string_pretty(&doc).unwrap() + "\n")
        .unwrap_or_else(|e| fail(&format!("{}: {e}", out.display())));
    println!("wrote {}", out.display());
}

fn fail(message: &str) -> ! {
    eprintln!("saturation: {message}");
    std::process::exit(2)
}
