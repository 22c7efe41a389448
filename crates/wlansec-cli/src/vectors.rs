//! `wlansec vectors`: golden vectors from the engine, as JSON Lines, for benches that check
//! another implementation (the Verilog cores) against this one; `wlansec vectors sae`: whole
//! SAE exchanges with their secrets, for the independent implementation of the Python tests.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use serde::Serialize;
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes, MAX_MSDU_LEN};
use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::sae::{
    Group, Instance, LoopCost, Password, PasswordElement, PasswordToken, PweMethod, Role, SaeEvent,
};
use wlansec_core::suite::{ccmp, Aad, Pn};
use wlansec_core::wire::{Frame, MacAddr, Rules};

use crate::output::AtomicFile;
use crate::suites::{self, VariantArgs};
use crate::usage::usage;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    kind: Option<Kind>,
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

#[derive(clap::Subcommand)]
enum Kind {
    /// Whole SAE exchanges (station and access point) with the secrets each side drew.
    Sae(SaeArgs),
    /// Whole OWE exchanges (RFC 8110) with both secret scalars, elements, PMK and PMKID.
    Owe(OweArgs),
}

#[derive(clap::Args)]
struct OweArgs {
    /// Group: 19 (P-256), 20 (P-384) or 21 (P-521).
    #[arg(long, default_value_t = 19)]
    group: u16,
    /// Number of exchanges.
    #[arg(long, default_value_t = 1)]
    count: u64,
    /// Seed of the deterministic generator (the two secrets).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Serialize)]
struct OweVector {
    group: u16,
    sta_secret: String,
    ap_secret: String,
    /// The Diffie-Hellman Parameter elements, whole: association request and response.
    sta_element: String,
    ap_element: String,
    pmk: String,
    pmkid: String,
}

fn run_owe(args: OweArgs) -> Result<ExitCode> {
    use wlansec_core::rsn::owe::{self, OweStation};
    let group = Group::from_id(args.group)
        .ok_or_else(|| usage(anyhow!("OWE group {} not supported (19, 20 or 21)", args.group)))?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let mut out = BufWriter::new(io::stdout().lock());
    for _ in 0..args.count {
        let (sta_secret, ap_secret) = (group.random_scalar(&mut rng), group.random_scalar(&mut rng));
        let sta = OweStation::with_secret(group, &sta_secret)?;
        let sta_element = sta.request_element();
        let (ap_element, ap_keys) = owe::respond_with_secret(&sta_element, &[group], &ap_secret)?;
        let keys = sta.complete(&ap_element)?;
        if keys != ap_keys {
            return Err(anyhow!("the two sides of an OWE exchange derived different keys"));
        }
        let vector = OweVector {
            group: args.group,
            sta_secret: hex::encode(&*sta_secret),
            ap_secret: hex::encode(&*ap_secret),
            sta_element: hex::encode(&sta_element),
            ap_element: hex::encode(&ap_element),
            pmk: hex::encode(keys.pmk.as_bytes()),
            pmkid: hex::encode(keys.pmkid),
        };
        serde_json::to_writer(&mut out, &vector)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
struct SaeArgs {
    /// Finite cyclic group: 19 (P-256), 20 (P-384) or 21 (P-521).
    #[arg(long, default_value_t = 19, value_parser = sae_group)]
    group: u16,
    /// Password element: h2e (hash-to-element) or hnp (hunting-and-pecking).
    #[arg(long, default_value = "h2e", value_parser = ["h2e", "hnp"])]
    method: String,
    #[arg(long, default_value = "wlansec")]
    ssid: String,
    #[arg(long, default_value = "correct horse battery staple")]
    password: String,
    /// Password identifier sent in both commits.
    #[arg(long)]
    identifier: Option<String>,
    /// Groups the station says were rejected before (hash-to-element), e.g. 20,21.
    #[arg(long, value_delimiter = ',')]
    rejected_groups: Vec<u16>,
    /// The AKM the exchange is for: 8 (SAE, a 256-bit PMK) or 24 (SAE-EXT-KEY, a PMK one
    /// hash long).
    #[arg(long, default_value_t = 8, value_parser = sae_akm)]
    akm: u8,
    /// Number of exchanges.
    #[arg(long, default_value_t = 1)]
    count: u64,
    /// Seed of the deterministic generator (addresses, rand and mask).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn sae_group(arg: &str) -> std::result::Result<u16, String> {
    let id: u16 = arg.parse().map_err(|e| format!("{e}"))?;
    Group::from_id(id).map(|_| id).ok_or_else(|| "19, 20 or 21".to_string())
}

fn sae_akm(arg: &str) -> std::result::Result<u8, String> {
    match arg {
        "8" => Ok(8),
        "24" => Ok(24),
        _ => Err("8 (SAE) or 24 (SAE-EXT-KEY)".to_string()),
    }
}

#[derive(Serialize)]
struct SaeVector {
    group: u16,
    akm: u8,
    method: String,
    ssid: String,
    password: String,
    identifier: Option<String>,
    sta: String,
    ap: String,
    sta_rand: String,
    sta_mask: String,
    ap_rand: String,
    ap_mask: String,
    frames: SaeFrames,
    pwe: String,
    pt: Option<String>,
    kck: String,
    pmk: String,
    pmkid: String,
}

#[derive(Serialize)]
struct SaeFrames {
    sta_commit: String,
    ap_commit: String,
    sta_confirm: String,
    ap_confirm: String,
}

/// The frames an event list asks to send.
fn sent(events: Vec<SaeEvent>) -> Vec<Vec<u8>> {
    events
        .into_iter()
        .filter_map(|e| match e {
            SaeEvent::Send(frame) => Some(frame),
            SaeEvent::Accepted { .. } => None,
        })
        .collect()
}

fn run_sae(args: SaeArgs) -> Result<ExitCode> {
    let group = Group::from_id(args.group).ok_or_else(|| anyhow!("group {} not supported", args.group))?;
    let method = if args.method == "h2e" { PweMethod::HashToElement } else { PweMethod::HuntingAndPecking };
    let password = Password::new(args.password.as_bytes(), args.identifier.as_deref().map(str::as_bytes));
    let token = match method {
        PweMethod::HashToElement => Some(PasswordToken::derive(group, args.ssid.as_bytes(), &password)?),
        PweMethod::HuntingAndPecking => None,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let mut out = BufWriter::new(io::stdout().lock());
    for _ in 0..args.count {
        let mut addr = || {
            let mut a = [0u8; 6];
            rng.fill_bytes(&mut a);
            a[0] = (a[0] & 0xfc) | 0x02;
            MacAddr(a)
        };
        let (sta, ap) = (addr(), addr());
        let pwe = match &token {
            Some(pt) => PasswordElement::from_token(pt, sta, ap)?,
            None => {
                PasswordElement::hunting_and_pecking(group, &password, sta, ap, &mut rng, &mut LoopCost::default())?
            }
        };
        let secrets: Vec<_> = (0..4).map(|_| group.random_scalar(&mut rng)).collect();
        let id = password.identifier();
        let mut sta_side = Instance::with_rand_mask(Role::Station, pwe.clone(), id, &secrets[0], &secrets[1])?;
        sta_side.reject_groups(&args.rejected_groups);
        let mut ap_side = Instance::with_rand_mask(Role::AccessPoint, pwe.clone(), id, &secrets[2], &secrets[3])?;
        if args.akm == 24 {
            (sta_side, ap_side) = (sta_side.with_ext_key(), ap_side.with_ext_key());
        }
        let sta_commit = sta_side.commit_frame();
        let [ap_commit, ap_confirm] = <[Vec<u8>; 2]>::try_from(sent(ap_side.handle(&sta_commit)?))
            .map_err(|_| anyhow!("the access point did not answer with a commit and a confirm"))?;
        let sta_confirm = sent(sta_side.handle(&ap_commit)?).remove(0);
        sta_side.handle(&ap_confirm)?;
        ap_side.handle(&sta_confirm)?;
        let keys = sta_side.keys().ok_or_else(|| anyhow!("the exchange did not complete"))?;
        let vector = SaeVector {
            group: args.group,
            akm: args.akm,
            method: args.method.clone(),
            ssid: hex::encode(&args.ssid),
            password: hex::encode(&args.password),
            identifier: args.identifier.clone(),
            sta: hex::encode(sta.0),
            ap: hex::encode(ap.0),
            sta_rand: hex::encode(&*secrets[0]),
            sta_mask: hex::encode(&*secrets[1]),
            ap_rand: hex::encode(&*secrets[2]),
            ap_mask: hex::encode(&*secrets[3]),
            frames: SaeFrames {
                sta_commit: hex::encode(&sta_commit),
                ap_commit: hex::encode(&ap_commit),
                sta_confirm: hex::encode(&sta_confirm),
                ap_confirm: hex::encode(&ap_confirm),
            },
            pwe: hex::encode(pwe.as_bytes()),
            pt: token.as_ref().map(|pt| hex::encode(pt.as_bytes())),
            kck: hex::encode(keys.kck().as_bytes()),
            pmk: hex::encode(keys.pmk().as_bytes()),
            pmkid: hex::encode(keys.pmkid()),
        };
        serde_json::to_writer(&mut out, &vector)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
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
    match args.kind {
        Some(Kind::Sae(sae)) => return run_sae(sae),
        Some(Kind::Owe(owe)) => return run_owe(owe),
        None => {}
    }
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
