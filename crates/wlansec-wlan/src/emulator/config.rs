//! What `wlan up` decides, as the emulator reads it back from the state directory.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use wlansec_core::tx::FragmentationThreshold;

use crate::airtime::Phy;
use crate::netns::{self, NodeAddrs};
use crate::node::redacted;
use crate::pmf::Pmf;
use crate::security::{KeyManagement, SaePwe, Security, SecurityMode};
use crate::Result;

/// Everything `wlan up` decides; stored as JSON in the state directory. Its Debug leaves
/// out the passphrases.
#[derive(Clone, Serialize, Deserialize)]
pub struct Config {
    pub name: String,
    pub ssid: String,
    pub passphrase: String,
    /// The stations' passphrase when it differs from the access point's (failure tests).
    pub station_passphrase: Option<String>,
    pub security: String,
    pub phy: String,
    pub poor_signal: bool,
    pub stations: usize,
    pub card: String,
    pub ap_crypto: String,
    pub pcap: Option<PathBuf>,
    pub release_log: Option<PathBuf>,
    pub queue_limit: usize,
    /// Most MPDUs per A-MPDU on HT/VHT PHYs (1: every MPDU its own DATA–ACK exchange).
    #[serde(default = "no_ampdu")]
    pub ampdu: usize,
    pub seed: u64,
    /// `bss` (stations relay through the access point) or `ibss` (ad hoc: no access point).
    #[serde(default = "bss")]
    pub topology: String,
    /// dot11FragmentationThreshold of every node (none: never fragment).
    #[serde(default)]
    pub fragment_threshold: Option<u16>,
    /// Seconds between GTK rotations by the access point (0: only when a station leaves).
    #[serde(default)]
    pub gtk_rekey: u64,
    /// 802.11w management frame protection: off, optional, required.
    #[serde(default = "pmf_off")]
    pub pmf: String,
    /// Microseconds before a frame's release deadline at which the emulator stops sleeping and
    /// busy-waits for it (0: wake on the timer alone). A timer wake-up lands tens of µs late on
    /// a virtual machine; the spin trades that much CPU per release for a release on time.
    #[serde(default)]
    pub release_spin_us: u32,
    /// SAE's password element method (`security` sae): hnp, h2e, both.
    #[serde(default = "h2e")]
    pub sae_pwe: String,
    /// SAE's groups in order of preference (empty: 19).
    #[serde(default)]
    pub sae_groups: Vec<u16>,
    /// Where the emulator appends the PMK of each accepted SAE exchange (Wireshark's
    /// `80211_keys` form, a file only root reads): what decrypts a capture of an SAE network.
    #[serde(default)]
    pub keylog: Option<PathBuf>,
    /// Beacon protection (hostapd's `beacon_prot`); none: the security's default
    /// ([`Security::protects_beacons_by_default`]).
    #[serde(default)]
    pub beacon_prot: Option<bool>,
    /// WPA3-Personal transition mode: the access point offers the PSK beside SAE, PMF
    /// optional; the stations join by SAE with PMF required, the last `psk_stations` by the
    /// PSK.
    #[serde(default)]
    pub sae_transition: bool,
    /// The Transition Disable bits the access point sends in message 3 (0: none).
    #[serde(default)]
    pub transition_disable: u8,
    /// In transition mode, how many stations (the last) are WPA2-only.
    #[serde(default)]
    pub psk_stations: usize,
}

fn h2e() -> String {
    SaePwe::HashToElement.to_string()
}

fn bss() -> String {
    "bss".into()
}

fn pmf_off() -> String {
    Pmf::Off.to_string()
}

fn no_ampdu() -> usize {
    1
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Config {
            name,
            ssid,
            passphrase,
            station_passphrase,
            security,
            phy,
            poor_signal,
            stations,
            card,
            ap_crypto,
            pcap,
            release_log,
            queue_limit,
            ampdu,
            seed,
            topology,
            fragment_threshold,
            gtk_rekey,
            pmf,
            release_spin_us,
            sae_pwe,
            sae_groups,
            keylog,
            beacon_prot,
            sae_transition,
            transition_disable,
            psk_stations,
        } = self;
        f.debug_struct("Config")
            .field("name", name)
            .field("ssid", ssid)
            .field("passphrase", &redacted(passphrase))
            .field("station_passphrase", &station_passphrase.as_deref().map(redacted))
            .field("security", security)
            .field("phy", phy)
            .field("poor_signal", poor_signal)
            .field("stations", stations)
            .field("card", card)
            .field("ap_crypto", ap_crypto)
            .field("pcap", pcap)
            .field("release_log", release_log)
            .field("queue_limit", queue_limit)
            .field("ampdu", ampdu)
            .field("seed", seed)
            .field("topology", topology)
            .field("release_spin_us", release_spin_us)
            .field("fragment_threshold", fragment_threshold)
            .field("gtk_rekey", gtk_rekey)
            .field("pmf", pmf)
            .field("sae_pwe", sae_pwe)
            .field("sae_groups", sae_groups)
            .field("keylog", keylog)
            .field("beacon_prot", beacon_prot)
            .field("sae_transition", sae_transition)
            .field("transition_disable", transition_disable)
            .field("psk_stations", psk_stations)
            .finish()
    }
}

impl Config {
    pub fn mode(&self) -> Result<SecurityMode> {
        Ok(self.security.parse::<Security>()?.mode)
    }
    pub fn key_management(&self) -> Result<KeyManagement> {
        self.security.parse::<Security>()?.key_management(self.sae_pwe.parse()?, &self.sae_groups)
    }
    /// Whether the access point protects its beacons.
    pub fn beacon_protection(&self) -> Result<bool> {
        Ok(self.beacon_prot.unwrap_or(self.security.parse::<Security>()?.protects_beacons_by_default()))
    }
    pub fn phy(&self) -> Result<Phy> {
        Ok(self.phy.parse()?)
    }
    pub fn pmf(&self) -> Result<Pmf> {
        self.pmf.parse()
    }
    pub fn fragment_threshold(&self) -> Result<Option<FragmentationThreshold>> {
        Ok(self.fragment_threshold.map(FragmentationThreshold::new).transpose()?)
    }
    pub fn state_dir(&self) -> PathBuf {
        state_dir(&self.name)
    }
    pub fn ibss(&self) -> bool {
        self.topology == "ibss"
    }
    /// Whether station `n` (1..=stations) is one of a transition network's WPA2-only
    /// stations: the last `psk_stations`.
    pub fn psk_only(&self, n: usize) -> bool {
        self.sae_transition && n + self.psk_stations > self.stations
    }
    /// The nodes this topology has (an IBSS has no access point).
    pub fn nodes(&self) -> Vec<NodeAddrs> {
        netns::nodes(&self.name, self.stations).into_iter().filter(|n| !(self.ibss() && n.role == "ap")).collect()
    }
}

/// The state directory of WLAN `name`: its configuration, control socket and process IDs.
pub fn state_dir(name: &str) -> PathBuf {
    PathBuf::from("/run/wlansec").join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_passphrases() {
        const SECRET: &str = "correct horse battery staple";
        let config: Config = serde_json::from_value(serde_json::json!({
            "name": "wls", "ssid": "lab", "passphrase": SECRET, "station_passphrase": "another secret",
            "security": "ccmp", "phy": "g54", "poor_signal": false, "stations": 2, "card": "hw",
            "ap_crypto": "sw", "pcap": null, "release_log": null, "queue_limit": 64, "seed": 1,
        }))
        .unwrap();
        let debug = format!("{config:?}");
        assert!(!debug.contains(SECRET) && !debug.contains("another") && debug.contains("wls"), "{debug}");
    }
}
