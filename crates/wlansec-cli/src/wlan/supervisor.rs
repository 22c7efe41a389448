//! The processes behind `wlan up`: the supervisor, which creates the namespaces, runs the
//! emulator as its child and removes everything however that child ends; the emulator
//! (`wlan run`); and `wlan down`, which ends both and removes what is left.

use std::fs;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command as Process, ExitCode};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use wlansec_wlan::emulator::{control, state_dir, Emulator};
use wlansec_wlan::netns;

use super::files::{log_path, read_config};
use crate::bounded;

/// Stop the emulator if it runs, wait for the supervisor, and remove whatever is left.
pub(super) fn down(name: &str) -> Result<()> {
    let dir = state_dir(name);
    let _ = control(name, "down");
    let pid_of = |file: &str| {
        bounded::read_to_string(&dir.join(file), bounded::STATE)
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok())
            .filter(|&pid| is_ours(pid, name))
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    // A stopped process would never see the end it is asked for.
    for pid in [pid_of("supervisor.pid"), pid_of("emulator.pid")].into_iter().flatten() {
        signal(pid, libc::SIGCONT);
    }
    while let Some(pid) = pid_of("supervisor.pid") {
        if Instant::now() > deadline {
            if let Some(child) = pid_of("emulator.pid") {
                signal(child, libc::SIGKILL);
            }
            if Instant::now() > deadline + Duration::from_secs(3) {
                signal(pid, libc::SIGKILL);
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // An emulator whose supervisor is gone (killed with it, or before it) is ended too.
    if let Some(child) = pid_of("emulator.pid") {
        signal(child, libc::SIGKILL);
    }
    cleanup(name)?;
    match fs::remove_file(log_path(name)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| log_path(name).display().to_string())
        }
        _ => Ok(()),
    }
}

/// Whether `pid` is this WLAN's supervisor or emulator: a wlansec process whose command line
/// is `wlan supervise|run --name NAME` (a PID in a state file may have been reused since).
fn is_ours(pid: i32, name: &str) -> bool {
    let Ok(cmdline) = fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    let is_wlansec = args.first().is_some_and(|exe| exe.ends_with(b"wlansec"));
    let role = args.windows(2).any(|w| w[0] == b"wlan" && (w[1] == b"supervise" || w[1] == b"run"));
    let named = args.windows(2).any(|w| w[0] == b"--name" && w[1] == name.as_bytes());
    is_wlansec && role && named
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill takes two integers and touches no memory of ours. That `pid` is this
    // WLAN's supervisor or emulator (not a process that reused its PID) is `is_ours`'s check.
    unsafe { libc::kill(pid, sig) };
}

/// Remove the namespaces and state of topology `name` (whatever of it exists).
fn cleanup(name: &str) -> Result<()> {
    let stations = read_config(name).map(|c| c.stations).unwrap_or(0);
    for node in netns::nodes(name, stations) {
        netns::delete_namespace(&node.namespace)?;
    }
    // Namespaces of an earlier run whose configuration is gone: same prefix.
    if let Ok(entries) = fs::read_dir("/run/netns") {
        for e in entries.flatten() {
            let ns = e.file_name().to_string_lossy().to_string();
            let ours = ns == format!("{name}-ap")
                || ns.strip_prefix(&format!("{name}-sta")).is_some_and(|n| n.parse::<u32>().is_ok());
            if ours {
                netns::delete_namespace(&ns)?;
            }
        }
    }
    let dir = state_dir(name);
    match fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("{}", dir.display()))
        }
        _ => {}
    }
    Ok(())
}

/// Until `wlan up` confirms (writes an octet to standard input), its end tears the WLAN down:
/// an `up` killed before every station joined leaves nothing running for the next `up` to
/// find. Returns the flag the supervisor checks once the emulator runs, and the emulator's
/// PID slot the watcher signals; whichever of the two comes second ends the emulator.
fn watch_up(name: &str) -> (Arc<AtomicBool>, Arc<AtomicI32>) {
    let abandoned = Arc::new(AtomicBool::new(false));
    let emulator = Arc::new(AtomicI32::new(0));
    let (flag, pid) = (abandoned.clone(), emulator.clone());
    let name = name.to_string();
    std::thread::spawn(move || {
        if matches!(std::io::stdin().read(&mut [0u8]), Ok(1)) {
            return;
        }
        eprintln!("wlan: `wlan up` for `{name}` ended before every station joined; tearing down");
        flag.store(true, Ordering::SeqCst);
        let pid = pid.load(Ordering::SeqCst);
        if pid > 0 {
            signal(pid, libc::SIGTERM);
        }
    });
    (abandoned, emulator)
}

/// The backstop: create the namespaces, run the emulator, and clean up however it ends.
pub(super) fn supervise(name: &str, until_up_confirms: bool) -> Result<ExitCode> {
    // SAFETY: signal with valid signal numbers and SIG_IGN installs no handler code and
    // touches no memory; it affects this process only (the child restores them, below).
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
    let config = read_config(name)?;
    fs::write(state_dir(name).join("supervisor.pid"), std::process::id().to_string())?;
    let watch = until_up_confirms.then(|| watch_up(name));
    let result = (|| -> Result<bool> {
        for node in config.nodes() {
            netns::create_namespace(&node.namespace)?;
        }
        let mut child = Process::new(std::env::current_exe()?);
        child.args(["wlan", "run", "--name", name]);
        // SAFETY: the closure runs in the forked child before exec and calls only signal,
        // which is async-signal-safe (no allocation, no lock): it restores the default
        // dispositions, since ignored ones are inherited through exec.
        unsafe {
            child.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                libc::signal(libc::SIGHUP, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = child.spawn()?;
        fs::write(state_dir(name).join("emulator.pid"), child.id().to_string())?;
        if let Some((abandoned, emulator)) = &watch {
            emulator.store(child.id() as i32, Ordering::SeqCst);
            if abandoned.load(Ordering::SeqCst) {
                signal(child.id() as i32, libc::SIGTERM);
            }
        }
        Ok(child.wait()?.success())
    })();
    cleanup(name)?;
    eprintln!("wlan: `{name}` torn down");
    match result {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::FAILURE),
        Err(e) => Err(e),
    }
}

pub(super) fn run_emulator(name: &str) -> Result<ExitCode> {
    let config = read_config(name)?;
    let mut emulator = Emulator::new(config)?;
    eprintln!("wlan: emulator for `{name}` running; {}", Emulator::tune_scheduling());
    emulator.run()?;
    Ok(ExitCode::SUCCESS)
}
