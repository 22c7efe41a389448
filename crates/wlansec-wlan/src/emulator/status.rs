//! What `wlan status` reports: the network, each node, the medium and how late frames were
//! released.

use serde::Serialize;

use crate::bss::{AssociationStatus, Counters, StationState};
use crate::card::CryptoModel;
use crate::medium::MediumCounters;
use crate::netns::NodeAddrs;

/// Median and 99th percentile of the release error (actual − intended), microseconds.
#[derive(Clone, Copy, Default, Debug, Serialize)]
pub struct ReleaseError {
    pub frames: usize,
    pub median_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl ReleaseError {
    /// The statistics of release errors `samples` (ns; any order).
    pub(super) fn of(mut samples: Vec<i64>) -> Self {
        if samples.is_empty() {
            return ReleaseError::default();
        }
        samples.sort_unstable();
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize] as f64 / 1e3;
        ReleaseError { frames: samples.len(), median_us: at(0.5), p99_us: at(0.99), max_us: at(1.0) }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeStatus {
    #[serde(flatten)]
    pub addrs: NodeAddrs,
    pub state: StationState,
    /// A station's AKM on an RSN network (`PSK`, `SAE`, ...): in transition mode, which of
    /// the two it joined by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub akm: Option<&'static str>,
    pub counters: Counters,
    pub crypto: CryptoModel,
    pub crypto_frames: u64,
    pub host_crypto_ns: u64,
    pub queued: usize,
    /// IBSS: the peers this station has met and whether their links are keyed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<AssociationStatus>,
}

/// What `status --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    pub name: String,
    pub ssid: String,
    pub security: String,
    /// 802.11w management frame protection the network offers (off, optional, required).
    pub pmf: String,
    pub phy: String,
    pub link: String,
    pub frame_error_rate: f64,
    /// Most MPDUs per A-MPDU (1: no aggregation).
    pub ampdu: usize,
    pub topology: String,
    pub nodes: Vec<NodeStatus>,
    pub associations: Vec<AssociationStatus>,
    pub medium: MediumCounters,
    pub release_error: ReleaseError,
    pub uptime_s: f64,
}

/// An IBSS station is connected once it has keyed links to all `others`.
pub(super) fn ibss_state(peers: &[AssociationStatus], others: usize) -> StationState {
    if let Some(failure) = peers.iter().find_map(|p| p.failure.clone()) {
        return StationState::Failed(failure);
    }
    if peers.len() == others && peers.iter().all(|p| p.port_open) {
        StationState::Connected
    } else {
        StationState::Handshaking
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_error_takes_median_99th_percentile_and_maximum_in_microseconds() {
        assert_eq!(ReleaseError::of(Vec::new()).frames, 0);
        let e = ReleaseError::of((0..=100).rev().map(|us| us * 1_000).collect());
        assert_eq!((e.frames, e.median_us, e.p99_us, e.max_us), (101, 50.0, 99.0, 100.0));
    }
}
