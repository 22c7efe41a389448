//! hostapd.conf: `key=value` lines as hostapd reads them. A `#` starts a comment only in
//! the first column, nothing around `=` is trimmed (`ssid=a b#c` is the SSID `a b#c`), a
//! later line of the same key replaces an earlier one. CRLF line ends are taken as LF.

use std::collections::HashMap;

use wlansec_core::tx::FragmentationThreshold;
use wlansec_core::wire::MacAddr;
use wlansec_wlan::bss::MAX_AID;
use wlansec_wlan::pmf::Pmf;
use wlansec_wlan::security::SecurityMode;

use super::{
    beacon_prot, default_wep_key, group_mgmt_cipher, integer, names, needs_pmf_required, passphrase, pmf, psk_hex,
    sae_groups, sae_password, sae_pwe, ssid, string_value, ConfError, Parsed, SaeConf, Settings, Warning,
    CIPHERS_NOT_IMPLEMENTED, KEY_MGMT_NOT_IMPLEMENTED, WEP_WARNING,
};

const KEY_MGMT_SUPPORTED: &[&str] = &["WPA-PSK", "SAE", "SAE-EXT-KEY", "OWE"];
const CIPHERS_SUPPORTED: &[&str] = &["CCMP", "GCMP-256", "TKIP"];

/// Keys that only mean something on a WPA network (`wpa` 1..=3).
const WPA_ONLY: &[&str] = &[
    "wpa_passphrase",
    "wpa_psk",
    "wpa_key_mgmt",
    "wpa_pairwise",
    "rsn_pairwise",
    "wpa_group_rekey",
    "ieee80211w",
    "sae_password",
    "sae_pwe",
    "sae_groups",
    "owe_groups",
    "transition_disable",
    "group_mgmt_cipher",
    "beacon_prot",
];
/// The keys this parser reads.
const KNOWN: &[&str] = &[
    "ssid",
    "ssid2",
    "wpa",
    "wpa_passphrase",
    "wpa_psk",
    "wpa_key_mgmt",
    "wpa_pairwise",
    "rsn_pairwise",
    "ieee80211w",
    "wpa_group_rekey",
    "fragm_threshold",
    "wep_key0",
    "wep_key1",
    "wep_key2",
    "wep_key3",
    "wep_default_key",
    "auth_algs",
    "max_num_sta",
    "sae_password",
    "sae_pwe",
    "sae_groups",
    "owe_groups",
    "transition_disable",
    "owe_transition_bssid",
    "owe_transition_ssid",
    "group_mgmt_cipher",
    "beacon_prot",
];
/// Keys that only mean something on an SAE network.
const SAE_ONLY: &[&str] = &["sae_password", "sae_pwe", "sae_groups", "transition_disable"];

/// The last line of each setting this parser knows, by setting. `ssid`/`ssid2` are one
/// setting written two ways, and so are `wpa_passphrase`/`wpa_psk`: `key` says which.
#[derive(Clone, Copy)]
struct Entry<'a> {
    line: usize,
    key: &'a str,
    value: &'a str,
}

type Lines<'a> = HashMap<&'a str, Entry<'a>>;

pub fn parse(text: &str) -> Result<Parsed, ConfError> {
    let mut warnings = Vec::new();
    let mut known: Lines = HashMap::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let Some((key, value)) = raw.split_once('=') else {
            return Err(ConfError::Syntax { line, why: "no `=` (hostapd.conf lines are key=value)" });
        };
        if key.is_empty() {
            return Err(ConfError::Syntax { line, why: "no key before `=`" });
        }
        if key.trim() != key {
            return Err(ConfError::Syntax { line, why: "white space around the key (hostapd.conf allows none)" });
        }
        match key {
            _ if KNOWN.contains(&key) => {
                let slot = match key {
                    "ssid2" => "ssid",
                    "wpa_psk" => "wpa_passphrase",
                    k => k,
                };
                if let Some(earlier) = known.insert(slot, Entry { line, key, value }) {
                    warnings.push(Warning::at(line, format!("{key} replaces line {}", earlier.line)));
                }
            }
            "bss" => {
                return Err(ConfError::Unsupported {
                    line: Some(line),
                    what: "bss= (more than one BSS on an interface)".into(),
                })
            }
            "owe_transition_ifname" => warnings.push(Warning::at(
                line,
                "owe_transition_ifname (the pair in one hostapd) is not implemented: give owe_transition_bssid and \
                 owe_transition_ssid; ignored",
            )),
            "wpa_psk_file" => {
                warnings.push(Warning::at(line, "wpa_psk_file (per-station PSKs) is not implemented; ignored"))
            }
            other => warnings.push(Warning::at(
                line,
                format!("`{}` is not implemented by wlansec; ignored", other.escape_default()),
            )),
        }
    }
    let settings = settings(&known, &mut warnings)?;
    Ok(Parsed { settings, warnings })
}

fn settings(known: &Lines, warnings: &mut Vec<Warning>) -> Result<Settings, ConfError> {
    let get = |key: &str| known.get(key).copied();
    let wpa_entry = get("wpa");
    let wpa = match wpa_entry {
        Some(e) => integer(e.line, e.key, e.value, 0..=3)?,
        None => 0,
    };
    let mut settings = Settings::new(None);
    if let Some(Entry { line, key, value }) = get("ssid") {
        let octets = if key == "ssid2" { string_value(line, key, value)? } else { value.as_bytes().to_vec() };
        settings.ssid = Some(ssid(line, key, octets)?);
    }
    if let Some(Entry { line, key, value }) = get("fragm_threshold") {
        // -1 is hostapd's "never fragment".
        let (min, max) = (FragmentationThreshold::MIN, FragmentationThreshold::MAX);
        let n = integer(line, key, value, -1..=max.into())?;
        if (0..min.into()).contains(&n) {
            return Err(ConfError::Value { line, key: key.into(), why: format!("{n}: -1 (off) or {min}..={max}") });
        }
        settings.fragment_threshold = u16::try_from(n).ok();
    }
    settings.owe_transition = owe_transition(known)?;
    if let Some(Entry { line, key, value }) = get("max_num_sta") {
        let n = integer(line, key, value, 1..=i64::from(MAX_AID))?;
        settings.max_stations = u16::try_from(n).ok();
    }
    let wep = wep(known, warnings)?;
    if wpa == 0 {
        let wpa_only: Vec<Entry> = WPA_ONLY.iter().filter_map(|slot| get(slot)).collect();
        match (wep, wpa_entry) {
            (Some(key), _) => {
                settings.security = Some(SecurityMode::Wep);
                settings.passphrase = Some(key);
                warnings.push(Warning { line: None, message: WEP_WARNING.into() });
            }
            // hostapd's open network, written as such.
            (None, Some(e)) => {
                settings.security = Some(SecurityMode::Open);
                warnings.push(Warning::at(e.line, "wpa=0 and no WEP key: an open network, frames are not protected"));
            }
            // Neither wpa= nor a WEP key: hostapd would start an open network. That is never
            // taken by default: WPA settings without wpa= are a mistake, and a file without
            // any security setting leaves the command line's (default ccmp).
            (None, None) => {
                if let Some(e) = wpa_only.first() {
                    return Err(ConfError::Missing(format!(
                        "wpa= (line {} sets {} without it; hostapd would ignore that and start an open \
                         network): wpa=2 and rsn_pairwise=CCMP for WPA2 with CCMP, or wpa=0 for an open network",
                        e.line, e.key
                    )));
                }
                warnings.push(Warning {
                    line: None,
                    message: "neither wpa= nor a WEP key: not an open network as in hostapd, but --security \
                              (default ccmp); write wpa=0 for an open network"
                        .into(),
                });
                return Ok(settings);
            }
        }
        for e in wpa_only {
            warnings.push(Warning::at(e.line, format!("{} has no effect without wpa=1, 2 or 3; ignored", e.key)));
        }
        return Ok(settings);
    }
    if wep.is_some() {
        return Err(ConfError::Unsupported { line: None, what: "WEP keys on a WPA network (wpa is set)".into() });
    }
    // The line that asks for SAE, alone or beside WPA-PSK (the transition mode).
    let (mut sae_line, mut owe_line, mut ext_key, mut transition) = (None, None, false, false);
    if let Some(Entry { line, key, value }) = get("wpa_key_mgmt") {
        let (mut supported, mut others) = names(line, key, value, KEY_MGMT_SUPPORTED, &[KEY_MGMT_NOT_IMPLEMENTED])?;
        let psk = supported.contains(&"WPA-PSK");
        if supported.is_empty() {
            let others = others.join(" ");
            return Err(ConfError::Unsupported {
                line: Some(line),
                what: format!("wpa_key_mgmt {others} (only WPA-PSK, SAE, SAE-EXT-KEY or OWE)"),
            });
        }
        // From here SAE-EXT-KEY is an SAE network (`ext_key`): alone, or beside SAE where the
        // pairwise cipher is GCMP-256 alone; beside SAE otherwise SAE remains (the access point
        // offers one AKM).
        if supported.contains(&"SAE-EXT-KEY") {
            let gcmp_only = get("rsn_pairwise").is_some_and(|e| e.value.trim() == "GCMP-256");
            let beside_sae = supported.contains(&"SAE");
            ext_key = !beside_sae || gcmp_only;
            if beside_sae {
                others.insert(0, if ext_key { "SAE (beside SAE-EXT-KEY)" } else { "SAE-EXT-KEY (beside SAE)" });
            }
            supported.retain(|&n| n != "SAE-EXT-KEY" && n != "SAE");
            supported.push("SAE");
        }
        // OWE alone is an OWE network; beside another AKM, that one remains.
        if supported == ["OWE"] {
            owe_line = Some(line);
        } else if let Some(at) = supported.iter().position(|&n| n == "OWE") {
            supported.remove(at);
            others.insert(0, "OWE (beside another AKM)");
        }
        // WPA-PSK beside SAE is the transition mode; beside SAE-EXT-KEY, WPA-PSK remains.
        transition = psk && supported.contains(&"SAE") && !ext_key;
        if psk && ext_key {
            others.insert(0, "SAE-EXT-KEY (beside WPA-PSK)");
        }
        if (!psk || transition) && owe_line.is_none() {
            sae_line = Some(line);
        }
        if !others.is_empty() {
            let kept = match (psk, transition, ext_key) {
                (_, true, _) => "WPA-PSK SAE",
                (true, false, _) => "WPA-PSK",
                (false, _, true) => "SAE-EXT-KEY",
                (false, _, false) => "SAE",
            };
            let others = others.join(" ");
            warnings.push(Warning::at(line, format!("wpa_key_mgmt: {others} not implemented; {kept} only")));
        }
    }
    let wpa_line = wpa_entry.map_or(0, |e| e.line);
    let ext_key = ext_key && sae_line.is_some();
    let mode = cipher(known, wpa, wpa_line, ext_key, warnings)?;
    settings.security = Some(mode);
    if let Some(line) = sae_line {
        let (akm, needs) = if ext_key { ("SAE-EXT-KEY", SecurityMode::Gcmp256) } else { ("SAE", SecurityMode::Ccmp) };
        if mode != needs {
            let needs = if ext_key { "GCMP-256" } else { "CCMP" };
            return Err(ConfError::Unsupported {
                line: Some(line),
                what: format!("{akm} with {mode} ({akm} needs rsn_pairwise={needs})"),
            });
        }
        let ieee80211w = get("ieee80211w").map(|e| pmf(e.line, e.key, e.value).map(|p| (e.line, p))).transpose()?;
        if transition {
            needs_pmf_offered(ieee80211w, line)?;
        } else {
            needs_pmf_required(akm, ieee80211w, line)?;
        }
        settings.sae = Some(SaeConf {
            pwe: get("sae_pwe").map(|e| sae_pwe(e.line, e.key, e.value)).transpose()?,
            groups: get("sae_groups").map(|e| sae_groups(e.line, e.key, e.value)).transpose()?,
            ext_key,
            transition,
            transition_disable: get("transition_disable")
                .map(|e| transition_disable(e.line, e.key, e.value))
                .transpose()?,
        });
        if let Some(e) = get("sae_password").filter(|_| transition) {
            let why = "sae_password beside WPA-PSK: one password for both here, wpa_passphrase; ignored";
            warnings.push(Warning::at(e.line, why));
        }
    } else {
        for e in SAE_ONLY.iter().filter_map(|key| get(key)) {
            warnings.push(Warning::at(e.line, format!("{} has no effect without wpa_key_mgmt=SAE; ignored", e.key)));
        }
    }
    if let Some(line) = owe_line {
        if mode != SecurityMode::Ccmp {
            return Err(ConfError::Unsupported {
                line: Some(line),
                what: format!("OWE with {mode} (OWE needs rsn_pairwise=CCMP)"),
            });
        }
        let ieee80211w = get("ieee80211w").map(|e| pmf(e.line, e.key, e.value).map(|p| (e.line, p))).transpose()?;
        needs_pmf_required("OWE", ieee80211w, line)?;
        settings.owe = Some(get("owe_groups").map(|e| sae_groups(e.line, e.key, e.value)).transpose()?);
        // OWE has no secret: each association's Diffie-Hellman gives the PMK.
        if let Some(e) = get("wpa_passphrase") {
            warnings.push(Warning::at(e.line, format!("{} has no effect on an OWE network; ignored", e.key)));
        }
    } else if let Some(e) = get("owe_groups") {
        warnings.push(Warning::at(e.line, "owe_groups has no effect without wpa_key_mgmt=OWE; ignored"));
    }
    // Beside OWE, the later of wpa_passphrase and wpa_psk wins, as in hostapd; an SAE network's password
    // is sae_password, else wpa_passphrase.
    if owe_line.is_none() {
        let sae_password_entry = get("sae_password").filter(|_| sae_line.is_some() && !transition);
        settings.passphrase = Some(match (sae_password_entry, get("wpa_passphrase")) {
            (Some(Entry { line, key, value }), _) => sae_password(line, key, value)?,
            (None, Some(Entry { line, key: "wpa_psk", .. })) if sae_line.is_some() => {
                return Err(ConfError::Value {
                    line,
                    key: "wpa_psk".into(),
                    why: "an SAE network needs a password (sae_password or wpa_passphrase), not a PSK".into(),
                })
            }
            (None, Some(Entry { line, key: "wpa_psk", value })) => psk_hex(line, "wpa_psk", value)?,
            (None, Some(Entry { line, key, value })) => passphrase(line, key, value)?,
            (None, None) if sae_line.is_some() => {
                return Err(ConfError::Missing("wpa_key_mgmt=SAE needs sae_password or wpa_passphrase".into()))
            }
            (None, None) => return Err(ConfError::Missing(format!("wpa={wpa} needs wpa_passphrase or wpa_psk"))),
        });
    }
    if let Some(Entry { line, key, value }) = get("ieee80211w") {
        let policy = pmf(line, key, value)?;
        if policy == Pmf::Off && settings.security.is_some_and(SecurityMode::supports_pmf) {
            warnings.push(Warning::at(
                line,
                "ieee80211w=0: management frames unprotected (a forged Deauthentication ends a link),                  where the command line's default offers 802.11w; ieee80211w=1 offers it",
            ));
        }
        settings.pmf = Some(policy);
    }
    if let Some(Entry { line, key, value }) = get("group_mgmt_cipher") {
        group_mgmt_cipher(line, key, value, mode)?;
    }
    if let Some(Entry { line, key, value }) = get("beacon_prot") {
        settings.beacon_protection = Some(beacon_prot(line, key, value, settings.pmf)?);
    }
    if let Some(Entry { line, key, value }) = get("wpa_group_rekey") {
        let secs = integer(line, key, value, 0..=i64::from(u32::MAX))?;
        settings.gtk_rekey_secs = u32::try_from(secs).ok();
    }
    Ok(settings)
}

/// The transition mode offers management frame protection: `ieee80211w` 1 or 2.
fn needs_pmf_offered(ieee80211w: Option<(usize, Pmf)>, key_mgmt_line: usize) -> Result<(), ConfError> {
    let why = "SAE beside WPA-PSK (the transition mode) needs management frame protection offered";
    match ieee80211w {
        Some((_, Pmf::Optional | Pmf::Required)) => Ok(()),
        Some((line, _)) => Err(ConfError::Value { line, key: "ieee80211w".into(), why: format!("{why}: 1 or 2") }),
        None => Err(ConfError::Missing(format!("ieee80211w=1 (line {key_mgmt_line}: {why})"))),
    }
}

/// `owe_transition_bssid` and `owe_transition_ssid`: the other BSS of an OWE transition pair
/// (both, or neither).
fn owe_transition(known: &Lines) -> Result<Option<(MacAddr, String)>, ConfError> {
    let (bssid, ssid_entry) = match (known.get("owe_transition_bssid"), known.get("owe_transition_ssid")) {
        (None, None) => return Ok(None),
        (Some(b), Some(s)) => (b, s),
        (Some(e), None) | (None, Some(e)) => {
            return Err(ConfError::Missing(format!(
                "owe_transition_bssid and owe_transition_ssid together (line {} gives {} alone)",
                e.line, e.key
            )))
        }
    };
    let mac = bssid.value.parse().map_err(|_| ConfError::Value {
        line: bssid.line,
        key: bssid.key.into(),
        why: format!("`{}` is not a MAC address", bssid.value.escape_default()),
    })?;
    let octets = string_value(ssid_entry.line, ssid_entry.key, ssid_entry.value)?;
    Ok(Some((mac, ssid(ssid_entry.line, ssid_entry.key, octets)?)))
}

/// `transition_disable`: a bitmap in hex, as hostapd reads it.
fn transition_disable(line: usize, key: &str, value: &str) -> Result<u8, ConfError> {
    let digits = value.strip_prefix("0x").unwrap_or(value);
    u8::from_str_radix(digits, 16).map_err(|_| ConfError::Value {
        line,
        key: key.into(),
        why: "Transition Disable bits in hex (0x01: WPA3-Personal)".into(),
    })
}

/// A cipher list's line, and the names in it the WLAN has and lacks.
#[derive(Clone)]
struct Ciphers<'a> {
    line: usize,
    supported: Vec<&'a str>,
    unsupported: Vec<&'a str>,
}

/// The pairwise cipher: hostapd offers wpa_pairwise under WPA (`wpa` bit 1) and rsn_pairwise
/// (by default wpa_pairwise, by default TKIP) under WPA2 (bit 2); the emulated access point
/// offers one (pairwise and group): CCMP where the file allows it (what wpa_supplicant's
/// default pairwise=CCMP TKIP takes), else GCMP-256, else TKIP; GCMP-256 first on an
/// SAE-EXT-KEY network (`gcmp_first`).
/// A network that resolves to TKIP is named in a warning that says how to get CCMP.
fn cipher(
    known: &Lines,
    wpa: i64,
    wpa_line: usize,
    gcmp_first: bool,
    warnings: &mut Vec<Warning>,
) -> Result<SecurityMode, ConfError> {
    let list = |key: &str| -> Result<Option<Ciphers>, ConfError> {
        known
            .get(key)
            .map(|e| {
                let (yes, no) = names(e.line, key, e.value, CIPHERS_SUPPORTED, &[CIPHERS_NOT_IMPLEMENTED])?;
                Ok(Ciphers { line: e.line, supported: yes, unsupported: no })
            })
            .transpose()
    };
    let wpa_pairwise = list("wpa_pairwise")?;
    let rsn_given = list("rsn_pairwise")?;
    // A list the wpa bits leave unused (rsn_pairwise under wpa=1; wpa_pairwise under wpa=2
    // beside rsn_pairwise) is named.
    let unused = match (wpa, &wpa_pairwise, &rsn_given) {
        (1, _, Some(c)) => Some(("rsn_pairwise", c.line)),
        (2, Some(c), Some(_)) => Some(("wpa_pairwise", c.line)),
        _ => None,
    };
    if let Some((key, line)) = unused {
        warnings.push(Warning::at(line, format!("{key} has no effect with wpa={wpa}; ignored")));
    }
    let rsn_pairwise = rsn_given.or_else(|| wpa_pairwise.clone());
    let mut offered: Vec<&str> = Vec::new();
    let mut dropped: Vec<&str> = Vec::new();
    let mut line = None;
    let mut defaulted = false;
    for (bit, given) in [(1, &wpa_pairwise), (2, &rsn_pairwise)] {
        if wpa & bit == 0 {
            continue;
        }
        match given {
            Some(c) => {
                line = line.or(Some(c.line));
                offered.extend(&c.supported);
                dropped.extend(&c.unsupported);
            }
            None => {
                defaulted = true;
                offered.push("TKIP");
            }
        }
    }
    let mut preference =
        [("CCMP", SecurityMode::Ccmp), ("GCMP-256", SecurityMode::Gcmp256), ("TKIP", SecurityMode::Tkip)];
    if gcmp_first {
        preference.swap(0, 1);
    }
    let Some(&(_, mode)) = preference.iter().find(|(name, _)| offered.contains(name)) else {
        return Err(ConfError::Unsupported {
            line,
            what: format!("pairwise cipher {} (only CCMP, GCMP-256 and TKIP)", dropped.join(" ")),
        });
    };
    if mode == SecurityMode::Tkip {
        let why = if defaulted {
            "hostapd's default pairwise cipher where rsn_pairwise and wpa_pairwise are not set"
        } else {
            "the only pairwise cipher the file offers"
        };
        let message = format!(
            "the network resolves to TKIP ({why}), deprecated since 2012 and broken: \
             wpa=2 and rsn_pairwise=CCMP for CCMP"
        );
        warnings.push(Warning { line: line.or(Some(wpa_line)), message });
    }
    dropped.extend(preference.iter().filter(|&&(name, m)| m != mode && offered.contains(&name)).map(|(name, _)| *name));
    dropped.dedup();
    if !dropped.is_empty() {
        let message = format!(
            "pairwise {} not offered: the emulated access point offers one cipher, {} (pairwise and group)",
            dropped.join(" "),
            mode
        );
        warnings.push(Warning { line, message });
    }
    Ok(mode)
}

/// The WEP key the access point sends with (`wep_default_key`, 0 by default), if any.
fn wep(known: &Lines, warnings: &mut Vec<Warning>) -> Result<Option<String>, ConfError> {
    let index = known.get("wep_default_key").map(|e| (e.line, e.key, e.value));
    let keys = ["wep_key0", "wep_key1", "wep_key2", "wep_key3"].map(|k| known.get(k).map(|e| (e.line, e.value)));
    let key = default_wep_key(keys, index, warnings)?;
    if let Some(&Entry { line, value, .. }) = known.get("auth_algs") {
        let algs = integer(line, "auth_algs", value, 1..=3)?;
        if algs & 1 == 0 {
            return Err(ConfError::Unsupported {
                line: Some(line),
                what: "auth_algs=2 (shared key authentication only; the WLAN authenticates with open system)".into(),
            });
        }
        if algs & 2 != 0 && key.is_some() {
            warnings.push(Warning::at(line, "auth_algs=3: shared key authentication is not offered, open system only"));
        }
    }
    Ok(key)
}
