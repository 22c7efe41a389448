//! `wlansec ap` and `wlansec sta`: one node of the UDP-transport deployment each, on a TAP
//! interface of this host.

use std::process::ExitCode;

use anyhow::{Context, Result};
use wlansec_core::tx::FragmentationThreshold;
use wlansec_wlan::bss::OweTransitionPeer;
use wlansec_wlan::bss::MAX_AID;
use wlansec_wlan::netns;
use wlansec_wlan::security::Security;

use super::args::{read_passphrase_file, ApArgs, NodeArgs, StaArgs};
use super::{check_beacon_protection, check_passphrase, checked_pmf, conf};
use crate::usage::usage;

/// `wlansec ap`: an access point over UDP.
pub fn ap(mut args: ApArgs) -> Result<ExitCode> {
    read_passphrase_file(&mut args.node.passphrase, args.node.passphrase_file.as_deref())?;
    conf::apply_ap(&mut args, &mut |w| eprintln!("wlansec: warning: {w}"))?;
    let owe_transition = match (args.owe_transition_bssid, args.owe_transition_ssid) {
        (Some(bssid), Some(ssid)) => {
            let bssid = bssid.parse().map_err(|e| usage(anyhow::anyhow!("--owe-transition-bssid: {e}")))?;
            Some(OweTransitionPeer { bssid, ssid })
        }
        _ => None,
    };
    udp_node(args.node, Some(args.max_stations.unwrap_or(MAX_AID)), None, owe_transition)
}

/// `wlansec sta`: a station over UDP.
pub fn sta(mut args: StaArgs) -> Result<ExitCode> {
    read_passphrase_file(&mut args.node.passphrase, args.node.passphrase_file.as_deref())?;
    conf::apply_sta(&mut args, &mut |w| eprintln!("wlansec: warning: {w}"))?;
    let bssid = args.bssid.context("--bssid (or bssid= in the --config network block) is needed")?;
    udp_node(args.node, None, Some((args.ap, bssid)), None)
}

/// Run a UDP node until the process is ended: an access point admitting `max_stations` (of
/// an OWE transition pair with `owe_transition`), or the station of `sta` (its access
/// point's UDP address and BSSID).
fn udp_node(
    node: NodeArgs,
    max_stations: Option<u16>,
    sta: Option<(std::net::SocketAddr, String)>,
    owe_transition: Option<OweTransitionPeer>,
) -> Result<ExitCode> {
    use wlansec_wlan::udp::{self, NodeConfig, Role};
    let security: Security = node.security.as_deref().unwrap_or("ccmp").parse()?;
    let key_management = security.key_management(node.sae.pwe(), node.sae.groups()).map_err(|e| usage(e.into()))?;
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
    let pmf = checked_pmf(node.pmf, security, true, &node.sae).map_err(usage)?;
    check_beacon_protection(security, pmf, node.beacon_prot).map_err(usage)?;
    check_passphrase(security, node.passphrase.as_deref().unwrap_or_default()).map_err(usage)?;
    let network = wlansec_wlan::bss::NetworkConfig {
        fragment_threshold: node.fragment_threshold.map(FragmentationThreshold::new).transpose()?,
        pmf,
        max_stations: max_stations.unwrap_or(MAX_AID),
        beacon_protection: node.beacon_prot.unwrap_or(security.protects_beacons_by_default()),
        key_management,
        sae_transition: node.sae.sae_transition,
        owe_transition,
        transition_disable: node.sae.transition_disable.unwrap_or(0),
        ..wlansec_wlan::bss::NetworkConfig::new(
            node.ssid.unwrap_or_else(|| "wlansec".into()),
            bssid,
            security.mode,
            node.passphrase.unwrap_or_default(),
        )
    };
    udp::run(NodeConfig { role, network, listen, interface }, |line| eprintln!("wlansec: {line}"))?;
    Ok(ExitCode::SUCCESS)
}
