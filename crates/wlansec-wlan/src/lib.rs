//! access point and stations that carry real traffic between network namespaces.
//!
//! * [`airtime`]: the analytical airtime model (TXTIME, exchanges, backoff, saturation).
//! * [`security`]: the security modes (open, WEP, TKIP, CCMP, Enhanced) and their keys.
//! * [`bss`]: the access point and station as sans-IO machines (association, handshakes, data).

pub mod airtime;
pub mod bss;
pub mod security;
