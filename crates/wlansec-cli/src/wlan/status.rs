//! What `wlan up` prints once the stations joined, and `wlan status`: the emulator's status,
//! as a table or (`--json`) as it comes.

use std::process::ExitCode;

use anyhow::Result;
use wlansec_wlan::emulator::control;

use super::args::StatusArgs;

pub(super) fn print_summary(name: &str) -> Result<()> {
    let status: serde_json::Value = serde_json::from_str(&control(name, "status")?)?;
    println!(
        "WLAN `{name}` up: ssid {} security {} phy {} (link {}) A-MPDU ≤ {} MPDUs",
        status["ssid"], status["security"], status["phy"], status["link"], status["ampdu"]
    );
    println!("{:<6} {:<14} {:<6} {:<18} {:<15} {:<12} crypto", "role", "namespace", "iface", "mac", "ipv4", "ipv6");
    for n in status["nodes"].as_array().into_iter().flatten() {
        let s = |k: &str| n[k].as_str().unwrap_or("").to_string();
        println!(
            "{:<6} {:<14} {:<6} {:<18} {:<15} {:<12} {}",
            s("role"),
            s("namespace"),
            s("interface"),
            s("mac"),
            s("ipv4"),
            s("ipv6"),
            n["crypto"]
        );
    }
    Ok(())
}

pub(super) fn status(args: StatusArgs) -> Result<ExitCode> {
    let command = if args.reset_release_error { "status reset-release-error" } else { "status" };
    let answer = control(&args.name.name, command)?;
    if args.json {
        println!("{answer}");
        return Ok(ExitCode::SUCCESS);
    }
    let s: serde_json::Value = serde_json::from_str(&answer)?;
    println!(
        "{} security {} phy {} link {} (FER {}), A-MPDU ≤ {} MPDUs, up {:.1} s",
        s["name"],
        s["security"],
        s["phy"],
        s["link"],
        s["frame_error_rate"],
        s["ampdu"],
        s["uptime_s"].as_f64().unwrap_or(0.0)
    );
    for n in s["nodes"].as_array().into_iter().flatten() {
        println!(
            "  {:<5} {:<12} {} {} {}  state {}  {}",
            n["role"].as_str().unwrap_or(""),
            n["namespace"].as_str().unwrap_or(""),
            n["mac"].as_str().unwrap_or(""),
            n["ipv4"].as_str().unwrap_or(""),
            n["ipv6"].as_str().unwrap_or(""),
            n["state"]["state"],
            n["counters"]
        );
    }
    println!("  medium {}", s["medium"]);
    println!("  release error (µs) {}", s["release_error"]);
    Ok(ExitCode::SUCCESS)
}
