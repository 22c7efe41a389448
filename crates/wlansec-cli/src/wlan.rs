//! `wlansec wlan up|down|status|inject`: the emulated WLAN in network namespaces (root).
//!
//! `up` writes the configuration to /run/wlansec/NAME, starts a supervisor (detached, or in
//! the foreground with `--foreground`) that creates the namespaces, runs the emulator as its
//! child and removes the namespaces whenever that child ends — `down`, Ctrl-C, a crash or a
//! kill — and waits until every station has joined (or failed, which it reports).

mod conf;

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command as Process, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args as ClapArgs, Subcommand};
use wlansec_core::tx::FragmentationThreshold;

use crate::bounded;
use crate::usage::usage;
use wlansec_wlan::bss::MAX_AID;
use wlansec_wlan::card::CryptoModel;
use wlansec_wlan::emulator::{control, state_dir, Config, Emulator};
use wlansec_wlan::netns;
use wlansec_wlan::pmf::Pmf;
use wlansec_wlan::security::{wep_key, SecurityMode};

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
    Supervise(NameArg),
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
    name: String,
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
    name: NameArg,
    /// open, wep, tkip, ccmp, enhanced[:N] (N = 1, 2, 4, 8; host engine) [default: ccmp].
    #[arg(long)]
    security: Option<String>,
    /// PHY mode: g54, a6..a54, n-mcs7-40[-sgi], ac-...
    #[arg(long, default_value = "g54")]
    phy: String,
    /// Poor signal: a robust MCS and a 10 % frame error rate, with MAC retries.
    #[arg(long)]
    poor_signal: bool,
    #[arg(long, default_value_t = 2)]
    stations: usize,
    /// bss: stations talk through the access point; ibss: ad hoc, stations talk directly
    /// (no access point; RSN runs a pair of 4-way handshakes per pair of stations).
    #[arg(long, default_value = "bss", value_parser = ["bss", "ibss"])]
    topology: String,
    /// Send every MSDU whose MPDU (header, body, security, FCS) is longer than this many
    /// octets as fragments (256..=2346, hostapd's fragm_threshold; default: never).
    #[arg(long, value_parser = fragment_threshold)]
    fragment_threshold: Option<u16>,
    /// WPA passphrase (8..63 characters) or PSK (64 hex digits), or the WEP key as 5 or 13
    /// characters or 10 or 26 hex digits [default: wlansec-demo]. Visible in `ps`: prefer
    /// --passphrase-file.
    #[arg(long)]
    passphrase: Option<String>,
    /// Read the passphrase from the first line of FILE (`-`: standard input), at most 64
    /// octets; nothing after the first line is read.
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase")]
    passphrase_file: Option<PathBuf>,
    /// Give the stations a different passphrase (to see a handshake fail).
    #[arg(long)]
    station_passphrase: Option<String>,
    /// The network's name [default: wlansec].
    #[arg(long)]
    ssid: Option<String>,
    /// Read a hostapd.conf: ssid, wpa, wpa_passphrase or wpa_psk, wpa_key_mgmt, wpa_pairwise,
    /// rsn_pairwise, wep_key0, fragm_threshold, ieee80211w, wpa_group_rekey; anything else is
    /// named in a warning. Options given on the command line win. At most 1 MiB. Unlike
    /// hostapd, a file without wpa= or a WEP key is not an open network but keeps --security
    /// (default ccmp): wpa=0 is an open network; TKIP (hostapd's default for wpa=2 without
    /// rsn_pairwise) and WEP are named in a warning.
    #[arg(long, value_name = "FILE")]
    hostapd_conf: Option<PathBuf>,
    /// Stations' card crypto for wep/tkip/ccmp: hw, mcu:MHZ, fixed:US.
    #[arg(long, default_value = "hw")]
    card: String,
    /// Access point crypto: sw (host engine) or rtl (Verilog core: cycles ÷ Fmax).
    #[arg(long, default_value = "sw")]
    ap_crypto: String,
    /// Record the air (radiotap + 802.11) to this pcap file.
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Write every frame's intended and actual release time (CSV).
    #[arg(long)]
    release_log: Option<PathBuf>,
    /// Busy-wait the last US microseconds before each frame's release instead of sleeping
    /// through them (0..=1000; 0: the timer alone). Costs up to US of CPU per released frame;
    /// buys releases on time where timer wake-ups are late (virtual machines).
    #[arg(long, value_name = "US", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    release_spin_us: u32,
    /// Frames each sender may queue before new ones are dropped.
    #[arg(long, default_value_t = 128)]
    queue: usize,
    /// Most MPDUs per A-MPDU (HT/VHT; 1..=64, 1 = none). Default 32 on HT/VHT (what
    /// ath9k-class 802.11n cards and ns-3's A-MPDU scenario send), 1 otherwise.
    #[arg(long)]
    ampdu: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Rotate the group key (GTK) every SECS seconds, as hostapd's wpa_group_rekey; 0 (the
    /// default): only when a station leaves.
    #[arg(long, value_name = "SECS")]
    gtk_rekey: Option<u64>,
    /// 802.11w management frame protection of the access point and its stations: off,
    /// optional, required (ccmp and enhanced). Default: optional where it can be offered (an
    /// access point's ccmp or enhanced network), off elsewhere.
    #[arg(long, value_parser = parse_pmf)]
    pmf: Option<Pmf>,
    /// Run the supervisor in this terminal (Ctrl-C tears everything down).
    #[arg(long)]
    foreground: bool,
    /// Leave the WLAN up even when a station failed to join.
    #[arg(long)]
    keep_on_failure: bool,
}

#[derive(ClapArgs)]
pub struct ProtectLoopArgs {
    /// wep, tkip or ccmp.
    #[arg(long)]
    suite: String,
    /// MPDU bytes before protection (QoS data header included).
    #[arg(long)]
    size: usize,
    #[arg(long)]
    frames: u64,
}

#[derive(ClapArgs)]
pub struct ModelArgs {
    #[arg(long, default_value = "ccmp")]
    security: String,
    #[arg(long, default_value = "g54")]
    phy: String,
    /// IP packet bytes per frame.
    #[arg(long, default_value_t = 1500)]
    ip_bytes: usize,
    /// Saturated senders.
    #[arg(long, default_value_t = 1)]
    stations: usize,
    /// MPDUs per A-MPDU (HT/VHT; 1 = none).
    #[arg(long, default_value_t = 1)]
    ampdu: usize,
}

#[derive(ClapArgs)]
pub struct CardArgs {
    /// hw, mcu:MHZ, fixed:US (stations), or sw, rtl (access point).
    #[arg(long)]
    card: String,
    /// Security modes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "wep,tkip,ccmp")]
    security: Vec<String>,
    /// MPDU sizes in bytes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "128,1536")]
    mpdu_bytes: Vec<usize>,
}

/// A node of the UDP-transport deployment (`wlansec ap`, `wlansec sta`).
#[derive(ClapArgs)]
pub struct NodeArgs {
    /// open, wep, tkip, ccmp, enhanced[:N] [default: ccmp].
    #[arg(long)]
    security: Option<String>,
    /// WPA passphrase (8..63 characters) or PSK (64 hex digits), or the WEP key as 5 or 13
    /// characters or 10 or 26 hex digits. Visible in `ps`: prefer --passphrase-file.
    #[arg(long)]
    passphrase: Option<String>,
    /// Read the passphrase from the first line of FILE (`-`: standard input), at most 64
    /// octets; nothing after the first line is read.
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase")]
    passphrase_file: Option<PathBuf>,
    /// The network's name [default: wlansec].
    #[arg(long)]
    ssid: Option<String>,
    /// The TAP interface to create.
    #[arg(long, default_value = "wlan0")]
    interface: String,
    /// This node's MAC: its 802.11 address (the access point's is the BSSID).
    #[arg(long)]
    mac: String,
    /// IPv4 address/prefix of the TAP interface.
    #[arg(long)]
    ipv4: String,
    /// IPv6 address/prefix of the TAP interface.
    #[arg(long)]
    ipv6: String,
    /// UDP address to bind (access point default 0.0.0.0:7700, station an ephemeral port).
    #[arg(long)]
    listen: Option<std::net::SocketAddr>,
    /// Fragment MSDUs whose MPDU is longer than this many octets (256..=2346).
    #[arg(long, value_parser = fragment_threshold)]
    fragment_threshold: Option<u16>,
    /// 802.11w management frame protection: off, optional, required (ccmp and enhanced).
    /// Default: optional in ccmp and enhanced, off elsewhere.
    #[arg(long, value_parser = parse_pmf)]
    pmf: Option<Pmf>,
}

fn parse_pmf(arg: &str) -> Result<Pmf> {
    Ok(arg.parse()?)
}

/// Management frame protection needs CCMP: `required` is refused where the mode has none
/// (`optional` there is simply not offered).
/// `--pmf` as given, else the secure default: 802.11w offered (optional, so stations without
/// it still join) wherever it can be, an access point's ccmp or enhanced network; off
/// elsewhere (TKIP, WEP and open networks cannot protect management frames, an IBSS has no
/// access point to negotiate it with).
fn pmf_or_default(pmf: Option<Pmf>, mode: SecurityMode, bss: bool) -> Pmf {
    pmf.unwrap_or(if bss && mode.supports_pmf() { Pmf::Optional } else { Pmf::Off })
}

fn check_pmf(mode: SecurityMode, pmf: Pmf) -> Result<()> {
    if pmf == Pmf::Required && !mode.supports_pmf() {
        bail!("--pmf required needs --security ccmp or enhanced (802.11w protects management frames with CCMP)");
    }
    Ok(())
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
    max_stations: Option<u16>,
    /// Read a hostapd.conf: ssid, wpa, wpa_passphrase or wpa_psk, wpa_key_mgmt, wpa_pairwise,
    /// rsn_pairwise, wep_key0, fragm_threshold, ieee80211w, max_num_sta (wpa_group_rekey:
    /// checked, not applied); anything else is named in a warning. Options given on the
    /// command line win. At most 1 MiB. Unlike hostapd, a file without wpa= or a WEP key is
    /// not an open network but keeps --security (default ccmp): wpa=0 is an open network;
    /// TKIP (hostapd's default for wpa=2 without rsn_pairwise) and WEP are named in a warning.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
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
    bssid: Option<String>,
    /// Read a wpa_supplicant.conf network block (the one whose ssid is --ssid, or the only
    /// one): ssid, psk, key_mgmt, pairwise, group, proto, wep_key0, bssid. The station joins
    /// with CCMP where pairwise and group allow it, else TKIP (named in a warning). key_mgmt
    /// allowing WPA-PSK needs a psk; key_mgmt=NONE alone is open or WEP. Options given on the
    /// command line win. At most 1 MiB.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl UpArgs {
    fn security(&self) -> &str {
        self.security.as_deref().unwrap_or("ccmp")
    }
    fn passphrase(&self) -> &str {
        self.passphrase.as_deref().unwrap_or("wlansec-demo")
    }
    fn ssid(&self) -> &str {
        self.ssid.as_deref().unwrap_or("wlansec")
    }
    fn pmf(&self, mode: SecurityMode) -> Pmf {
        pmf_or_default(self.pmf, mode, self.topology != "ibss")
    }
}

/// `--passphrase-file`: the passphrase from the first line of a file or standard input, so
/// that it never appears on a command line (which every user can read in `ps`). One line of
/// at most 64 octets (a passphrase has 8..63 characters, a PSK 64 hex digits) is read, octet
/// by octet: `/dev/zero` is refused after 66 octets, and a FIFO or standard input is read up
/// to its first newline, not waited on until its writer closes it.
fn read_passphrase_file(passphrase: &mut Option<String>, file: Option<&std::path::Path>) -> Result<()> {
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

/// `wlansec ap`: an access point over UDP.
pub fn ap(mut args: ApArgs) -> Result<ExitCode> {
    read_passphrase_file(&mut args.node.passphrase, args.node.passphrase_file.as_deref())?;
    conf::apply_ap(&mut args, &mut |w| eprintln!("wlansec: warning: {w}"))?;
    udp_node(args.node, Some(args.max_stations.unwrap_or(MAX_AID)), None)
}

/// `wlansec sta`: a station over UDP.
pub fn sta(mut args: StaArgs) -> Result<ExitCode> {
    read_passphrase_file(&mut args.node.passphrase, args.node.passphrase_file.as_deref())?;
    conf::apply_sta(&mut args, &mut |w| eprintln!("wlansec: warning: {w}"))?;
    let bssid = args.bssid.context("--bssid (or bssid= in the --config network block) is needed")?;
    udp_node(args.node, None, Some((args.ap, bssid)))
}

/// Run an access point (`sta` None) or a station over UDP until the process is ended.
/// A UDP node: an access point admitting `max_stations`, or the station of `sta` (its access
/// point's UDP address and BSSID).
fn udp_node(
    node: NodeArgs,
    max_stations: Option<u16>,
    sta: Option<(std::net::SocketAddr, String)>,
) -> Result<ExitCode> {
    use wlansec_wlan::udp::{self, NodeConfig, Role};
    let mode: SecurityMode = node.security.as_deref().unwrap_or("ccmp").parse()?;
    let bssid = sta.as_ref().map_or(&node.mac, |(_, b)| b).parse().map_err(|e| anyhow::anyhow!("MAC address: {e}"))?;
    let (role, listen) = match sta {
        Some((ap, _)) => (
            Role::Station { ap },
            node.listen.unwrap_or(if ap.is_ipv4() { "0.0.0.0:0".parse()? } else { "[::]:0".parse()? }),
        ),
        None => (Role::AccessPoint, node.listen.unwrap_or("0.0.0.0:7700".parse()?)),
    };
    let interface = netns::NodeAddrs {
        role: String::new(),
        namespace: String::new(),
        interface: node.interface,
        mac: node.mac,
        ipv4: node.ipv4,
        ipv6: node.ipv6,
    };
    let pmf = pmf_or_default(node.pmf, mode, true);
    check_pmf(mode, pmf).map_err(usage)?;
    check_passphrase(mode, node.passphrase.as_deref().unwrap_or_default()).map_err(usage)?;
    let network = wlansec_wlan::bss::NetworkConfig {
        fragment_threshold: node.fragment_threshold.map(FragmentationThreshold::new).transpose()?,
        pmf,
        max_stations: max_stations.unwrap_or(MAX_AID),
        ..wlansec_wlan::bss::NetworkConfig::new(
            node.ssid.unwrap_or_else(|| "wlansec".into()),
            bssid,
            mode,
            node.passphrase.unwrap_or_default(),
        )
    };
    udp::run(NodeConfig { role, network, listen, interface }, |line| eprintln!("wlansec: {line}"))?;
    Ok(ExitCode::SUCCESS)
}

#[derive(ClapArgs)]
pub struct StatusArgs {
    #[command(flatten)]
    name: NameArg,
    #[arg(long)]
    json: bool,
    /// Then start a new release-error window (the release error covers the frames released
    /// since the last reset, else since `up`): one window per measurement run.
    #[arg(long)]
    reset_release_error: bool,
}

#[derive(ClapArgs)]
pub struct InjectArgs {
    #[command(flatten)]
    name: NameArg,
    /// replay (the same frame again) or tamper (one data bit flipped, PN moved ahead).
    #[arg(value_parser = ["replay", "tamper"])]
    what: String,
}

pub fn run(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Up(args) => up(*args),
        Command::Down(args) => down(&args.name).map(|_| ExitCode::SUCCESS),
        Command::Status(args) => status(args),
        Command::Inject(args) => {
            println!("{}", control(&args.name.name, &format!("inject {}", args.what))?);
            Ok(ExitCode::SUCCESS)
        }
        Command::ProtectLoop(args) => protect_loop(args),
        Command::Model(args) => model(args),
        Command::Card(args) => card(args),
        Command::Supervise(args) => supervise(&args.name),
        Command::Run(args) => run_emulator(&args.name),
    }
}

fn config_path(name: &str) -> PathBuf {
    state_dir(name).join("config.json")
}

fn log_path(name: &str) -> PathBuf {
    PathBuf::from("/run/wlansec").join(format!("{name}.log"))
}

fn read_config(name: &str) -> Result<Config> {
    let path = config_path(name);
    let text = bounded::read_to_string(&path, bounded::STATE)
        .with_context(|| format!("no WLAN `{name}` is up ({})", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}", path.display()))
}

/// The A-MPDU size `up` runs with: `--ampdu`, or 32 where the PHY aggregates.
fn ampdu(args: &UpArgs) -> Result<usize> {
    let phy: wlansec_wlan::airtime::Phy = args.phy.parse().map_err(|e| anyhow::anyhow!("--phy: {e}"))?;
    let aggregates = wlansec_wlan::airtime::max_ampdu_bytes(phy).is_some();
    match args.ampdu {
        None => Ok(if aggregates { 32 } else { 1 }),
        Some(n) if !(1..=wlansec_wlan::airtime::MAX_AMPDU_MPDUS).contains(&n) => bail!("--ampdu must be 1..=64"),
        Some(n) if n > 1 && !aggregates => bail!("--ampdu {n} needs an HT or VHT PHY (n-..., ac-...)"),
        Some(n) => Ok(n),
    }
}

fn validate(args: &UpArgs) -> Result<()> {
    let mode: SecurityMode = args.security().parse()?;
    ampdu(args)?;
    args.card.parse::<CryptoModel>()?;
    args.ap_crypto.parse::<CryptoModel>()?;
    if !(1..=200).contains(&args.stations) {
        bail!("--stations must be 1..=200");
    }
    if args.topology == "ibss" && args.stations < 2 {
        bail!("an IBSS needs --stations 2 or more");
    }
    check_pmf(mode, args.pmf(mode))?;
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
        check_passphrase(mode, pass)?;
    }
    Ok(())
}

/// The secret a mode needs: none when open, a WEP key, or a WPA passphrase or PSK.
fn check_passphrase(mode: SecurityMode, pass: &str) -> Result<()> {
    match mode {
        SecurityMode::Open => {}
        SecurityMode::Wep => {
            wep_key(pass)?;
        }
        _ if pass.len() == 64 && pass.bytes().all(|b| b.is_ascii_hexdigit()) => {}
        _ if !(8..=63).contains(&pass.len()) => {
            bail!("a WPA passphrase has 8..63 characters (or a PSK 64 hex digits): give --passphrase or --passphrase-file")
        }
        _ => {}
    }
    Ok(())
}

fn up(mut args: UpArgs) -> Result<ExitCode> {
    read_passphrase_file(&mut args.passphrase, args.passphrase_file.as_deref())?;
    conf::apply_up(&mut args, &mut |w| eprintln!("wlansec: warning: {w}"))?;
    validate(&args).map_err(usage)?;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        bail!("wlan up needs root (network namespaces and TAP interfaces)");
    }
    let name = args.name.name.clone();
    if state_dir(&name).join("control.sock").exists() && control(&name, "status").is_ok() {
        bail!("WLAN `{name}` is already up (wlansec wlan down --name {name})");
    }
    // What a crashed or stopped earlier instance left: its processes, namespaces, files.
    down(&name)?;
    let max_ampdu = ampdu(&args)?;
    let pmf = args.pmf(args.security().parse()?);
    let config = Config {
        name: name.clone(),
        ssid: args.ssid().into(),
        passphrase: args.passphrase().into(),
        station_passphrase: args.station_passphrase.clone(),
        security: args.security().into(),
        phy: args.phy,
        poor_signal: args.poor_signal,
        stations: args.stations,
        card: args.card,
        ap_crypto: args.ap_crypto,
        pcap: args.pcap.map(|p| std::path::absolute(&p)).transpose()?,
        release_log: args.release_log.map(|p| std::path::absolute(&p)).transpose()?,
        queue_limit: args.queue.max(1),
        ampdu: max_ampdu,
        seed: args.seed,
        topology: args.topology,
        fragment_threshold: args.fragment_threshold,
        gtk_rekey: args.gtk_rekey.unwrap_or(0),
        pmf: pmf.to_string(),
        release_spin_us: args.release_spin_us,
    };
    create_state_dir(&name)?;
    write_private(&config_path(&name), serde_json::to_string_pretty(&config)?.as_bytes())?;
    let exe = std::env::current_exe()?;
    if args.foreground {
        eprintln!("wlan: supervising `{name}` in the foreground; Ctrl-C tears it down");
        let mut child = Process::new(&exe).args(["wlan", "supervise", "--name", &name]).spawn()?;
        let joined = wait_joined(&name, &config);
        if let Err(e) = &joined {
            eprintln!("wlansec: error: {e:#}");
        } else {
            print_summary(&name)?;
        }
        let status = child.wait()?;
        return Ok(if status.success() && joined.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE });
    }
    let log = private_file(&log_path(&name))?;
    let mut cmd = Process::new(&exe);
    cmd.args(["wlan", "supervise", "--name", &name]).stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log);
    // SAFETY: setsid in the child before exec: detach from this terminal's session.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    cmd.spawn()?;
    match wait_joined(&name, &config) {
        Ok(()) => {
            print_summary(&name)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if args.keep_on_failure => {
            eprintln!("wlansec: error: {e:#} (left up: --keep-on-failure)");
            Ok(ExitCode::FAILURE)
        }
        Err(e) => {
            let _ = down(&name);
            Err(e)
        }
    }
}

/// WEP has no handshake to fail: a wrong key shows only when the stations' first frames (the
/// kernel's IPv6 neighbour discovery, within a second of `up`) fail their ICV at the access
/// point. Wait for the first frame that passes, or fail on one that does not.
fn first_frames_pass(name: &str) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        let status: serde_json::Value = serde_json::from_str(&control(name, "status")?)?;
        let ap = status["nodes"].as_array().and_then(|n| n.iter().find(|n| n["role"] == "ap")).cloned();
        let counter = |what: &str| ap.as_ref().and_then(|a| a["counters"][what].as_u64()).unwrap_or(0);
        if counter("rx_msdus") > 0 {
            return Ok(());
        }
        if counter("dropped_integrity") > 0 {
            bail!("the stations' frames fail their WEP ICV at the access point: the WEP keys differ");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// Wait until every station is connected; fail with the first station's reason.
fn wait_joined(name: &str, config: &Config) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(20 + config.stations as u64);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let Ok(answer) = control(name, "status") else {
            if Instant::now() > deadline || !state_dir(name).exists() {
                let log = bounded::tail(&log_path(name), 64 << 10);
                bail!("the emulator did not start: {}", log.lines().rev().find(|l| !l.is_empty()).unwrap_or("no log"));
            }
            continue;
        };
        let status: serde_json::Value = serde_json::from_str(&answer)?;
        let failures: Vec<String> = status["associations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["failure"].as_str().map(|f| format!("station {}: {f}", a["mac"].as_str().unwrap_or("?"))))
            .collect();
        if !failures.is_empty() {
            bail!("{}", failures.join("; "));
        }
        let nodes = status["nodes"].as_array().cloned().unwrap_or_default();
        if nodes.iter().all(|n| n["state"]["state"] == "connected") {
            return if config.security == "wep" { first_frames_pass(name) } else { Ok(()) };
        }
        if Instant::now() > deadline {
            let stuck: Vec<String> = nodes
                .iter()
                .filter(|n| n["state"]["state"] != "connected")
                .map(|n| format!("{} {}", n["role"].as_str().unwrap_or("?"), n["state"]))
                .collect();
            bail!("stations did not join within the time limit: {}", stuck.join(", "));
        }
    }
}

fn print_summary(name: &str) -> Result<()> {
    let status: serde_json::Value = serde_json::from_str(&control(name, "status")?)?;
    println!(
        "WLAN `{name}` up: ssid {} security {} phy {} (link {}) A-MPDU ≤ {} MPDUs",
        status["ssid"], status["security"], status["phy"], status["link"], status["ampdu"]
    );
    println!("{:<6} {:<14} {:<6} {:<18} {:<15} {:<12} crypto", "role", "namespace", "iface", "mac", "ipv4", "ipv6");
    for n in status["nodes"].as_array().into_iter().flatten() {
        let s = |k: &str| n[k].as_str().unwrap_or("").to_string();
        println!(
            "{:<6} {:<14} {:<6} {:<18} {:<15} {:<12} {}",
            s("role"),
            s("namespace"),
            s("interface"),
            s("mac"),
            s("ipv4"),
            s("ipv6"),
            n["crypto"]
        );
    }
    Ok(())
}

fn status(args: StatusArgs) -> Result<ExitCode> {
    let command = if args.reset_release_error { "status reset-release-error" } else { "status" };
    let answer = control(&args.name.name, command)?;
    if args.json {
        println!("{answer}");
        return Ok(ExitCode::SUCCESS);
    }
    let s: serde_json::Value = serde_json::from_str(&answer)?;
    println!(
        "{} security {} phy {} link {} (FER {}), A-MPDU ≤ {} MPDUs, up {:.1} s",
        s["name"],
        s["security"],
        s["phy"],
        s["link"],
        s["frame_error_rate"],
        s["ampdu"],
        s["uptime_s"].as_f64().unwrap_or(0.0)
    );
    for n in s["nodes"].as_array().into_iter().flatten() {
        println!(
            "  {:<5} {:<12} {} {} {}  state {}  {}",
            n["role"].as_str().unwrap_or(""),
            n["namespace"].as_str().unwrap_or(""),
            n["mac"].as_str().unwrap_or(""),
            n["ipv4"].as_str().unwrap_or(""),
            n["ipv6"].as_str().unwrap_or(""),
            n["state"]["state"],
            n["counters"]
        );
    }
    println!("  medium {}", s["medium"]);
    println!("  release error (µs) {}", s["release_error"]);
    Ok(ExitCode::SUCCESS)
}

/// Stop the emulator if it runs, wait for the supervisor, and remove whatever is left.
fn down(name: &str) -> Result<()> {
    let dir = state_dir(name);
    let _ = control(name, "down");
    let pid_of = |file: &str| {
        bounded::read_to_string(&dir.join(file), bounded::STATE)
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok())
            .filter(|&pid| is_ours(pid, name))
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    // A stopped process would never see the end it is asked for.
    for pid in [pid_of("supervisor.pid"), pid_of("emulator.pid")].into_iter().flatten() {
        signal(pid, libc::SIGCONT);
    }
    while let Some(pid) = pid_of("supervisor.pid") {
        if Instant::now() > deadline {
            if let Some(child) = pid_of("emulator.pid") {
                signal(child, libc::SIGKILL);
            }
            if Instant::now() > deadline + Duration::from_secs(3) {
                signal(pid, libc::SIGKILL);
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // An emulator whose supervisor is gone (killed with it, or before it) is ended too.
    if let Some(child) = pid_of("emulator.pid") {
        signal(child, libc::SIGKILL);
    }
    cleanup(name)?;
    match fs::remove_file(log_path(name)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| log_path(name).display().to_string())
        }
        _ => Ok(()),
    }
}

/// Whether `pid` is this WLAN's supervisor or emulator: a wlansec process whose command line
/// is `wlan supervise|run --name NAME` (a PID in a state file may have been reused since).
fn is_ours(pid: i32, name: &str) -> bool {
    let Ok(cmdline) = fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    let is_wlansec = args.first().is_some_and(|exe| exe.ends_with(b"wlansec"));
    let role = args.windows(2).any(|w| w[0] == b"wlan" && (w[1] == b"supervise" || w[1] == b"run"));
    let named = args.windows(2).any(|w| w[0] == b"--name" && w[1] == name.as_bytes());
    is_wlansec && role && named
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: a signal to a process checked by `is_ours` to be this WLAN's.
    unsafe { libc::kill(pid, sig) };
}

/// The WLAN's state directory (/run/wlansec/NAME), readable by root only: it holds the
/// configuration with the passphrase and the control socket.
fn create_state_dir(name: &str) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = state_dir(name);
    fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).with_context(|| dir.display().to_string())?;
    // An existing directory keeps its mode through `create`: set it.
    fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    Ok(())
}

/// A new file readable and writable by its owner only (it may hold a secret, or a log that
/// names one's host).
fn private_file(path: &std::path::Path) -> Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = fs::remove_file(path);
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| path.display().to_string())
}

fn write_private(path: &std::path::Path, contents: &[u8]) -> Result<()> {
    use std::io::Write;
    private_file(path)?.write_all(contents).with_context(|| path.display().to_string())
}

/// Remove the namespaces and state of topology `name` (whatever of it exists).
fn cleanup(name: &str) -> Result<()> {
    let stations = read_config(name).map(|c| c.stations).unwrap_or(0);
    for node in netns::nodes(name, stations) {
        netns::delete_namespace(&node.namespace)?;
    }
    // Namespaces of an earlier run whose configuration is gone: same prefix.
    if let Ok(entries) = fs::read_dir("/run/netns") {
        for e in entries.flatten() {
            let ns = e.file_name().to_string_lossy().to_string();
            let ours = ns == format!("{name}-ap")
                || ns.strip_prefix(&format!("{name}-sta")).is_some_and(|n| n.parse::<u32>().is_ok());
            if ours {
                netns::delete_namespace(&ns)?;
            }
        }
    }
    let dir = state_dir(name);
    match fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("{}", dir.display()))
        }
        _ => {}
    }
    Ok(())
}

/// The backstop: create the namespaces, run the emulator, and clean up however it ends.
fn supervise(name: &str) -> Result<ExitCode> {
    // SAFETY: ignoring terminal signals in this process only; the child resets them on exec.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
    let config = read_config(name)?;
    fs::write(state_dir(name).join("supervisor.pid"), std::process::id().to_string())?;
    let result = (|| -> Result<bool> {
        for node in config.nodes() {
            netns::create_namespace(&node.namespace)?;
        }
        let mut child = Process::new(std::env::current_exe()?);
        child.args(["wlan", "run", "--name", name]);
        // SAFETY: restore default dispositions in the child before exec (ignored ones are inherited).
        unsafe {
            child.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                libc::signal(libc::SIGHUP, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = child.spawn()?;
        fs::write(state_dir(name).join("emulator.pid"), child.id().to_string())?;
        Ok(child.wait()?.success())
    })();
    cleanup(name)?;
    eprintln!("wlan: `{name}` torn down");
    match result {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::FAILURE),
        Err(e) => Err(e),
    }
}

fn run_emulator(name: &str) -> Result<ExitCode> {
    let config = read_config(name)?;
    let mut emulator = Emulator::new(config)?;
    eprintln!("wlan: emulator for `{name}` running; {}", Emulator::tune_scheduling());
    emulator.run()?;
    Ok(ExitCode::SUCCESS)
}

fn protect_loop(args: ProtectLoopArgs) -> Result<ExitCode> {
    let mode: SecurityMode = args.suite.parse()?;
    let key: &[u8] = match mode {
        SecurityMode::Wep => b"abcdefghijklm",
        SecurityMode::Tkip => &[0x5a; 32],
        SecurityMode::Ccmp => &[0x5a; 16],
        _ => bail!("protect-loop measures the card suites: wep, tkip, ccmp"),
    };
    if args.size < 26 {
        bail!("--size must hold the 26-byte QoS data header");
    }
    // The portable suite (RustCrypto AES: constant-time fixsliced under aes_backend="soft"),
    // not the host engine that `SecurityMode::suite` picks for CCMP (AES-NI/VAES kernels).
    let suite: Box<dyn wlansec_core::suite::FrameSuite> = match mode {
        SecurityMode::Ccmp => Box::new(wlansec_core::suite::Ccmp128::new(key)?),
        _ => mode.suite(key)?,
    };
    let mut tx = wlansec_core::suite::Transmitter::new(suite, 0);
    let mut buf = vec![0u8; args.size + 32];
    for n in 0..args.frames {
        buf[..args.size].fill(n as u8);
        buf[..2].copy_from_slice(&[0x88, 0x01]);
        buf[4..10].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        buf[10..16].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
        buf[22..26].fill(0);
        tx.protect(&mut buf, args.size)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn model(args: ModelArgs) -> Result<ExitCode> {
    use wlansec_wlan::airtime::{saturation, AccessCategory, Exchange, Phy};
    let mode: SecurityMode = args.security.parse()?;
    let phy: Phy = args.phy.parse().map_err(|e| anyhow::anyhow!("--phy: {e}"))?;
    let exchange = Exchange::aggregated(phy, AccessCategory::BestEffort, mode.overhead(), args.ip_bytes, args.ampdu)?;
    let s = saturation(&exchange, args.stations.max(1));
    let json = serde_json::json!({
        "security": mode.to_string(), "phy": phy.to_string(), "ip_bytes": args.ip_bytes, "stations": s.stations,
        "ampdu": args.ampdu,
        "throughput_bps": s.throughput_bps, "collision_probability": s.collision_probability,
        "success_time_us": exchange.success_time().as_secs_f64() * 1e6,
    });
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}

fn card(args: CardArgs) -> Result<ExitCode> {
    let model: CryptoModel = args.card.parse()?;
    let mut costs = Vec::new();
    for security in &args.security {
        let mode: SecurityMode = security.parse()?;
        for &mpdu_bytes in &args.mpdu_bytes {
            let cost_us = model.cost_us(mode, mpdu_bytes)?;
            costs.push(serde_json::json!({"security": mode.to_string(), "mpdu_bytes": mpdu_bytes, "cost_us": cost_us}));
        }
    }
    println!("{}", serde_json::json!({"card": model, "costs": costs}));
    Ok(ExitCode::SUCCESS)
}
