//! The access point and the station as sans-IO machines: MPDUs from the air and Ethernet
//! frames from the host go in, MPDUs for the air and Ethernet frames for the host come out.
//! The emulated medium and the UDP transport drive the same code.
//!
//! A station authenticates (open system, or SAE on an SAE network), associates (with the
//! mode's RSN element; on an SAE network naming its PMKSA by PMKID), runs
//! the 4-way handshake (which also delivers the GTK) and then carries Ethernet as QoS data
//! (To DS). The access point decrypts each frame under the sender's keys and forwards it to
//! its own host, or re-encrypts it under the receiver's keys (From DS), or under the GTK
//! for group addresses. Until a station's keys are installed its 802.1X port is closed:
//! only EAPOL passes.
mod access_point;
#[cfg(test)]
mod attacks;
mod station;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use crate::node::{AssociationStatus, Counters, NetworkConfig, Output, OweTransitionPeer, PeerEvent, MAX_AID};
pub use access_point::{AccessPoint, Admission, LoggedPmk, STATUS_AP_FULL};
pub use station::Station;

/// How often the owner calls `tick`.
pub const TICK_MS: u64 = 250;

/// Where a station is in joining its network.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "reason")]
pub enum StationState {
    Authenticating,
    Associating,
    Handshaking,
    Connected,
    /// TKIP countermeasures: the station saw two Michael MIC failures within 60 s, left the
    /// network and stays away for 60 s before it joins again.
    Countermeasures,
    /// The access point ended the link (or a forger did, on a link without 802.11w), or
    /// stopped answering: the station joins again after a backoff (1 s, 2 s, ... 16 s).
    Rejoining(String),
    /// Probably a configuration error: a wrong passphrase (three 4-way handshakes in a row
    /// ended by the access point before the station ever connected) or a management frame
    /// protection policy or RSN element the access point refuses. Said, and tried again
    /// every 16 s: the frames that say so are not authenticated (a forger's could), so
    /// nothing on the air ends a station.
    Failed(String),
}
