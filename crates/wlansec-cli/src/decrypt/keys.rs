//! The keys `wlansec decrypt` is given: options (several of each kind) and a key file in
//! Wireshark's `80211_keys` form. Errors name the option or file line, never the key.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use wlansec_core::decrypt::Keys;
use wlansec_core::rsn::{Pmk, Secret};
use zeroize::Zeroizing;

use crate::bounded;
use crate::hexarg;
use crate::usage::usage;

#[derive(clap::Args)]
pub struct KeyArgs {
    /// WPA/WPA2 passphrase (with -e SSID).
    #[arg(short = 'p', long)]
    passphrase: Option<String>,
    /// A PMK (32 octets, hex; 48 for Suite B 192-bit; for FT the XXKey: the PSK, or the
    /// MSK's second 256 bits); repeat for several (each station's handshake takes the one
    /// its message 2 MIC verifies under). SAE and OWE need it. airdecap-ng's -k.
    #[arg(short = 'k', long)]
    pmk: Vec<String>,
    /// A temporal key (hex) for pairwise frames; repeat for several (each link takes the
    /// first that opens its frames).
    #[arg(long)]
    tk: Vec<String>,
    /// A group temporal key (hex) for group-addressed frames; repeat for several.
    #[arg(long)]
    gtk: Vec<String>,
    /// A static WEP key (5 or 13 octets, hex); repeat for several. airdecap-ng's -w.
    #[arg(short = 'w', long)]
    wep_key: Vec<String>,
    /// Keys in Wireshark's `80211_keys` form, one a line: "wep","HEX", "wpa-pwd","PASS:SSID",
    /// "wpa-psk","PMK", "tk","HEX", "msk","HEX" (`#` starts a comment).
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
}

/// The keys, and how to speak of them in errors.
pub struct Given {
    pub keys: Keys,
    /// Only PMKs (passphrase, --pmk, wpa-pwd/wpa-psk/msk lines): the handshake errors apply.
    pub pmks_only: bool,
    /// Every PMK came from a passphrase (SAE's and OWE's cannot).
    pub passphrases_only: bool,
    /// The options (and file) the temporal and WEP keys came from, for "decrypts nothing".
    pub sources: String,
}

impl KeyArgs {
    pub fn keys(&self, essid: Option<&str>) -> Result<Given> {
        // What the options give is checked as arguments (exit status 2); the key file's
        // lines are an input's.
        let mut keys = self.option_keys(essid).map_err(usage)?;
        let mut passphrases_only = self.pmk.is_empty();
        let mut sources: Vec<String> = [("--tk", &self.tk), ("--gtk", &self.gtk), ("--wep-key", &self.wep_key)]
            .into_iter()
            .filter(|(_, texts)| !texts.is_empty())
            .map(|(option, _)| option.to_string())
            .collect();
        if let Some(path) = &self.key_file {
            passphrases_only &= read_key_file(path, &mut keys)?;
            sources.push(format!("--key-file {}", path.display()));
        }
        if keys.pmks.is_empty() && keys.tks.is_empty() && keys.gtks.is_empty() && keys.wep.is_empty() {
            return Err(usage(anyhow!(
                "give a key: -p PASSPHRASE (with -e SSID), --pmk, --tk, --gtk, --wep-key or --key-file"
            )));
        }
        let pmks_only = keys.tks.is_empty() && keys.gtks.is_empty() && keys.wep.is_empty();
        Ok(Given { keys, pmks_only, passphrases_only, sources: sources.join(", ") })
    }

    /// The keys the command-line options give, each of a length its kind takes.
    fn option_keys(&self, essid: Option<&str>) -> Result<Keys> {
        let mut keys = Keys::default();
        if let Some(pass) = &self.passphrase {
            let Some(ssid) = essid else { bail!("--passphrase needs the network's SSID (-e)") };
            keys.push_passphrase(pass, ssid.as_bytes())?;
        }
        for pmk in &self.pmk {
            keys.pmks.push(Pmk::from_bytes(&hexarg::key("--pmk", pmk)?)?);
        }
        for (list, option, texts, lengths) in [
            (&mut keys.tks, "--tk", &self.tk, &[16, 32][..]),
            (&mut keys.gtks, "--gtk", &self.gtk, &[16, 32][..]),
            (&mut keys.wep, "--wep-key", &self.wep_key, &[5, 13][..]),
        ] {
            for text in texts {
                let key = hexarg::key(option, text)?;
                if !lengths.contains(&key.len()) {
                    bail!("{option} has {} octets; it takes {:?}", key.len(), lengths);
                }
                list.push(Secret::from_slice(&key)?);
            }
        }
        Ok(keys)
    }
}

/// Add the keys of a Wireshark `80211_keys` file to `keys`; true when every PMK it gave
/// came from a passphrase.
fn read_key_file(path: &Path, keys: &mut Keys) -> Result<bool> {
    let mut passphrases_only = true;
    // At most 1 MiB (bounded::KEY_FILE), in memory zeroed when dropped.
    let text = bounded::read_to_string(path, bounded::KEY_FILE).context("reading the key file")?;
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{} line {}", path.display(), n + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = uat_fields(line).with_context(at)?;
        let [kind, key] = fields.as_slice() else {
            bail!("{}: expected two fields, \"type\",\"key\" (got {})", at(), fields.len());
        };
        let kind = kind.as_str();
        let what = format!("{} ({kind} key)", at());
        match kind {
            "wep" => keys.wep.push(Secret::from_slice(&hexarg::key(&what, key)?)?),
            "tk" => keys.tks.push(Secret::from_slice(&hexarg::key(&what, key)?)?),
            "wpa-psk" => {
                keys.pmks.push(Pmk::from_bytes(&hexarg::key(&what, key)?).with_context(|| what.clone())?);
                passphrases_only = false;
            }
            "wpa-pwd" => {
                let Some((pass, ssid)) = key.split_once(':') else { bail!("{what}: expected PASSPHRASE:SSID") };
                let (pass, ssid) = (percent_decoded(pass).with_context(at)?, percent_decoded(ssid).with_context(at)?);
                let pass = String::from_utf8(pass.to_vec()).with_context(|| format!("{what}: passphrase not UTF-8"))?;
                keys.push_passphrase(&pass, &ssid).with_context(|| what.clone())?;
            }
            // 802.1X: each PMK the MSK holds is a candidate (`Keys::push_msk`).
            "msk" => {
                let msk = hexarg::key(&what, key)?;
                // Its only refusal: an MSK too short to hold a PMK.
                keys.push_msk(&msk).map_err(|_| anyhow!("{what}: an MSK has at least 32 octets"))?;
                passphrases_only = false;
            }
            other => bail!("{}: unknown key type {other:?} (wep, wpa-pwd, wpa-psk, tk, msk)", at()),
        }
    }
    Ok(passphrases_only)
}

/// The comma-separated fields of one UAT line: each quoted (with `\\`, `\"` and `\xHH`
/// escapes) or bare. Kept in zeroizing buffers: they are keys.
fn uat_fields(line: &str) -> Result<Vec<Zeroizing<String>>> {
    let mut fields = Vec::new();
    let mut rest = line.as_bytes();
    loop {
        let mut field = Zeroizing::new(Vec::new());
        if let Some(quoted) = rest.strip_prefix(b"\"") {
            let mut i = 0;
            loop {
                match quoted.get(i..) {
                    Some([b'"', ..]) => break,
                    Some([b'\\', b'x', hi, lo, ..]) => {
                        let hex = [*hi, *lo];
                        let text = std::str::from_utf8(&hex).ok();
                        let Some(byte) = text.and_then(|t| u8::from_str_radix(t, 16).ok()) else {
                            bail!("bad \\x escape in a quoted field");
                        };
                        field.push(byte);
                        i += 4;
                    }
                    Some([b'\\', escaped, ..]) => {
                        field.push(*escaped);
                        i += 2;
                    }
                    Some([byte, ..]) => {
                        field.push(*byte);
                        i += 1;
                    }
                    _ => bail!("a quoted field is not closed"),
                }
            }
            rest = &quoted[i + 1..];
        } else {
            let end = rest.iter().position(|&b| b == b',').unwrap_or(rest.len());
            field.extend_from_slice(rest[..end].trim_ascii());
            rest = &rest[end..];
        }
        let text = String::from_utf8(std::mem::take(&mut *field)).context("a field is not UTF-8")?;
        fields.push(Zeroizing::new(text));
        match rest.trim_ascii_start() {
            [] => return Ok(fields),
            [b',', after @ ..] => rest = after.trim_ascii_start(),
            _ => bail!("expected a comma between fields"),
        }
    }
}

/// `%HH` escapes decoded, as Wireshark reads the passphrase and SSID of a wpa-pwd key (so
/// either may hold a `:` as `%3a`).
fn percent_decoded(text: &str) -> Result<Zeroizing<Vec<u8>>> {
    let mut out = Zeroizing::new(Vec::with_capacity(text.len()));
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) else { bail!("bad % escape") };
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wlansec_core::rsn::pmk_from_passphrase;

    fn fields(line: &str) -> Vec<String> {
        uat_fields(line).unwrap().iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn uat_lines_split_into_their_fields() {
        assert_eq!(fields(r#""wpa-pwd","pass:ssid""#), ["wpa-pwd", "pass:ssid"]);
        assert_eq!(fields(r#""tk", "00ff""#), ["tk", "00ff"]);
        assert_eq!(fields(r#""wpa-pwd","a\"b\x2cc:net""#), ["wpa-pwd", "a\"b,c:net"]);
        assert_eq!(fields("wep,0102030405"), ["wep", "0102030405"]);
        for bad in [r#""tk","00"#, r#""tk" "00""#, r#""tk","\xZZ""#] {
            assert!(uat_fields(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_key_file_gives_every_kind_and_errors_never_show_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("80211_keys");
        let pmk = "01".repeat(32);
        std::fs::write(
            &path,
            format!(
                "# comment\n\"wep\",\"01:02:03:04:05\"\n\"wpa-pwd\",\"pass%3aword:my%20net\"\n\"wpa-psk\",\"{pmk}\"\n\
                 \"tk\",\"{}\"\n\"msk\",\"{}\"\n",
                "22".repeat(16),
                "33".repeat(64)
            ),
        )
        .unwrap();
        let mut keys = Keys::default();
        read_key_file(&path, &mut keys).unwrap();
        assert_eq!((keys.wep.len(), keys.pmks.len(), keys.tks.len()), (1, 5, 1));
        assert_eq!(keys.pmks[0], pmk_from_passphrase("pass:word", b"my net").unwrap());
        // A wpa-pwd line's PMK proves its SSID (no beacon can change it); a wpa-psk's proves none.
        assert_eq!(keys.pmk_ssids.first(), Some(&Some(b"my net".to_vec())));
        assert!(keys.pmk_ssids.iter().skip(1).all(Option::is_none));
        assert_eq!(keys.pmks[2].as_bytes(), &[0x33; 32]);
        assert_eq!(keys.pmks[3].as_bytes(), &[0x33; 48], "the Suite B 192-bit PMK");
        assert_eq!(keys.pmks[4].as_bytes(), &[0x33; 32], "the FT XXKey");

        std::fs::write(&path, "\"wpa-psk\",\"secretsecretzz\"\n").unwrap();
        let err = format!("{:#}", read_key_file(&path, &mut Keys::default()).unwrap_err());
        assert!(err.contains("line 1") && !err.contains("secret"), "{err}");
        std::fs::write(&path, "\"gtk\",\"00\"\n").unwrap();
        assert!(read_key_file(&path, &mut Keys::default()).is_err());
    }
}
