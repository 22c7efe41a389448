//! `wlan up`: check the arguments, write the configuration, start the supervisor (detached,
//! or in the foreground) and wait until every station has joined.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command as Process, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use wlansec_wlan::emulator::{control, control_socket, state_dir, Config};

use super::args::{ampdu, read_passphrase_file, validate, UpArgs};
use super::conf;
use super::files::{config_path, create_state_dir, log_path, private_file, write_private};
use super::status::print_summary;
use super::supervisor::down;
use crate::bounded;
use crate::usage::usage;

pub(super) fn up(mut args: UpArgs) -> Result<ExitCode> {
    read_passphrase_file(&mut args.passphrase, args.passphrase_file.as_deref())?;
    conf::apply_up(&mut args, &mut |w| eprintln!("wlansec: warning: {w}"))?;
    validate(&args).map_err(usage)?;
    // SAFETY: geteuid takes nothing, touches no memory and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        bail!("wlan up needs root (network namespaces and TAP interfaces)");
    }
    let name = args.name.name.clone();
    if control_socket(&name).exists() && control(&name, "status").is_ok() {
        bail!("WLAN `{name}` is already up (wlansec wlan down --name {name})");
    }
    // What a crashed or stopped earlier instance left: its processes, namespaces, files.
    down(&name)?;
    let max_ampdu = ampdu(&args)?;
    let pmf = args.pmf(args.security().parse()?)?;
    let keylog = args.keylog.as_deref().map(std::path::absolute).transpose()?;
    if let Some(path) = &keylog {
        // Root's only, and empty: the emulator appends this run's PMKs.
        write_private(path, b"")?;
    }
    let config = Config {
        name: name.clone(),
        ssid: args.ssid().into(),
        passphrase: args.passphrase().into(),
        station_passphrase: args.station_passphrase.clone(),
        security: args.security().into(),
        phy: args.phy,
        poor_signal: args.poor_signal,
        stations: args.stations,
        card: args.card,
        ap_crypto: args.ap_crypto,
        pcap: args.pcap.map(|p| std::path::absolute(&p)).transpose()?,
        release_log: args.release_log.map(|p| std::path::absolute(&p)).transpose()?,
        queue_limit: args.queue.max(1),
        ampdu: max_ampdu,
        seed: args.seed,
        topology: args.topology,
        fragment_threshold: args.fragment_threshold,
        gtk_rekey: args.gtk_rekey.unwrap_or(0),
        pmf: pmf.to_string(),
        release_spin_us: args.release_spin_us,
        sae_pwe: args.sae.pwe().to_string(),
        sae_groups: args.sae.groups().to_vec(),
        keylog,
        beacon_prot: args.beacon_prot,
        sae_transition: args.sae.sae_transition,
        transition_disable: args.sae.transition_disable.unwrap_or(0),
        psk_stations: args.psk_stations,
    };
    create_state_dir(&name)?;
    write_private(&config_path(&name), serde_json::to_string_pretty(&config)?.as_bytes())?;
    let exe = std::env::current_exe()?;
    if args.foreground {
        eprintln!("wlan: supervising `{name}` in the foreground; Ctrl-C tears it down");
        let mut child = Process::new(&exe).args(["wlan", "supervise", "--name", &name]).spawn()?;
        let joined = wait_joined(&name, &config);
        if let Err(e) = &joined {
            eprintln!("wlansec: error: {e:#}");
        } else {
            print_summary(&name)?;
        }
        let status = child.wait()?;
        return Ok(if status.success() && joined.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE });
    }
    let log = private_file(&log_path(&name))?;
    let mut cmd = Process::new(&exe);
    cmd.args(["wlan", "supervise", "--name", &name, "--until-up-confirms"]);
    cmd.stdin(Stdio::piped()).stdout(log.try_clone()?).stderr(log);
    // SAFETY: the closure runs in the forked child before exec and calls only setsid, which
    // is async-signal-safe (no allocation, no lock): it detaches from this terminal's session.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut supervisor = cmd.spawn()?;
    // The supervisor tears the WLAN down if this process ends before writing this octet.
    let mut confirm = || supervisor.stdin.take().map_or(Ok(()), |mut pipe| pipe.write_all(b"1"));
    match wait_joined(&name, &config) {
        Ok(()) => {
            confirm()?;
            print_summary(&name)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if args.keep_on_failure => {
            confirm()?;
            eprintln!("wlansec: error: {e:#} (left up: --keep-on-failure)");
            Ok(ExitCode::FAILURE)
        }
        Err(e) => {
            let _ = down(&name);
            Err(e)
        }
    }
}

/// WEP has no handshake to fail: a wrong key shows only when the stations' first frames (the
/// kernel's IPv6 neighbour discovery, within a second of `up`) fail their ICV at the access
/// point. Wait for the first frame that passes, or fail on one that does not.
fn first_frames_pass(name: &str) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        let status: serde_json::Value = serde_json::from_str(&control(name, "status")?)?;
        let ap = status["nodes"].as_array().and_then(|n| n.iter().find(|n| n["role"] == "ap")).cloned();
        let counter = |what: &str| ap.as_ref().and_then(|a| a["counters"][what].as_u64()).unwrap_or(0);
        if counter("rx_msdus") > 0 {
            return Ok(());
        }
        if counter("dropped_integrity") > 0 {
            bail!("the stations' frames fail their WEP ICV at the access point: the WEP keys differ");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// Wait until every station is connected; fail with the first station's reason.
fn wait_joined(name: &str, config: &Config) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(20 + config.stations as u64);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let Ok(answer) = control(name, "status") else {
            if Instant::now() > deadline || !state_dir(name).exists() {
                let log = bounded::tail(&log_path(name), 64 << 10);
                bail!("the emulator did not start: {}", log.lines().rev().find(|l| !l.is_empty()).unwrap_or("no log"));
            }
            continue;
        };
        let status: serde_json::Value = serde_json::from_str(&answer)?;
        let failures: Vec<String> = status["associations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["failure"].as_str().map(|f| format!("station {}: {f}", a["mac"].as_str().unwrap_or("?"))))
            .collect();
        if !failures.is_empty() {
            bail!("{}", failures.join("; "));
        }
        let nodes = status["nodes"].as_array().cloned().unwrap_or_default();
        if nodes.iter().all(|n| n["state"]["state"] == "connected") {
            return if config.security == "wep" { first_frames_pass(name) } else { Ok(()) };
        }
        if Instant::now() > deadline {
            let stuck: Vec<String> = nodes
                .iter()
                .filter(|n| n["state"]["state"] != "connected")
                .map(|n| format!("{} {}", n["role"].as_str().unwrap_or("?"), n["state"]))
                .collect();
            bail!("stations did not join within the time limit: {}", stuck.join(", "));
        }
    }
}
