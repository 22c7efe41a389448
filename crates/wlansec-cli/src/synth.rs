//! `wlansec synth`: a realistic protected capture (beacon, association, 4-way and group key
//! handshakes, data both ways, group, WDS and fragmented frames) carrying the Ethernet
//! frames of a pcap, or generated ones. `--plain` writes the Ethernet frames that went
//! onto the air, to compare a decryptor's output with.

use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use wlansec_core::capture::{pcap, radiotap, LinkType, Reader, Writer};
use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::{Akm, CipherSuite};
use wlansec_core::synth::{generated_traffic, with_direct_link, Config, Synth};
use zeroize::Zeroizing;

use crate::bounded;
use crate::hexarg;
use crate::output::{AtomicFile, FileFormat};
use crate::suites;
use crate::usage::usage;

/// The network's AKM suite: how its PMK comes and which key hierarchy derives the PTK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AkmArg {
    /// 00-0F-AC:2, WPA2-Personal (PRF-SHA1).
    Psk,
    /// 00-0F-AC:6 (KDF-SHA-256, AES-CMAC MIC).
    PskSha256,
    /// 00-0F-AC:4: PMK-R0/R1 from the passphrase's PSK and the FT elements.
    FtPsk,
    /// 00-0F-AC:1 (needs --pmk).
    #[value(name = "802.1x")]
    Ieee8021x,
    /// 00-0F-AC:5 (needs --pmk).
    #[value(name = "802.1x-sha256")]
    Ieee8021xSha256,
    /// 00-0F-AC:3 (needs --pmk: the XXKey, the MSK's second 256 bits).
    #[value(name = "ft-802.1x")]
    FtIeee8021x,
    /// 00-0F-AC:13: FT with SHA-384 (needs a 48-octet --pmk: the MSK's first 384 bits).
    #[value(name = "ft-802.1x-sha384")]
    FtIeee8021xSha384,
    /// 00-0F-AC:8 (needs --pmk: SAE's PMK).
    Sae,
    /// 00-0F-AC:9 (needs --pmk: SAE's PMK, the XXKey).
    FtSae,
    /// 00-0F-AC:18, group 19 (needs --pmk).
    Owe,
    /// 00-0F-AC:11 (needs --pmk).
    SuiteB,
    /// 00-0F-AC:12: SHA-384, 24-octet MICs (needs a 48-octet --pmk; use --suite gcmp256).
    #[value(name = "suite-b-192")]
    SuiteB192,
}

impl AkmArg {
    pub fn akm(self) -> Akm {
        match self {
            AkmArg::Psk => Akm::Psk,
            AkmArg::PskSha256 => Akm::PskSha256,
            AkmArg::FtPsk => Akm::FtPsk,
            AkmArg::Ieee8021x => Akm::Ieee8021x,
            AkmArg::Ieee8021xSha256 => Akm::Ieee8021xSha256,
            AkmArg::FtIeee8021x => Akm::FtIeee8021x,
            AkmArg::FtIeee8021xSha384 => Akm::FtIeee8021xSha384,
            AkmArg::Sae => Akm::Sae,
            AkmArg::FtSae => Akm::FtSae,
            AkmArg::Owe => Akm::Owe,
            AkmArg::SuiteB => Akm::SuiteB,
            AkmArg::SuiteB192 => Akm::SuiteB192,
        }
    }
}

/// How the 802.11 frames are framed in the capture file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Link {
    /// LINKTYPE_IEEE802_11 (105): bare MPDUs.
    #[value(name = "802.11")]
    Ieee80211,
    /// LINKTYPE_IEEE802_11_RADIOTAP (127): a radiotap header with the Flags field.
    Radiotap,
}

#[derive(clap::Args)]
pub struct Args {
    /// The protected capture to write.
    #[arg(short, long)]
    output: PathBuf,
    /// A pcap/pcapng of Ethernet frames to carry (default: generated traffic), at most
    /// 256 MiB (it is read into memory).
    #[arg(long)]
    input: Option<PathBuf>,
    /// Number of generated Ethernet frames (without --input), at most 1,000,000 (the
    /// capture is built in memory).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    frames: u32,
    #[arg(short = 'e', long, default_value = "wlansec")]
    ssid: String,
    #[arg(short = 'p', long, default_value = "correct horse battery")]
    passphrase: String,
    /// The network's cipher suite (pairwise and group).
    #[arg(long, value_parser = suites::standard_suite(), default_value = "ccmp128")]
    suite: SuiteId,
    /// The AKM suite (key hierarchy) of the network.
    #[arg(long, value_enum, default_value = "psk")]
    akm: AkmArg,
    /// The PMK (hex: 32 octets, 48 for suite-b-192; for FT the XXKey) instead of the
    /// passphrase's; the AKMs without a passphrase need it.
    #[arg(long)]
    pmk: Option<String>,
    /// 802.1X re-authentication (hex PMK, as --pmk takes; repeat for several, in order):
    /// the traffic is cut into equal parts, and between two parts every station
    /// re-authenticates under the next PMK (a new EAP exchange's MSK) with a fresh 4-way
    /// handshake protected under the PTK in use until then, in the same association. Only
    /// with an 802.1X-family --akm.
    #[arg(long, value_name = "PMK")]
    reauth_pmk: Vec<String>,
    /// Extended Key ID: each PTK installed under Key ID 1 (message 3's Key ID KDE), which
    /// pairwise frames name.
    #[arg(long)]
    extended_key_id: bool,
    /// Protected management frames (802.11w): MFP required in the RSN element, an IGTK in
    /// message 3, and at the end SA Query Actions under each PTK, a protected
    /// Deauthentication and a BIP-protected broadcast Deauthentication.
    #[arg(long)]
    pmf: bool,
    /// A TDLS direct link between the first two stations: the TPK handshake's setup frames
    /// through the AP, then every fifth generated frame between them, direct under the TPK.
    #[arg(long)]
    tdls: bool,
    /// WEP key, hex (5 or 13 octets), for --suite wep40/wep104.
    #[arg(long)]
    wep_key: Option<String>,
    /// Stations in the network, 1 to 250.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=250))]
    stations: u8,
    /// Replace the GTK halfway (group key handshake) and reassociate the first station.
    #[arg(long)]
    rekey: bool,
    /// Send every n-th long unicast MSDU as fragments (0: never).
    #[arg(long, default_value_t = 7)]
    fragment_every: usize,
    /// Octets of MSDU per fragment, 64 to 2304; an MSDU has at most 16 fragments.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u16).range(64..=2304))]
    fragment_size: u16,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_enum, default_value = "802.11")]
    link: Link,
    /// With --link radiotap: append the FCS and announce it in the radiotap Flags.
    #[arg(long)]
    fcs: bool,
    #[arg(long, value_enum, default_value = "pcap")]
    format: FileFormat,
    /// Also write the Ethernet frames carried, in order (pcap, link type Ethernet).
    #[arg(long)]
    plain: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let cipher = args.suite.cipher();
    let wep_key = check_arguments(&args, cipher).map_err(usage)?;
    let pmk = args.pmk.as_ref().map(|p| hexarg::key("--pmk", p)).transpose().map_err(usage)?;
    let reauth_pmks = reauthentication_pmks(&args).map_err(usage)?;
    let config = Config {
        ssid: args.ssid.clone().into_bytes(),
        passphrase: args.passphrase.clone(),
        akm: args.akm.akm(),
        pmk: pmk.map(|p| p.to_vec()),
        extended_key_id: args.extended_key_id,
        pmf: args.pmf,
        tdls: args.tdls,
        cipher,
        wep_key,
        stations: args.stations.into(),
        rekey: args.rekey,
        fragment_every: args.fragment_every,
        fragment_size: args.fragment_size.into(),
        seed: args.seed,
    };
    let synth = Synth::new(config)?.with_reauthentications(&reauth_pmks)?;
    let frames = match &args.input {
        Some(path) => read_ethernet(path)?,
        None => {
            let stations = synth.station_macs();
            let mut frames = generated_traffic(args.frames as usize, &stations, args.seed);
            if args.tdls {
                with_direct_link(&mut frames, stations[0], stations[1]);
            }
            frames
        }
    };
    let records = synth.run(&frames)?;

    let link = match args.link {
        Link::Ieee80211 => LinkType::Ieee80211,
        Link::Radiotap => LinkType::Radiotap,
    };
    let inputs: Vec<&std::path::Path> = args.input.iter().map(|p| p.as_path()).collect();
    let out_file = AtomicFile::create(&args.output, &inputs)?;
    let plain_file = args.plain.as_ref().map(|path| AtomicFile::create(path, &inputs)).transpose()?;
    let mut writer = Writer::new(BufWriter::new(out_file.handle()?), link, args.format.into())?;
    let mut packet = Vec::new();
    for record in &records {
        packet.clear();
        if args.link == Link::Radiotap {
            packet.extend_from_slice(&radiotap::minimal_header(args.fcs));
        }
        packet.extend_from_slice(&record.mpdu);
        if args.fcs {
            packet.extend_from_slice(&radiotap::fcs(&record.mpdu));
        }
        writer.write(record.timestamp_ns, &packet)?;
    }
    writer.finish()?.into_inner().map_err(|e| e.into_error())?;
    if let Some(plain_file) = plain_file {
        let mut w = pcap::Writer::new(BufWriter::new(plain_file.handle()?), LinkType::Ethernet)?;
        for (n, frame) in frames.iter().enumerate() {
            w.write(1_700_000_000_000_000_000 + n as u64 * 1000, frame)?;
        }
        w.into_inner().into_inner().map_err(|e| e.into_error())?;
        plain_file.commit()?;
    }
    out_file.commit()?;
    eprintln!(
        "wlansec synth: {} frames on the air carrying {} Ethernet frames ({:?}, {} stations{}{}) -> {}",
        records.len(),
        frames.len(),
        args.suite,
        args.stations,
        if args.rekey { ", rekey" } else { "" },
        match reauth_pmks.len() {
            0 => String::new(),
            n => format!(", {n} re-authentication{}", if n == 1 { "" } else { "s" }),
        },
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The arguments checked together; returns the WEP key the suite needs.
fn check_arguments(args: &Args, cipher: CipherSuite) -> Result<Option<Vec<u8>>> {
    let wep_key = match (&args.wep_key, cipher) {
        (Some(k), CipherSuite::Wep40 | CipherSuite::Wep104) => {
            let key = hexarg::key("--wep-key", k)?;
            let expected = if cipher == CipherSuite::Wep40 { 5 } else { 13 };
            if key.len() != expected {
                bail!("--wep-key has {} octets; --suite {:?} takes {expected}", key.len(), args.suite);
            }
            Some(key.to_vec())
        }
        (None, CipherSuite::Wep40 | CipherSuite::Wep104) => {
            bail!("--suite {:?} needs --wep-key", args.suite)
        }
        (Some(_), _) => bail!("--wep-key applies only to --suite wep40/wep104"),
        (None, _) => None,
    };
    let from_passphrase = matches!(args.akm, AkmArg::Psk | AkmArg::PskSha256 | AkmArg::FtPsk);
    if !from_passphrase && args.pmk.is_none() && wep_key.is_none() {
        bail!("--akm {:?} takes its PMK from --pmk (it does not come from a passphrase)", args.akm);
    }
    if args.akm != AkmArg::Psk && (wep_key.is_some() || cipher == CipherSuite::Tkip) {
        bail!("--akm {:?} needs a CCMP or GCMP --suite", args.akm);
    }
    if args.pmf && (wep_key.is_some() || cipher == CipherSuite::Tkip) {
        bail!("--pmf needs a CCMP or GCMP --suite (802.11w does not protect with WEP or TKIP)");
    }
    if args.tdls && (wep_key.is_some() || cipher == CipherSuite::Tkip || args.stations < 2) {
        bail!("--tdls needs two --stations and a CCMP or GCMP --suite (a TPK is never used with WEP or TKIP)");
    }
    if args.fcs && args.link != Link::Radiotap {
        bail!("--fcs needs --link radiotap (only radiotap can announce an FCS)");
    }
    Ok(wep_key)
}

/// The PMKs of `--reauth-pmk`, in order: only for an 802.1X-family AKM (whose PMK comes
/// from an EAP exchange, so a re-authentication brings a new one), each as long as the
/// AKM's PMK (48 octets for the SHA-384 AKMs, else 32).
fn reauthentication_pmks(args: &Args) -> Result<Zeroizing<Vec<Vec<u8>>>> {
    if args.reauth_pmk.is_empty() {
        return Ok(Zeroizing::new(Vec::new()));
    }
    let pmk_len = match args.akm {
        AkmArg::Ieee8021x | AkmArg::Ieee8021xSha256 | AkmArg::FtIeee8021x | AkmArg::SuiteB => 32,
        AkmArg::FtIeee8021xSha384 | AkmArg::SuiteB192 => 48,
        AkmArg::Psk | AkmArg::PskSha256 | AkmArg::FtPsk | AkmArg::Sae | AkmArg::FtSae | AkmArg::Owe => bail!(
            "--reauth-pmk needs an 802.1X --akm (802.1x, 802.1x-sha256, ft-802.1x, ft-802.1x-sha384, \
             suite-b, suite-b-192), not {}: only an EAP re-authentication brings a new PMK",
            akm_name(args.akm)
        ),
    };
    args.reauth_pmk
        .iter()
        .map(|text| {
            let pmk = hexarg::key("--reauth-pmk", text)?;
            if pmk.len() != pmk_len {
                bail!("--reauth-pmk has {} octets; --akm {} takes {pmk_len}", pmk.len(), akm_name(args.akm));
            }
            Ok(pmk.to_vec())
        })
        .collect::<Result<_>>()
        .map(Zeroizing::new)
}

/// An AKM as the command line names it (`802.1x`, `suite-b-192`).
fn akm_name(akm: AkmArg) -> String {
    akm.to_possible_value().map_or_else(|| format!("{akm:?}"), |v| v.get_name().to_owned())
}

/// The Ethernet frames of a capture file.
fn read_ethernet(path: &std::path::Path) -> Result<Vec<Vec<u8>>> {
    // At most 256 MiB (bounded::CAPTURE_INPUT): /dev/zero or a huge file is refused, not read whole.
    let bytes = bounded::read(path, bounded::CAPTURE_INPUT).context("reading --input")?;
    let mut out = Vec::new();
    for packet in Reader::new(&bytes).with_context(|| path.display().to_string())? {
        let packet = packet.with_context(|| path.display().to_string())?;
        if packet.link_type != LinkType::Ethernet {
            bail!("{}: --input must hold Ethernet frames (link type 1)", path.display());
        }
        out.push(packet.data.to_vec());
    }
    Ok(out)
}
