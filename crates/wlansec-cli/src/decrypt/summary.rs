//! The decrypt summary: airdecap-ng's table (and the rows it lacks), and the same counts
//! as JSON, with every frame read that was not written given a reason.

use serde_json::{json, Value};
use wlansec_core::decrypt::Stats;

/// What the command saw besides the decryptor's counts.
pub struct Seen {
    pub stations: usize,
    /// Packets whose 802.11 frame could not be taken out (radiotap, snap length, FCS).
    pub unreadable: u64,
    /// Packets of a link type that carries no 802.11 frames.
    pub wrong_link_type: u64,
}

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
}

fn print_rows(rows: &[(&str, u64)]) {
    // Standard output carries the decrypted capture with `-o -`: the table goes to stderr then.
    let on_stderr = TABLE_ON_STDERR.load(std::sync::atomic::Ordering::Relaxed);
    for (label, value) in rows {
        if on_stderr {
            eprintln!("{label:<40}{value:>9}");
        } else {
            println!("{label:<40}{value:>9}");
        }
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
    let n = &s.not_written;
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
        "not_written": {
            "management": s.management,
            "no_msdu": s.no_msdu,
            "other_network": s.other_network,
            "plaintext": s.plaintext_data,
            "eapol_handshake": s.eapol,
            "integrity_failure": s.bad_integrity,
            "no_pairwise_key": s.no_key,
            "no_group_key": s.no_group_key,
            "replay": s.replays,
            "malformed": s.malformed,
            "unparsable": s.unparsable,
            "unreadable_packet": seen.unreadable,
            "wrong_link_type": seen.wrong_link_type,
            "fragment_held": n.fragments_held,
            "refused_after_decryption": n.refused_after_decryption,
            "no_llc_header": n.no_llc_header,
            "llc_too_long_for_802_3": n.llc_too_long,
            "bad_amsdu_subframe": n.bad_amsdu_subframes,
            "management_frame_no_msdu": n.management_frames,
        },
        "handshakes": {
            "verified": s.handshakes,
            "mic_mismatches": s.mic_mismatches,
            "group_keys": s.group_keys,
            "refused_messages": s.bad_handshake_messages,
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
