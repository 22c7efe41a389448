//! wpa_supplicant.conf: global `key=value` lines and `network={ ... }` blocks, read as
//! wpa_supplicant reads them. Leading and trailing white space is dropped, a line whose first
//! other character is `#` is a comment, and a `#` after the last `"` of a line starts one.
//! A station joins one network: the block whose ssid is `--ssid`, or the file's only block.

use std::collections::HashMap;

use wlansec_core::wire::MacAddr;
use wlansec_wlan::security::SecurityMode;

use super::{
    beacon_prot, default_wep_key, group_mgmt_cipher, integer, names, needs_pmf_required, passphrase, pmf, psk_hex,
    sae_groups, sae_password, ssid, string_value, ConfError, Parsed, SaeConf, Settings, Warning,
    CIPHERS_NOT_IMPLEMENTED, KEY_MGMT_NOT_IMPLEMENTED, WEP_WARNING,
};

const KEY_MGMT_SUPPORTED: &[&str] = &["WPA-PSK", "NONE", "SAE", "SAE-EXT-KEY", "OWE"];
/// Names only wpa_supplicant knows, beside the shared ones.
const KEY_MGMT_ONLY_SUPPLICANT: &[&str] = &["IEEE8021X", "WPS", "WPA-NONE"];
const PAIRWISE_SUPPORTED: &[&str] = &["CCMP", "GCMP-256", "TKIP"];
const PAIRWISE_UNSUPPORTED: &[&[&str]] = &[CIPHERS_NOT_IMPLEMENTED, &["NONE"]];
const GROUP_SUPPORTED: &[&str] = &["CCMP", "GCMP-256", "TKIP", "WEP104", "WEP40"];
const GROUP_UNSUPPORTED: &[&[&str]] = &[CIPHERS_NOT_IMPLEMENTED, &["GTK_NOT_USED"]];
const PROTO_SUPPORTED: &[&str] = &["RSN", "WPA2", "WPA"];
const PROTO_UNSUPPORTED: &[&[&str]] = &[&["OSEN"]];

/// One `key=value` line of a network block.
#[derive(Clone, Copy)]
struct Entry<'a> {
    line: usize,
    value: &'a str,
}

/// A `network={ ... }` block: the line it opens on, and the last line of each key.
struct Block<'a> {
    line: usize,
    keys: HashMap<&'a str, Entry<'a>>,
}

/// The network block whose ssid is `want_ssid` (or the only block) as settings.
pub fn parse(text: &str, want_ssid: Option<&str>) -> Result<Parsed, ConfError> {
    let mut warnings = Vec::new();
    let blocks = blocks(text, &mut warnings)?;
    let block = choose(&blocks, want_ssid, &mut warnings)?;
    let settings = settings(block, &mut warnings)?;
    Ok(Parsed { settings, warnings })
}

/// A line as wpa_supplicant keeps it: white space and comments dropped; None when nothing is left.
fn clean(raw: &str) -> Option<&str> {
    let text = raw.trim_start_matches([' ', '\t', '\r']);
    if text.starts_with('#') {
        return None;
    }
    // A `#` after the last quote starts a comment (inside quotes it is text).
    let from = match text.find('"') {
        Some(first) => text[first + 1..].rfind('"').map_or(0, |last| first + 1 + last),
        None => 0,
    };
    let text = match text[from..].find('#') {
        Some(hash) => &text[..from + hash],
        None => text,
    };
    Some(text.trim_end_matches([' ', '\t', '\r'])).filter(|t| !t.is_empty())
}

fn blocks<'a>(text: &'a str, warnings: &mut Vec<Warning>) -> Result<Vec<Block<'a>>, ConfError> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let Some(text) = clean(raw) else { continue };
        if text == "network={" {
            if open.is_some() {
                return Err(ConfError::Syntax { line, why: "network={ inside a network block" });
            }
            open = Some(Block { line, keys: HashMap::new() });
            continue;
        }
        if text == "}" {
            match open.take() {
                Some(block) => blocks.push(block),
                None => return Err(ConfError::Syntax { line, why: "} outside a network block" }),
            }
            continue;
        }
        let Some((key, value)) = text.split_once('=') else {
            return Err(ConfError::Syntax { line, why: "no `=` (lines are key=value, network={ or })" });
        };
        if value.starts_with('"') && !value[1..].contains('"') {
            return Err(ConfError::Syntax { line, why: "a quoted value without its closing `\"`" });
        }
        match open.as_mut() {
            Some(block) => {
                if let Some(earlier) = block.keys.insert(key, Entry { line, value }) {
                    warnings.push(Warning::at(line, format!("{key} replaces line {}", earlier.line)));
                }
            }
            None => warnings.push(Warning::at(
                line,
                format!("global `{}` is not implemented by wlansec; ignored", key.escape_default()),
            )),
        }
    }
    match open {
        Some(block) => Err(ConfError::Syntax { line: block.line, why: "network={ without its closing }" }),
        None => Ok(blocks),
    }
}

/// The block to join; the others are named in warnings.
fn choose<'b, 'a>(
    blocks: &'b [Block<'a>],
    want_ssid: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> Result<&'b Block<'a>, ConfError> {
    let ssid_of = |b: &Block| -> Result<Option<String>, ConfError> {
        b.keys.get("ssid").map(|e| ssid(e.line, "ssid", string_value(e.line, "ssid", e.value)?)).transpose()
    };
    let chosen = match (want_ssid, blocks) {
        (_, []) => return Err(ConfError::Missing("a network={ ... } block".into())),
        (None, [only]) => only,
        (None, _) => {
            return Err(ConfError::Missing(format!("--ssid to choose one of the {} network blocks", blocks.len())))
        }
        (Some(want), _) => {
            let mut found = None;
            for b in blocks {
                if found.is_none() && ssid_of(b)?.as_deref() == Some(want) {
                    found = Some(b);
                }
            }
            found.ok_or_else(|| {
                ConfError::Missing(format!("a network block with ssid \"{}\" (--ssid)", want.escape_default()))
            })?
        }
    };
    for b in blocks.iter().filter(|b| b.line != chosen.line) {
        warnings.push(Warning::at(b.line, "network block not chosen (a station joins one network); ignored"));
    }
    Ok(chosen)
}

fn settings(block: &Block, warnings: &mut Vec<Warning>) -> Result<Settings, ConfError> {
    let get = |key: &str| block.keys.get(key).copied();
    let mut settings = Settings::new(Some(SecurityMode::Open));
    let mut list = |key: &str, supported: &[&str], unsupported: &[&[&str]], default: &'static [&'static str]| {
        Ok::<_, ConfError>(match get(key) {
            Some(Entry { line, value }) => {
                let (yes, no) = names(line, key, value, supported, unsupported)?;
                if !no.is_empty() {
                    warnings.push(Warning::at(line, format!("{key}: {} not implemented; ignored", no.join(" "))));
                }
                (Some(line), yes)
            }
            None => (None, default.to_vec()),
        })
    };
    // Defaults as wpa_supplicant documents them (key_mgmt's WPA-EAP left out: not
    // implemented, and a default is not the file's wish).
    let (km_line, key_mgmt) =
        list("key_mgmt", KEY_MGMT_SUPPORTED, &[KEY_MGMT_NOT_IMPLEMENTED, KEY_MGMT_ONLY_SUPPLICANT], &["WPA-PSK"])?;
    let (pw_line, pairwise) = list("pairwise", PAIRWISE_SUPPORTED, PAIRWISE_UNSUPPORTED, &["CCMP", "TKIP"])?;
    let (group_line, group) = list("group", GROUP_SUPPORTED, GROUP_UNSUPPORTED, &["CCMP", "TKIP", "WEP104", "WEP40"])?;
    let (proto_line, proto) = list("proto", PROTO_SUPPORTED, PROTO_UNSUPPORTED, &["WPA", "RSN"])?;
    let mut unknown: Vec<(usize, &str)> =
        block.keys.iter().filter(|(k, _)| !KNOWN.contains(k)).map(|(k, e)| (e.line, *k)).collect();
    unknown.sort();
    for (line, key) in unknown {
        warnings.push(Warning::at(line, format!("`{}` is not implemented by wlansec; ignored", key.escape_default())));
    }
    if let Some(Entry { line, value }) = get("ssid") {
        settings.ssid = Some(ssid(line, "ssid", string_value(line, "ssid", value)?)?);
    }
    if let Some(Entry { line, value }) = get("bssid") {
        let mac: MacAddr = value.parse().map_err(|_| ConfError::Value {
            line,
            key: "bssid".into(),
            why: format!("`{}` is not a MAC address", value.escape_default()),
        })?;
        settings.bssid = Some(mac);
    }
    if let Some(Entry { line, value }) = get("mode") {
        if integer(line, "mode", value, 0..=2)? != 0 {
            return Err(ConfError::Unsupported {
                line: Some(line),
                what: "mode (a station joins an infrastructure BSS: mode=0)".into(),
            });
        }
    }
    if let Some(Entry { line, value }) = get("auth_alg") {
        let (open, others) = names(line, "auth_alg", value, &["OPEN"], &[&["SHARED", "LEAP"]])?;
        if open.is_empty() {
            return Err(ConfError::Unsupported {
                line: Some(line),
                what: format!("auth_alg {} (OPEN only)", others.join(" ")),
            });
        }
        if !others.is_empty() {
            warnings.push(Warning::at(line, format!("auth_alg: {} not implemented; OPEN only", others.join(" "))));
        }
    }
    let psk = get("psk");
    let wep_keys = ["wep_key0", "wep_key1", "wep_key2", "wep_key3"].map(|k| get(k).map(|e| (e.line, e.value)));
    let no_effect = |warnings: &mut Vec<Warning>, keys: &[&str], why: &str| {
        for key in keys {
            if let Some(e) = get(key) {
                warnings.push(Warning::at(e.line, format!("{key} has no effect {why}; ignored")));
            }
        }
    };
    if key_mgmt.contains(&"WPA-PSK") {
        // As wpa_supplicant: "WPA-PSK accepted for key management, but no PSK configured" is
        // an error, also beside NONE (never an open network by omission).
        let Some(psk) = psk else {
            return Err(ConfError::Missing(
                "psk (key_mgmt allows WPA-PSK; key_mgmt=NONE alone for open or WEP)".into(),
            ));
        };
        // The emulated WLAN pairs CCMP with a CCMP group key, GCMP-256 with GCMP-256 and TKIP
        // with TKIP; CCMP first, as wpa_supplicant's default pairwise=CCMP TKIP.
        let both = |name| pairwise.contains(&name) && group.contains(&name);
        settings.security = Some(if both("CCMP") {
            SecurityMode::Ccmp
        } else if both("GCMP-256") {
            SecurityMode::Gcmp256
        } else if both("TKIP") {
            let message = "the network resolves to TKIP (pairwise and group allow no CCMP pair), deprecated \
                           since 2012 and broken: pairwise=CCMP and group=CCMP (or neither) for CCMP";
            warnings.push(Warning { line: pw_line.or(group_line), message: message.into() });
            SecurityMode::Tkip
        } else {
            return Err(ConfError::Unsupported {
                line: pw_line,
                what: format!(
                    "pairwise {} with group {} (CCMP with CCMP, GCMP-256 with GCMP-256, or TKIP with TKIP)",
                    pairwise.join(" "),
                    group.join(" ")
                ),
            });
        });
        if !proto.iter().any(|p| matches!(*p, "RSN" | "WPA2")) {
            let message = "proto=WPA: the emulated WLAN sends TKIP and CCMP in an RSN element (WPA2 framing)";
            warnings.push(Warning { line: proto_line, message: message.into() });
        }
        settings.passphrase = Some(psk_value(psk.line, psk.value)?);
        if let Some(Entry { line, value }) = get("ieee80211w") {
            settings.pmf = Some(pmf(line, "ieee80211w", value)?);
        }
        // SAE beside WPA-PSK, the transition mode: SAE where the access point offers it,
        // with management frame protection, and the passphrase as its password.
        if key_mgmt.contains(&"SAE") {
            if settings.security != Some(SecurityMode::Ccmp) || !psk.value.starts_with('"') {
                return Err(ConfError::Unsupported {
                    line: km_line,
                    what: "SAE beside WPA-PSK without CCMP or a quoted passphrase psk".into(),
                });
            }
            if settings.pmf == Some(wlansec_wlan::pmf::Pmf::Off) {
                let why = "SAE beside WPA-PSK needs management frame protection offered: 1 or 2".into();
                return Err(ConfError::Value {
                    line: get("ieee80211w").map_or(0, |e| e.line),
                    key: "ieee80211w".into(),
                    why,
                });
            }
            settings.pmf.get_or_insert(wlansec_wlan::pmf::Pmf::Optional);
            settings.sae = Some(SaeConf { transition: true, ..SaeConf::default() });
        } else if key_mgmt.contains(&"SAE-EXT-KEY") {
            let message = "key_mgmt: SAE-EXT-KEY beside WPA-PSK not implemented; WPA-PSK only";
            warnings.push(Warning { line: km_line, message: message.into() });
        }
        no_effect(warnings, &["wep_key0", "wep_key1", "wep_key2", "wep_key3", "wep_tx_keyidx"], "with WPA-PSK");
        no_effect(warnings, &["sae_password"], "without key_mgmt=SAE alone");
    } else if key_mgmt.iter().any(|k| k.starts_with("SAE")) {
        // SAE-EXT-KEY where pairwise and group allow GCMP-256 (or SAE is not named), SAE with
        // CCMP otherwise: the station joins with one AKM.
        let gcmp = pairwise.contains(&"GCMP-256") && group.contains(&"GCMP-256");
        let ext_key = key_mgmt.contains(&"SAE-EXT-KEY") && (gcmp || !key_mgmt.contains(&"SAE"));
        let (akm, cipher, mode) = if ext_key {
            ("SAE-EXT-KEY", "GCMP-256", SecurityMode::Gcmp256)
        } else {
            ("SAE", "CCMP", SecurityMode::Ccmp)
        };
        if !(pairwise.contains(&cipher) && group.contains(&cipher)) {
            let what = format!("{akm} without {cipher} (pairwise={cipher} and group={cipher})");
            return Err(ConfError::Unsupported { line: pw_line.or(group_line), what });
        }
        if key_mgmt.contains(&"SAE") && key_mgmt.contains(&"SAE-EXT-KEY") {
            let other = if ext_key { "SAE" } else { "SAE-EXT-KEY" };
            let message = format!("key_mgmt: {other} not used; the station joins with {akm}");
            warnings.push(Warning { line: km_line, message });
        }
        settings.security = Some(mode);
        // sae_password, else psk's passphrase (as wpa_supplicant takes it); never a PSK.
        settings.passphrase = Some(match (get("sae_password"), psk) {
            (Some(Entry { line, value }), _) => {
                let inner = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
                sae_password(line, "sae_password", inner)?
            }
            (None, Some(Entry { line, value })) if value.starts_with('"') => psk_value(line, value)?,
            (None, Some(Entry { line, .. })) => {
                return Err(ConfError::Value {
                    line,
                    key: "psk".into(),
                    why: "an SAE network needs a password (sae_password, or psk as a quoted passphrase)".into(),
                })
            }
            (None, None) => return Err(ConfError::Missing("sae_password or psk (key_mgmt=SAE)".into())),
        });
        let ieee80211w =
            get("ieee80211w").map(|e| pmf(e.line, "ieee80211w", e.value).map(|p| (e.line, p))).transpose()?;
        needs_pmf_required(akm, ieee80211w, km_line.unwrap_or(0))?;
        settings.pmf = ieee80211w.map(|(_, p)| p);
        settings.sae = Some(SaeConf { ext_key, ..SaeConf::default() });
        no_effect(warnings, &["wep_key0", "wep_key1", "wep_key2", "wep_key3", "wep_tx_keyidx"], "with SAE");
    } else if key_mgmt.contains(&"OWE") {
        // OWE: CCMP, management frame protection required, no secret; `owe_group` the one
        // group to try (none: 19, then 20 and 21 after a refusal, as wpa_supplicant does).
        if !(pairwise.contains(&"CCMP") && group.contains(&"CCMP")) {
            return Err(ConfError::Unsupported { line: pw_line.or(group_line), what: "OWE without CCMP".into() });
        }
        settings.security = Some(SecurityMode::Ccmp);
        let ieee80211w =
            get("ieee80211w").map(|e| pmf(e.line, "ieee80211w", e.value).map(|p| (e.line, p))).transpose()?;
        if let Some((line, p)) = ieee80211w.filter(|(_, p)| *p != wlansec_wlan::pmf::Pmf::Required) {
            let why = format!("{p}: OWE needs management frame protection required (ieee80211w=2)");
            return Err(ConfError::Value { line, key: "ieee80211w".into(), why });
        }
        settings.pmf = Some(wlansec_wlan::pmf::Pmf::Required);
        let groups = match get("owe_group") {
            Some(Entry { line, value }) => sae_groups(line, "owe_group", value)?,
            None => vec![19, 20, 21],
        };
        settings.owe = Some(Some(groups));
        // An OWE station never joins an open BSS here, with or without owe_only.
        if let Some(Entry { line, value }) = get("owe_only") {
            integer(line, "owe_only", value, 0..=1)?;
        }
        no_effect(warnings, &["psk", "sae_password", "wep_key0", "wep_key1", "wep_key2", "wep_key3"], "with OWE");
    } else if key_mgmt.contains(&"NONE") {
        let index = get("wep_tx_keyidx").map(|e| (e.line, "wep_tx_keyidx", e.value));
        if let Some(key) = default_wep_key(wep_keys, index, warnings)? {
            settings.security = Some(SecurityMode::Wep);
            settings.passphrase = Some(key);
            warnings.push(Warning { line: None, message: WEP_WARNING.into() });
        } else {
            warnings.push(Warning {
                line: km_line,
                message: "key_mgmt=NONE and no WEP key: an open network, frames are not protected".into(),
            });
        }
        no_effect(warnings, &["psk", "ieee80211w", "sae_password"], "with key_mgmt=NONE");
    } else {
        return Err(ConfError::Unsupported {
            line: km_line,
            what: "key_mgmt without WPA-PSK, SAE, SAE-EXT-KEY or NONE".into(),
        });
    }
    if let Some(Entry { line, value }) = get("group_mgmt") {
        let mode = settings.security.unwrap_or(SecurityMode::Open);
        group_mgmt_cipher(line, "group_mgmt", value, mode)?;
    }
    if let Some(Entry { line, value }) = get("beacon_prot") {
        settings.beacon_protection = Some(beacon_prot(line, "beacon_prot", value, settings.pmf)?);
    }
    Ok(settings)
}

/// `psk`: a quoted passphrase, or the PSK as 64 hex digits.
fn psk_value(line: usize, value: &str) -> Result<String, ConfError> {
    match value.strip_prefix('"') {
        Some(rest) => {
            let inner = rest.strip_suffix('"').ok_or(ConfError::Syntax { line, why: "text after a quoted psk" })?;
            passphrase(line, "psk", inner)
        }
        None if value.starts_with("ext:") => {
            Err(ConfError::Unsupported { line: Some(line), what: "psk=ext:... (an external password store)".into() })
        }
        None => psk_hex(line, "psk", value),
    }
}

/// The network block keys this parser reads; any other is named in a warning.
const KNOWN: &[&str] = &[
    "ssid",
    "owe_group",
    "owe_only",
    "psk",
    "sae_password",
    "key_mgmt",
    "pairwise",
    "group",
    "proto",
    "ieee80211w",
    "wep_key0",
    "wep_key1",
    "wep_key2",
    "wep_key3",
    "wep_tx_keyidx",
    "bssid",
    "auth_alg",
    "mode",
    "group_mgmt",
    "beacon_prot",
];
