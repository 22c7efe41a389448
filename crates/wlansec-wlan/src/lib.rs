//! wlansec-wlan: the emulated WLAN — 802.11 airtime model, the virtual-time medium, and the
//! access point and stations that carry real traffic between network namespaces.
//!
//! * [`airtime`]: the analytical airtime model (TXTIME, exchanges, backoff, saturation).
//! * [`security`]: the security modes (open, WEP, TKIP, CCMP, Enhanced) and their keys.
//! * [`medium`]: the shared virtual-time channel (contention, collisions, retries).
//! * [`card`]: where the crypto runs (host engine, card models hw/mcu/fixed, AP sw/rtl,
//!   and the AP's verilated RTL, verilog:MHZ).
//! * [`verilog`]: the access point's CCMP on its Verilog card (feature `verilog`).
//! * [`netns`]: namespaces, TAP interfaces and the topology's names and addresses.
//! * [`error`]: the crate's [`Error`] (names that do not parse, refused system calls,
//!   handshakes a peer failed, and the engine's refusals).
//! * [`emulator`]: the one-process WLAN (epoll, TAPs, medium, release log, control socket).
//! * `tkip`: TKIP countermeasures (the access point's and a station's).
//! * `group`: group keys (GTK rotation, Key RSC, a receive key per Key ID).
//! * `node`: the frame-exchange core the roles share (frames, counters, the receive path).
//! * [`pmf`]: 802.11w management frame protection (negotiation, protected robust frames,
//!   BIP, SA Query).
//! * [`bss`]: the access point and station as sans-IO machines (association, handshakes, data).
//! * [`udp`]: the access point and a station as separate processes over a UDP "air".
//! * [`ibss`]: the ad-hoc station (direct links, a pair of 4-way handshakes per peer pair).

mod admission;
pub mod airtime;
pub mod bss;
pub mod card;
pub mod emulator;
pub mod error;
mod group;
pub mod ibss;
pub mod medium;
pub mod netns;
mod node;
pub mod pmf;
pub mod security;
mod tkip;
pub mod udp;
pub mod verilog;

pub use error::{Error, Result};
