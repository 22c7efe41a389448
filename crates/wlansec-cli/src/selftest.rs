//! `wlansec selftest`: every vector of the shipped vector files that the engine implements,
//! run through the engine and printed as a table. The vector files are compiled in, so
//! the binary checks itself wherever it runs.

use std::process::ExitCode;

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;
use wlansec_core::ccm::Ccm;
use wlansec_core::suite::{ccmp, Aad, Ccmp128, Ccmp256, FrameSuite, Pn};
use wlansec_core::wire::{Frame, FrameControl, Rules};

#[derive(clap::Args)]
pub struct Args {
    /// Print only failures and the summary.
    #[arg(long)]
    quiet: bool,
}

/// The shipped vector files (copied from the research pack, sources inside each file).
pub const VECTOR_FILES: &[(&str, &str)] = &[
    ("aes_block.json", include_str!("../../../tests/vectors/aes_block.json")),
    ("aes_ccm.json", include_str!("../../../tests/vectors/aes_ccm.json")),
    ("ccmp128.json", include_str!("../../../tests/vectors/ccmp128.json")),
    ("ccmp256.json", include_str!("../../../tests/vectors/ccmp256.json")),
];

pub struct Outcome {
    pub file: &'static str,
    pub id: String,
    pub published: bool,
    pub result: Result<()>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let outcomes = run_all()?;
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    let published = outcomes.iter().filter(|o| o.published).count();
    println!("{:<16} {:<9} {:<6} vector", "file", "kind", "result");
    for o in &outcomes {
        if args.quiet && o.result.is_ok() {
            continue;
        }
        let kind = if o.published { "published" } else { "computed" };
        match &o.result {
            Ok(()) => println!("{:<16} {:<9} {:<6} {}", o.file, kind, "PASS", o.id),
            Err(e) => println!("{:<16} {:<9} {:<6} {} -- {e:#}", o.file, kind, "FAIL", o.id),
        }
    }
    println!(
        "selftest: {} passed, {} failed ({} published, {} computed-only)",
        outcomes.len() - failed,
        failed,
        published,
        outcomes.len() - published
    );
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Run every vector of every shipped file.
pub fn run_all() -> Result<Vec<Outcome>> {
    let mut outcomes = Vec::new();
    for (file, text) in VECTOR_FILES {
        let doc: Value = serde_json::from_str(text).with_context(|| format!("parsing {file}"))?;
        let vectors = doc["vectors"].as_array().ok_or_else(|| anyhow!("{file}: no vectors"))?;
        for v in vectors {
            let result = match *file {
                "aes_block.json" => check_aes_block(v),
                "aes_ccm.json" => check_aes_ccm(v),
                "ccmp128.json" => check_ccmp::<Ccmp128>(v, 8),
                "ccmp256.json" => check_ccmp::<Ccmp256>(v, 16),
                _ => Err(anyhow!("no checker for {file}")),
            };
            outcomes.push(Outcome {
                file,
                id: v["id"].as_str().unwrap_or("?").to_string(),
                published: v["verified"].as_bool() == Some(true),
                result,
            });
        }
    }
    Ok(outcomes)
}

fn field(v: &Value, name: &str) -> Result<Vec<u8>> {
    let text = v[name].as_str().ok_or_else(|| anyhow!("missing field {name}"))?;
    hex::decode(text).with_context(|| format!("field {name} is not hex"))
}

fn expect_eq(what: &str, got: &[u8], want: &[u8]) -> Result<()> {
    if got != want {
        bail!("{what}: got {}, want {}", hex::encode(got), hex::encode(want));
    }
    Ok(())
}

fn check_aes_block(v: &Value) -> Result<()> {
    let key = field(v, "key")?;
    let mut block = aes::Block::default();
    block.copy_from_slice(&field(v, "plaintext")?);
    match key.len() {
        16 => aes::Aes128::new_from_slice(&key)?.encrypt_block(&mut block),
        24 => aes::Aes192::new_from_slice(&key)?.encrypt_block(&mut block),
        32 => aes::Aes256::new_from_slice(&key)?.encrypt_block(&mut block),
        n => bail!("AES key of {n} bytes"),
    }
    expect_eq("ciphertext", &block, &field(v, "ciphertext")?)
}

/// SP 800-38C Example 4's AAD: the octets 00..ff repeated to 65,536 octets.
fn aad_of(v: &Value) -> Result<Vec<u8>> {
    match v.get("aad") {
        Some(_) => field(v, "aad"),
        None => Ok((0..65536u32).map(|i| i as u8).collect()),
    }
}

fn check_aes_ccm(v: &Value) -> Result<()> {
    let ccm = Ccm::new(aes::Aes128::new_from_slice(&field(v, "key")?)?);
    let nonce = field(v, "nonce")?;
    let aad = aad_of(v)?;
    let plaintext = field(v, "plaintext")?;
    let tag_len = v["tag_len"].as_u64().ok_or_else(|| anyhow!("missing tag_len"))? as usize;
    let expected = match v.get("ciphertext_and_tag") {
        Some(_) => field(v, "ciphertext_and_tag")?,
        None => field(v, "output_packet")?[aad.len()..].to_vec(),
    };
    let mut data = plaintext.clone();
    let mut tag = vec![0u8; tag_len];
    ccm.seal(&nonce, &aad, &mut data, &mut tag)?;
    expect_eq("ciphertext||tag", &[data.as_slice(), &tag].concat(), &expected)?;
    ccm.open(&nonce, &aad, &mut data, &tag)?;
    expect_eq("decrypted", &data, &plaintext)
}

fn rules_of(v: &Value) -> Result<Rules> {
    match v["rules"].as_str() {
        Some("802.11i-2004") => Ok(Rules::IEEE80211I_2004),
        Some("802.11-2012+") => Ok(Rules::IEEE80211_2016),
        other => bail!("unknown rules {other:?}"),
    }
}

/// With the Protected bit cleared, as decapsulation leaves a frame.
fn unprotected(mpdu: &[u8]) -> Vec<u8> {
    let mut out = mpdu.to_vec();
    if let Some(fc1) = out.get_mut(1) {
        *fc1 &= !((FrameControl::PROTECTED >> 8) as u8);
    }
    out
}

trait KeyedCcmp: FrameSuite + Sized {
    fn keyed(tk: &[u8], rules: Rules) -> wlansec_core::Result<Self>;
}
impl KeyedCcmp for Ccmp128 {
    fn keyed(tk: &[u8], rules: Rules) -> wlansec_core::Result<Self> {
        Ok(Ccmp128::new(tk)?.with_rules(rules))
    }
}
impl KeyedCcmp for Ccmp256 {
    fn keyed(tk: &[u8], rules: Rules) -> wlansec_core::Result<Self> {
        Ok(Ccmp256::new(tk)?.with_rules(rules))
    }
}

/// Encapsulate the plaintext MPDU and compare MPDU, AAD, nonce, PN header and MIC; then
/// decapsulate the published MPDU back to the plaintext.
fn check_ccmp<S: KeyedCcmp>(v: &Value, mic_len: usize) -> Result<()> {
    let rules = rules_of(v)?;
    let suite = S::keyed(&field(v, "tk")?, rules)?;
    let pn = Pn::new(u64::from_str_radix(v["pn"].as_str().unwrap_or(""), 16).context("pn")?)?;
    let key_id = v["key_id"].as_u64().ok_or_else(|| anyhow!("missing key_id"))? as u8;
    let plain = field(v, "plaintext_mpdu")?;
    let want = match v.get("encrypted_mpdu") {
        Some(_) => field(v, "encrypted_mpdu")?,
        None => field(v, "encrypted_mpdu_with_protected_bit_set")?,
    };

    let frame = Frame::new_checked(&plain[..], rules)?;
    if let Some(h) = v["header_len"].as_u64() {
        expect_eq("header length", &[frame.header_len() as u8], &[h as u8])?;
    }
    expect_eq("AAD", Aad::new(&frame, rules).as_slice(), &field(v, "aad")?)?;
    if v.get("nonce").is_some() {
        expect_eq("nonce", &ccmp::nonce(&frame, pn)?, &field(v, "nonce")?)?;
    }

    let mut buf = plain.clone();
    buf.resize(plain.len() + suite.overhead(), 0);
    let len = suite.encapsulate(&mut buf, plain.len(), pn, key_id)?;
    expect_eq("protected MPDU", &buf[..len], &want)?;
    if v.get("ccmp_header").is_some() {
        let h = frame.header_len();
        expect_eq("CCMP header", &buf[h..h + 8], &field(v, "ccmp_header")?)?;
    }
    expect_eq("MIC", &buf[len - mic_len..len], &field(v, "mic")?)?;

    let mut received = want.clone();
    let done = suite.decapsulate(&mut received)?;
    expect_eq("decrypted MPDU", &received[..done.mpdu_len], &unprotected(&plain))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_vector_passes() {
        let outcomes = run_all().unwrap();
        for o in &outcomes {
            if let Err(e) = &o.result {
                panic!("{} {}: {e:#}", o.file, o.id);
            }
        }
        // 3 AES + 7 CCM + 14 CCMP-128 + 1 CCMP-256 vectors in the shipped files.
        assert_eq!(outcomes.len(), 25);
    }

    #[test]
    fn a_corrupted_vector_fails() {
        let doc: Value = serde_json::from_str(VECTOR_FILES[2].1).unwrap();
        let mut v = doc["vectors"][0].clone();
        v["mic"] = Value::String("0000000000000000".into());
        assert!(check_ccmp::<Ccmp128>(&v, 8).is_err());
    }
}
