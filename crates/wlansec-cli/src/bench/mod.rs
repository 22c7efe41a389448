//! `wlansec bench`: measured benchmarks that print a table and can write JSON.

pub mod ccmp;
pub mod ciphers;
mod cpu;
mod ipsec_mb;

use std::process::ExitCode;

use clap::Subcommand;

#[derive(Subcommand)]
pub enum Command {
    /// Compare AES, DES, 3DES, RC2, Blowfish, RC6 and today's AEADs: time, throughput,
    /// cycles, instructions and energy per byte on the study's text and video files.
    Ciphers(ciphers::Args),
    /// CCMP-128 engines side by side (OpenSSL, RustCrypto, wlansec single, multi-buffer,
    /// Enhanced N=2/4/8, intel-ipsec-mb's job and burst APIs where installed): cycles/byte,
    /// GB/s, µs/frame, the AES-NI bound, 1 vs 2 threads.
    Ccmp(ccmp::Args),
}

pub fn run(cmd: Command) -> anyhow::Result<ExitCode> {
    match cmd {
        Command::Ciphers(args) => ciphers::run(args),
        Command::Ccmp(args) => ccmp::run(args),
    }
}
