use clap::Parser;

use super::*;

const HOSTAPD_EXAMPLE: &str = include_str!("../../../../../examples/hostapd.conf");
const SUPPLICANT_EXAMPLE: &str = include_str!("../../../../../examples/wpa_supplicant.conf");

fn hostapd(text: &str) -> Parsed {
    hostapd::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn hostapd_err(text: &str) -> ConfError {
    hostapd::parse(text).err().unwrap_or_else(|| panic!("{text:?} was accepted"))
}

fn supplicant(text: &str) -> Parsed {
    supplicant::parse(text, None).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn supplicant_err(text: &str) -> ConfError {
    supplicant::parse(text, None).err().unwrap_or_else(|| panic!("{text:?} was accepted"))
}

/// A network block around `body`.
fn network(body: &str) -> String {
    format!("network={{\n{body}\n}}\n")
}

fn warned(parsed: &Parsed, needle: &str) -> bool {
    parsed.warnings.iter().any(|w| w.to_string().contains(needle))
}

fn mode(s: &str) -> SecurityMode {
    s.parse().unwrap()
}

const PASS: &str = "correct horse battery";
const PSK: &str = "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef";

// hostapd.conf

#[test]
fn the_hostapd_example_is_wpa2_ccmp_and_names_the_radio_keys_it_ignores() {
    let p = hostapd(HOSTAPD_EXAMPLE);
    let s = &p.settings;
    assert_eq!(s.ssid.as_deref(), Some("wlansec-lab"));
    assert_eq!(s.security, Some(SecurityMode::Ccmp));
    assert_eq!(s.passphrase.as_deref(), Some(PASS));
    assert_eq!((s.pmf, s.gtk_rekey_secs, s.fragment_threshold), (Some(Pmf::Optional), Some(3600), Some(1024)));
    for key in ["interface", "driver", "hw_mode", "channel"] {
        assert!(warned(&p, &format!("`{key}` is not implemented")), "{key}: {:?}", p.warnings);
    }
    assert_eq!(p.warnings.len(), 4, "{:?}", p.warnings);
}

#[test]
fn hostapd_modes_follow_wpa_and_the_pairwise_ciphers() {
    let cases = [
        ("wpa=0\n", "open"),
        ("ssid=x\nwpa=0\n", "open"),
        ("wep_key0=\"abcde\"\n", "wep"),
        ("wpa=2\nrsn_pairwise=CCMP\n", "ccmp"),
        ("wpa=1\nwpa_pairwise=TKIP\n", "tkip"),
        ("wpa=1\nwpa_pairwise=CCMP\n", "ccmp"),
        // rsn_pairwise defaults to wpa_pairwise, and that to TKIP.
        ("wpa=2\nwpa_pairwise=TKIP\n", "tkip"),
        ("wpa=2\nwpa_pairwise=CCMP\n", "ccmp"),
        ("wpa=2\n", "tkip"),
        ("wpa=3\nwpa_pairwise=TKIP\nrsn_pairwise=CCMP\n", "ccmp"),
        ("wpa=1\nwpa_pairwise=TKIP\nrsn_pairwise=CCMP\n", "tkip"),
    ];
    for (text, want) in cases {
        let wpa = if text.contains("wpa=") && !text.contains("wpa=0") {
            format!("wpa_passphrase={PASS}\n")
        } else {
            String::new()
        };
        let p = hostapd(&format!("{text}{wpa}"));
        assert_eq!(p.settings.security, Some(mode(want)), "{text:?}");
    }
}

#[test]
fn hostapd_a_pairwise_list_the_wpa_bits_leave_unused_is_named() {
    let p = hostapd(&format!("wpa=1\nwpa_pairwise=TKIP\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\n"));
    assert!(warned(&p, "line 3: rsn_pairwise has no effect with wpa=1"), "{:?}", p.warnings);
    let p = hostapd(&format!("wpa=2\nwpa_pairwise=TKIP\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\n"));
    assert!(warned(&p, "line 2: wpa_pairwise has no effect with wpa=2"), "{:?}", p.warnings);
    let p = hostapd(&format!("wpa=2\nwpa_pairwise=CCMP\nwpa_passphrase={PASS}\n"));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn hostapd_offering_ccmp_and_tkip_keeps_ccmp_and_says_so() {
    let p = hostapd(&format!("wpa=3\nwpa_pairwise=TKIP\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\n"));
    assert!(warned(&p, "line 2: pairwise TKIP not offered"), "{:?}", p.warnings);
    let p = hostapd(&format!("wpa=2\nrsn_pairwise=CCMP GCMP-256\nwpa_passphrase={PASS}\n"));
    assert_eq!(p.settings.security, Some(SecurityMode::Ccmp));
    assert!(warned(&p, "GCMP-256 not offered"), "{:?}", p.warnings);
}

#[test]
fn hostapd_ciphers_the_wlan_lacks_are_refused_and_unknown_ones_are_value_errors() {
    let e = hostapd_err(&format!("wpa=2\nrsn_pairwise=GCMP\nwpa_passphrase={PASS}\n"));
    assert!(matches!(e, ConfError::Unsupported { line: Some(2), .. }), "{e}");
    assert!(e.to_string().contains("GCMP"), "{e}");
    let e = hostapd_err(&format!("wpa=2\nrsn_pairwise=AES\nwpa_passphrase={PASS}\n"));
    assert!(matches!(&e, ConfError::Value { line: 2, key, .. } if key == "rsn_pairwise"), "{e}");
    let e = hostapd_err(&format!("wpa=2\nrsn_pairwise=\nwpa_passphrase={PASS}\n"));
    assert!(e.to_string().contains("empty list"), "{e}");
}

#[test]
fn hostapd_key_management_is_wpa_psk_sae_or_owe() {
    let e = hostapd_err(&format!("wpa=2\nwpa_key_mgmt=FT-PSK\nwpa_passphrase={PASS}\n"));
    assert!(matches!(e, ConfError::Unsupported { line: Some(2), .. }) && e.to_string().contains("FT-PSK"), "{e}");
    // SAE beside WPA-PSK: the transition mode, with CCMP and management frame protection
    // offered, and its Transition Disable bits.
    let transition = format!("wpa=2\nwpa_key_mgmt=WPA-PSK SAE\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\n");
    let p = hostapd(&format!("{transition}ieee80211w=1\ntransition_disable=0x01\n"));
    let sae = SaeConf { transition: true, transition_disable: Some(1), ..SaeConf::default() };
    assert_eq!(p.settings.sae, Some(sae));
    assert_eq!((p.settings.security_option().as_deref(), p.settings.pmf), (Some("sae"), Some(Pmf::Optional)));
    assert_eq!(p.settings.passphrase.as_deref(), Some(PASS));
    assert!(matches!(hostapd_err(&transition), ConfError::Missing(m) if m.starts_with("ieee80211w=1")));
    let e = hostapd_err(&format!("{transition}ieee80211w=0\n"));
    assert!(matches!(&e, ConfError::Value { line: 5, key, .. } if key == "ieee80211w"), "{e}");
    let e = hostapd_err(&format!("{transition}ieee80211w=1\ntransition_disable=on\n"));
    assert!(matches!(&e, ConfError::Value { line: 6, key, .. } if key == "transition_disable"), "{e}");
    let e = hostapd_err(&format!("wpa=2\nwpa_key_mgmt=WPA-PSK SAE\nwpa_passphrase={PASS}\nieee80211w=1\n"));
    assert!(e.to_string().contains("SAE with tkip"), "{e}");
    assert!(matches!(hostapd_err("wpa=2\nwpa_key_mgmt=PSK\n"), ConfError::Value { line: 2, .. }));
}

#[test]
fn hostapd_secrets_are_a_passphrase_or_a_psk_and_the_later_line_wins() {
    let p = hostapd(&format!("wpa=2\nwpa_psk={PSK}\n"));
    assert_eq!(p.settings.passphrase.as_deref(), Some(PSK));
    let p = hostapd(&format!("wpa=2\nwpa_passphrase={PASS}\nwpa_psk={PSK}\n"));
    assert_eq!(p.settings.passphrase.as_deref(), Some(PSK));
    assert!(warned(&p, "line 3: wpa_psk replaces line 2"), "{:?}", p.warnings);
    let p = hostapd(&format!("wpa=2\nwpa_psk={PSK}\nwpa_passphrase={PASS}\n"));
    assert_eq!(p.settings.passphrase.as_deref(), Some(PASS));
    // Spaces belong to a hostapd passphrase.
    let p = hostapd("wpa=2\nwpa_passphrase= spaced out \n");
    assert_eq!(p.settings.passphrase.as_deref(), Some(" spaced out "));
    assert_eq!(hostapd_err("wpa=2\n"), ConfError::Missing("wpa=2 needs wpa_passphrase or wpa_psk".into()));
}

#[test]
fn hostapd_bad_secrets_are_refused_without_repeating_them() {
    for (text, line) in [
        ("wpa=2\nwpa_passphrase=short7!\n".replace("short7!", "sh0rt"), 2),
        (format!("wpa=2\nwpa_psk={}\n", &PSK[..63]), 2),
        (format!("wpa=2\nwpa_psk={}zz\n", &PSK[..62]), 2),
        ("wep_key0=\"abcdef\"\n".into(), 1),
        ("wep_key0=abcdefgh01\n".into(), 1),
        ("wep_key0=\"abcde\n".into(), 1),
    ] {
        let e = hostapd::parse(&text).unwrap_err();
        assert!(matches!(e, ConfError::Value { line: l, .. } if l == line), "{text:?}: {e}");
        let secret = text.lines().last().unwrap().split_once('=').unwrap().1;
        assert!(!e.to_string().contains(secret.trim_matches('"')), "{e} repeats the secret");
    }
}

#[test]
fn hostapd_wep_keys_are_quoted_characters_or_hex() {
    let key = |text: &str| hostapd(text).settings.passphrase;
    assert_eq!(key("wep_key0=\"abcde\"\n").as_deref(), Some("abcde"));
    assert_eq!(key("wep_key0=\"0123456789abc\"\n").as_deref(), Some("0123456789abc"));
    assert_eq!(key("wep_key0=0102030405\n").as_deref(), Some("0102030405"));
    assert_eq!(key("wep_key0=0102030405060708090a0b0c0d\n").as_deref(), Some("0102030405060708090a0b0c0d"));
    assert_eq!(key("wep_default_key=0\nwep_key0=\"abcde\"\n").as_deref(), Some("abcde"));
    // The WLAN's key is index 0: others are named, another default key is refused.
    let p = hostapd("wep_key0=\"abcde\"\nwep_key1=\"fghij\"\n");
    assert!(warned(&p, "line 2: wep_key1: only the default key (wep_key0) is used"), "{:?}", p.warnings);
    let e = hostapd_err("wep_default_key=1\nwep_key1=\"fghij\"\n");
    assert!(matches!(e, ConfError::Unsupported { line: Some(1), .. }), "{e}");
    assert!(matches!(hostapd_err("wep_key1=\"fghij\"\n"), ConfError::Missing(_)));
    assert!(matches!(hostapd_err("wep_key0=\"0123456789abcdef\"\n"), ConfError::Unsupported { .. }));
    assert!(matches!(hostapd_err("wep_default_key=4\n"), ConfError::Value { line: 1, .. }));
    let e = hostapd_err(&format!("wpa=2\nwpa_passphrase={PASS}\nwep_key0=\"abcde\"\n"));
    assert!(matches!(e, ConfError::Unsupported { .. }), "{e}");
}

#[test]
fn hostapd_auth_algs_needs_open_system() {
    assert_eq!(hostapd("wep_key0=\"abcde\"\nauth_algs=1\n").settings.security, Some(SecurityMode::Wep));
    let p = hostapd("wep_key0=\"abcde\"\nauth_algs=3\n");
    assert!(warned(&p, "line 2: auth_algs=3"), "{:?}", p.warnings);
    assert!(matches!(hostapd_err("auth_algs=2\n"), ConfError::Unsupported { line: Some(1), .. }));
    assert!(matches!(hostapd_err("auth_algs=0\n"), ConfError::Value { line: 1, .. }));
}

#[test]
fn hostapd_wpa_settings_under_wpa_0_are_named_not_applied() {
    let p = hostapd(&format!("wpa=0\nwpa_passphrase={PASS}\nieee80211w=2\n"));
    assert_eq!(p.settings.security, Some(SecurityMode::Open));
    assert_eq!((p.settings.passphrase.as_ref(), p.settings.pmf), (None, None));
    assert!(warned(&p, "line 2: wpa_passphrase has no effect without wpa"), "{:?}", p.warnings);
    assert!(warned(&p, "line 3: ieee80211w has no effect"), "{:?}", p.warnings);
    assert!(matches!(hostapd_err("wpa=4\n"), ConfError::Value { line: 1, .. }));
}

#[test]
fn hostapd_a_file_without_wpa_or_a_wep_key_is_not_an_open_network() {
    // hostapd starts these open; here they leave --security (default ccmp), and say so.
    for text in ["", "\n", "# nothing\n", "ssid=lab\n", "ssid=lab\nchannel=6\nfragm_threshold=512\n"] {
        let p = hostapd(text);
        assert_eq!(p.settings.security, None, "{text:?}");
        assert_eq!(p.settings.passphrase, None, "{text:?}");
        assert!(warned(&p, "neither wpa= nor a WEP key: not an open network"), "{text:?}: {:?}", p.warnings);
        assert!(warned(&p, "write wpa=0 for an open network"), "{text:?}: {:?}", p.warnings);
    }
}

#[test]
fn hostapd_wpa_settings_without_wpa_are_an_error_not_an_open_network() {
    for (text, line, key) in [
        (format!("ssid=lab\nwpa_passphrase={PASS}\n"), 2, "wpa_passphrase"),
        (format!("wpa_psk={PSK}\n"), 1, "wpa_psk"),
        ("rsn_pairwise=CCMP\n".to_string(), 1, "rsn_pairwise"),
    ] {
        let e = hostapd_err(&text);
        assert!(matches!(e, ConfError::Missing(_)), "{text:?}: {e}");
        let message = e.to_string();
        assert!(message.contains(&format!("line {line} sets {key} without it")), "{message}");
        assert!(message.contains("wpa=2 and rsn_pairwise=CCMP") && message.contains("wpa=0"), "{message}");
        assert!(!message.contains(PASS) && !message.contains(PSK), "{message} repeats the secret");
    }
}

#[test]
fn hostapd_an_open_network_is_written_wpa_0_and_named() {
    let p = hostapd("ssid=lab\nwpa=0\n");
    assert_eq!(p.settings.security, Some(SecurityMode::Open));
    assert!(warned(&p, "line 2: wpa=0 and no WEP key: an open network"), "{:?}", p.warnings);
}

#[test]
fn hostapd_tkip_is_named_in_a_warning_that_says_how_to_get_ccmp() {
    // wpa=2 alone: hostapd's default chain (rsn_pairwise <- wpa_pairwise <- TKIP).
    let p = hostapd(&format!("wpa=2\nwpa_passphrase={PASS}\n"));
    assert_eq!(p.settings.security, Some(SecurityMode::Tkip));
    assert!(warned(&p, "line 1: the network resolves to TKIP (hostapd's default pairwise cipher"), "{:?}", p.warnings);
    assert!(warned(&p, "deprecated since 2012") && warned(&p, "rsn_pairwise=CCMP for CCMP"), "{:?}", p.warnings);
    for (text, line) in [("wpa=1\nwpa_pairwise=TKIP\n", 2), ("wpa=2\nrsn_pairwise=TKIP\n", 2), ("wpa=1\n", 1)] {
        let p = hostapd(&format!("{text}wpa_passphrase={PASS}\n"));
        assert_eq!(p.settings.security, Some(SecurityMode::Tkip), "{text:?}");
        let message = format!("line {line}: the network resolves to TKIP");
        assert!(warned(&p, &message), "{text:?}: {:?}", p.warnings);
    }
    for text in ["wpa=2\nrsn_pairwise=CCMP\n", "wpa=3\nwpa_pairwise=TKIP\nrsn_pairwise=CCMP\n"] {
        let p = hostapd(&format!("{text}wpa_passphrase={PASS}\n"));
        assert_eq!(p.settings.security, Some(SecurityMode::Ccmp), "{text:?}");
        assert!(!warned(&p, "resolves to"), "{text:?}: {:?}", p.warnings);
    }
}

#[test]
fn hostapd_wep_is_named_in_a_warning_that_says_how_to_get_ccmp() {
    for text in ["wep_key0=\"abcde\"\n", "wpa=0\nwep_key0=0102030405\n"] {
        let p = hostapd(text);
        assert_eq!(p.settings.security, Some(SecurityMode::Wep), "{text:?}");
        assert!(warned(&p, "the network resolves to WEP, broken"), "{text:?}: {:?}", p.warnings);
        assert!(warned(&p, "wpa=2, rsn_pairwise=CCMP and wpa_passphrase"), "{text:?}: {:?}", p.warnings);
        assert!(!warned(&p, "abcde") && !warned(&p, "0102030405"), "a warning repeats the key: {:?}", p.warnings);
    }
}

#[test]
fn hostapd_pmf_rekey_and_fragmentation_are_parsed_in_range() {
    let p = |extra: &str| hostapd::parse(&format!("wpa=2\nwpa_passphrase={PASS}\n{extra}\n"));
    for (v, want) in [("0", Pmf::Off), ("1", Pmf::Optional), ("2", Pmf::Required)] {
        assert_eq!(p(&format!("ieee80211w={v}")).unwrap().settings.pmf, Some(want));
    }
    assert!(matches!(p("ieee80211w=3"), Err(ConfError::Value { line: 3, .. })));
    assert_eq!(p("wpa_group_rekey=0").unwrap().settings.gtk_rekey_secs, Some(0));
    assert_eq!(p("wpa_group_rekey=86400").unwrap().settings.gtk_rekey_secs, Some(86400));
    assert!(matches!(p("wpa_group_rekey=-5"), Err(ConfError::Value { .. })));
    assert!(matches!(p("wpa_group_rekey=1h"), Err(ConfError::Value { .. })));
    assert_eq!(p("fragm_threshold=-1").unwrap().settings.fragment_threshold, None);
    assert_eq!(p("fragm_threshold=256").unwrap().settings.fragment_threshold, Some(256));
    assert_eq!(p("fragm_threshold=2346").unwrap().settings.fragment_threshold, Some(2346));
    for bad in ["255", "0", "2347", "-2", "big"] {
        assert!(matches!(p(&format!("fragm_threshold={bad}")), Err(ConfError::Value { line: 3, .. })), "{bad}");
    }
}

#[test]
fn hostapd_ssid_and_ssid2() {
    let ssid = |text: &str| hostapd(text).settings.ssid;
    // Everything after `=` is the SSID: spaces and `#` included.
    assert_eq!(ssid("ssid=my net #1\n").as_deref(), Some("my net #1"));
    assert_eq!(ssid("ssid2=\"quoted\"\n").as_deref(), Some("quoted"));
    assert_eq!(ssid("ssid2=776c616e736563\n").as_deref(), Some("wlansec"));
    assert_eq!(ssid("ssid2=P\"a\\x42\\\\c\"\n").as_deref(), Some("aB\\c"));
    assert_eq!(ssid("ssid=first\nssid2=\"second\"\n").as_deref(), Some("second"));
    assert!(matches!(hostapd_err(&format!("ssid={}\n", "x".repeat(33))), ConfError::Value { line: 1, .. }));
    assert!(matches!(hostapd_err("ssid=\n"), ConfError::Value { line: 1, .. }));
    assert!(matches!(hostapd_err("ssid2=\"open\n"), ConfError::Value { line: 1, .. }));
    assert!(matches!(hostapd_err("ssid2=ff\n"), ConfError::Unsupported { line: Some(1), .. }));
}

#[test]
fn hostapd_comments_blank_lines_and_crlf() {
    let p = hostapd("# comment\n\n#wpa=2\r\nssid=lab\r\nwpa=0\r\n\n");
    assert_eq!((p.settings.ssid.as_deref(), p.settings.security), (Some("lab"), Some(SecurityMode::Open)));
    assert_eq!(p.warnings.len(), 1, "only the open network's: {:?}", p.warnings);
}

#[test]
fn hostapd_syntax_errors_name_their_line() {
    assert_eq!(
        hostapd_err("ssid=x\njunk\n"),
        ConfError::Syntax { line: 2, why: "no `=` (hostapd.conf lines are key=value)" }
    );
    // hostapd trims nothing: a key with spaces, an indented comment are errors there too.
    assert!(matches!(hostapd_err("ssid = x\n"), ConfError::Syntax { line: 1, .. }));
    assert!(matches!(hostapd_err("\n  # indented\n"), ConfError::Syntax { line: 2, .. }));
    assert!(matches!(hostapd_err("=x\n"), ConfError::Syntax { line: 1, .. }));
    assert!(hostapd_err("a\n").to_string().starts_with("line 1: syntax error"));
}

#[test]
fn hostapd_unknown_and_unsupported_keys() {
    let p = hostapd("ssid=x\nbeacon_int=100\nwpa_psk_file=/etc/psk\n");
    assert!(warned(&p, "line 2: `beacon_int` is not implemented by wlansec; ignored"), "{:?}", p.warnings);
    assert!(warned(&p, "line 3: wpa_psk_file"), "{:?}", p.warnings);
    assert!(matches!(hostapd_err("ssid=x\nbss=wlan0_1\n"), ConfError::Unsupported { line: Some(2), .. }));
}

#[test]
fn settings_debug_hides_the_secret() {
    let p = hostapd(&format!("wpa=2\nwpa_passphrase={PASS}\n"));
    let debug = format!("{:?}", p);
    assert!(!debug.contains(PASS) && debug.contains("<redacted>"), "{debug}");
}

// wpa_supplicant.conf

#[test]
fn the_supplicant_example_joins_the_block_its_ssid_names() {
    let p = supplicant::parse(SUPPLICANT_EXAMPLE, Some("wlansec-lab")).unwrap();
    let s = &p.settings;
    assert_eq!((s.ssid.as_deref(), s.security), (Some("wlansec-lab"), Some(SecurityMode::Ccmp)));
    assert_eq!(s.passphrase.as_deref(), Some(PASS));
    assert_eq!(s.bssid.map(|b| b.to_string()), Some("02:77:00:00:00:01".into()));
    assert_eq!(s.pmf, Some(Pmf::Optional));
    assert!(warned(&p, "`ctrl_interface` is not implemented"), "{:?}", p.warnings);
    assert!(warned(&p, "network block not chosen"), "{:?}", p.warnings);
    let p = supplicant::parse(SUPPLICANT_EXAMPLE, Some("wlansec-wep")).unwrap();
    assert_eq!((p.settings.security, p.settings.passphrase.as_deref()), (Some(SecurityMode::Wep), Some("abcde")));
    // Two blocks and no --ssid: which one is the file's wish is not clear.
    let e = supplicant::parse(SUPPLICANT_EXAMPLE, None).unwrap_err();
    assert_eq!(e.to_string(), "missing: --ssid to choose one of the 2 network blocks");
    let e = supplicant::parse(SUPPLICANT_EXAMPLE, Some("elsewhere")).unwrap_err();
    assert!(matches!(e, ConfError::Missing(_)), "{e}");
}

#[test]
fn supplicant_modes_follow_key_mgmt_pairwise_and_group() {
    let psk = format!("psk=\"{PASS}\"");
    let cases = [
        (psk.clone(), "ccmp"),
        (format!("{psk}\npairwise=TKIP"), "tkip"),
        (format!("{psk}\npairwise=CCMP TKIP\ngroup=TKIP"), "tkip"),
        (format!("{psk}\nkey_mgmt=WPA-PSK\nproto=RSN\npairwise=CCMP\ngroup=CCMP"), "ccmp"),
        ("key_mgmt=NONE".into(), "open"),
        ("key_mgmt=NONE\nwep_key0=\"abcde\"".into(), "wep"),
        ("key_mgmt=NONE\nwep_key0=0102030405".into(), "wep"),
    ];
    for (body, want) in cases {
        let p = supplicant(&network(&format!("ssid=\"lab\"\n{body}")));
        assert_eq!(p.settings.security, Some(mode(want)), "{body}");
    }
    let p = supplicant(&network(&format!("ssid=\"lab\"\npsk={PSK}")));
    assert_eq!(p.settings.passphrase.as_deref(), Some(PSK));
}

#[test]
fn supplicant_tkip_wep_and_open_are_named_in_warnings() {
    let psk = format!("psk=\"{PASS}\"");
    for body in [format!("{psk}\npairwise=TKIP"), format!("{psk}\ngroup=TKIP")] {
        let p = supplicant(&network(&body));
        assert_eq!(p.settings.security, Some(SecurityMode::Tkip), "{body}");
        assert!(warned(&p, "line 3: the network resolves to TKIP"), "{body}: {:?}", p.warnings);
        assert!(warned(&p, "pairwise=CCMP and group=CCMP (or neither) for CCMP"), "{body}: {:?}", p.warnings);
    }
    let p = supplicant(&network("key_mgmt=NONE\nwep_key0=\"abcde\""));
    assert!(warned(&p, "the network resolves to WEP, broken"), "{:?}", p.warnings);
    assert!(warned(&p, "key_mgmt=WPA-PSK and psk"), "{:?}", p.warnings);
    let p = supplicant(&network("key_mgmt=NONE"));
    assert!(warned(&p, "line 2: key_mgmt=NONE and no WEP key: an open network"), "{:?}", p.warnings);
    // The default (no key_mgmt, pairwise, group) is CCMP, and says nothing.
    let p = supplicant(&network(&psk));
    assert_eq!(p.settings.security, Some(SecurityMode::Ccmp));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn supplicant_wpa_psk_without_a_psk_is_an_error_even_beside_none() {
    // wpa_supplicant: "WPA-PSK accepted for key management, but no PSK configured".
    for body in ["ssid=\"lab\"", "key_mgmt=WPA-PSK", "key_mgmt=WPA-PSK NONE", "key_mgmt=NONE WPA-PSK"] {
        let e = supplicant_err(&network(body));
        assert!(matches!(&e, ConfError::Missing(m) if m.starts_with("psk")), "{body}: {e}");
    }
}

#[test]
fn supplicant_what_the_wlan_cannot_join_is_refused() {
    let psk = format!("psk=\"{PASS}\"");
    let e = supplicant_err(&network(&format!("{psk}\npairwise=CCMP\ngroup=TKIP")));
    assert!(matches!(e, ConfError::Unsupported { line: Some(3), .. }), "{e}");
    let e = supplicant_err(&network(&format!("{psk}\nkey_mgmt=OWE\npairwise=TKIP")));
    assert!(matches!(e, ConfError::Unsupported { line: Some(4), .. }), "{e}");
    let p = supplicant(&network(&format!("{psk}\nkey_mgmt=SAE WPA-PSK\npairwise=GCMP CCMP")));
    assert_eq!(p.settings.sae, Some(SaeConf { transition: true, ..SaeConf::default() }), "the transition mode");
    assert_eq!(p.settings.pmf, Some(Pmf::Optional));
    let e = supplicant_err(&network(&format!("psk={PSK}\nkey_mgmt=SAE WPA-PSK")));
    assert!(matches!(e, ConfError::Unsupported { line: Some(3), .. }), "a PSK is no SAE password: {e}");
    let e = supplicant_err(&network(&format!("{psk}\nkey_mgmt=SAE WPA-PSK\nieee80211w=0")));
    assert!(matches!(&e, ConfError::Value { line: 4, key, .. } if key == "ieee80211w"), "{e}");
    assert!(warned(&p, "line 4: pairwise: GCMP not implemented"), "{:?}", p.warnings);
    assert!(matches!(supplicant_err(&network("ssid=\"lab\"")), ConfError::Missing(_)));
    assert!(matches!(supplicant_err(&network("key_mgmt=NONE\nmode=1")), ConfError::Unsupported { .. }));
    assert!(matches!(supplicant_err(&network("key_mgmt=NONE\nauth_alg=SHARED")), ConfError::Unsupported { .. }));
    assert!(matches!(supplicant_err(&network("psk=ext:wifi")), ConfError::Unsupported { .. }));
    assert!(matches!(supplicant_err(&network("key_mgmt=NONE\nbssid=02:00")), ConfError::Value { line: 3, .. }));
    assert!(matches!(supplicant_err(&network(&format!("{psk}\nieee80211w=5"))), ConfError::Value { .. }));
}

#[test]
fn supplicant_bad_secrets_are_refused_without_repeating_them() {
    for secret in ["\"sh0rt\"", &PSK[..60], "\"abcdef\""] {
        let key = if secret.contains("abcdef") { "key_mgmt=NONE\nwep_key0" } else { "psk" };
        let e = supplicant_err(&network(&format!("{key}={secret}")));
        assert!(matches!(e, ConfError::Value { .. }), "{e}");
        assert!(!e.to_string().contains(secret.trim_matches('"')), "{e} repeats the secret");
    }
}

#[test]
fn supplicant_comments_quotes_and_warnings() {
    let text = "# a comment\n  # indented comment\n\nnetwork={\n  ssid=\"a#b\"   # trailing comment\n\tkey_mgmt=NONE # open\n  priority=5\n}\n";
    let p = supplicant(text);
    assert_eq!((p.settings.ssid.as_deref(), p.settings.security), (Some("a#b"), Some(SecurityMode::Open)));
    assert!(warned(&p, "line 7: `priority` is not implemented"), "{:?}", p.warnings);
    let p = supplicant(&network(&format!("key_mgmt=NONE\npsk=\"{PASS}\"")));
    assert!(warned(&p, "line 3: psk has no effect with key_mgmt=NONE"), "{:?}", p.warnings);
    let p = supplicant(&network(&format!("psk=\"{PASS}\"\nproto=WPA\npairwise=TKIP")));
    assert!(warned(&p, "line 3: proto=WPA"), "{:?}", p.warnings);
}

#[test]
fn supplicant_syntax_errors_name_their_line() {
    assert_eq!(
        supplicant_err("network={\nssid=\"x\"\n"),
        ConfError::Syntax { line: 1, why: "network={ without its closing }" }
    );
    assert!(matches!(supplicant_err("network={\nssid \"x\"\n}\n"), ConfError::Syntax { line: 2, .. }));
    assert!(matches!(supplicant_err("network={\nssid=\"x\n}\n"), ConfError::Syntax { line: 2, .. }));
    assert!(matches!(supplicant_err("}\n"), ConfError::Syntax { line: 1, .. }));
    assert!(matches!(supplicant_err("network={\nnetwork={\n"), ConfError::Syntax { line: 2, .. }));
    assert!(matches!(supplicant_err("# nothing\n"), ConfError::Missing(_)));
}

// Applying onto the command line

#[derive(Parser)]
struct Up {
    #[command(flatten)]
    up: UpArgs,
}

#[derive(Parser)]
struct Sta {
    #[command(flatten)]
    sta: StaArgs,
}

/// A file in the temporary directory, named after the test, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> Self {
        let path = std::env::temp_dir().join(format!("wlansec-conf-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn the_file_fills_what_the_command_line_leaves_and_the_command_line_wins() {
    let file = TempFile::new("up", HOSTAPD_EXAMPLE);
    let path = file.0.to_str().unwrap();
    let mut warnings = Vec::new();
    let mut args = Up::try_parse_from(["t", "--hostapd-conf", path]).unwrap().up;
    apply_up(&mut args, &mut |w| warnings.push(w)).unwrap();
    assert_eq!((args.ssid(), args.security(), args.passphrase()), ("wlansec-lab", "ccmp", PASS));
    assert_eq!(args.fragment_threshold, Some(1024));
    assert_eq!((args.pmf, args.gtk_rekey), (Some(Pmf::Optional), Some(3600)));
    let interface = format!("{path}: line 10: `interface`");
    assert!(warnings.iter().any(|w| w.contains(&interface)), "{warnings:?}");
    assert!(!warnings.iter().any(|w| w.contains("not yet applied")), "{warnings:?}");

    let mut warnings = Vec::new();
    let given = ["t", "--hostapd-conf", path, "--security", "tkip", "--ssid", "mine", "--fragment-threshold", "512"];
    let mut args = Up::try_parse_from(given).unwrap().up;
    apply_up(&mut args, &mut |w| warnings.push(w)).unwrap();
    assert_eq!((args.ssid(), args.security(), args.passphrase()), ("mine", "tkip", PASS));
    assert_eq!(args.fragment_threshold, Some(512));
    for flag in ["--security", "--ssid", "--fragment-threshold"] {
        let message = format!("{flag} on the command line overrides the file's value");
        assert!(warnings.contains(&message), "{message}: {warnings:?}");
    }

    // No file: the defaults, no warnings.
    let mut args = Up::try_parse_from(["t"]).unwrap().up;
    apply_up(&mut args, &mut |w| panic!("{w}")).unwrap();
    assert_eq!((args.ssid(), args.security(), args.passphrase()), ("wlansec", "ccmp", "wlansec-demo"));
}

#[test]
fn a_bad_file_is_an_error_naming_the_file_and_line() {
    let file = TempFile::new("bad", "ssid=x\nwpa=2\nwpa_passphrase=short\n");
    let mut args = Up::try_parse_from(["t", "--hostapd-conf", file.0.to_str().unwrap()]).unwrap().up;
    let e = format!("{:#}", apply_up(&mut args, &mut |_| {}).unwrap_err());
    assert!(e.contains(file.0.to_str().unwrap()) && e.contains("line 3: wpa_passphrase"), "{e}");
    assert!(!e.contains("short"), "{e}");
    let mut args = Up::try_parse_from(["t", "--hostapd-conf", "/nonexistent/hostapd.conf"]).unwrap().up;
    assert!(format!("{:#}", apply_up(&mut args, &mut |_| {}).unwrap_err()).contains("/nonexistent/hostapd.conf"));
}

#[derive(Parser)]
struct Ap {
    #[command(flatten)]
    ap: ApArgs,
}

const NODE: [&str; 6] = ["--mac", "02:77:00:00:00:01", "--ipv4", "10.0.0.1/24", "--ipv6", "fd00::1/64"];

#[test]
fn an_empty_hostapd_conf_keeps_the_default_ccmp() {
    // `ap --config /dev/null` and `wlan up --hostapd-conf /dev/null`: not open.
    let mut args = Ap::try_parse_from(["t", "--config", "/dev/null"].iter().chain(&NODE)).unwrap().ap;
    let mut warnings = Vec::new();
    apply_ap(&mut args, &mut |w| warnings.push(w)).unwrap();
    assert_eq!(args.node.security, None, "the command line's default (ccmp) stays");
    assert_eq!(crate::wlan::pmf_or_default(args.node.pmf, mode("ccmp").into(), true), Pmf::Optional, "802.11w offered");
    assert!(warnings.iter().any(|w| w.contains("/dev/null: neither wpa= nor a WEP key")), "{warnings:?}");
    let mut args = Up::try_parse_from(["t", "--hostapd-conf", "/dev/null"]).unwrap().up;
    apply_up(&mut args, &mut |_| {}).unwrap();
    assert_eq!((args.security(), args.pmf(mode("ccmp").into()).unwrap()), ("ccmp", Pmf::Optional));
}

#[test]
fn the_default_offers_802_11w_wherever_it_can_and_an_explicit_off_is_named() {
    assert_eq!(crate::wlan::pmf_or_default(None, mode("enhanced:4").into(), true), Pmf::Optional);
    for (m, bss) in [("tkip", true), ("wep", true), ("open", true), ("ccmp", false)] {
        assert_eq!(crate::wlan::pmf_or_default(None, mode(m).into(), bss), Pmf::Off, "{m} bss={bss}");
    }
    assert_eq!(crate::wlan::pmf_or_default(Some(Pmf::Off), mode("ccmp").into(), true), Pmf::Off, "as given");
    let p = hostapd(&format!(
        "wpa=2
rsn_pairwise=CCMP
wpa_passphrase={PASS}
ieee80211w=0
"
    ));
    assert_eq!(p.settings.pmf, Some(Pmf::Off));
    assert!(warned(&p, "line 4: ieee80211w=0: management frames unprotected"), "{:?}", p.warnings);
    let p = hostapd(&format!(
        "wpa=2
rsn_pairwise=CCMP
wpa_passphrase={PASS}
"
    ));
    assert_eq!(p.settings.pmf, None, "the command line's default applies");
}

#[test]
fn hostapd_max_num_sta_bounds_the_access_points_table() {
    let file = TempFile::new(
        "maxsta",
        &format!(
            "wpa=2
rsn_pairwise=CCMP
wpa_passphrase={PASS}
max_num_sta=16
"
        ),
    );
    let path = file.0.to_str().unwrap();
    let mut args = Ap::try_parse_from(["t", "--config", path].iter().chain(&NODE)).unwrap().ap;
    apply_ap(&mut args, &mut |w| panic!("{w}")).unwrap();
    assert_eq!(args.max_stations, Some(16));
    let mut args = Ap::try_parse_from(["t", "--config", path, "--max-stations", "8"].iter().chain(&NODE)).unwrap().ap;
    let mut warnings = Vec::new();
    apply_ap(&mut args, &mut |w| warnings.push(w)).unwrap();
    assert_eq!(args.max_stations, Some(8), "the command line wins");
    assert!(warnings.iter().any(|w| w.contains("--max-stations on the command line overrides")), "{warnings:?}");
    for bad in ["0", "2008", "-1", "many"] {
        let e = hostapd_err(&format!(
            "max_num_sta={bad}
"
        ))
        .to_string();
        assert!(e.contains("line 1: max_num_sta"), "{bad}: {e}");
    }
    for bad in ["0", "2008"] {
        assert!(Ap::try_parse_from(["t", "--max-stations", bad].iter().chain(&NODE)).is_err(), "{bad}");
    }
}

#[test]
fn a_configuration_larger_than_1_mib_is_refused_without_being_read_whole() {
    // Unbounded, /dev/zero is read until memory runs out.
    let mut args = Ap::try_parse_from(["t", "--config", "/dev/zero"].iter().chain(&NODE)).unwrap().ap;
    let e = format!("{:#}", apply_ap(&mut args, &mut |_| {}).unwrap_err());
    assert_eq!(e, "/dev/zero: larger than 1 MiB, the limit for a configuration file");
    let big = TempFile::new("big", &format!("ssid=lab\nwpa=0\n{}", "#\n".repeat(1 << 19)));
    let base = ["t", "--config", big.0.to_str().unwrap(), "--ap", "192.0.2.1:7700"];
    let mut args = Sta::try_parse_from(base.iter().chain(&NODE)).unwrap().sta;
    let e = format!("{:#}", apply_sta(&mut args, &mut |_| {}).unwrap_err());
    assert!(e.contains("larger than 1 MiB"), "{e}");
}

#[test]
fn a_station_takes_its_network_and_bssid_from_the_supplicant_file() {
    let file = TempFile::new("sta", SUPPLICANT_EXAMPLE);
    let base = ["t", "--config", file.0.to_str().unwrap(), "--ap", "192.0.2.1:7700", "--ssid", "wlansec-lab"];
    let required = ["--mac", "02:77:00:00:00:02", "--ipv4", "10.0.0.2/24", "--ipv6", "fd00::2/64"];
    let mut args = Sta::try_parse_from(base.iter().chain(&required)).unwrap().sta;
    apply_sta(&mut args, &mut |_| {}).unwrap();
    assert_eq!(args.node.security.as_deref(), Some("ccmp"));
    assert_eq!(args.node.passphrase.as_deref(), Some(PASS));
    assert_eq!(args.bssid.as_deref(), Some("02:77:00:00:00:01"));
    assert_eq!(args.node.fragment_threshold, None);
}

#[test]
fn hostapd_sae_is_ccmp_with_sae_and_needs_pmf_required() {
    let p = hostapd("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password=any length\nieee80211w=2\nsae_pwe=2\nsae_groups=20 19\n");
    assert_eq!(p.settings.security, Some(SecurityMode::Ccmp));
    assert_eq!((p.settings.passphrase.as_deref(), p.settings.pmf), (Some("any length"), Some(Pmf::Required)));
    let sae = p.settings.sae.expect("an SAE network");
    assert_eq!((sae.pwe, sae.groups), (Some(wlansec_wlan::security::SaePwe::Both), Some(vec![20, 19])));
    // wpa_passphrase is the password when sae_password is not given.
    let p = hostapd(&format!("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\nieee80211w=2\n"));
    assert_eq!((p.settings.passphrase.as_deref(), p.settings.sae.is_some()), (Some(PASS), true));
    for (text, says) in [
        ("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password=pw\n", "missing: ieee80211w=2"),
        ("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password=pw\nieee80211w=1\n", "ieee80211w: SAE needs"),
        ("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password=pw\nieee80211w=2\nsae_pwe=3\n", "sae_pwe"),
        ("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password=pw\nieee80211w=2\nsae_groups=14\n", "19, 20, 21"),
        ("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=TKIP\nsae_password=pw\nieee80211w=2\n", "SAE with tkip"),
        ("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nieee80211w=2\n", "sae_password or wpa_passphrase"),
    ] {
        let e = hostapd_err(text);
        assert!(e.to_string().contains(says), "{text:?}: {e}");
        assert!(!e.to_string().contains("pw\n"), "{e}");
    }
    let p = hostapd(&format!("wpa=2\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\nsae_pwe=1\n"));
    assert!(warned(&p, "line 4: sae_pwe has no effect without wpa_key_mgmt=SAE"), "{:?}", p.warnings);
}

#[test]
fn supplicant_sae_takes_sae_password_or_the_quoted_psk_and_needs_pmf_required() {
    let p = supplicant(&network("sae_password=\"any length\"\nkey_mgmt=SAE\nieee80211w=2"));
    assert_eq!((p.settings.security, p.settings.passphrase.as_deref()), (Some(SecurityMode::Ccmp), Some("any length")));
    assert!(p.settings.sae.is_some() && p.settings.pmf == Some(Pmf::Required));
    let p = supplicant(&network(&format!("psk=\"{PASS}\"\nkey_mgmt=SAE\nieee80211w=2")));
    assert_eq!(p.settings.passphrase.as_deref(), Some(PASS));
    let e = supplicant_err(&network("sae_password=\"pw\"\nkey_mgmt=SAE"));
    assert!(e.to_string().contains("missing: ieee80211w=2"), "{e}");
    let e = supplicant_err(&network(&format!("psk={}\nkey_mgmt=SAE\nieee80211w=2", "ab".repeat(32))));
    assert!(e.to_string().contains("not a PSK") || e.to_string().contains("quoted passphrase"), "{e}");
}

#[test]
fn an_sae_file_becomes_security_sae_and_its_settings() {
    let file = TempFile::new(
        "sae",
        "ssid=lab\nwpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password=pw\nieee80211w=2\nsae_pwe=0\n",
    );
    let mut args = Up::try_parse_from(["t", "--hostapd-conf", file.0.to_str().unwrap()]).unwrap().up;
    apply_up(&mut args, &mut |_| {}).unwrap();
    assert_eq!((args.security(), args.passphrase(), args.pmf), ("sae", "pw", Some(Pmf::Required)));
    assert_eq!(args.sae.pwe(), wlansec_wlan::security::SaePwe::HuntingAndPecking);
}

#[test]
fn hostapd_owe_is_security_owe_with_its_groups_and_pmf_required() {
    let p = hostapd(&format!(
        "wpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\nieee80211w=2\nowe_groups=20 19\nwpa_passphrase={PASS}\n"
    ));
    assert_eq!(p.settings.security_option().as_deref(), Some("owe"));
    assert_eq!((p.settings.owe.clone(), p.settings.passphrase.clone()), (Some(Some(vec![20, 19])), None));
    assert_eq!(p.settings.pmf, Some(Pmf::Required));
    assert!(warned(&p, "line 6: wpa_passphrase has no effect on an OWE network"), "{:?}", p.warnings);
    let e = hostapd_err("wpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\n");
    assert!(matches!(&e, ConfError::Missing(m) if m.contains("asks for OWE")), "{e}");
    let e = hostapd_err("wpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\nieee80211w=2\nowe_groups=14\n");
    assert!(matches!(&e, ConfError::Value { line: 5, .. }), "{e}");
    let p =
        hostapd(&format!("wpa=2\nwpa_key_mgmt=WPA-PSK OWE\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\nowe_groups=19\n"));
    assert_eq!((p.settings.owe.clone(), p.settings.security_option().as_deref()), (None, Some("ccmp")));
    assert!(warned(&p, "OWE (beside another AKM) not implemented; WPA-PSK only"), "{:?}", p.warnings);
    assert!(warned(&p, "owe_groups has no effect without wpa_key_mgmt=OWE"), "{:?}", p.warnings);
}

#[test]
fn supplicant_owe_is_security_owe_with_its_group_and_pmf_required() {
    let p = supplicant(&network("ssid=\"cafe\"\nkey_mgmt=OWE\nowe_group=20\nowe_only=1"));
    assert_eq!(p.settings.security_option().as_deref(), Some("owe"));
    assert_eq!((p.settings.owe.clone(), p.settings.pmf), (Some(Some(vec![20])), Some(Pmf::Required)));
    let p = supplicant(&network("key_mgmt=OWE"));
    assert_eq!(p.settings.owe, Some(Some(vec![19, 20, 21])), "19, then the others after a refusal");
    let e = supplicant_err(&network("key_mgmt=OWE\nieee80211w=1"));
    assert!(matches!(&e, ConfError::Value { line: 3, key, .. } if key == "ieee80211w"), "{e}");
    let e = supplicant_err(&network("key_mgmt=OWE\nowe_group=14"));
    assert!(matches!(&e, ConfError::Value { line: 3, key, .. } if key == "owe_group"), "{e}");
}

#[test]
fn hostapd_owe_transition_names_the_pairs_other_bss() {
    let open = "wpa=0\nowe_transition_bssid=02:77:00:00:00:fd\nowe_transition_ssid=\"wlansec-owe\"\n";
    let p = hostapd(open);
    let bssid: wlansec_core::wire::MacAddr = "02:77:00:00:00:fd".parse().unwrap();
    assert_eq!(p.settings.owe_transition, Some((bssid, "wlansec-owe".into())));
    let e = hostapd_err("wpa=0\nowe_transition_ssid=\"wlansec-owe\"\n");
    assert!(matches!(&e, ConfError::Missing(m) if m.contains("line 2 gives owe_transition_ssid alone")), "{e}");
    let e = hostapd_err("wpa=0\nowe_transition_bssid=nowhere\nowe_transition_ssid=\"x\"\n");
    assert!(matches!(&e, ConfError::Value { line: 2, .. }), "{e}");
    let p = hostapd(&format!("{open}owe_transition_ifname=wlan1\n"));
    assert!(warned(&p, "line 4: owe_transition_ifname"), "{:?}", p.warnings);
}

// GCMP-256, SAE-EXT-KEY, the group management cipher and beacon protection

#[test]
fn hostapd_sae_ext_key_with_gcmp_256_is_sae_ext() {
    let text = format!(
        "wpa=2\nwpa_key_mgmt=SAE-EXT-KEY\nrsn_pairwise=GCMP-256\nsae_password={PASS}\nieee80211w=2\n\
         group_mgmt_cipher=BIP-GMAC-256\nbeacon_prot=1\nsae_groups=20\n"
    );
    let p = hostapd(&text);
    let s = &p.settings;
    assert_eq!(s.security_option().as_deref(), Some("sae-ext"), "{:?}", p.warnings);
    assert_eq!((s.pmf, s.beacon_protection), (Some(Pmf::Required), Some(true)));
    assert_eq!(s.sae.as_ref().map(|sae| (sae.ext_key, sae.groups.clone())), Some((true, Some(vec![20]))));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    // Beside SAE: SAE-EXT-KEY where GCMP-256 is the only pairwise cipher, SAE otherwise.
    let both = text.replace("=SAE-EXT-KEY", "=SAE SAE-EXT-KEY");
    let p = hostapd(&both);
    assert_eq!(p.settings.security_option().as_deref(), Some("sae-ext"));
    assert!(warned(&p, "SAE (beside SAE-EXT-KEY) not implemented; SAE-EXT-KEY only"), "{:?}", p.warnings);
    let mixed = both.replace("=GCMP-256\n", "=CCMP GCMP-256\n").replace("group_mgmt_cipher=BIP-GMAC-256\n", "");
    let p = hostapd(&mixed);
    assert_eq!(p.settings.security_option().as_deref(), Some("sae"));
    assert!(warned(&p, "SAE-EXT-KEY (beside SAE) not implemented; SAE only"), "{:?}", p.warnings);
}

#[test]
fn hostapd_gcmp_256_with_wpa_psk_is_gcmp256() {
    let p = hostapd(&format!("wpa=2\nrsn_pairwise=GCMP-256\nwpa_passphrase={PASS}\n"));
    assert_eq!(p.settings.security_option().as_deref(), Some("gcmp256"));
    // CCMP first where both are offered, as wpa_supplicant's default pairwise takes it.
    let p = hostapd(&format!("wpa=2\nrsn_pairwise=CCMP GCMP-256\nwpa_passphrase={PASS}\n"));
    assert_eq!(p.settings.security, Some(SecurityMode::Ccmp));
}

#[test]
fn hostapd_refuses_what_gcmp_256_and_sae_ext_key_cannot_pair_with() {
    let sae_ext = format!("wpa=2\nwpa_key_mgmt=SAE-EXT-KEY\nsae_password={PASS}\nieee80211w=2\n");
    let e = hostapd_err(&format!("{sae_ext}rsn_pairwise=CCMP\n"));
    assert!(e.to_string().contains("SAE-EXT-KEY needs rsn_pairwise=GCMP-256"), "{e}");
    let e =
        hostapd_err(&format!("wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=GCMP-256\nsae_password={PASS}\nieee80211w=2\n"));
    assert!(e.to_string().contains("SAE needs rsn_pairwise=CCMP"), "{e}");
    let e = hostapd_err(&format!("{sae_ext}rsn_pairwise=GCMP-256\nieee80211w=1\n"));
    assert!(e.to_string().contains("SAE-EXT-KEY needs management frame protection required"), "{e}");
    let e = hostapd_err(&format!("{sae_ext}rsn_pairwise=GCMP-256\ngroup_mgmt_cipher=AES-128-CMAC\n"));
    assert!(matches!(&e, ConfError::Unsupported { line: Some(6), .. }), "{e}");
    assert!(e.to_string().contains("pairs BIP-GMAC-256 with gcmp256"), "{e}");
    let e = hostapd_err(&format!("wpa=2\nwpa_passphrase={PASS}\nrsn_pairwise=CCMP\ngroup_mgmt_cipher=BIP-GMAC-256\n"));
    assert!(e.to_string().contains("pairs AES-128-CMAC with ccmp"), "{e}");
    let e = hostapd_err(&format!("wpa=2\nwpa_passphrase={PASS}\nrsn_pairwise=CCMP\ngroup_mgmt_cipher=BIP-FOO\n"));
    assert!(matches!(e, ConfError::Value { line: 4, .. }), "{e}");
}

#[test]
fn beacon_prot_is_read_and_refused_without_pmf() {
    let psk = format!("wpa=2\nrsn_pairwise=CCMP\nwpa_passphrase={PASS}\n");
    let p = hostapd(&format!("{psk}ieee80211w=1\nbeacon_prot=1\n"));
    assert_eq!((p.settings.pmf, p.settings.beacon_protection), (Some(Pmf::Optional), Some(true)));
    let p = hostapd(&format!("{psk}beacon_prot=0\n"));
    assert_eq!(p.settings.beacon_protection, Some(false));
    for text in [format!("{psk}beacon_prot=1\n"), format!("{psk}ieee80211w=0\nbeacon_prot=1\n")] {
        let e = hostapd_err(&text);
        assert!(e.to_string().contains("beacon protection needs management frame protection"), "{e}");
    }
    assert!(matches!(hostapd_err(&format!("{psk}beacon_prot=2\n")), ConfError::Value { .. }));
    let e = supplicant_err(&network(&format!("psk=\"{PASS}\"\nbeacon_prot=1")));
    assert!(e.to_string().contains("ieee80211w=1 or 2"), "{e}");
}

#[test]
fn supplicant_sae_ext_key_with_gcmp_256_is_sae_ext() {
    let body =
        "sae_password=\"pw\"\nkey_mgmt=SAE-EXT-KEY\npairwise=GCMP-256\ngroup=GCMP-256\ngroup_mgmt=BIP-GMAC-256\n\
                ieee80211w=2\nbeacon_prot=1";
    let p = supplicant(&network(body));
    let s = &p.settings;
    assert_eq!(s.security_option().as_deref(), Some("sae-ext"), "{:?}", p.warnings);
    assert_eq!((s.pmf, s.beacon_protection), (Some(Pmf::Required), Some(true)));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let p = supplicant(&network(&body.replace("=SAE-EXT-KEY", "=SAE SAE-EXT-KEY")));
    assert!(warned(&p, "key_mgmt: SAE not used; the station joins with SAE-EXT-KEY"), "{:?}", p.warnings);
    let e = supplicant_err(&network("sae_password=\"pw\"\nkey_mgmt=SAE-EXT-KEY\nieee80211w=2"));
    assert!(e.to_string().contains("SAE-EXT-KEY without GCMP-256"), "{e}");
    let e = supplicant_err(&network(&body.replace("group_mgmt=BIP-GMAC-256", "group_mgmt=AES-128-CMAC")));
    assert!(e.to_string().contains("pairs BIP-GMAC-256 with gcmp256"), "{e}");
    let p = supplicant(&network(&format!("psk=\"{PASS}\"\npairwise=GCMP-256\ngroup=GCMP-256")));
    assert_eq!(p.settings.security_option().as_deref(), Some("gcmp256"));
}
