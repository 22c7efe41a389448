//! `wlansec selftest`: every vector of the shipped vector files that the engine implements,
//! run through the engine and printed as a table. The vector files are compiled in, so
//! the binary checks itself wherever it runs.

use std::process::ExitCode;

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;
use wlansec_core::ccm::Ccm;
use wlansec_core::suite::{ccmp, Aad, Ccmp128, Ccmp256, FrameSuite, Gcmp128, Gcmp256, Pn};
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
    ("gcmp128.json", include_str!("../../../tests/vectors/gcmp128.json")),
    ("gcmp256.json", include_str!("../../../tests/vectors/gcmp256.json")),
    ("tkip.json", include_str!("../../../tests/vectors/tkip.json")),
    ("wep.json", include_str!("../../../tests/vectors/wep.json")),
    ("michael.json", include_str!("../../../tests/vectors/michael.json")),
    ("pbkdf2_psk.json", include_str!("../../../tests/vectors/pbkdf2_psk.json")),
    ("prf_sha1.json", include_str!("../../../tests/vectors/prf_sha1.json")),
    ("kdf_sha256.json", include_str!("../../../tests/vectors/kdf_sha256.json")),
    ("ptk_derivation.json", include_str!("../../../tests/vectors/ptk_derivation.json")),
    ("eapol_key_mic.json", include_str!("../../../tests/vectors/eapol_key_mic.json")),
    ("aes_keywrap.json", include_str!("../../../tests/vectors/aes_keywrap.json")),
    ("aes_cmac.json", include_str!("../../../tests/vectors/aes_cmac.json")),
    ("bip.json", include_str!("../../../tests/vectors/bip.json")),
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
    let shown: Vec<&Outcome> = outcomes.iter().filter(|o| !args.quiet || o.result.is_err()).collect();
    // The file column as wide as its longest name, so every row lines up.
    let file_width = shown.iter().map(|o| o.file.len()).chain(["file".len()]).max().unwrap_or(4);
    println!("{:<file_width$} {:<9} {:<6} vector", "file", "kind", "result");
    for o in shown {
        let kind = if o.published { "published" } else { "computed" };
        match &o.result {
            Ok(()) => println!("{:<file_width$} {kind:<9} {:<6} {}", o.file, "PASS", o.id),
            Err(e) => println!("{:<file_width$} {kind:<9} {:<6} {} -- {e:#}", o.file, "FAIL", o.id),
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
        // tkip.json keeps its key-mixing and MPDU vectors in two lists.
        let vectors: Vec<&Value> = ["vectors", "key_mixing_vectors", "mpdu_vectors"]
            .iter()
            .filter_map(|list| doc[*list].as_array())
            .flatten()
            .collect();
        if vectors.is_empty() {
            bail!("{file}: no vectors");
        }
        for (n, v) in vectors.iter().enumerate() {
            let result = match *file {
                "aes_block.json" => check_aes_block(v),
                "aes_ccm.json" => check_aes_ccm(v),
                "ccmp128.json" => check_ccmp::<Ccmp128>(v, 8),
                "ccmp256.json" => check_ccmp::<Ccmp256>(v, 16),
                "gcmp128.json" => rsn_checks::gcmp(v, Gcmp128::new(&field(v, "tk")?)?),
                "gcmp256.json" => rsn_checks::gcmp(v, Gcmp256::new(&field(v, "tk")?)?),
                "tkip.json" => rsn_checks::tkip(v),
                "wep.json" => rsn_checks::wep(v),
                "michael.json" => rsn_checks::michael(v),
                "pbkdf2_psk.json" => rsn_checks::pbkdf2(v),
                "prf_sha1.json" => rsn_checks::prf(v),
                "kdf_sha256.json" => rsn_checks::kdf_sha256(v),
                "ptk_derivation.json" => rsn_checks::ptk(v),
                "eapol_key_mic.json" => rsn_checks::eapol_mic(v),
                "aes_keywrap.json" => rsn_checks::keywrap(v),
                "aes_cmac.json" => rsn_checks::cmac(v),
                "bip.json" => rsn_checks::bip(v),
                _ => Err(anyhow!("no checker for {file}")),
            };
            outcomes.push(Outcome {
                file,
                // Vectors without an id (Michael's) are named by their place in the file.
                id: v["id"].as_str().map_or_else(|| format!("#{}", n + 1), str::to_string),
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

/// Checkers for the suites and key hierarchy of issue 3 (GCMP, TKIP, WEP, Michael, PSK,
/// PRF, KDF, PTK, EAPOL-Key MIC, key wrap, CMAC).
mod rsn_checks {
    use super::*;
    use cmac::{Cmac, Mac};
    use rc4::{Rc4, StreamCipher};
    use wlansec_core::rsn::eapol::{self, EapolKey, KeyDescriptorVersion};
    use wlansec_core::rsn::kdf::{self, derive_ptk, pmk_from_passphrase, Pmk};
    use wlansec_core::rsn::{keywrap, Akm, CipherSuite};
    use wlansec_core::suite::bip::{BipAlgorithm, Igtk};
    use wlansec_core::suite::michael::michael as michael_mic;
    use wlansec_core::suite::tkip::{phase1, phase2};
    use wlansec_core::suite::{gcmp, Tkip, Wep};
    use wlansec_core::wire::MacAddr;

    fn text(v: &Value, name: &str) -> Result<String> {
        Ok(v[name].as_str().ok_or_else(|| anyhow!("missing field {name}"))?.to_string())
    }
    fn number(v: &Value, name: &str) -> Result<u64> {
        v[name].as_u64().ok_or_else(|| anyhow!("missing field {name}"))
    }
    fn hex_number(v: &Value, name: &str) -> Result<u64> {
        u64::from_str_radix(&text(v, name)?, 16).with_context(|| format!("field {name}"))
    }
    fn array<const N: usize>(v: &Value, name: &str) -> Result<[u8; N]> {
        field(v, name)?.try_into().map_err(|_| anyhow!("field {name} is not {N} octets"))
    }
    fn mac(v: &Value, name: &str) -> Result<MacAddr> {
        Ok(MacAddr(array(v, name)?))
    }
    fn protect(suite: &impl FrameSuite, plain: &[u8], pn: u64, key_id: u8) -> Result<Vec<u8>> {
        let mut buf = plain.to_vec();
        buf.resize(plain.len() + suite.overhead(), 0);
        let len = suite.encapsulate(&mut buf, plain.len(), Pn::new(pn)?, key_id)?;
        buf.truncate(len);
        Ok(buf)
    }
    fn with_protected(mpdu: &[u8]) -> Vec<u8> {
        let mut out = mpdu.to_vec();
        out[1] |= 0x40;
        out
    }

    /// GCMP: ciphertext and PN header through the suite, the published MIC through AES-GCM
    /// with the published AAD (vector #1's AAD keeps Protected clear: README §5.3), and
    /// decapsulation of the published MPDU where it is marked Protected.
    pub fn gcmp<A: gcmp::GcmAead>(v: &Value, suite: gcmp::Gcmp<A>) -> Result<()> {
        let plain = field(v, "plaintext_mpdu")?;
        let want = field(v, "encrypted_mpdu")?;
        let h = number(v, "header_len")? as usize;
        let pn = hex_number(v, "pn")?;
        let frame = Frame::new_checked(&plain[..], Rules::default())?;
        expect_eq("nonce", &gcmp::nonce(&frame, Pn::new(pn)?)?, &field(v, "nonce")?)?;
        let got = protect(&suite, &plain, pn, number(v, "key_id")? as u8)?;
        expect_eq("GCMP header", &got[h..h + 8], &field(v, "gcmp_header")?)?;
        expect_eq("ciphertext", &got[h + 8..got.len() - 16], &field(v, "ciphertext")?)?;
        let mut data = plain[h..].to_vec();
        let mic = suite.seal_raw(&array(v, "nonce")?, &field(v, "aad")?, &mut data)?;
        expect_eq("MIC", &mic, &field(v, "mic")?)?;
        if want[1] & 0x40 != 0 {
            expect_eq("protected MPDU", &got, &want)?;
            let mut rx = want.clone();
            let done = suite.decapsulate(&mut rx)?;
            expect_eq("decrypted MPDU", &rx[..done.mpdu_len], &unprotected(&plain))?;
        }
        Ok(())
    }

    pub fn tkip(v: &Value) -> Result<()> {
        if v.get("ttak").is_some() && v.get("plaintext_mpdu").is_none() {
            let tk: [u8; 16] = array(v, "tk")?;
            let ttak = phase1(&tk, &array(v, "ta")?, hex_number(v, "iv32")? as u32);
            let want: Vec<u16> = v["ttak"]
                .as_array()
                .ok_or_else(|| anyhow!("ttak"))?
                .iter()
                .map(|w| u16::from_str_radix(w.as_str().unwrap_or(""), 16))
                .collect::<std::result::Result<_, _>>()?;
            if ttak.to_vec() != want {
                bail!("TTAK: got {ttak:04x?}, want {want:04x?}");
            }
            return expect_eq("RC4 key", &phase2(&tk, &ttak, hex_number(v, "iv16")? as u16), &field(v, "rc4key")?);
        }
        let suite = Tkip::new(&field(v, "tk_256bit")?)?;
        let plain = field(v, "plaintext_mpdu")?;
        let frame = Frame::new_checked(&plain[..], Rules::default())?;
        expect_eq("Michael MIC", &suite.msdu_mic(&frame, frame.body(), true)?, &field(v, "mic")?)?;
        let want = with_protected(&field(v, "encrypted_mpdu")?);
        let got = protect(&suite, &plain, hex_number(v, "tsc")?, number(v, "key_id")? as u8)?;
        expect_eq("protected MPDU", &got, &want)?;
        let mut rx = want;
        let done = suite.decapsulate(&mut rx)?;
        expect_eq("decrypted MPDU", &rx[..done.mpdu_len], &unprotected(&plain))
    }

    pub fn wep(v: &Value) -> Result<()> {
        if v.get("wep_key").is_none() {
            let mut data = field(v, "plaintext")?;
            Rc4::new_from_slice(&field(v, "key")?).map_err(|_| anyhow!("RC4 key length"))?.apply_keystream(&mut data);
            return expect_eq("RC4 output", &data, &field(v, "ciphertext")?);
        }
        let suite = Wep::new(&field(v, "wep_key")?)?;
        let plain = field(v, "plaintext_mpdu")?;
        let want = with_protected(&field(v, "encrypted_mpdu")?);
        let got = protect(&suite, &plain, hex_number(v, "iv")?, number(v, "key_id")? as u8)?;
        expect_eq("protected MPDU", &got, &want)?;
        let mut rx = want;
        let done = suite.decapsulate(&mut rx)?;
        expect_eq("decrypted MPDU", &rx[..done.mpdu_len], &unprotected(&plain))
    }

    pub fn michael(v: &Value) -> Result<()> {
        expect_eq("Michael MIC", &michael_mic(&array(v, "key")?, &[&field(v, "message")?]), &field(v, "mic")?)
    }

    pub fn pbkdf2(v: &Value) -> Result<()> {
        if v.get("pmk").is_some() {
            let pmk = pmk_from_passphrase(&text(v, "passphrase")?, &field(v, "ssid")?)?;
            return expect_eq("PMK", pmk.as_bytes(), &field(v, "pmk")?);
        }
        let mut dk = vec![0u8; number(v, "dklen")? as usize];
        let iterations = u32::try_from(number(v, "iterations")?)?;
        kdf::pbkdf2_sha1(text(v, "passphrase")?.as_bytes(), text(v, "salt_ascii")?.as_bytes(), iterations, &mut dk);
        expect_eq("derived key", &dk, &field(v, "dk")?)
    }

    pub fn prf(v: &Value) -> Result<()> {
        let mut out = vec![0u8; number(v, "length_bits")? as usize / 8];
        kdf::prf_sha1(&field(v, "key")?, text(v, "label_ascii")?.as_bytes(), &field(v, "data")?, &mut out);
        expect_eq("PRF output", &out, &field(v, "output")?)
    }

    pub fn kdf_sha256(v: &Value) -> Result<()> {
        let mut out = vec![0u8; number(v, "length_bits")? as usize / 8];
        kdf::kdf_sha256(
            &field(v, "key_keyseed_computed")?,
            text(v, "label_ascii")?.as_bytes(),
            &field(v, "context")?,
            &mut out,
        )?;
        expect_eq("KDF output", &out, &field(v, "output")?)
    }

    fn ptk_of(v: &Value, pmk: &Pmk, akm: Akm, cipher: CipherSuite) -> Result<kdf::Ptk> {
        Ok(derive_ptk(pmk, akm, cipher, mac(v, "aa")?, mac(v, "spa")?, &array(v, "anonce")?, &array(v, "snonce")?)?)
    }

    pub fn ptk(v: &Value) -> Result<()> {
        let pmk = Pmk::from_bytes(&field(v, "pmk")?)?;
        if v.get("ptk_384").is_some() {
            let ptk = ptk_of(v, &pmk, Akm::PskSha256, CipherSuite::Ccmp128)?;
            let whole = [ptk.kck.as_bytes(), ptk.kek.as_bytes(), ptk.tk.as_bytes()].concat();
            return expect_eq("PTK (KDF-SHA256)", &whole, &field(v, "ptk_384")?);
        }
        let ccmp = ptk_of(v, &pmk, Akm::Psk, CipherSuite::Ccmp128)?;
        expect_eq("KCK", ccmp.kck.as_bytes(), &field(v, "kck")?)?;
        expect_eq("KEK", ccmp.kek.as_bytes(), &field(v, "kek")?)?;
        expect_eq("TK (CCMP)", ccmp.tk.as_bytes(), &field(v, "tk_ccmp")?)?;
        let tkip = ptk_of(v, &pmk, Akm::Psk, CipherSuite::Tkip)?;
        expect_eq("TK (TKIP)", tkip.tk.as_bytes(), &field(v, "tk_tkip")?)
    }

    pub fn eapol_mic(v: &Value) -> Result<()> {
        let pmk = Pmk::from_bytes(&field(v, "pmk")?)?;
        if let Some(pass) = v["passphrase"].as_str() {
            expect_eq("PMK", pmk_from_passphrase(pass, text(v, "ssid_ascii")?.as_bytes())?.as_bytes(), pmk.as_bytes())?;
        }
        if v.get("pmkid").is_some() {
            return expect_eq("PMKID", &kdf::pmkid(&pmk, Akm::Psk, mac(v, "aa")?, mac(v, "spa")?), &field(v, "pmkid")?);
        }
        let version = number(v, "key_descriptor_version").unwrap_or(2);
        let akm = if version == 3 { Akm::PskSha256 } else { Akm::Psk };
        let kck = ptk_of(v, &pmk, akm, CipherSuite::Ccmp128)?.kck;
        expect_eq("KCK", kck.as_bytes(), &field(v, "kck")?)?;
        let frame = field(v, "eapol_frame_mic_zeroed")?;
        let view = EapolKey::new_checked(&frame[..])?;
        if v.get("hmac_md5_v1").is_some() {
            let md5 = eapol::compute_mic(kck.as_bytes(), KeyDescriptorVersion::HmacMd5Rc4, view.frame())?;
            expect_eq("HMAC-MD5 MIC", &md5, &field(v, "hmac_md5_v1")?)?;
            let sha = eapol::compute_mic(kck.as_bytes(), KeyDescriptorVersion::HmacSha1Aes, view.frame())?;
            return expect_eq("HMAC-SHA1-128 MIC", &sha, &field(v, "mic_v2_truncated")?);
        }
        let mut signed = frame.clone();
        signed[81..97].copy_from_slice(&field(v, "mic")?);
        Ok(eapol::verify_mic(kck.as_bytes(), &signed)?)
    }

    pub fn keywrap(v: &Value) -> Result<()> {
        let kek = field(v, "kek")?;
        if v.get("plaintext").is_some() {
            expect_eq("wrapped", &keywrap::wrap(&kek, &field(v, "plaintext")?)?, &field(v, "ciphertext")?)?;
            return expect_eq("unwrapped", &keywrap::unwrap(&kek, &field(v, "ciphertext")?)?, &field(v, "plaintext")?);
        }
        let wrapped =
            eapol::encrypt_key_data(KeyDescriptorVersion::HmacSha1Aes, &kek, &[0; 16], &field(v, "key_data_plain")?)?;
        expect_eq("wrapped Key Data", &wrapped, &field(v, "key_data_wrapped")?)
    }

    pub fn cmac(v: &Value) -> Result<()> {
        let mut mac = <Cmac<aes::Aes128> as cmac::KeyInit>::new_from_slice(&field(v, "key")?)
            .map_err(|_| anyhow!("CMAC key length"))?;
        mac.update(&field(v, "message")?);
        expect_eq("CMAC", &mac.finalize().into_bytes(), &field(v, "tag")?)
    }

    /// A BIP vector: its variant is named in its id.
    pub fn bip(v: &Value) -> Result<()> {
        let id = text(v, "id")?;
        let algorithm = [
            ("BIP-CMAC-128", BipAlgorithm::Cmac128),
            ("BIP-CMAC-256", BipAlgorithm::Cmac256),
            ("BIP-GMAC-128", BipAlgorithm::Gmac128),
            ("BIP-GMAC-256", BipAlgorithm::Gmac256),
        ]
        .into_iter()
        .find_map(|(label, a)| id.contains(label).then_some(a))
        .ok_or_else(|| anyhow!("no BIP variant named in {id:?}"))?;
        let igtk = Igtk::new(algorithm, number(v, "key_id")? as u16, &field(v, "igtk")?)?;
        let ipn = Pn::new(hex_number(v, "ipn")?)?;
        let plain = field(v, "plaintext_frame")?;
        let mut buf = plain.clone();
        buf.resize(plain.len() + igtk.overhead(), 0);
        let len = igtk.protect(&mut buf, plain.len(), ipn)?;
        expect_eq("protected frame", &buf[..len], &field(v, "protected_frame")?)?;
        expect_eq("MIC", &buf[len - algorithm.mic_len()..len], &field(v, "mic")?)?;
        if igtk.verify(&buf[..len])? != ipn {
            bail!("verify gave another IPN");
        }
        Ok(())
    }
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
        // 3 AES + 7 CCM + 14 CCMP-128 + 1 CCMP-256 + 2 GCMP-128 + 1 GCMP-256 + 10 TKIP +
        // 3 WEP + 7 Michael + 7 PBKDF2 + 7 PRF + 1 KDF + 2 PTK + 5 EAPOL + 7 key wrap + 4 CMAC
        // + 4 BIP.
        assert_eq!(outcomes.len(), 85);
    }

    #[test]
    fn a_corrupted_vector_fails() {
        let doc: Value = serde_json::from_str(VECTOR_FILES[2].1).unwrap();
        let mut v = doc["vectors"][0].clone();
        v["mic"] = Value::String("0000000000000000".into());
        assert!(check_ccmp::<Ccmp128>(&v, 8).is_err());
    }
}
