//! `wlansec frame protect|unprotect|bip-protect|bip-verify`: one MPDU per argument (or per
//! stdin line with `-`), hex in, hex out. Several frames in one call share the key's state:
//! protect gives them consecutive PNs (IPNs for BIP), unprotect and bip-verify replay-check
//! them in order.
//!
//! Output has one line per input frame, the result's hex or `error: <why>`, so line i always
//! belongs to frame i; any error also goes to stderr and makes the exit code 1.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Subcommand, ValueEnum};
use wlansec_core::capture::{pcap, LinkType};
use wlansec_core::registry::SuiteId;
use wlansec_core::suite::bip::{BipAlgorithm, BipReceiver, Igtk};
use wlansec_core::suite::{Pn, PnCounter, Receiver, Transmitter};

use crate::output::AtomicFile;
use crate::suites::{self, RuleArgs, VariantArgs};
use crate::{bounded, hexarg};

#[derive(Subcommand)]
pub enum Command {
    /// Encapsulate plaintext MPDUs (MAC header + body, no FCS).
    Protect {
        #[arg(long, value_parser = suites::any_suite())]
        suite: SuiteId,
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
        #[arg(long, value_parser = suites::any_suite())]
        suite: SuiteId,
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
    /// BIP (802.11w): append a Management MIC element to group-addressed robust management
    /// MPDUs (Deauthentication, Disassociation, Action).
    BipProtect {
        #[command(flatten)]
        key: BipKeyArgs,
        /// IPN of the first frame, decimal or 0x-hex (later frames take the next ones).
        #[arg(long, default_value = "1", value_parser = hexarg::packet_number)]
        ipn: u64,
        /// Also write the protected MPDUs to this pcap file (link type 802.11).
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// MPDUs as hex; `-` reads one per line from stdin.
        #[arg(required = true)]
        frames: Vec<String>,
    },
    /// BIP: verify the MME of group-addressed management MPDUs, IPNs increasing from 1;
    /// prints each MPDU without its MME.
    BipVerify {
        #[command(flatten)]
        key: BipKeyArgs,
        /// MPDUs with their MME, as hex; `-` reads one per line from stdin.
        #[arg(required = true)]
        frames: Vec<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BipName {
    BipCmac128,
    BipCmac256,
    BipGmac128,
    BipGmac256,
}

#[derive(clap::Args)]
pub struct BipKeyArgs {
    #[arg(long, value_enum, default_value = "bip-cmac128")]
    bip: BipName,
    /// IGTK, hex (16 octets; 32 for the -256 variants).
    #[arg(long)]
    igtk: String,
    /// IGTK Key ID (4 or 5).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(4..=5))]
    keyid: u16,
}

impl BipKeyArgs {
    fn igtk(&self) -> Result<Igtk> {
        let algorithm = match self.bip {
            BipName::BipCmac128 => BipAlgorithm::Cmac128,
            BipName::BipCmac256 => BipAlgorithm::Cmac256,
            BipName::BipGmac128 => BipAlgorithm::Gmac128,
            BipName::BipGmac256 => BipAlgorithm::Gmac256,
        };
        Ok(Igtk::new(algorithm, self.keyid, &hexarg::key("--igtk", &self.igtk)?)?)
    }
}

/// Protected MPDUs also written to a pcap, one microsecond apart so the capture keeps their
/// order; the first write error is kept and reported at the end.
struct PcapOut {
    writer: Option<(pcap::Writer<BufWriter<File>>, AtomicFile)>,
    written: u64,
    error: Option<io::Error>,
}

impl PcapOut {
    fn create(path: Option<&PathBuf>) -> Result<Self> {
        let writer = match path {
            Some(path) => {
                let file = AtomicFile::create(path, &[])?;
                Some((pcap::Writer::new(BufWriter::new(file.handle()?), LinkType::Ieee80211)?, file))
            }
            None => None,
        };
        Ok(PcapOut { writer, written: 0, error: None })
    }

    fn write(&mut self, mpdu: &[u8]) {
        if let (Some((writer, _)), None) = (self.writer.as_mut(), &self.error) {
            self.error = writer.write(self.written * 1000, mpdu).err();
            self.written += 1;
        }
    }

    fn finish(self) -> Result<()> {
        if let Some(err) = self.error {
            return Err(err).context("writing the pcap");
        }
        if let Some((writer, file)) = self.writer {
            writer.into_inner().flush().context("writing the pcap")?;
            file.commit()?;
        }
        Ok(())
    }
}

pub fn run(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Protect { suite, tk, pn, keyid, rules, variant, pcap, frames } => {
            let tk = hexarg::key("--tk", &tk)?;
            let cipher = suite.keyed_variant(&tk, rules.rules(), variant.variant())?;
            let mut tx = Transmitter::new(cipher, keyid).with_pn_counter(PnCounter::starting_at(pn));
            let mut capture = PcapOut::create(pcap.as_ref())?;
            let code = each_frame(&frames, |buf, len| {
                let out = tx.protect(buf, len)?;
                capture.write(&buf[..out]);
                Ok(out)
            })?;
            capture.finish()?;
            Ok(code)
        }
        Command::BipProtect { key, ipn, pcap, frames } => {
            let igtk = key.igtk()?;
            let mut ipns = PnCounter::starting_at(ipn);
            let mut capture = PcapOut::create(pcap.as_ref())?;
            let code = each_frame(&frames, |buf, len| {
                let out = igtk.protect(buf, len, ipns.next_pn()?)?;
                capture.write(&buf[..out]);
                Ok(out)
            })?;
            capture.finish()?;
            Ok(code)
        }
        Command::BipVerify { key, frames } => {
            let igtk = key.igtk()?;
            let overhead = igtk.overhead();
            let mut rx = BipReceiver::new();
            rx.install(igtk, Pn::new(0)?);
            each_frame(&frames, |buf, len| rx.verify(&buf[..len]).map(|_| len - overhead))
        }
        Command::Unprotect { suite, tk, keyid, rules, variant, frames } => {
            let tk = hexarg::key("--tk", &tk)?;
            let mut rx = Receiver::new(suite.keyed_variant(&tk, rules.rules(), variant.variant())?);
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
    // Standard input is taken a line at a time (any number of frames, each line bounded).
    let inputs: Box<dyn Iterator<Item = Result<String>>> = if args == ["-"] {
        let lines = bounded::Lines::new(io::stdin().lock(), bounded::FRAME_LINE_OCTETS, "standard input");
        Box::new(lines.map(|line| line.map_err(anyhow::Error::from)))
    } else {
        Box::new(args.iter().cloned().map(Ok))
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut failures = 0usize;
    let mut buf = Vec::new();
    for (index, text) in inputs.enumerate() {
        let text = text?;
        let result = hexarg::bytes(&format!("frame {}", index + 1), &text).and_then(|mpdu| {
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
