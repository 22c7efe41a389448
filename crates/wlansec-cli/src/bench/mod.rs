//! `wlansec bench`: measured benchmarks that print a table and can write JSON.

pub mod ciphers;

use std::process::ExitCode;

use clap::Subcommand;

#[derive(Subcommand)]
pub enum Command {
    /// Compare AES, DES, 3DES, RC2, Blowfish, RC6 and today's AEADs: time, throughput,
    /// cycles, instructions and energy per byte on the study's text and video files.
    Ciphers(ciphers::Args),
}

pub fn run(cmd: Command) -> anyhow::Result<ExitCode> {
    match cmd {
        Command::Ciphers(args) => ciphers::run(args),
    }
}
