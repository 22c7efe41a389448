//! The arguments of `wlansec wlan …`, `wlansec ap` and `wlansec sta`: their clap types, their
//! defaults, the checks `wlan up` makes before it starts anything, and `--passphrase-file`.

use std::fs;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args as ClapArgs, Subcommand};
use wlansec_core::tx::FragmentationThreshold;
use wlansec_wlan::bss::MAX_AID;
use wlansec_wlan::card::CryptoModel;
use wlansec_wlan::pmf::Pmf;
use wlansec_wlan::security::{SaePwe, Security, SecurityMode};

use super::{check_beacon_protection, check_passphrase, checked_pmf};
use crate::bounded;

#[derive(Subcommand)]
pub enum Command {
    /// Create the namespaces, TAPs and emulated air, and join every station.
    Up(Box<UpArgs>),
    /// Stop the emulator and remove everything `up` created.
    Down(NameArg),
    /// Nodes, addresses, counters, release-time error (`--json` for scripts).
    Status(StatusArgs),
    /// Put a replayed or tampered copy of the last protected data frame on the air.
    Inject(InjectArgs),
    /// Protect FRAMES frames of SIZE bytes with a suite (what the MCU model's instruction
    /// counts measure under callgrind: scripts/wlan-count-instructions.sh).
    #[command(hide = true)]
    ProtectLoop(ProtectLoopArgs),
    /// The analytical saturation throughput (airtime model) for a mode, PHY and packet size.
    Model(ModelArgs),
    /// A card model's modelled crypto time per frame, for each security mode and MPDU size,
    /// as JSON (what `wlan up --card` charges each protected frame).
    Card(CardArgs),
    #[command(hide = true)]
    Supervise(SuperviseArgs),
    #[command(hide = true)]
    Run(NameArg),
}

impl Command {
    /// The supervisor and the emulator run until `down`.
    pub fn is_daemon(&self) -> bool {
        matches!(self, Command::Supervise(_) | Command::Run(_))
    }
}

#[derive(ClapArgs)]
pub struct NameArg {
    /// Topology name: prefix of the namespaces (NAME-ap, NAME-sta1, ...): 1 to 15 letters,
    /// digits, `_` or `-`.
    #[arg(long, default_value = "wls", value_parser = instance_name)]
    pub(super) name: String,
}

#[derive(ClapArgs)]
pub struct SuperviseArgs {
    #[command(flatten)]
    pub(super) name: NameArg,
    /// Standard input is a pipe from `wlan up`: if it closes before `up` writes to it (`up`
    /// killed before every station joined), tear the WLAN down.
    #[arg(long)]
    pub(super) until_up_confirms: bool,
}

/// A WLAN's name becomes namespace and state-file names, so it is never a path.
fn instance_name(arg: &str) -> Result<String> {
    let ok = (1..=15).contains(&arg.len()) && arg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !ok {
        bail!("a WLAN name is 1 to 15 letters, digits, `_` or `-`");
    }
    Ok(arg.to_string())
}

#[derive(ClapArgs)]
pub struct UpArgs {
    #[command(flatten)]
    pub(super) name: NameArg,
    /// open, wep, tkip, ccmp, gcmp256 (WPA2-PSK with GCMP-256), enhanced[:N] (N = 1, 2, 4,
    /// 8; host engine), sae (CCMP with SAE, WPA3-Personal: the passphrase is the SAE password,
    /// PMF required), sae-ext (GCMP-256 with SAE-EXT-KEY, AKM 24, hash-to-element, PMF
    /// required, BIP-GMAC-256), owe (CCMP with OWE, an open network's Diffie-Hellman per
    /// station, PMF required) [default: ccmp].
    #[arg(long)]
    pub(super) security: Option<String>,
    #[command(flatten)]
    pub(super) sae: SaeArgs,
    /// Append the PMK of each SAE exchange or OWE association to FILE (created 0600), in
    /// Wireshark's `80211_keys` form: the key that decrypts a capture of an SAE or OWE network
    /// (`wlansec decrypt --key-file FILE`, tshark's `wpa-psk` keys).
    #[arg(long, value_name = "FILE")]
    pub(super) keylog: Option<PathBuf>,
    /// PHY mode: g54, a6..a54, n-mcs7-40[-sgi], ac-...
    #[arg(long, default_value = "g54")]
    pub(super) phy: String,
    /// Poor signal: a robust MCS and a 10 % frame error rate, with MAC retries.
    #[arg(long)]
    pub(super) poor_signal: bool,
    #[arg(long, default_value_t = 2)]
    pub(super) stations: usize,
    /// With --sae-transition: the last N stations are WPA2-only (the PSK, AKM 2, PMF
    /// optional, as wpa_supplicant's `key_mgmt=WPA-PSK`); the others join by SAE.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(super) psk_stations: usize,
    /// bss: stations talk through the access point; ibss: ad hoc, stations talk directly
    /// (no access point; RSN runs a pair of 4-way handshakes per pair of stations).
    #[arg(long, default_value = "bss", value_parser = ["bss", "ibss"])]
    pub(super) topology: String,
    /// Send every MSDU whose MPDU (header, body, security, FCS) is longer than this many
    /// octets as fragments (256..=2346, hostapd's fragm_threshold; default: never).
    #[arg(long, value_parser = fragment_threshold)]
    pub(super) fragment_threshold: Option<u16>,
    /// WPA passphrase (8..63 characters) or PSK (64 hex digits), or the WEP key as 5 or 13
    /// characters or 10 or 26 hex digits [default: wlansec-demo]. Visible in `ps`: prefer
    /// --passphrase-file.
    #[arg(long)]
    pub(super) passphrase: Option<String>,
    /// Read the passphrase from the first line of FILE (`-`: standard input), at most 64
    /// octets; nothing after the first line is read.
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase")]
    pub(super) passphrase_file: Option<PathBuf>,
    /// Give the stations a different passphrase (to see a handshake fail).
    #[arg(long)]
    pub(super) station_passphrase: Option<String>,
    /// The network's name [default: wlansec].
    #[arg(long)]
    pub(super) ssid: Option<String>,
    /// Read a hostapd.conf: ssid, wpa, wpa_passphrase or wpa_psk, wpa_key_mgmt, wpa_pairwise,
    /// rsn_pairwise, wep_key0, fragm_threshold, ieee80211w, group_mgmt_cipher, beacon_prot,
    /// wpa_group_rekey; anything else is named in a warning. Options given on the command line win. At most 1 MiB. Unlike
    /// hostapd, a file without wpa= or a WEP key is not an open network but keeps --security
    /// (default ccmp): wpa=0 is an open network; TKIP (hostapd's default for wpa=2 without
    /// rsn_pairwise) and WEP are named in a warning.
    #[arg(long, value_name = "FILE")]
    pub(super) hostapd_conf: Option<PathBuf>,
    /// Stations' card crypto for wep/tkip/ccmp: hw, mcu:MHZ, fixed:US.
    #[arg(long, default_value = "hw")]
    pub(super) card: String,
    /// Access point crypto: sw (host engine), rtl (Verilog core: cycles ÷ Fmax from the
    /// reports) or verilog:MHZ (the verilated RTL seals and opens every CCMP frame, its
    /// cycles at MHZ are the crypto time; --security ccmp, a build with the verilog feature).
    #[arg(long, default_value = "sw")]
    pub(super) ap_crypto: String,
    /// Record the air (radiotap + 802.11) to this pcap file.
    #[arg(long)]
    pub(super) pcap: Option<PathBuf>,
    /// Write every frame's intended and actual release time (CSV).
    #[arg(long)]
    pub(super) release_log: Option<PathBuf>,
    /// Busy-wait the last US microseconds before each frame's release instead of sleeping
    /// through them (0..=1000; 0: the timer alone). Costs up to US of CPU per released frame;
    /// buys releases on time where timer wake-ups are late (virtual machines).
    #[arg(long, value_name = "US", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub(super) release_spin_us: u32,
    /// Frames each sender may queue before new ones are dropped.
    #[arg(long, default_value_t = 128)]
    pub(super) queue: usize,
    /// Most MPDUs per A-MPDU (HT/VHT; 1..=64, 1 = none). Default 32 on HT/VHT (what
    /// ath9k-class 802.11n cards and ns-3's A-MPDU scenario send), 1 otherwise.
    #[arg(long)]
    pub(super) ampdu: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub(super) seed: u64,
    /// Rotate the group key (GTK) every SECS seconds, as hostapd's wpa_group_rekey; 0 (the
    /// default): only when a station leaves.
    #[arg(long, value_name = "SECS")]
    pub(super) gtk_rekey: Option<u64>,
    /// 802.11w management frame protection of the access point and its stations: off,
    /// optional, required (ccmp and enhanced). Default: optional where it can be offered (an
    /// access point's ccmp or enhanced network), off elsewhere.
    #[arg(long, value_parser = parse_pmf)]
    pub(super) pmf: Option<Pmf>,
    /// Beacon protection (BIP on beacons under a BIGTK; hostapd's beacon_prot): on, off.
    /// Needs management frame protection. Default: on for sae and sae-ext, off otherwise.
    #[arg(long, value_parser = parse_on_off)]
    pub(super) beacon_prot: Option<bool>,
    /// Run the supervisor in this terminal (Ctrl-C tears everything down).
    #[arg(long)]
    pub(super) foreground: bool,
    /// Leave the WLAN up even when a station failed to join.
    #[arg(long)]
    pub(super) keep_on_failure: bool,
}

#[derive(ClapArgs)]
pub struct ProtectLoopArgs {
    /// wep, tkip or ccmp.
    #[arg(long)]
    pub(super) suite: String,
    /// MPDU bytes before protection (QoS data header included).
    #[arg(long)]
    pub(super) size: usize,
    #[arg(long)]
    pub(super) frames: u64,
}

#[derive(ClapArgs)]
pub struct ModelArgs {
    #[arg(long, default_value = "ccmp")]
    pub(super) security: String,
    #[arg(long, default_value = "g54")]
    pub(super) phy: String,
    /// IP packet bytes per frame.
    #[arg(long, default_value_t = 1500)]
    pub(super) ip_bytes: usize,
    /// Saturated senders.
    #[arg(long, default_value_t = 1)]
    pub(super) stations: usize,
    /// MPDUs per A-MPDU (HT/VHT; 1 = none).
    #[arg(long, default_value_t = 1)]
    pub(super) ampdu: usize,
}

#[derive(ClapArgs)]
pub struct CardArgs {
    /// hw, mcu:MHZ, fixed:US (stations), or sw, rtl (access point).
    #[arg(long)]
    pub(super) card: String,
    /// Security modes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "wep,tkip,ccmp")]
    pub(super) security: Vec<String>,
    /// MPDU sizes in bytes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "128,1536")]
    pub(super) mpdu_bytes: Vec<usize>,
}

/// SAE's settings (`--security sae`).
#[derive(ClapArgs, Default)]
pub struct SaeArgs {
    /// SAE's password element: hnp (hunting-and-pecking), h2e (hash-to-element), both
    /// (hostapd's sae_pwe 0, 1, 2) [default: h2e].
    #[arg(long, value_parser = parse_sae_pwe)]
    pub(super) sae_pwe: Option<SaePwe>,
    /// SAE's groups in order of preference, comma-separated: 19, 20, 21 [default: 19;
    /// sae-ext: 19,20 as hostapd offers them].
    #[arg(long, value_delimiter = ',')]
    pub(super) sae_groups: Option<Vec<u16>>,
    /// OWE's groups (`--security owe`) in order of preference, comma-separated: 19, 20, 21
    /// [default: 19].
    #[arg(long, value_delimiter = ',')]
    pub(super) owe_groups: Option<Vec<u16>>,
    /// WPA3-Personal transition mode (`--security sae`; hostapd's `wpa_key_mgmt=WPA-PSK
    /// SAE`): the PSK beside SAE, PMF optional but required of SAE links [default --pmf:
    /// optional]. A station takes SAE where the access point offers it, else the PSK; `wlan
    /// up`'s stations join by SAE with PMF required, the last --psk-stations by the PSK.
    #[arg(long)]
    pub(super) sae_transition: bool,
    /// The Transition Disable bits an access point sends in message 3, in hex (hostapd's
    /// `transition_disable`; 0x01: WPA3-Personal, the station never takes the PSK again).
    #[arg(long, value_parser = parse_transition_disable)]
    pub(super) transition_disable: Option<u8>,
}

impl SaeArgs {
    pub(super) fn pwe(&self) -> SaePwe {
        self.sae_pwe.unwrap_or(SaePwe::HashToElement)
    }
    /// The groups of SAE or OWE, whichever was given.
    pub(super) fn groups(&self) -> &[u16] {
        self.sae_groups.as_deref().or(self.owe_groups.as_deref()).unwrap_or_default()
    }
}

/// Transition Disable bits in hex, with or without `0x` (as hostapd's `transition_disable`).
pub(super) fn parse_transition_disable(arg: &str) -> Result<u8> {
    let digits = arg.strip_prefix("0x").unwrap_or(arg);
    u8::from_str_radix(digits, 16).map_err(|_| anyhow::anyhow!("`{arg}`: Transition Disable bits in hex (0x01)"))
}

fn parse_sae_pwe(arg: &str) -> Result<SaePwe> {
    Ok(arg.parse()?)
}

/// A node of the UDP-transport deployment (`wlansec ap`, `wlansec sta`).
#[derive(ClapArgs)]
pub struct NodeArgs {
    /// open, wep, tkip, ccmp, gcmp256, enhanced[:N], sae (CCMP with SAE, PMF required),
    /// sae-ext (GCMP-256 with SAE-EXT-KEY, PMF required), owe (CCMP with OWE, PMF required)
    /// [default: ccmp].
    #[arg(long)]
    pub(super) security: Option<String>,
    #[command(flatten)]
    pub(super) sae: SaeArgs,
    /// WPA passphrase (8..63 characters) or PSK (64 hex digits), or the WEP key as 5 or 13
    /// characters or 10 or 26 hex digits. Visible in `ps`: prefer --passphrase-file.
    #[arg(long)]
    pub(super) passphrase: Option<String>,
    /// Read the passphrase from the first line of FILE (`-`: standard input), at most 64
    /// octets; nothing after the first line is read.
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase")]
    pub(super) passphrase_file: Option<PathBuf>,
    /// The network's name [default: wlansec].
    #[arg(long)]
    pub(super) ssid: Option<String>,
    /// The TAP interface to create.
    #[arg(long, default_value = "wlan0")]
    pub(super) interface: String,
    /// This node's MAC: its 802.11 address (the access point's is the BSSID).
    #[arg(long)]
    pub(super) mac: String,
    /// IPv4 address/prefix of the TAP interface.
    #[arg(long)]
    pub(super) ipv4: String,
    /// IPv6 address/prefix of the TAP interface.
    #[arg(long)]
    pub(super) ipv6: String,
    /// UDP address to bind (access point default 0.0.0.0:7700, station an ephemeral port).
    #[arg(long)]
    pub(super) listen: Option<std::net::SocketAddr>,
    /// Fragment MSDUs whose MPDU is longer than this many octets (256..=2346).
    #[arg(long, value_parser = fragment_threshold)]
    pub(super) fragment_threshold: Option<u16>,
    /// 802.11w management frame protection: off, optional, required (ccmp and enhanced).
    /// Default: optional in ccmp and enhanced, off elsewhere.
    #[arg(long, value_parser = parse_pmf)]
    pub(super) pmf: Option<Pmf>,
    /// Beacon protection (an access point's): on, off. Needs management frame protection.
    /// Default: on for sae and sae-ext, off otherwise.
    #[arg(long, value_parser = parse_on_off)]
    pub(super) beacon_prot: Option<bool>,
}

fn parse_pmf(arg: &str) -> Result<Pmf> {
    Ok(arg.parse()?)
}

fn parse_on_off(arg: &str) -> Result<bool> {
    match arg {
        "on" => Ok(true),
        "off" => Ok(false),
        other => bail!("`{}` is neither on nor off", other.escape_default()),
    }
}

/// A fragmentation threshold argument, checked as the core checks it.
fn fragment_threshold(arg: &str) -> Result<u16> {
    let octets: u16 = arg.parse().with_context(|| format!("`{arg}` is not a number of octets"))?;
    FragmentationThreshold::new(octets)?;
    Ok(octets)
}

#[derive(ClapArgs)]
pub struct ApArgs {
    #[command(flatten)]
    pub node: NodeArgs,
    /// Stations associated at once, 1..=2007 (the standard's AID limit) [default: 2007]; a
    /// request beyond it is refused with status 17, as hostapd's max_num_sta.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=i64::from(MAX_AID)))]
    pub(super) max_stations: Option<u16>,
    /// Read a hostapd.conf: ssid, wpa, wpa_passphrase or wpa_psk, wpa_key_mgmt, wpa_pairwise,
    /// rsn_pairwise, wep_key0, fragm_threshold, ieee80211w, group_mgmt_cipher, beacon_prot,
    /// max_num_sta (wpa_group_rekey:
    /// checked, not applied); anything else is named in a warning. Options given on the
    /// command line win. At most 1 MiB. Unlike hostapd, a file without wpa= or a WEP key is
    /// not an open network but keeps --security (default ccmp): wpa=0 is an open network;
    /// TKIP (hostapd's default for wpa=2 without rsn_pairwise) and WEP are named in a warning.
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// OWE transition mode: the BSSID of the pair's other BSS, which the beacon names
    /// (hostapd's owe_transition_bssid); an OWE access point's beacon then hides its SSID.
    #[arg(long, requires = "owe_transition_ssid")]
    pub(super) owe_transition_bssid: Option<String>,
    /// OWE transition mode: the SSID of the pair's other BSS (hostapd's owe_transition_ssid).
    #[arg(long, requires = "owe_transition_bssid")]
    pub(super) owe_transition_ssid: Option<String>,
}

#[derive(ClapArgs)]
pub struct StaArgs {
    #[command(flatten)]
    pub node: NodeArgs,
    /// The access point's UDP address.
    #[arg(long)]
    pub ap: std::net::SocketAddr,
    /// The access point's MAC (the BSSID; or `bssid` in --config).
    #[arg(long)]
    pub(super) bssid: Option<String>,
    /// Read a wpa_supplicant.conf network block (the one whose ssid is --ssid, or the only
    /// one): ssid, psk, key_mgmt, pairwise, group, proto, wep_key0, bssid, group_mgmt,
    /// beacon_prot. The station joins with CCMP where pairwise and group allow it, else
    /// GCMP-256, else TKIP (named in a warning). key_mgmt
    /// allowing WPA-PSK needs a psk; key_mgmt=NONE alone is open or WEP. Options given on the
    /// command line win. At most 1 MiB.
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
}

impl UpArgs {
    pub(super) fn security(&self) -> &str {
        self.security.as_deref().unwrap_or("ccmp")
    }
    pub(super) fn passphrase(&self) -> &str {
        self.passphrase.as_deref().unwrap_or("wlansec-demo")
    }
    pub(super) fn ssid(&self) -> &str {
        self.ssid.as_deref().unwrap_or("wlansec")
    }
    pub(super) fn pmf(&self, security: Security) -> Result<Pmf> {
        checked_pmf(self.pmf, security, self.topology != "ibss", &self.sae)
    }
}

/// `--passphrase-file`: the passphrase from the first line of a file or standard input, so
/// that it never appears on a command line (which every user can read in `ps`). One line of
/// at most 64 octets (a passphrase has 8..63 characters, a PSK 64 hex digits) is read, octet
/// by octet: `/dev/zero` is refused after 66 octets, and a FIFO or standard input is read up
/// to its first newline, not waited on until its writer closes it.
pub(super) fn read_passphrase_file(passphrase: &mut Option<String>, file: Option<&std::path::Path>) -> Result<()> {
    use std::os::fd::AsFd;
    let Some(file) = file else { return Ok(()) };
    let stdin = file == std::path::Path::new("-");
    let what = if stdin { "standard input".to_string() } else { file.display().to_string() };
    let line = if stdin {
        // The raw descriptor (a duplicate), not stdin's buffer: nothing past the line is
        // read, and no copy of the secret is left in a buffer that is never zeroed.
        let fd = std::io::stdin().as_fd().try_clone_to_owned().context("standard input")?;
        bounded::first_line(&mut fs::File::from(fd), bounded::PASSPHRASE_OCTETS, &what)
    } else {
        let mut f = fs::File::open(file).with_context(|| format!("reading the passphrase from {what}"))?;
        bounded::first_line(&mut f, bounded::PASSPHRASE_OCTETS, &what)
    }
    .context("reading the passphrase (a passphrase has 8..63 characters, a PSK 64 hex digits, on the first line)")?;
    if line.is_empty() {
        bail!("{what}: no passphrase on its first line");
    }
    *passphrase = Some(line.to_string());
    Ok(())
}

#[derive(ClapArgs)]
pub struct StatusArgs {
    #[command(flatten)]
    pub(super) name: NameArg,
    #[arg(long)]
    pub(super) json: bool,
    /// Then start a new release-error window (the release error covers the frames released
    /// since the last reset, else since `up`): one window per measurement run.
    #[arg(long)]
    pub(super) reset_release_error: bool,
}

#[derive(ClapArgs)]
pub struct InjectArgs {
    #[command(flatten)]
    pub(super) name: NameArg,
    /// replay (the same frame again) or tamper (one data bit flipped, PN moved ahead).
    #[arg(value_parser = ["replay", "tamper"])]
    pub(super) what: String,
}

/// The A-MPDU size `up` runs with: `--ampdu`, or 32 where the PHY aggregates.
pub(super) fn ampdu(args: &UpArgs) -> Result<usize> {
    let phy: wlansec_wlan::airtime::Phy = args.phy.parse().map_err(|e| anyhow::anyhow!("--phy: {e}"))?;
    let aggregates = wlansec_wlan::airtime::max_ampdu_bytes(phy).is_some();
    match args.ampdu {
        None => Ok(if aggregates { 32 } else { 1 }),
        Some(n) if !(1..=wlansec_wlan::airtime::MAX_AMPDU_MPDUS).contains(&n) => bail!("--ampdu must be 1..=64"),
        Some(n) if n > 1 && !aggregates => bail!("--ampdu {n} needs an HT or VHT PHY (n-..., ac-...)"),
        Some(n) => Ok(n),
    }
}

pub(super) fn validate(args: &UpArgs) -> Result<()> {
    let security: Security = args.security().parse()?;
    let mode = security.mode;
    security.key_management(args.sae.pwe(), args.sae.groups())?;
    ampdu(args)?;
    if let CryptoModel::Verilog { .. } = args.card.parse::<CryptoModel>()? {
        bail!("--card verilog: the Verilog card is the access point's (--ap-crypto verilog:MHZ)");
    }
    if let CryptoModel::Verilog { .. } = args.ap_crypto.parse::<CryptoModel>()? {
        if !wlansec_wlan::verilog::BUILT {
            bail!("--ap-crypto verilog: this wlansec was built without the `verilog` feature (make build)");
        }
        if mode != SecurityMode::Ccmp {
            bail!("--ap-crypto verilog: the RTL is CCMP-128, so --security ccmp or sae");
        }
    }
    if !(1..=200).contains(&args.stations) {
        bail!("--stations must be 1..=200");
    }
    if args.topology == "ibss" && args.stations < 2 {
        bail!("an IBSS needs --stations 2 or more");
    }
    if security.requires_pmf() && args.topology == "ibss" {
        bail!("--security {security} needs an access point (--topology bss)");
    }
    if (args.sae.sae_pwe.is_some() || args.sae.sae_groups.is_some()) && !security.sae {
        bail!("--sae-pwe and --sae-groups need --security sae or sae-ext");
    }
    if args.psk_stations > 0 && !args.sae.sae_transition {
        bail!("--psk-stations needs --sae-transition (only a transition network takes PSK stations beside SAE)");
    }
    if args.psk_stations > args.stations {
        bail!("--psk-stations {} is more than --stations {}", args.psk_stations, args.stations);
    }
    if args.sae.owe_groups.is_some() && !security.owe {
        bail!("--owe-groups needs --security owe");
    }
    if args.keylog.is_some() && !security.requires_pmf() {
        bail!("--keylog needs --security sae, sae-ext or owe");
    }
    let pmf = args.pmf(security)?;
    check_beacon_protection(security, pmf, args.beacon_prot)?;
    if args.pmf.is_some_and(|pmf| pmf != Pmf::Off) && args.topology == "ibss" {
        bail!("--pmf needs an access point (--topology bss)");
    }
    if args.gtk_rekey.unwrap_or(0) > 0 && (args.topology == "ibss" || !mode.uses_handshake()) {
        bail!("--gtk-rekey needs an access point (--topology bss) and a GTK (tkip, ccmp or enhanced)");
    }
    if args.ssid().is_empty() || args.ssid().len() > 32 {
        bail!("--ssid must be 1..=32 bytes");
    }
    for pass in std::iter::once(args.passphrase()).chain(args.station_passphrase.as_deref()) {
        check_passphrase(security, pass)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Up {
        #[command(flatten)]
        up: UpArgs,
    }

    /// What `validate` says of `wlan up ARGS`: Ok, or its error.
    fn validated(args: &[&str]) -> std::result::Result<(), String> {
        let up = Up::try_parse_from(std::iter::once("up").chain(args.iter().copied())).unwrap().up;
        validate(&up).map_err(|e| e.to_string())
    }

    #[test]
    fn the_transition_mode_takes_psk_stations_and_combinations_that_cannot_work_are_refused() {
        let transition = ["--security", "sae", "--sae-transition", "--stations", "3"];
        assert_eq!(
            validated(&[&transition[..], &["--psk-stations", "1", "--transition-disable", "0x01"]].concat()),
            Ok(())
        );
        assert_eq!(validated(&[&transition[..], &["--psk-stations", "3", "--pmf", "required"]].concat()), Ok(()));
        let up = Up::try_parse_from(["up", "--security", "sae", "--sae-transition"]).unwrap().up;
        assert_eq!(up.pmf("sae".parse().unwrap()).unwrap(), Pmf::Optional, "offered to every station");
        let refused = [
            (&["--security", "sae", "--psk-stations", "1"][..], "--psk-stations needs --sae-transition"),
            (&["--security", "ccmp", "--psk-stations", "1"], "--psk-stations needs --sae-transition"),
            (&["--security", "ccmp", "--sae-transition"], "need --security sae"),
            (&["--security", "owe", "--transition-disable", "0x01"], "need --security sae"),
            (&[&transition[..], &["--psk-stations", "4"]].concat(), "--psk-stations 4 is more than --stations 3"),
            (&[&transition[..], &["--pmf", "off"]].concat(), "--pmf optional or required"),
            (&[&transition[..], &["--topology", "ibss"]].concat(), "needs an access point"),
        ];
        for (args, says) in refused {
            let e = validated(args).expect_err(says);
            assert!(e.contains(says), "{args:?}: {e}");
        }
    }
}
