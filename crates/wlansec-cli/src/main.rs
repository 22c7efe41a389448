//! `wlansec`: the command-line face of the wlansec engine.
//!
//! Each subcommand lives in its own module with an `Args` struct and a `run` function.
//! Errors end as one line on stderr and a non-zero exit code, never a panic.

mod bench;
mod bounded;
mod decrypt;
mod frame;
mod hexarg;
mod output;
mod progress;
mod selftest;
mod suites;
mod synth;
mod usage;
mod vectors;
mod wlan;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "wlansec",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("WLANSEC_COMMIT"), ")"),
    about = "IEEE 802.11i / WPA2 data security: frames, suites, captures, benchmarks, the emulated WLAN"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Protect or unprotect single MPDUs given as hex.
    #[command(subcommand)]
    Frame(frame::Command),
    /// Emit golden test vectors (JSON Lines) over random frames of every header shape.
    Vectors(vectors::Args),
    /// Run every published test vector and print a table.
    Selftest(selftest::Args),
    /// Decrypt a capture (airdecap-ng style): passphrase, PMK, TK or WEP key. One pass in
    /// capture order, for a file as for a pipe: a protected frame that comes before its
    /// station's handshake (or group key) is not decrypted; it is counted as not written
    /// (no_pairwise_key / no_group_key). Exit status 0: decrypted; 1: refused (no handshake,
    /// wrong key, no 802.11 frames); 2: bad arguments; 3: a damaged record ended the capture
    /// early, the frames before it are written.
    Decrypt(decrypt::Args),
    /// Write a realistic protected capture carrying given or generated Ethernet frames.
    Synth(synth::Args),
    /// Measured benchmarks (table, JSON).
    #[command(subcommand)]
    Bench(bench::Command),
    /// The emulated WLAN in network namespaces: up, down, status, inject (root).
    #[command(subcommand)]
    Wlan(wlan::Command),
    /// An access point whose air is UDP over any IP network (a TAP on this host; root).
    Ap(wlan::ApArgs),
    /// A station whose air is UDP to its access point (a TAP on this host; root).
    Sta(wlan::StaArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff): `wlansec man | man -l -`.
    Man,
}

impl Command {
    /// The long-running nodes, which keep Rust's ignored SIGPIPE: a closed socket or log
    /// pipe is an error they handle, not their end.
    fn is_daemon(&self) -> bool {
        matches!(self, Command::Ap(_) | Command::Sta(_)) || matches!(self, Command::Wlan(cmd) if cmd.is_daemon())
    }
}

/// `wlansec … | head` ends as every Unix filter does when its reader goes away: killed by
/// SIGPIPE (status 141 in a shell), silently, instead of a panic on the failed write (Rust
/// ignores SIGPIPE by default).
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: restoring the default disposition of a signal, before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Exit status of a command line that could not be parsed or whose arguments are invalid,
/// as clap and the BSD sysexits convention use it.
const USAGE: u8 = 2;

/// A clap error as the single line every other error is: what is wrong, and with which
/// argument; the usage text and the "try --help" hint are dropped.
fn one_line(err: &clap::Error) -> String {
    let text = err.to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    lines.join(" ").trim_start_matches("error: ").to_string()
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => err.exit(), // --help, --version
        Err(err) => {
            eprintln!("wlansec: error: {}", one_line(&err));
            return ExitCode::from(USAGE);
        }
    };
    if !cli.command.is_daemon() {
        end_quietly_on_a_closed_pipe();
    }
    let result = match cli.command {
        Command::Frame(cmd) => frame::run(cmd),
        Command::Vectors(args) => vectors::run(args),
        Command::Selftest(args) => selftest::run(args),
        Command::Decrypt(args) => decrypt::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Bench(cmd) => bench::run(cmd),
        Command::Wlan(cmd) => wlan::run(cmd),
        Command::Ap(args) => wlan::ap(args),
        Command::Sta(args) => wlan::sta(args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "wlansec", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => clap_mangen::Man::new(Cli::command())
            .render(&mut std::io::stdout())
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("wlansec: error: {err:#}");
            if err.is::<usage::Usage>() {
                ExitCode::from(USAGE)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
