//! `wlansec decrypt`, airdecap-ng style: decrypt a capture's protected data frames with a
//! passphrase (+ SSID), a PMK, a TK or a WEP key, and write them as Ethernet II frames
//! (or 802.3 frames for other LLC; or as 802.11 frames with Protected cleared). Prints
//! airdecap-ng's counts and what was written and why not (also as JSON); exits non-zero
//! when no handshake was found, the passphrase does not match, a key decrypts nothing or
//! the capture has no 802.11 frames (status 1), and with status 3 when a damaged record
//! (a truncated capture) ended the reading early: what came before it is written.

mod keys;
mod summary;
mod write_behind;

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use wlansec_core::capture::{CaptureError, LinkType, Reader, Stream, Writer};
use wlansec_core::decrypt::{Decryptor, OutputForm};
use wlansec_core::error::Error;
use wlansec_core::rsn::{Akm, AkmKeys};
use wlansec_core::wire::MacAddr;

use crate::output::{AtomicFile, FileFormat};
use crate::usage::usage;
use write_behind::WriteBehind;

#[derive(clap::Args)]
pub struct Args {
    /// The capture to decrypt (pcap or pcapng; 802.11, radiotap, PPI, Prism or AVS link
    /// type), read as it arrives in bounded memory; `-`: standard input (a live capture can be
    /// piped in: `tcpdump -w - … | wlansec decrypt - -o - …`).
    input: PathBuf,
    /// Where to write the decrypted frames (default: INPUT with `-dec` before the extension);
    /// `-`: standard output (the summary table then goes to stderr).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The network's SSID (needed with --passphrase; also limits decryption to it).
    #[arg(short = 'e', long)]
    essid: Option<String>,
    #[command(flatten)]
    keys: keys::KeyArgs,
    /// Only decrypt the BSS with this BSSID.
    #[arg(short = 'b', long)]
    bssid: Option<MacAddr>,
    /// Keep the 802.11 header (Protected cleared) instead of writing Ethernet II frames.
    #[arg(short = 'l', long)]
    keep_80211: bool,
    /// The output's file format [default: the input's].
    #[arg(long, value_enum)]
    format: Option<FileFormat>,
    /// Also write the summary as JSON to this file (`-`: to stdout, instead of the table).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Keep at most this many stations' links, handshakes, networks, group-key transmitters,
    /// per-station counts and MSDUs in reassembly each; the least recently used are evicted
    /// and counted, so any stream decrypts in bounded memory (at least 4).
    #[arg(long, value_name = "N", default_value_t = wlansec_core::decrypt::DEFAULT_MAX_STATE)]
    max_links: usize,
    /// 1: read, decrypt and write on one thread; more: the output is written on a thread of
    /// its own beside the decryption (2 at most) [default: the available cores]. The output is
    /// the same.
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let given = args.keys.keys(args.essid.as_deref())?;
    let psk = given.pmks_only;
    let form = if args.keep_80211 { OutputForm::Ieee80211 } else { OutputForm::Ethernet };
    let ssid = args.essid.as_ref().map(|s| s.as_bytes());
    let mut decryptor = Decryptor::new(given.keys, ssid, args.bssid, form)?.with_max_state(args.max_links);

    let stdin = args.input.as_os_str() == "-";
    let threads = args.threads.or_else(|| std::thread::available_parallelism().ok()).map_or(1, NonZeroUsize::get);
    let mut input = open(&args.input)?;
    let output = match (&args.output, stdin) {
        (Some(output), _) => output.clone(),
        (None, false) => default_output(&args.input),
        (None, true) => {
            return Err(usage(anyhow!(
                "reading standard input (`-`), give the output with -o (`-o -`: standard output)"
            )))
        }
    };
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && args.json.as_ref().is_some_and(|j| j.as_os_str() == "-") {
        return Err(usage(anyhow!("-o - and --json - would both write to standard output")));
    }
    summary::TABLE_ON_STDERR.store(to_stdout, std::sync::atomic::Ordering::Relaxed);
    let link = if args.keep_80211 { LinkType::Ieee80211 } else { LinkType::Ethernet };
    let out_file = if to_stdout { None } else { Some(AtomicFile::create(&output, &[&args.input])?) };
    let sink: Box<dyn Write + Send> = match &out_file {
        Some(file) => Box::new(file.handle()?),
        None => Box::new(std::io::stdout()),
    };
    let sink = if threads > 1 { WriteBehind::spawn(sink)? } else { WriteBehind::inline(sink) };
    // The output keeps the input's file format (its default name keeps its extension).
    let format = args.format.map_or(input.format(), Into::into);
    let mut writer = Writer::new(sink, link, format)?;

    let started = Instant::now();
    let mut unreadable = 0u64;
    let mut wrong_link_type: Option<(u32, u64)> = None;
    let mut file_error = None;
    // One pass in capture order, a run of records at a time (what each read brought),
    // written out at the end of each run so a reader downstream of a pipe sees the frames
    // as they arrive.
    let decrypt_run = |packets: &mut Reader<'_>| -> Result<()> {
        let mut mpdus: Vec<&[u8]> = Vec::with_capacity(WINDOW);
        let mut timestamps = Vec::with_capacity(WINDOW);
        loop {
            mpdus.clear();
            timestamps.clear();
            for packet in packets.by_ref() {
                match packet {
                    Ok(p) => match p.mpdu() {
                        Ok(mpdu) => {
                            mpdus.push(mpdu);
                            timestamps.push(p.timestamp_ns);
                        }
                        Err(Error::Capture(CaptureError::UnsupportedLinkType(link))) => {
                            wrong_link_type.get_or_insert((link, 0)).1 += 1;
                        }
                        Err(_) => unreadable += 1,
                    },
                    Err(err) => file_error = Some(err),
                }
                if mpdus.len() == WINDOW {
                    break;
                }
            }
            if mpdus.is_empty() {
                break;
            }
            decryptor.process_batch(&mpdus, |i, frame| writer.write(timestamps[i], frame))?;
        }
        Ok(writer.flush()?)
    };
    input.for_each_run(decrypt_run)?;
    let stats = decryptor.stats();
    if let Some((link, _)) = wrong_link_type.filter(|_| stats.packets_read == 0) {
        bail!("wrong link type {link}{}: {} has no 802.11 frames", link_name(link), args.input.display());
    }
    writer.finish()?.finish()?;
    if let Some(file) = out_file {
        file.commit()?;
    }
    let elapsed = started.elapsed();
    let seen = summary::Seen {
        stations: decryptor.stations_seen(),
        links: decryptor.links(),
        evicted_links: decryptor.evicted_link_counts(),
        unreadable,
        wrong_link_type: wrong_link_type.map_or(0, |(_, n)| n),
    };
    write_summary(&args, &stats, &seen)?;
    eprintln!(
        "wlansec decrypt: {} MB in {:.3} s ({:.0} MB/s) -> {}",
        input.octets_read() / 1_000_000,
        elapsed.as_secs_f64(),
        input.octets_read() as f64 / 1e6 / elapsed.as_secs_f64().max(1e-9),
        output.display()
    );
    if psk && stats.handshakes == 0 {
        let akms = decryptor.akms_seen();
        if let Some(akm) = akms.iter().find(|a| AkmKeys::of(**a, None).is_err()) {
            let supported = Akm::named().map(Akm::name).collect::<Vec<_>>().join(", ");
            bail!(
                "the handshakes use AKM suite {akm}, which wlansec cannot derive keys for (supported: {supported}); \
                 give the TK with --tk, nothing decrypted"
            );
        }
        if let Some(akm) = akms.iter().find(|a| a.pmk_from_key_exchange()).filter(|_| given.passphrases_only) {
            bail!(
                "the network uses {akm}: its PMK comes from the {} key exchange, which an observer cannot derive \
                 from a passphrase; give the PMK with --pmk (e.g. from the station's or AP's log) or the TK with --tk",
                if *akm == Akm::Owe { "OWE Diffie-Hellman" } else { "SAE" }
            );
        }
        if stats.mic_mismatches > 0 {
            bail!(
                "the passphrase (or PMK) does not match: {} handshake message 2 MIC(s) failed to verify, nothing decrypted",
                stats.mic_mismatches
            );
        }
        bail!(
            "no 4-way handshake (messages 1 or 3 with 2) found{}, nothing decrypted",
            match &args.essid {
                Some(e) => format!(" for SSID {e:?}"),
                None => String::new(),
            }
        );
    }
    if !psk && stats.decrypted() == 0 && stats.bad_integrity > 0 {
        bail!(
            "{} decrypts nothing: all {} protected frames it was tried on failed their integrity check (wrong key?)",
            given.sources,
            stats.bad_integrity
        );
    }
    if stats.mic_mismatches > 0 {
        eprintln!("wlansec: warning: {} handshake(s) did not verify under this passphrase", stats.mic_mismatches);
    }
    if seen.wrong_link_type > 0 {
        eprintln!("wlansec: warning: {} packets of a link type without 802.11 frames skipped", seen.wrong_link_type);
    }
    if stats.no_key > 0 {
        eprintln!("wlansec: warning: {} unicast frames not decrypted: no key for their station (4-way handshake not captured)", stats.no_key);
    }
    if stats.tdls_mic_failures > 0 {
        eprintln!(
            "wlansec: warning: {} TDLS setup frames failed their FTE MIC (forged or altered): no peer key from them",
            stats.tdls_mic_failures
        );
    }
    if stats.bip_failures > 0 {
        eprintln!(
            "wlansec: warning: {} group-addressed management frames failed BIP (forged or altered)",
            stats.bip_failures
        );
    }
    if stats.no_group_key > 0 {
        eprintln!("wlansec: warning: {} group frames not decrypted: no group key (message 3 or group message 1 not captured or refused)", stats.no_group_key);
    }
    if let Some(err) = file_error {
        // A capture cut short (a tool killed mid-write, a partial copy) is decrypted up to
        // the cut, as tshark and airdecap-ng do; the distinct status says the output is partial.
        eprintln!(
            "wlansec: warning: {}: capture ends in a damaged record: {err}; the frames before it were decrypted",
            args.input.display()
        );
        return Ok(ExitCode::from(PARTIAL));
    }
    Ok(ExitCode::SUCCESS)
}

/// Packets go to the decryptor in windows of this many, so runs of CCMP frames share engine
/// batches.
const WINDOW: usize = 64;

/// Exit status of a run that decrypted a capture only up to a damaged record.
const PARTIAL: u8 = 3;

/// The capture, read as it arrives in bounded memory, a file like a pipe: reading a file
/// into a buffer that stays in the caches costs less than mapping it (each page mapped in,
/// then unmapped; measured: 204-212 against 216-223 CPU-ms for 249 MB on tmpfs).
fn open(path: &Path) -> Result<Stream<Box<dyn Read>>> {
    let source: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(File::open(path).with_context(|| format!("opening {}", path.display()))?)
    };
    Stream::open::<anyhow::Error>(source).with_context(|| path.display().to_string())
}

/// `foo.cap` -> `foo-dec.cap`, as airdecap-ng names its output.
fn default_output(input: &Path) -> PathBuf {
    let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match input.extension() {
        Some(ext) => format!("{stem}-dec.{}", ext.to_string_lossy()),
        None => format!("{stem}-dec"),
    };
    input.with_file_name(name)
}

/// A link type's name, for the ones a user is likely to give by mistake.
fn link_name(link: u32) -> &'static str {
    match link {
        1 => " (Ethernet)",
        101 => " (raw IP)",
        113 => " (Linux cooked)",
        _ => "",
    }
}

/// The table on stdout, and the JSON where `--json` says (on stdout instead of the table
/// for `-`).
fn write_summary(args: &Args, stats: &wlansec_core::decrypt::Stats, seen: &summary::Seen) -> Result<()> {
    let json = args.json.as_ref().map(|path| (path, summary::json(stats, seen)));
    match json {
        Some((path, value)) if path.as_os_str() == "-" => println!("{}", serde_json::to_string_pretty(&value)?),
        Some((path, value)) => {
            summary::print_table(stats, seen);
            let file = AtomicFile::create(path, &[&args.input])?;
            let mut out = BufWriter::new(file.handle()?);
            serde_json::to_writer_pretty(&mut out, &value)?;
            out.flush()?;
            file.commit()?;
        }
        None => summary::print_table(stats, seen),
    }
    Ok(())
}
