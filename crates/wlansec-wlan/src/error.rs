//! The emulated WLAN's own error: what went wrong in this crate's terms (a name that does
//! not parse, a namespace or TAP operation the system refused, a handshake a peer failed),
//! with the engine's refusals of frames and keys carried as [`Error::Frame`].
//!
//! Each message is one line naming the problem and never holds a passphrase or key. A
//! variant that wraps a cause does not repeat it: [`std::error::Error::source`] returns it,
//! and the CLI prints the chain on one line (`what: cause`). [`Error::Frame`] and
//! [`Error::Phy`] are transparent: their message is the inner error's.

use std::fmt;
use std::io;
use std::path::PathBuf;

use wlansec_core::wire::MacAddr;

use crate::airtime::ParsePhyError;

/// Why the emulated WLAN, one of its nodes or one of its names was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A frame, key or request the engine refused (malformed frame, MIC failure, replay, …).
    Frame(wlansec_core::Error),
    /// A 4-way handshake message from `peer` that the local side refused (wrong
    /// passphrase: a MIC failure; a stale retransmission: a replay).
    Handshake { peer: MacAddr, why: wlansec_core::Error },
    /// A security mode name other than open, wep, tkip, ccmp, `enhanced[:N]`.
    UnknownSecurityMode(String),
    /// `enhanced:N` with N other than 1, 2, 4 or 8.
    EnhancedWays(usize),
    /// A `--pmf` other than off, optional, required.
    UnknownPmf(String),
    /// A `--sae-pwe` other than hnp, h2e, both (or a `sae_pwe` other than 0, 1, 2).
    UnknownSaePwe(String),
    /// An SAE network whose management frame protection is not required (WPA3 requires it).
    SaeWithoutPmf,
    /// An OWE network whose management frame protection is not required.
    OweWithoutPmf,
    /// SAE-EXT-KEY by hunting-and-pecking alone (it runs by hash-to-element).
    SaeExtKeyWithoutH2e,
    /// Beacon protection where management frames are not protected (it is BIP under a
    /// BIGTK the 4-way handshake hands out only to stations of a PMF link).
    BeaconProtectionWithoutPmf,
    /// An OWE group other than 19, 20, 21.
    OweGroup(u16),
    /// An OWE Diffie-Hellman Parameter element from `peer` that the local side refused.
    Owe { peer: MacAddr, why: wlansec_core::rsn::owe::OweError },
    /// An SAE group other than 19, 20, 21.
    SaeGroup(u16),
    /// An SAE Authentication frame from `peer` that the local side refused.
    Sae { peer: MacAddr, why: wlansec_core::rsn::sae::SaeError },
    /// Something the security mode (named as `--security` names it) does not have (open: no
    /// frame suite; WEP: no handshake).
    ModeLacks { mode: String, what: &'static str },
    /// A WEP passphrase is the key itself: 5 or 13 characters, or 10 or 26 hex digits
    /// (WEP-40/104).
    WepKeyLength { got: usize },
    /// A PHY name that does not parse.
    Phy(ParsePhyError),
    /// A crypto model name other than hw, mcu:MHZ, fixed:US, sw, rtl, verilog:MHZ.
    UnknownCryptoModel(String),
    /// A crypto model whose parameter is not a positive number (`mcu:-3`).
    CryptoModelParameter(String),
    /// The rtl model's hardware report (`hdl/reports/summary.json`) does not parse or lacks
    /// a number it needs. A missing report is an [`Error::Io`].
    RtlReport { path: String, why: String },
    /// The access point's Verilog card cannot be used: why (not built, not the access
    /// point's crypto, a mode other than CCMP, or the RTL failed).
    Verilog(String),
    /// No MCU instruction counts for this mode's suite (the mode named as `--security`
    /// names it).
    NoMcuCounts(String),
    /// A MAC address that does not parse (`what` names the setting).
    BadMac { what: String, why: wlansec_core::Error },
    /// A node (`ap`, `sta1`, …) could not be set up.
    Node { role: String, source: Box<Error> },
    /// An interface name longer than the kernel allows.
    InterfaceName(String),
    /// An `ip` command that failed, with what it said.
    Command { command: String, stderr: String },
    /// A system operation that failed (namespace, TAP, socket, epoll, file), named.
    Io { what: String, source: io::Error },
    /// No emulator answers on the control socket of WLAN `name`.
    NotRunning { name: String, socket: PathBuf, source: io::Error },
}

pub type Result<T> = core::result::Result<T, Error>;

impl Error {
    /// An [`Error::Io`] maker for `map_err`: `.map_err(Error::io("bind"))`.
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
        let what = what.into();
        move |source| Error::Io { what, source }
    }

    /// The last OS error, as an [`Error::Io`] of `what`.
    pub(crate) fn last_os(what: impl Into<String>) -> Error {
        Error::Io { what: what.into(), source: io::Error::last_os_error() }
    }

    /// The engine's error inside, if this is a frame or handshake refusal.
    pub fn engine_error(&self) -> Option<&wlansec_core::Error> {
        match self {
            Error::Frame(e) | Error::Handshake { why: e, .. } | Error::BadMac { why: e, .. } => Some(e),
            Error::Node { source, .. } => source.engine_error(),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Frame(e) => e.fmt(f),
            Error::Handshake { peer, .. } => write!(f, "4-way handshake message from {peer} refused"),
            Error::UnknownSecurityMode(s) => {
                write!(f, "unknown security mode `{}` (open, wep, tkip, ccmp, enhanced[:N])", s.escape_default())
            }
            Error::EnhancedWays(n) => write!(f, "enhanced:{n}: N must be 1, 2, 4 or 8"),
            Error::UnknownPmf(s) => {
                write!(f, "unknown management frame protection `{}` (off, optional, required)", s.escape_default())
            }
            Error::UnknownSaePwe(s) => {
                write!(f, "unknown SAE password element method `{}` (hnp, h2e, both)", s.escape_default())
            }
            Error::SaeExtKeyWithoutH2e => f.write_str(
                "SAE-EXT-KEY runs by hash-to-element (--sae-pwe h2e or both, sae_pwe=1 or 2), not hunting-and-pecking",
            ),
            Error::BeaconProtectionWithoutPmf => f.write_str(
                "beacon protection needs management frame protection (--pmf optional or required, ieee80211w=1 or 2)",
            ),
            Error::SaeWithoutPmf => {
                f.write_str("SAE needs management frame protection required (--pmf required, ieee80211w=2)")
            }
            Error::Sae { peer, .. } => write!(f, "SAE frame from {peer} refused"),
            Error::OweWithoutPmf => {
                f.write_str("OWE needs management frame protection required (--pmf required, ieee80211w=2)")
            }
            Error::OweGroup(id) => write!(f, "OWE group {id} not supported (19, 20, 21)"),
            Error::Owe { peer, .. } => write!(f, "OWE association with {peer} refused"),
            Error::SaeGroup(id) => write!(f, "SAE group {id} not supported (19, 20, 21)"),
            Error::ModeLacks { mode, what } => write!(f, "security mode {mode} has no {what}"),
            Error::WepKeyLength { got } => {
                write!(
                    f,
                    "WEP needs a passphrase of 5 or 13 characters or 10 or 26 hex digits (the WEP key), got {got}"
                )
            }
            Error::Phy(e) => e.fmt(f),
            Error::UnknownCryptoModel(s) => {
                write!(
                    f,
                    "unknown crypto model `{}` (hw, mcu:MHZ, fixed:US; access point: sw, rtl, verilog:MHZ)",
                    s.escape_default()
                )
            }
            Error::CryptoModelParameter(s) => {
                write!(f, "crypto model `{}`: expected a positive number", s.escape_default())
            }
            Error::RtlReport { path, why } => write!(f, "rtl model: {path}: {why} (make -C hdl reports)"),
            Error::Verilog(why) => write!(f, "verilog card: {why}"),
            Error::NoMcuCounts(mode) => write!(f, "no MCU instruction counts for {mode}"),
            Error::BadMac { what, .. } => write!(f, "{what}: not a MAC address"),
            Error::Node { role, .. } => write!(f, "cannot set up {role}"),
            Error::InterfaceName(name) => {
                write!(f, "interface name `{}` too long (at most {} bytes)", name.escape_default(), libc::IFNAMSIZ - 1)
            }
            Error::Command { command, stderr } => {
                write!(f, "`{command}` failed: {}", stderr.lines().collect::<Vec<_>>().join("; "))
            }
            Error::Io { what, .. } => f.write_str(what),
            Error::NotRunning { name, socket, source } if source.kind() == io::ErrorKind::PermissionDenied => {
                write!(f, "WLAN `{name}`'s control socket {} is root's only: run with sudo", socket.display())
            }
            Error::NotRunning { name, socket, .. } => write!(f, "no running WLAN `{name}` ({})", socket.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Handshake { why, .. } | Error::BadMac { why, .. } => Some(why),
            Error::Sae { why, .. } => Some(why),
            Error::Owe { why, .. } => Some(why),
            Error::Node { source, .. } => Some(source.as_ref()),
            Error::Io { source, .. } | Error::NotRunning { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<wlansec_core::Error> for Error {
    fn from(e: wlansec_core::Error) -> Self {
        Error::Frame(e)
    }
}

impl From<ParsePhyError> for Error {
    fn from(e: ParsePhyError) -> Self {
        Error::Phy(e)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    fn every_variant() -> Vec<(Error, &'static str)> {
        let peer = MacAddr([2, 0x77, 0, 0, 0, 1]);
        let io = || io::Error::from(io::ErrorKind::PermissionDenied);
        vec![
            (Error::Frame(wlansec_core::Error::MicFailure), "MIC"),
            (Error::Handshake { peer, why: wlansec_core::Error::MicFailure }, "handshake"),
            (Error::UnknownSecurityMode("wpa9\n".into()), "unknown security mode"),
            (Error::EnhancedWays(3), "N must be 1, 2, 4 or 8"),
            (Error::ModeLacks { mode: "open".into(), what: "frame suite" }, "open has no frame suite"),
            (Error::WepKeyLength { got: 7 }, "5 or 13"),
            (Error::Phy("z99".parse::<crate::airtime::Phy>().unwrap_err()), "unknown PHY"),
            (Error::UnknownCryptoModel("gpu".into()), "unknown crypto model"),
            (Error::CryptoModelParameter("mcu:-3".into()), "positive number"),
            (Error::RtlReport { path: "summary.json".into(), why: "no `fmax_mhz`".into() }, "rtl model"),
            (Error::NoMcuCounts("ccmp".into()), "MCU instruction counts"),
            (Error::BadMac { what: "--mac".into(), why: wlansec_core::Error::Malformed("x") }, "MAC address"),
            (Error::Node { role: "sta1".into(), source: Box::new(Error::WepKeyLength { got: 7 }) }, "sta1"),
            (Error::InterfaceName("a-very-long-interface".into()), "too long"),
            (Error::Command { command: "ip netns add x".into(), stderr: "File exists\nagain".into() }, "ip netns"),
            (Error::Io { what: "setns".into(), source: io() }, "setns"),
            (
                Error::NotRunning {
                    name: "wls".into(),
                    socket: "/run/wlansec/wls/control.sock".into(),
                    source: io::Error::from(io::ErrorKind::NotFound),
                },
                "no running WLAN",
            ),
            (
                Error::NotRunning { name: "wls".into(), socket: "/run/wlansec/wls/control.sock".into(), source: io() },
                "sudo",
            ),
            (Error::UnknownPmf("sometimes".into()), "off, optional, required"),
            (Error::UnknownSaePwe("3".into()), "hnp, h2e, both"),
            (Error::SaeWithoutPmf, "management frame protection required"),
            (Error::OweWithoutPmf, "OWE needs management frame protection"),
            (Error::OweGroup(14), "OWE group 14"),
            (Error::Owe { peer, why: wlansec_core::rsn::owe::OweError::InvalidPublicKey }, "OWE association"),
            (Error::SaeGroup(14), "19, 20, 21"),
            (Error::Sae { peer, why: wlansec_core::rsn::sae::SaeError::ConfirmMismatch }, "SAE frame"),
        ]
    }

    #[test]
    fn every_message_is_one_line_naming_the_problem() {
        for (e, names) in every_variant() {
            let text = e.to_string();
            assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
            assert!(text.contains(names), "{text:?} should name {names:?}");
            // A cause is not repeated: the chain (as the CLI prints it) names it once.
            if let Some(source) = e.source() {
                assert!(!text.contains(&source.to_string()), "{text:?} repeats its cause");
            }
        }
    }

    #[test]
    fn the_engine_error_converts_and_is_found() {
        let e: Error = wlansec_core::Error::NotProtected.into();
        assert_eq!(e.engine_error(), Some(&wlansec_core::Error::NotProtected));
        let e = Error::Node { role: "ap".into(), source: Box::new(e) };
        assert_eq!(e.engine_error(), Some(&wlansec_core::Error::NotProtected));
    }
}
