//! `wlansec wlan up|down|status|inject`: the emulated WLAN in network namespaces (root).
//!
//! `up` writes the configuration to /run/wlansec/NAME, starts a supervisor (detached, or in
//! the foreground with `--foreground`) that creates the namespaces, runs the emulator as its
//! child and removes the namespaces whenever that child ends — `down`, Ctrl-C, a crash or a
//! kill — and waits until every station has joined (or failed, which it reports).
//!
//! * `args`: the subcommands' arguments, their defaults and checks.
//! * `conf`: hostapd.conf and wpa_supplicant.conf, read into those arguments.
//! * `up`: `wlan up`, until every station has joined.
//! * `supervisor`: the processes behind it (supervisor, emulator) and `wlan down`.
//! * `files`: the WLAN's files under /run/wlansec.
//! * `status`: what `wlan up` and `wlan status` print.
//! * `udp_node`: `wlansec ap` and `wlansec sta`, one node each over UDP.
//! * `tools`: `wlan model`, `wlan card` and `wlan protect-loop`, which start no WLAN.
//!
//! Here: the dispatch, and the rules on security settings every node's arguments obey.

mod args;
mod conf;
mod files;
mod status;
mod supervisor;
mod tools;
mod udp_node;
mod up;

use std::process::ExitCode;

use anyhow::{bail, Result};
use wlansec_wlan::emulator::control;
use wlansec_wlan::pmf::Pmf;
use wlansec_wlan::security::{wep_key, Security, SecurityMode};

pub use args::{ApArgs, Command, StaArgs};
pub use udp_node::{ap, sta};

pub fn run(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Up(args) => up::up(*args),
        Command::Down(args) => supervisor::down(&args.name).map(|_| ExitCode::SUCCESS),
        Command::Status(args) => status::status(args),
        Command::Inject(args) => {
            println!("{}", control(&args.name.name, &format!("inject {}", args.what))?);
            Ok(ExitCode::SUCCESS)
        }
        Command::ProtectLoop(args) => tools::protect_loop(args),
        Command::Model(args) => tools::model(args),
        Command::Card(args) => tools::card(args),
        Command::Supervise(args) => supervisor::supervise(&args.name.name, args.until_up_confirms),
        Command::Run(args) => supervisor::run_emulator(&args.name),
    }
}

/// `--pmf` as given, else the secure default: required on an SAE or OWE network (WPA3 requires
/// it); elsewhere 802.11w offered (optional, so stations without it still join) wherever it
/// can be, an access point's ccmp or enhanced network; off elsewhere (TKIP, WEP and open
/// networks cannot protect management frames, an IBSS has no access point to negotiate it
/// with).
fn pmf_or_default(pmf: Option<Pmf>, security: Security, bss: bool) -> Pmf {
    let default = match security {
        _ if security.requires_pmf() => Pmf::Required,
        Security { mode, .. } if bss && mode.supports_pmf() => Pmf::Optional,
        _ => Pmf::Off,
    };
    pmf.unwrap_or(default)
}

/// `--pmf` of a network in WPA3-Personal transition mode (`--sae-transition`), or not: the
/// transition offers PMF to every station (optional, the default) and requires it of SAE links
/// (the machines do), so `off` is refused; elsewhere [`pmf_or_default`] under [`check_pmf`].
fn checked_pmf(pmf: Option<Pmf>, security: Security, bss: bool, sae: &args::SaeArgs) -> Result<Pmf> {
    if (sae.sae_transition || sae.transition_disable.is_some()) && !security.sae {
        bail!("--sae-transition and --transition-disable need --security sae");
    }
    match pmf {
        None if sae.sae_transition => Ok(Pmf::Optional),
        Some(Pmf::Off) if sae.sae_transition => {
            bail!("--sae-transition needs --pmf optional or required (ieee80211w=1)")
        }
        Some(pmf) if sae.sae_transition => Ok(pmf),
        pmf => {
            let pmf = pmf_or_default(pmf, security, bss);
            check_pmf(security, pmf)?;
            Ok(pmf)
        }
    }
}

/// Management frame protection needs CCMP: `required` is refused where the mode has none
/// (`optional` there is simply not offered); SAE and OWE need it required.
fn check_pmf(security: Security, pmf: Pmf) -> Result<()> {
    if security.requires_pmf() && pmf != Pmf::Required {
        bail!("--security {security} needs --pmf required (WPA3 requires management frame protection; ieee80211w=2)");
    }
    if pmf == Pmf::Required && !security.mode.supports_pmf() {
        bail!("--pmf required needs --security ccmp, gcmp256 or enhanced (802.11w protects management frames with CCMP or GCMP)");
    }
    Ok(())
}

/// Beacon protection is BIP on beacons under a BIGTK that only a management-frame-protected
/// link hands out: `on` without PMF is refused.
fn check_beacon_protection(security: Security, pmf: Pmf, beacon_prot: Option<bool>) -> Result<()> {
    if beacon_prot == Some(true) && (pmf == Pmf::Off || !security.mode.supports_pmf()) {
        bail!("--beacon-prot on needs management frame protection (--pmf optional or required; beacon_prot=1 needs ieee80211w=1 or 2)");
    }
    Ok(())
}

/// The secret a mode needs: none when open, a WEP key, a WPA passphrase or PSK, or an SAE
/// password (any length but none).
fn check_passphrase(security: Security, pass: &str) -> Result<()> {
    match security.mode {
        _ if security.sae && pass.is_empty() => {
            bail!("an SAE network needs a password: give --passphrase or --passphrase-file")
        }
        _ if security.sae => {}
        // OWE's keys come from each association's Diffie-Hellman: no secret.
        _ if security.owe => {}
        SecurityMode::Open => {}
        SecurityMode::Wep => {
            wep_key(pass)?;
        }
        _ if pass.len() == 64 && pass.bytes().all(|b| b.is_ascii_hexdigit()) => {}
        _ if !(8..=63).contains(&pass.len()) => {
            bail!("a WPA passphrase has 8..63 characters (or a PSK 64 hex digits): give --passphrase or --passphrase-file")
        }
        _ => {}
    }
    Ok(())
}
