//! `wlansec frame protect|unprotect`: one MPDU per argument (or per stdin line with `-`),
//! hex in, hex out. Several frames in one call share the key's state: protect gives them
//! consecutive PNs, unprotect replay-checks them in order.
//!
//! Output has one line per input frame, the result's hex or `error: <why>`, so line i always
//! belongs to frame i; any error also goes to stderr and makes the exit code 1.

use std::io::{self, BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use wlansec_core::capture::{pcap, LinkType};
use wlansec_core::suite::{PnCounter, Receiver, Transmitter};

use crate::hexarg;
use crate::output::AtomicFile;
use crate::suites::{RuleArgs, SuiteName, VariantArgs};

#[derive(Subcommand)]
pub enum Command {
    /// Encapsulate plaintext MPDUs (MAC header + body, no FCS).
    Protect {
        #[arg(long, value_enum)]
        suite: SuiteName,
        /// Temporal key, hex.
        #[arg(long)]
        tk: String,
        /// Packet number of the first frame, decimal or 0x-hex (later frames take the next ones).
        #[arg(long, default_value = "1", value_parser = hexarg::packet_number)]
        pn: u64,
        /// Key ID (0..=3).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
        keyid: u8,
        #[command(flatten)]
        rules: RuleArgs,
        #[command(flatten)]
        variant: VariantArgs,
        /// Also write the protected MPDUs to this pcap file (link type 802.11).
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// MPDUs as hex; `-` reads one per line from stdin.
        #[arg(required = true)]
        frames: Vec<String>,
    },
    /// Verify and decrypt protected MPDUs; prints the plaintext MPDU (Protected bit cleared).
    Unprotect {
        #[arg(long, value_enum)]
        suite: SuiteName,
        /// Temporal key, hex.
        #[arg(long)]
        tk: String,
        /// Accept only this Key ID (default: any).
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=3))]
        keyid: Option<u8>,
        #[command(flatten)]
        rules: RuleArgs,
        #[command(flatten)]
        variant: VariantArgs,
        /// Protected MPDUs as hex; `-` reads one per line from stdin.
        #[arg(required = true)]
        frames: Vec<String>,
    },
}

pub fn run(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Protect { suite, tk, pn, keyid, rules, variant, pcap, frames } => {
            let tk = hexarg::key("--tk", &tk)?;
            let cipher = suite.keyed_variant(&tk, rules.rules(), variant.variant)?;
            let mut tx = Transmitter::new(cipher, keyid).with_pn_counter(PnCounter::starting_at(pn));
            let pcap_file = pcap.as_ref().map(|path| AtomicFile::create(path, &[])).transpose()?;
            let mut capture = match &pcap_file {
                Some(file) => Some(pcap::Writer::new(BufWriter::new(file.handle()?), LinkType::Ieee80211)?),
                None => None,
            };
            let mut written = 0u64;
            let mut write_error = None;
            let code = each_frame(&frames, |buf, len| {
                let out = tx.protect(buf, len)?;
                if let (Some(capture), None) = (capture.as_mut(), &write_error) {
                    // One microsecond apart, so the capture keeps the order of protection.
                    write_error = capture.write(written * 1000, &buf[..out]).err();
                    written += 1;
                }
                Ok(out)
            })?;
            if let Some(err) = write_error {
                return Err(err).context("writing the pcap");
            }
            if let (Some(capture), Some(file)) = (capture, pcap_file) {
                capture.into_inner().flush().context("writing the pcap")?;
                file.commit()?;
            }
            Ok(code)
        }
        Command::Unprotect { suite, tk, keyid, rules, variant, frames } => {
            let tk = hexarg::key("--tk", &tk)?;
            let mut rx = Receiver::new(suite.keyed_variant(&tk, rules.rules(), variant.variant)?);
            if let Some(keyid) = keyid {
                rx = rx.with_key_id(keyid);
            }
            each_frame(&frames, |buf, len| rx.unprotect(&mut buf[..len]).map(|d| d.mpdu_len))
        }
    }
}

/// Room a suite may add to a frame.
const MAX_OVERHEAD: usize = 64;

fn each_frame(
    args: &[String],
    mut apply: impl FnMut(&mut [u8], usize) -> wlansec_core::Result<usize>,
) -> Result<ExitCode> {
    let inputs: Vec<String> = if args == ["-"] {
        io::stdin().lock().lines().collect::<io::Result<_>>().context("reading stdin")?
    } else {
        args.to_vec()
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut failures = 0usize;
    let mut buf = Vec::new();
    for (index, text) in inputs.iter().enumerate() {
        let result = hexarg::bytes(&format!("frame {}", index + 1), text).and_then(|mpdu| {
            buf.clear();
            buf.extend_from_slice(&mpdu);
            buf.resize(mpdu.len() + MAX_OVERHEAD, 0);
            let len = apply(&mut buf, mpdu.len()).with_context(|| format!("frame {}", index + 1))?;
            Ok(hex::encode(&buf[..len]))
        });
        match result {
            Ok(line) => writeln!(out, "{line}")?,
            Err(err) => {
                failures += 1;
                writeln!(out, "error: {err:#}")?;
                eprintln!("wlansec: error: {err:#}");
            }
        }
    }
    out.flush()?;
    Ok(if failures == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
