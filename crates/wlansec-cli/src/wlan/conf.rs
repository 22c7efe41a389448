//! Configuration in the ecosystem's language: `wlan up --hostapd-conf FILE` and
//! `ap --config FILE` read hostapd.conf, `sta --config FILE` a wpa_supplicant.conf network
//! block, each the subset the emulated WLAN implements, with hostapd's and wpa_supplicant's
//! documented meaning.
//!
//! What happens to each line:
//! - a line the format itself refuses (hostapd: no `=`; wpa_supplicant: no `=`, an unclosed
//!   quote or block) is a [`ConfError::Syntax`] naming its line;
//! - a value outside the key's documented range (`wpa=4`, `fragm_threshold=100`, a
//!   63-digit PSK) is a [`ConfError::Value`];
//! - a key or value the WLAN does not implement is a [`Warning`] naming it when what is left
//!   still does what the file says (`wpa_key_mgmt=WPA-PSK SAE`, the transition mode: PSK
//!   remains), and a [`ConfError::Unsupported`] when nothing the WLAN can do is left
//!   (`rsn_pairwise=GCMP`, `wpa_key_mgmt=FT-PSK`, `wep_default_key=1`);
//! - every other key is named in a warning: nothing is ignored silently.
//!
//! Applied: ssid, the security mode, the secret, `fragm_threshold`, `ieee80211w` (`--pmf`),
//! SAE (`wpa_key_mgmt=SAE`: `--security sae`, its password `sae_password`, `sae_pwe` and
//! `sae_groups`; refused without `ieee80211w=2`, as WPA3 requires), SAE-EXT-KEY
//! (`wpa_key_mgmt=SAE-EXT-KEY` with `rsn_pairwise=GCMP-256`: `--security sae-ext`), GCMP-256
//! (`rsn_pairwise=GCMP-256` with WPA-PSK: `--security gcmp256`), the group management cipher
//! (`group_mgmt_cipher`, `group_mgmt`: checked against the one the network pairs with its
//! cipher), beacon protection (`beacon_prot`: `--beacon-prot`), OWE in hostapd.conf
//! (`wpa_key_mgmt=OWE`: `--security owe`, `owe_groups`; `ieee80211w=2` too) and, for `wlan up`,
//! `wpa_group_rekey` (`--gtk-rekey`; `ap` over UDP has no GTK timer, so there it is named in
//! a warning).
//!
//! The emulated WLAN advertises an RSN element for TKIP and CCMP alike, so `wpa=1` (the WPA
//! vendor element) and `wpa=2` differ only in the cipher they choose.
//!
//! The command line wins: the `apply_*` functions fill only the options the command line
//! left unset, and warn when both give an option and disagree.

mod hostapd;
mod supplicant;

use std::fmt;
use std::path::Path;

use anyhow::{Context, Result};
use wlansec_core::rsn::CipherSuite;
use wlansec_core::wire::MacAddr;
pub use wlansec_wlan::pmf::Pmf;
use wlansec_wlan::security::{SaePwe, Security, SecurityMode};

use super::args::{ApArgs, NodeArgs, SaeArgs, StaArgs, UpArgs};
use crate::bounded;

/// AKM names hostapd's `wpa_key_mgmt` and wpa_supplicant's `key_mgmt` share that the WLAN
/// does not implement (each parser adds the names only its program knows).
const KEY_MGMT_NOT_IMPLEMENTED: &[&str] = &[
    "WPA-EAP",
    "FT-PSK",
    "FT-EAP",
    "FT-EAP-SHA384",
    "WPA-PSK-SHA256",
    "WPA-EAP-SHA256",
    "WPA-EAP-SHA384",
    "FT-SAE",
    "FT-SAE-EXT-KEY",
    "WPA-EAP-SUITE-B",
    "WPA-EAP-SUITE-B-192",
    "FILS-SHA256",
    "FILS-SHA384",
    "FT-FILS-SHA256",
    "FT-FILS-SHA384",
    "OWE",
    "DPP",
    "OSEN",
    "PASN",
];
/// Said of a file that resolves to WEP (both programs).
const WEP_WARNING: &str = "the network resolves to WEP, broken since 2001 (its key is recovered from \
    captured frames in minutes): for CCMP, hostapd.conf: wpa=2, rsn_pairwise=CCMP and wpa_passphrase; \
    wpa_supplicant.conf: key_mgmt=WPA-PSK and psk";
/// Cipher names both programs share that the WLAN does not implement.
const CIPHERS_NOT_IMPLEMENTED: &[&str] = &["GCMP", "CCMP-256"];
/// Group management cipher names both programs share (`group_mgmt_cipher`, `group_mgmt`).
const GROUP_MGMT_CIPHERS: &[(&str, CipherSuite)] = &[
    ("AES-128-CMAC", CipherSuite::BipCmac128),
    ("BIP-GMAC-128", CipherSuite::BipGmac128),
    ("BIP-GMAC-256", CipherSuite::BipGmac256),
    ("BIP-CMAC-256", CipherSuite::BipCmac256),
];

/// What a configuration file says about the network, in the WLAN's terms.
#[derive(Clone, PartialEq, Eq)]
pub struct Settings {
    pub ssid: Option<String>,
    /// None when the file has no security setting at all: the command line's (or its
    /// default, ccmp) applies, never an open network by omission.
    pub security: Option<SecurityMode>,
    /// The secret as `--passphrase` takes it: a passphrase, a PSK as 64 hex digits, or a WEP
    /// key as 5 or 13 characters or 10 or 26 hex digits; None on an open network.
    pub passphrase: Option<String>,
    /// The access point a station joins (wpa_supplicant's `bssid`).
    pub bssid: Option<MacAddr>,
    /// `ieee80211w`; parsed, applied once `--pmf` exists.
    pub pmf: Option<Pmf>,
    /// `wpa_group_rekey` in seconds (0: never); parsed, applied once `--gtk-rekey` exists.
    pub gtk_rekey_secs: Option<u32>,
    /// `fragm_threshold` in octets (256..=2346; -1, hostapd's "off", is None).
    pub fragment_threshold: Option<u16>,
    /// `max_num_sta`: stations associated at once (1..=2007).
    pub max_stations: Option<u16>,
    /// An SAE network (`wpa_key_mgmt=SAE`, or `key_mgmt=SAE`): CCMP with SAE.
    pub sae: Option<SaeConf>,
    /// An OWE network (`wpa_key_mgmt=OWE`): CCMP with OWE, its groups (`owe_groups`) if
    /// given.
    pub owe: Option<Option<Vec<u16>>>,
    /// The other BSS of an OWE transition pair (hostapd's `owe_transition_bssid` and
    /// `owe_transition_ssid`).
    pub owe_transition: Option<(MacAddr, String)>,
    /// `beacon_prot`: beacon protection on or off.
    pub beacon_protection: Option<bool>,
}

/// What an SAE network's file says beside its password.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct SaeConf {
    /// `sae_pwe`: 0 hunting-and-pecking, 1 hash-to-element, 2 both.
    pub pwe: Option<SaePwe>,
    /// `sae_groups`: group numbers in order of preference.
    pub groups: Option<Vec<u16>>,
    /// WPA-PSK beside SAE: the transition mode.
    pub transition: bool,
    /// `transition_disable` (hostapd).
    pub transition_disable: Option<u8>,
    /// SAE-EXT-KEY (AKM 24) rather than SAE (AKM 8).
    pub ext_key: bool,
}

impl Settings {
    fn new(security: Option<SecurityMode>) -> Self {
        Settings {
            ssid: None,
            security,
            passphrase: None,
            bssid: None,
            pmf: None,
            gtk_rekey_secs: None,
            fragment_threshold: None,
            max_stations: None,
            sae: None,
            owe: None,
            owe_transition: None,
            beacon_protection: None,
        }
    }

    /// The security `--security` gets: `sae` (`sae-ext`) for an SAE (SAE-EXT-KEY) network,
    /// `owe` for an OWE one, else the mode.
    fn security_option(&self) -> Option<String> {
        let mode = self.security?;
        let ext_key = self.sae.as_ref().is_some_and(|s| s.ext_key);
        Some(Security { sae: self.sae.is_some(), owe: self.owe.is_some(), ext_key, ..mode.into() }.to_string())
    }
}

/// The passphrase is the network's secret: Debug says only whether there is one.
impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("ssid", &self.ssid)
            .field("security", &self.security)
            .field("passphrase", &self.passphrase.as_ref().map(|_| "<redacted>"))
            .field("bssid", &self.bssid.map(|b| b.to_string()))
            .field("pmf", &self.pmf)
            .field("gtk_rekey_secs", &self.gtk_rekey_secs)
            .field("fragment_threshold", &self.fragment_threshold)
            .field("max_stations", &self.max_stations)
            .field("sae", &self.sae)
            .field("owe", &self.owe)
            .field("owe_transition", &self.owe_transition)
            .field("beacon_protection", &self.beacon_protection)
            .finish()
    }
}

/// Something in the file the WLAN does not do, or does differently; printed on stderr.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Warning {
    pub line: Option<usize>,
    pub message: String,
}

impl Warning {
    fn at(line: usize, message: impl Into<String>) -> Self {
        Warning { line: Some(line), message: message.into() }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Why a configuration file was refused. Messages never hold a secret's value.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ConfError {
    /// A line the file format does not allow.
    Syntax { line: usize, why: &'static str },
    /// A known key whose value is malformed or out of its documented range.
    Value { line: usize, key: String, why: String },
    /// Something the file asks for that the emulated WLAN cannot do.
    Unsupported { line: Option<usize>, what: String },
    /// A setting the file's own choices need but it does not give (`wpa=2`, no passphrase).
    Missing(String),
}

impl fmt::Display for ConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfError::Syntax { line, why } => write!(f, "line {line}: syntax error: {why}"),
            ConfError::Value { line, key, why } => write!(f, "line {line}: {key}: {why}"),
            ConfError::Unsupported { line: Some(line), what } => write!(f, "line {line}: not supported: {what}"),
            ConfError::Unsupported { line: None, what } => write!(f, "not supported: {what}"),
            ConfError::Missing(what) => write!(f, "missing: {what}"),
        }
    }
}

impl std::error::Error for ConfError {}

/// A file's settings and what it warns about.
#[derive(Debug)]
pub struct Parsed {
    pub settings: Settings,
    pub warnings: Vec<Warning>,
}

/// Keys whose values are secrets: errors about them never repeat the value.
fn secret(key: &str) -> bool {
    matches!(
        key,
        "wpa_passphrase" | "wpa_psk" | "psk" | "sae_password" | "wep_key0" | "wep_key1" | "wep_key2" | "wep_key3"
    )
}

/// A value as a message may show it: escaped, or withheld for a secret.
fn shown(key: &str, value: &str) -> String {
    if secret(key) {
        "(value withheld)".into()
    } else {
        format!("`{}`", value.escape_default())
    }
}

/// A space-separated list of names (ciphers, key managements, protocols): the supported
/// ones and the known-but-unsupported ones it holds, in file order. An unknown name or an
/// empty list is an error, as in hostapd and wpa_supplicant.
fn names<'a>(
    line: usize,
    key: &str,
    value: &'a str,
    supported: &[&str],
    unsupported: &[&[&str]],
) -> Result<(Vec<&'a str>, Vec<&'a str>), ConfError> {
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    for name in value.split([' ', '\t']).filter(|n| !n.is_empty()) {
        if supported.contains(&name) {
            yes.push(name);
        } else if unsupported.iter().any(|names| names.contains(&name)) {
            no.push(name);
        } else {
            return Err(ConfError::Value {
                line,
                key: key.into(),
                why: format!("unknown name `{}` (known: {})", name.escape_default(), supported.join(", ")),
            });
        }
    }
    if yes.is_empty() && no.is_empty() {
        return Err(ConfError::Value { line, key: key.into(), why: "empty list".into() });
    }
    Ok((yes, no))
}

/// `sae_pwe`: 0, 1 or 2.
fn sae_pwe(line: usize, key: &str, value: &str) -> Result<SaePwe, ConfError> {
    SaePwe::from_conf(value).map_err(|_| ConfError::Value {
        line,
        key: key.into(),
        why: format!("{}: 0 (hunting-and-pecking), 1 (hash-to-element) or 2 (both)", shown(key, value)),
    })
}

/// `sae_groups` (and `owe_groups`): space-separated group numbers, each 19, 20 or 21.
fn sae_groups(line: usize, key: &str, value: &str) -> Result<Vec<u16>, ConfError> {
    let bad = || ConfError::Value { line, key: key.into(), why: format!("{}: groups 19, 20, 21", shown(key, value)) };
    let groups: Vec<u16> = value
        .split([' ', '\t'])
        .filter(|g| !g.is_empty())
        .map(|g| g.parse::<u16>().ok().filter(|id| (19..=21).contains(id)).ok_or_else(bad))
        .collect::<Result<_, _>>()?;
    if groups.is_empty() {
        return Err(bad());
    }
    Ok(groups)
}

/// An SAE password as `sae_password` gives it: any octets but none (hostapd's `|id=...`
/// parameters are not taken).
fn sae_password(line: usize, key: &str, value: &str) -> Result<String, ConfError> {
    if value.is_empty() || value.contains('|') {
        let why = "a password, without `|` parameters (password identifiers are not implemented)";
        return Err(ConfError::Value { line, key: key.into(), why: why.into() });
    }
    Ok(value.into())
}

/// SAE (and OWE, `akm`) need management frame protection required: `ieee80211w` (`pmf`)
/// must be 2.
fn needs_pmf_required(akm: &str, ieee80211w: Option<(usize, Pmf)>, key_mgmt_line: usize) -> Result<(), ConfError> {
    let why = format!("{akm} needs management frame protection required (WPA3)");
    match ieee80211w {
        Some((_, Pmf::Required)) => Ok(()),
        Some((line, _)) => {
            Err(ConfError::Value { line, key: "ieee80211w".into(), why: format!("{why}: ieee80211w=2") })
        }
        None => Err(ConfError::Missing(format!("ieee80211w=2 (line {key_mgmt_line} asks for {akm}; {why})"))),
    }
}

/// `group_mgmt_cipher` (`group_mgmt`): one known name, which must be the group management
/// cipher the network pairs with its cipher `mode` (BIP-GMAC-256 with GCMP-256, AES-128-CMAC
/// otherwise); any other is refused.
fn group_mgmt_cipher(line: usize, key: &str, value: &str, mode: SecurityMode) -> Result<(), ConfError> {
    let known: Vec<&str> = GROUP_MGMT_CIPHERS.iter().map(|(n, _)| *n).collect();
    let (named, _) = names(line, key, value, &known, &[])?;
    let own = mode.group_mgmt_cipher();
    let own_name = GROUP_MGMT_CIPHERS.iter().find(|(_, c)| *c == own).map_or("AES-128-CMAC", |(n, _)| *n);
    match named.as_slice() {
        [one] if *one == own_name => Ok(()),
        _ => Err(ConfError::Unsupported {
            line: Some(line),
            what: format!("{key}={} with {mode} (the WLAN pairs {own_name} with {mode})", named.join(" ")),
        }),
    }
}

/// `beacon_prot`: 0 or 1; on needs management frame protection (`pmf`, the file's
/// `ieee80211w`, off when absent).
fn beacon_prot(line: usize, key: &str, value: &str, pmf: Option<Pmf>) -> Result<bool, ConfError> {
    let on = integer(line, key, value, 0..=1)? == 1;
    if on && pmf.unwrap_or(Pmf::Off) == Pmf::Off {
        let why = "beacon protection needs management frame protection: ieee80211w=1 or 2".into();
        return Err(ConfError::Value { line, key: key.into(), why });
    }
    Ok(on)
}

/// A decimal integer in `range`, as the key's documentation bounds it.
fn integer(line: usize, key: &str, value: &str, range: std::ops::RangeInclusive<i64>) -> Result<i64, ConfError> {
    match value.parse::<i64>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(ConfError::Value {
            line,
            key: key.into(),
            why: format!("{} is not an integer in {}..={}", shown(key, value), range.start(), range.end()),
        }),
    }
}

fn pmf(line: usize, key: &str, value: &str) -> Result<Pmf, ConfError> {
    Ok(match integer(line, key, value, 0..=2)? {
        0 => Pmf::Off,
        1 => Pmf::Optional,
        _ => Pmf::Required,
    })
}

/// A WEP key as both files write it: `"..."` is the key's characters, unquoted hex digits
/// its octets. Returned as `--passphrase` takes it (the characters, or the hex digits).
fn wep_key(line: usize, key: &str, value: &str) -> Result<String, ConfError> {
    let bad = |why: &str| ConfError::Value { line, key: key.into(), why: why.into() };
    let (len, text) = match value.strip_prefix('"') {
        Some(rest) => {
            let inner = rest.strip_suffix('"').ok_or_else(|| bad("a quoted key needs its closing `\"`"))?;
            (inner.len(), inner.to_string())
        }
        None if value.len().is_multiple_of(2) && value.bytes().all(|b| b.is_ascii_hexdigit()) => {
            (value.len() / 2, value.to_string())
        }
        None => return Err(bad("neither a quoted key nor hex digits")),
    };
    match len {
        5 | 13 => Ok(text),
        16 => Err(ConfError::Unsupported { line: Some(line), what: format!("{key}: WEP-128 (16-octet keys)") }),
        _ => Err(bad("a WEP key has 5 or 13 octets (WEP-40, WEP-104)")),
    }
}

/// The WEP key frames are sent with: the one `index` (`wep_default_key` or `wep_tx_keyidx`:
/// line, key, value; 0 when absent) names, from `keys` (`wep_key0..3`: line, value). The
/// WLAN has one key, index 0: the other keys are named in warnings.
fn default_wep_key(
    keys: [Option<(usize, &str)>; 4],
    index: Option<(usize, &str, &str)>,
    warnings: &mut Vec<Warning>,
) -> Result<Option<String>, ConfError> {
    let (index_line, chosen) = match index {
        Some((line, key, value)) => (Some(line), integer(line, key, value, 0..=3)? as usize),
        None => (None, 0),
    };
    let (mut key, mut any) = (None, false);
    for (i, given) in keys.into_iter().enumerate() {
        // An empty value clears the key (hostapd).
        let Some((line, value)) = given.filter(|(_, v)| !v.is_empty()) else { continue };
        let name = format!("wep_key{i}");
        let value = wep_key(line, &name, value)?;
        any = true;
        if i == chosen {
            key = Some(value);
        } else {
            warnings
                .push(Warning::at(line, format!("{name}: only the default key (wep_key{chosen}) is used; ignored")));
        }
    }
    if any && key.is_none() {
        return Err(ConfError::Missing(format!("wep_key{chosen}, the default WEP key")));
    }
    if key.is_some() && chosen != 0 {
        return Err(ConfError::Unsupported {
            line: index_line,
            what: format!("default WEP key {chosen} (index 0 only)"),
        });
    }
    Ok(key)
}

/// A WPA passphrase: 8..63 printable ASCII characters (what PBKDF2 in 802.11i takes).
fn passphrase(line: usize, key: &str, value: &str) -> Result<String, ConfError> {
    if !(8..=63).contains(&value.len()) || !value.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        return Err(ConfError::Value {
            line,
            key: key.into(),
            why: format!("a passphrase has 8..63 printable ASCII characters (got {})", value.len()),
        });
    }
    Ok(value.into())
}

/// A PSK given directly: 64 hex digits.
fn psk_hex(line: usize, key: &str, value: &str) -> Result<String, ConfError> {
    if value.len() != 64 || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ConfError::Value {
            line,
            key: key.into(),
            why: format!("a PSK is 64 hex digits (got {} characters)", value.len()),
        });
    }
    Ok(value.into())
}

/// An SSID: 1..=32 octets of text (the WLAN's SSIDs are strings).
fn ssid(line: usize, key: &str, octets: Vec<u8>) -> Result<String, ConfError> {
    if octets.is_empty() || octets.len() > 32 {
        return Err(ConfError::Value {
            line,
            key: key.into(),
            why: format!("an SSID has 1..=32 octets, got {}", octets.len()),
        });
    }
    String::from_utf8(octets).map_err(|_| ConfError::Unsupported {
        line: Some(line),
        what: format!("{key}: an SSID that is not UTF-8 text"),
    })
}

/// A string value as wpa_supplicant (and hostapd's `ssid2`) write it: `"text"`, `P"text"`
/// with printf escapes, or hex digits.
fn string_value(line: usize, key: &str, value: &str) -> Result<Vec<u8>, ConfError> {
    let bad = |why: &str| ConfError::Value { line, key: key.into(), why: why.into() };
    if let Some(rest) = value.strip_prefix('"') {
        return Ok(rest.strip_suffix('"').ok_or_else(|| bad("a quoted string ends with `\"`"))?.as_bytes().to_vec());
    }
    if let Some(rest) = value.strip_prefix("P\"") {
        let inner = rest.strip_suffix('"').ok_or_else(|| bad("a P\"...\" string ends with `\"`"))?;
        return unescape(inner).ok_or_else(|| bad("a bad escape in a P\"...\" string"));
    }
    hex::decode(value).map_err(|_| bad("neither \"text\", P\"text\" nor hex digits"))
}

/// printf-style escapes, as wpa_supplicant's P"..." strings take them.
fn unescape(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        out.push(match bytes.next()? {
            b'\\' => b'\\',
            b'"' => b'"',
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'e' => 0x1b,
            b'x' => {
                let hex = [bytes.next()?, bytes.next()?];
                u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?
            }
            _ => return None,
        });
    }
    Some(out)
}

/// Read and parse a file, naming it in the error. At most [`bounded::CONFIG`] (1 MiB) is
/// read: `/dev/zero` or a huge file is refused, not read whole.
fn read(path: &Path, parse: impl FnOnce(&str) -> Result<Parsed, ConfError>) -> Result<Parsed> {
    let text = bounded::read_to_string(path, bounded::CONFIG)?;
    parse(&text).with_context(|| format!("{}", path.display()))
}

/// The file's value for an option the command line may also give: the command line wins.
fn fill<T: PartialEq>(slot: &mut Option<T>, from_file: Option<T>, flag: &str, warn: &mut dyn FnMut(String)) {
    match (slot.as_ref(), from_file) {
        (None, from_file) => *slot = from_file,
        (Some(given), Some(file)) if *given != file => {
            warn(format!("{flag} on the command line overrides the file's value"));
        }
        _ => {}
    }
}

/// The options `wlan up`, `ap` and `sta` share, as they name them.
struct Options<'a> {
    ssid: &'a mut Option<String>,
    security: &'a mut Option<String>,
    sae: &'a mut SaeArgs,
    passphrase: &'a mut Option<String>,
    fragment_threshold: &'a mut Option<u16>,
    pmf: &'a mut Option<Pmf>,
    beacon_prot: &'a mut Option<bool>,
}

/// The single place where a file's settings become options.
fn apply_network(options: Options, settings: &Settings, warn: &mut dyn FnMut(String)) {
    fill(options.ssid, settings.ssid.clone(), "--ssid", warn);
    fill(options.security, settings.security_option(), "--security", warn);
    if let Some(sae) = &settings.sae {
        fill(&mut options.sae.sae_pwe, sae.pwe, "--sae-pwe", warn);
        fill(&mut options.sae.sae_groups, sae.groups.clone(), "--sae-groups", warn);
        options.sae.sae_transition |= sae.transition;
        fill(&mut options.sae.transition_disable, sae.transition_disable, "--transition-disable", warn);
    }
    if let Some(groups) = &settings.owe {
        fill(&mut options.sae.owe_groups, groups.clone(), "--owe-groups", warn);
    }
    fill(options.passphrase, settings.passphrase.clone(), "--passphrase", warn);
    fill(options.fragment_threshold, settings.fragment_threshold, "--fragment-threshold", warn);
    fill(options.pmf, settings.pmf, "--pmf", warn);
    fill(options.beacon_prot, settings.beacon_protection, "--beacon-prot", warn);
}

/// Print each warning with the file it came from.
fn report(path: &Path, parsed: &Parsed, warn: &mut dyn FnMut(String)) {
    for w in &parsed.warnings {
        warn(format!("{}: {w}", path.display()));
    }
}

/// `wlan up --hostapd-conf FILE`: fill what the command line left unset from the file.
pub(super) fn apply_up(args: &mut UpArgs, warn: &mut dyn FnMut(String)) -> Result<()> {
    let Some(path) = args.hostapd_conf.clone() else { return Ok(()) };
    let parsed = read(&path, hostapd::parse)?;
    report(&path, &parsed, warn);
    let options = Options {
        ssid: &mut args.ssid,
        security: &mut args.security,
        sae: &mut args.sae,
        passphrase: &mut args.passphrase,
        fragment_threshold: &mut args.fragment_threshold,
        pmf: &mut args.pmf,
        beacon_prot: &mut args.beacon_prot,
    };
    apply_network(options, &parsed.settings, warn);
    fill(&mut args.gtk_rekey, parsed.settings.gtk_rekey_secs.map(u64::from), "--gtk-rekey", warn);
    if let Some(n) = parsed.settings.max_stations {
        warn(format!("{}: max_num_sta={n} not applied: wlan up runs its own --stations", path.display()));
    }
    Ok(())
}

fn apply_node(node: &mut NodeArgs, path: &Path, parsed: &Parsed, warn: &mut dyn FnMut(String)) {
    report(path, parsed, warn);
    let options = Options {
        ssid: &mut node.ssid,
        security: &mut node.security,
        sae: &mut node.sae,
        passphrase: &mut node.passphrase,
        fragment_threshold: &mut node.fragment_threshold,
        pmf: &mut node.pmf,
        beacon_prot: &mut node.beacon_prot,
    };
    apply_network(options, &parsed.settings, warn);
    if let Some(secs) = parsed.settings.gtk_rekey_secs {
        warn(format!(
            "{}: wpa_group_rekey={secs} not applied: a UDP access point rotates its GTK only when a station leaves",
            path.display()
        ));
    }
}

/// `ap --config FILE` (hostapd.conf).
pub(super) fn apply_ap(args: &mut ApArgs, warn: &mut dyn FnMut(String)) -> Result<()> {
    let Some(path) = args.config.clone() else { return Ok(()) };
    let parsed = read(&path, hostapd::parse)?;
    apply_node(&mut args.node, &path, &parsed, warn);
    fill(&mut args.max_stations, parsed.settings.max_stations, "--max-stations", warn);
    if let Some((bssid, ssid)) = &parsed.settings.owe_transition {
        fill(&mut args.owe_transition_bssid, Some(bssid.to_string()), "--owe-transition-bssid", warn);
        fill(&mut args.owe_transition_ssid, Some(ssid.clone()), "--owe-transition-ssid", warn);
    }
    Ok(())
}

/// `sta --config FILE` (wpa_supplicant.conf): the network block whose ssid is `--ssid`, or
/// the only one.
pub(super) fn apply_sta(args: &mut StaArgs, warn: &mut dyn FnMut(String)) -> Result<()> {
    let Some(path) = args.config.clone() else { return Ok(()) };
    let ssid = args.node.ssid.clone();
    let parsed = read(&path, |text| supplicant::parse(text, ssid.as_deref()))?;
    apply_node(&mut args.node, &path, &parsed, warn);
    fill(&mut args.bssid, parsed.settings.bssid.map(|b| b.to_string()), "--bssid", warn);
    Ok(())
}

#[cfg(test)]
mod tests;
