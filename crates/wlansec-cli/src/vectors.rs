//! `wlansec vectors`: golden vectors from the engine, as JSON Lines, for benches that check
//! another implementation (the Verilog cores) against this one.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use serde::Serialize;
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes, MAX_MSDU_LEN};
use wlansec_core::registry::SuiteId;
use wlansec_core::suite::{ccmp, Aad, Pn};
use wlansec_core::wire::{Frame, Rules};

use crate::output::AtomicFile;
use crate::suites::{self, VariantArgs};
use crate::usage::usage;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long, value_parser = suites::any_suite(), default_value = "ccmp128")]
    suite: SuiteId,
    #[command(flatten)]
    variant: VariantArgs,
    /// Number of vectors.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// Seed of the deterministic generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Smallest frame body (octets).
    #[arg(long, default_value_t = 0, value_parser = body_len)]
    min_len: usize,
    /// Largest frame body (octets), at most the largest MSDU.
    #[arg(long, default_value_t = MAX_MSDU_LEN, value_parser = body_len)]
    max_len: usize,
    /// Data frames only (no robust management frames).
    #[arg(long)]
    data_only: bool,
    /// Write here instead of stdout.
    #[arg(long, short)]
    out: Option<PathBuf>,
}

/// A frame body length: 0 up to the largest MSDU.
fn body_len(arg: &str) -> std::result::Result<usize, String> {
    let len: usize = arg.parse().map_err(|e| format!("{e}"))?;
    if len > MAX_MSDU_LEN {
        return Err(format!("at most {MAX_MSDU_LEN} octets (the largest MSDU)"));
    }
    Ok(len)
}

#[derive(Serialize)]
struct Vector {
    suite: String,
    tk: String,
    pn: u64,
    keyid: u8,
    header_len: usize,
    plaintext_mpdu: String,
    protected_mpdu: String,
    aad: String,
    nonce: String,
}

/// Body lengths at block and size boundaries, drawn more often than the uniform rest.
const EDGE_LENGTHS: [usize; 10] = [0, 1, 15, 16, 17, 31, 32, 33, MAX_MSDU_LEN - 1, MAX_MSDU_LEN];

pub fn run(args: Args) -> Result<ExitCode> {
    if args.min_len > args.max_len {
        return Err(usage(anyhow!("--min-len {} is above --max-len {}", args.min_len, args.max_len)));
    }
    let out_file = args.out.as_ref().map(|path| AtomicFile::create(path, &[])).transpose()?;
    let mut sink: Box<dyn Write> = match &out_file {
        Some(file) => Box::new(file.handle()?),
        None => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::new(&mut sink);
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let shapes = Shapes { management: !args.data_only };
    let span = (args.max_len - args.min_len) as u64 + 1;
    let mut plain = Vec::new();
    let mut buf = Vec::new();
    for _ in 0..args.count {
        let edge = EDGE_LENGTHS[gen::below(&mut rng, EDGE_LENGTHS.len() as u64) as usize];
        let body_len = if gen::below(&mut rng, 8) == 0 && (args.min_len..=args.max_len).contains(&edge) {
            edge
        } else {
            args.min_len + gen::below(&mut rng, span) as usize
        };
        let mut tk = vec![0u8; args.suite.key_len()];
        rng.fill_bytes(&mut tk);
        let pn = Pn::new(1 + gen::below(&mut rng, Pn::MAX))?;
        let keyid = gen::below(&mut rng, 4) as u8;
        plain.clear();
        gen::random_mpdu(&mut rng, shapes, body_len, &mut plain);

        let frame = Frame::new_checked(&plain[..], Rules::default())?;
        let aad = Aad::new(&frame, Rules::default());
        let nonce = ccmp::nonce(&frame, pn)?;
        let suite = args.suite.keyed_variant(&tk, Rules::default(), args.variant.variant())?;
        buf.clear();
        buf.extend_from_slice(&plain);
        buf.resize(plain.len() + suite.overhead(), 0);
        let len = suite.encapsulate(&mut buf, plain.len(), pn, keyid)?;
        let vector = Vector {
            suite: suites::label_with(args.suite, args.variant.variant),
            tk: hex::encode(&tk),
            pn: pn.value(),
            keyid,
            header_len: frame.header_len(),
            plaintext_mpdu: hex::encode(&plain),
            protected_mpdu: hex::encode(&buf[..len]),
            aad: hex::encode(aad.as_slice()),
            nonce: hex::encode(nonce),
        };
        serde_json::to_writer(&mut out, &vector)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    if let Some(file) = out_file {
        file.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}
