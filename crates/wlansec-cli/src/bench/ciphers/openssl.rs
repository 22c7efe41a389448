//! The anchor: `openssl speed -evp` in the same run, for the ciphers OpenSSL has, so each
//! RustCrypto figure stands beside OpenSSL's on the same machine and load.

use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};

use super::catalog::{Algorithm, Mode};

/// Octets per `openssl speed` call: its largest default block, closest to whole files.
pub const BLOCK: usize = 16384;

/// An OpenSSL EVP cipher name and what it is in the bench's terms.
pub struct Anchor {
    pub evp: &'static str,
    pub algorithm: Algorithm,
    pub key_bits: u32,
    pub mode: Mode,
}

const fn anchor(evp: &'static str, algorithm: Algorithm, key_bits: u32, mode: Mode) -> Anchor {
    Anchor { evp, algorithm, key_bits, mode }
}

pub const ANCHORS: [Anchor; 12] = [
    anchor("aes-128-cbc", Algorithm::Aes, 128, Mode::Cbc),
    anchor("aes-192-cbc", Algorithm::Aes, 192, Mode::Cbc),
    anchor("aes-256-cbc", Algorithm::Aes, 256, Mode::Cbc),
    anchor("aes-128-ctr", Algorithm::Aes, 128, Mode::Ctr),
    anchor("des-cbc", Algorithm::Des, 64, Mode::Cbc),
    anchor("des-ede3-cbc", Algorithm::Tdes, 168, Mode::Cbc),
    anchor("rc2-64-cbc", Algorithm::Rc2, 64, Mode::Cbc),
    anchor("rc2-cbc", Algorithm::Rc2, 128, Mode::Cbc),
    anchor("bf-cbc", Algorithm::Blowfish, 128, Mode::Cbc),
    anchor("chacha20-poly1305", Algorithm::ChaCha20Poly1305, 256, Mode::Aead),
    anchor("aes-128-gcm", Algorithm::AesGcm, 128, Mode::Aead),
    anchor("aes-256-gcm", Algorithm::AesGcm, 256, Mode::Aead),
];

/// `openssl version`, or an error saying the CLI is missing.
pub fn version() -> Result<String> {
    let out = Command::new("openssl")
        .arg("version")
        .output()
        .context("running `openssl version` (is the openssl CLI installed?)")?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Octets per second OpenSSL sustains for `evp` over [`BLOCK`]-octet buffers during
/// `seconds`, encrypting or (with `decrypt`) decrypting. The legacy provider brings DES and RC2.
pub fn speed(evp: &str, decrypt: bool, seconds: u32) -> Result<f64> {
    let mut cmd = Command::new("openssl");
    cmd.args(["speed", "-provider", "legacy", "-provider", "default", "-mr", "-seconds"])
        .arg(seconds.to_string())
        .args(["-bytes", &BLOCK.to_string()]);
    if decrypt {
        cmd.arg("-decrypt");
    }
    cmd.args(["-evp", evp]);
    let out = cmd.output().with_context(|| format!("running openssl speed -evp {evp}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        bail!("openssl speed -evp {evp} failed: {}", stderr.lines().next().unwrap_or("no message"));
    }
    parse_machine_readable(&stdout).ok_or_else(|| anyhow!("openssl speed -evp {evp}: no +F result line in its output"))
}

/// The rate of `+F:<n>:<name>:<bytes per second>` (one column per block size; one here).
fn parse_machine_readable(stdout: &str) -> Option<f64> {
    stdout.lines().find_map(|l| l.strip_prefix("+F:")?.rsplit(':').next()?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_the_rate() {
        let out = "+DT:aes-128-cbc:1:16384\n+R:87088:aes-128-cbc:1.000000\n+H:16384\n+F:25:AES-128-CBC:1426739200.00\n";
        assert_eq!(super::parse_machine_readable(out), Some(1426739200.0));
        assert_eq!(super::parse_machine_readable("+H:16384\n"), None);
    }
}
