//! The decrypt summary: airdecap-ng's table (and the rows it lacks), and the same counts
//! as JSON, with every frame read that was not written given a reason.

use serde_json::{json, Value};
use wlansec_core::decrypt::{Link, LinkCounts, Stats, NOT_WRITTEN_REASONS};

/// What the command saw besides the decryptor's counts.
pub struct Seen {
    pub stations: usize,
    /// Packets whose 802.11 frame could not be taken out (radiotap, snap length, FCS).
    pub unreadable: u64,
    /// Packets of a link type that carries no 802.11 frames.
    pub wrong_link_type: u64,
    /// What became of each BSS's and station's frames (the decryptor's, sorted).
    pub links: Vec<(Link, LinkCounts)>,
    /// The summed counts of the stations whose statistics were evicted.
    pub evicted_links: LinkCounts,
}

/// The most stations the printed table lists one a line (those with the most frames read);
/// the others are summed on one line.
const TABLE_STATIONS: usize = 32;

pub fn print_table(s: &Stats, seen: &Seen) {
    let rows = [
        ("Total number of stations seen", seen.stations as u64),
        ("Total number of packets read", s.packets_read + seen.unreadable + seen.wrong_link_type),
        ("Total number of WEP data packets", s.wep_data),
        ("Total number of WPA data packets", s.wpa_data),
        ("Number of plaintext data packets", s.plaintext_data),
        ("Number of decrypted WEP  packets", s.decrypted_wep),
        ("Number of decrypted WPA  packets", s.decrypted_wpa),
        ("Number of packets failing integrity", s.bad_integrity),
        ("Number of packets without a key", s.no_key + s.no_group_key),
        ("Number of replayed packets", s.replays),
        ("Number of malformed packets", s.malformed + seen.unreadable),
        ("Number of verified handshakes", s.handshakes),
        ("Number of handshakes failing the MIC", s.mic_mismatches),
        ("Number of group keys installed", s.group_keys),
        ("Number of refused handshake messages", s.bad_handshake_messages),
        ("Number of frames written", s.written),
        ("Number of decrypted frames not written", s.not_written.total()),
    ];
    print_rows(&rows);
    // Rows for what most captures never have, printed only when they count something,
    // so the airdecap-ng table stays as it is.
    let n = &s.not_written;
    print_rows_if_any(&[
        ("  held as fragments, never completed", n.fragments_held),
        ("  refused after decryption (defences)", n.refused_after_decryption),
        ("  shorter than an LLC header", n.no_llc_header),
        ("  LLC frames too long for 802.3", n.llc_too_long),
        ("  malformed A-MSDU subframes", n.bad_amsdu_subframes),
        ("  management frames (no MSDU)", n.management_frames),
    ]);
    print_rows_if_any(&[("Number of data frames of other networks", s.other_network)]);
    print_rows_if_any(&[
        ("Number of protected mgmt frames", s.protected_management),
        ("Number of decrypted mgmt frames", s.decrypted_management),
        ("Number of IGTKs installed", s.igtks),
        ("Number of BIP-verified mgmt frames", s.bip_verified),
        ("Number of mgmt frames failing BIP", s.bip_failures),
        ("Number of replayed BIP mgmt frames", s.bip_replays),
        ("Number of BIP mgmt frames without IGTK", s.bip_no_key),
    ]);
    print_rows_if_any(&[
        ("Number of TDLS peer keys installed", s.tdls_keys),
        ("Number of TDLS setups failing the MIC", s.tdls_mic_failures),
    ]);
    print_rows_if_any(&[
        ("Number of links ended (deauth/disassoc)", s.links_ended),
        ("Number of packets after their link ended", s.after_link_ended),
    ]);
    print_rows_if_any(&[("Number of replayed handshakes refused", s.replayed_handshakes)]);
    let e = &s.evicted;
    print_rows_if_any(&[
        ("Number of links evicted (memory bound)", e.links),
        ("Number of handshakes evicted", e.handshakes),
        ("Number of networks evicted", e.networks),
        ("Number of group transmitters evicted", e.groups),
        ("Number of 802.11w links evicted", e.pmf_links),
        ("Number of station statistics evicted", e.stations),
        ("Number of MSDUs in reassembly dropped", e.fragments),
    ]);
    print_links(&seen.links, s.evicted.stations, &seen.evicted_links);
}

/// One line per BSS and station: frames read, decrypted, written, and not written by reason;
/// at most [`TABLE_STATIONS`] of them (those with the most frames read, in address order),
/// the others summed on one line, and the evicted stations' counts on another.
fn print_links(links: &[(Link, LinkCounts)], evicted: u64, evicted_counts: &LinkCounts) {
    if links.is_empty() && evicted == 0 {
        return;
    }
    say(&format!("{:<18} {:<18} {:>7} {:>9} {:>7}  not written", "BSSID", "station", "read", "decrypted", "written"));
    let mut shown: Vec<usize> = (0..links.len()).collect();
    if links.len() > TABLE_STATIONS {
        shown.select_nth_unstable_by_key(TABLE_STATIONS - 1, |&i| std::cmp::Reverse(links[i].1.read));
        shown.truncate(TABLE_STATIONS);
        shown.sort_unstable();
    }
    for &i in &shown {
        let ((bss, station), c) = &links[i];
        link_line(&bss.to_string(), &station.to_string(), c);
    }
    let others = links.len() - shown.len();
    if others > 0 {
        let mut sum = LinkCounts::default();
        let mut shown = shown.iter().peekable();
        for (i, (_, c)) in links.iter().enumerate() {
            if shown.next_if(|&&s| s == i).is_none() {
                sum.merge(c);
            }
        }
        link_line(&format!("({others} more)"), "", &sum);
    }
    if evicted > 0 {
        link_line(&format!("({evicted} evicted)"), "", evicted_counts);
    }
}

fn link_line(bss: &str, station: &str, c: &LinkCounts) {
    let reasons: Vec<String> = c.not_written_by_reason().map(|(why, n)| format!("{why} {n}")).collect();
    say(&format!("{bss:<18} {station:<18} {:>7} {:>9} {:>7}  {}", c.read, c.decrypted, c.written, reasons.join(", ")));
}

fn print_rows(rows: &[(&str, u64)]) {
    for (label, value) in rows {
        say(&format!("{label:<40}{value:>9}"));
    }
}

fn say(line: &str) {
    // Standard output carries the decrypted capture with `-o -`: the table goes to stderr then.
    if TABLE_ON_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// Set when the decrypted capture itself is written to standard output.
pub static TABLE_ON_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn print_rows_if_any(rows: &[(&str, u64)]) {
    if rows.iter().any(|&(_, value)| value > 0) {
        print_rows(rows);
    }
}

/// The summary as JSON. Without A-MSDUs (one MSDU per frame), `frames_read` is `written`
/// plus `fragments_joined` plus the sum of `not_written`.
pub fn json(s: &Stats, seen: &Seen) -> Value {
    let mut not_written: serde_json::Map<String, Value> =
        NOT_WRITTEN_REASONS.iter().zip(s.not_written_by_reason()).map(|(why, n)| (why.to_string(), n.into())).collect();
    not_written.insert("unreadable_packet".into(), seen.unreadable.into());
    not_written.insert("wrong_link_type".into(), seen.wrong_link_type.into());
    let mut per_bss: Vec<(Link, LinkCounts)> = Vec::new();
    for &((bss, _), c) in &seen.links {
        match per_bss.last_mut() {
            Some(((last, _), sum)) if *last == bss => sum.merge(&c),
            _ => per_bss.push(((bss, bss), c)),
        }
    }
    let per_bss: Vec<_> = per_bss.into_iter().map(|((bss, _), c)| (bss, c)).collect();
    json!({
        "stations": seen.stations,
        "frames_read": s.packets_read + seen.unreadable + seen.wrong_link_type,
        "protected": { "wep": s.wep_data, "wpa": s.wpa_data },
        "protected_management": s.protected_management,
        "decrypted": {
            "wep": s.decrypted_wep,
            "wpa": s.decrypted_wpa,
            "management": s.decrypted_management,
            "total": s.decrypted(),
        },
        "written": s.written,
        "fragments_joined": s.fragments_joined,
        "not_written": not_written,
        "per_bss": per_bss.iter().map(|(bss, c)| json!({ "bssid": bss.to_string(), "frames": link_json(c) })).collect::<Vec<_>>(),
        "per_station": seen
            .links
            .iter()
            .map(|((bss, station), c)| json!({ "bssid": bss.to_string(), "station": station.to_string(), "frames": link_json(c) }))
            .collect::<Vec<_>>(),
        "handshakes": {
            "verified": s.handshakes,
            "mic_mismatches": s.mic_mismatches,
            "group_keys": s.group_keys,
            "refused_messages": s.bad_handshake_messages,
        },
        "tdls": { "keys": s.tdls_keys, "mic_failures": s.tdls_mic_failures },
        "links_ended": s.links_ended,
        "replayed_handshakes": s.replayed_handshakes,
        "evicted": {
            "links": s.evicted.links,
            "handshakes": s.evicted.handshakes,
            "networks": s.evicted.networks,
            "groups": s.evicted.groups,
            "pmf_links": s.evicted.pmf_links,
            "stations": s.evicted.stations,
            "fragments": s.evicted.fragments,
            "stations_frames": link_json(&seen.evicted_links),
        },
        "bip": {
            "igtks": s.igtks,
            "verified": s.bip_verified,
            "failures": s.bip_failures,
            "replays": s.bip_replays,
            "no_key": s.bip_no_key,
        },
    })
}

/// One BSS's or station's counts: read, decrypted, written, and not written by reason.
fn link_json(c: &LinkCounts) -> Value {
    let not_written: serde_json::Map<String, Value> =
        c.not_written_by_reason().map(|(why, n)| (why.to_string(), n.into())).collect();
    json!({
        "read": c.read,
        "decrypted": c.decrypted,
        "written": c.written,
        "fragments_joined": c.fragments_joined,
        "not_written": not_written,
    })
}
