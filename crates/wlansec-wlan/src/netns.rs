//! Network namespaces and TAP interfaces of the emulated WLAN: the names, addresses and MACs
//! of every node (one place, so `status` never has to guess), and the few system calls
//! and `ip` commands that make and remove them.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

use serde::{Deserialize, Serialize};
use wlansec_core::wire::MacAddr;

use crate::{Error, Result};

/// The interface name inside every namespace.
pub const INTERFACE: &str = "wlan0";

/// One node (access point or station) of a topology, as `status --json` lists it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NodeAddrs {
    pub role: String,
    pub namespace: String,
    pub interface: String,
    pub mac: String,
    pub ipv4: String,
    pub ipv6: String,
}

/// The nodes of topology `name` with `stations` stations: the access point first.
/// Addresses: 10.77.0.0/24 and fd77::/64, used only inside these namespaces.
pub fn nodes(name: &str, stations: usize) -> Vec<NodeAddrs> {
    let node = |role: String, ns: String, host: u8| NodeAddrs {
        role,
        namespace: ns,
        interface: INTERFACE.into(),
        mac: MacAddr([0x02, 0x77, 0, 0, 0, host]).to_string(),
        ipv4: format!("10.77.0.{host}/24"),
        ipv6: format!("fd77::{host:x}/64"),
    };
    let mut out = vec![node("ap".into(), format!("{name}-ap"), 0xfe)];
    out.extend((1..=stations).map(|i| node(format!("sta{i}"), format!("{name}-sta{i}"), i as u8)));
    out
}

fn ip(args: &[&str]) -> Result<()> {
    let command = || format!("ip {}", args.join(" "));
    let out = Command::new("ip").args(args).output().map_err(|source| Error::Io { what: command(), source })?;
    if !out.status.success() {
        return Err(Error::Command { command: command(), stderr: String::from_utf8_lossy(&out.stderr).trim().into() });
    }
    Ok(())
}

pub fn create_namespace(ns: &str) -> Result<()> {
    ip(&["netns", "add", ns])?;
    ip(&["-n", ns, "link", "set", "lo", "up"])
}

/// Delete a namespace; a missing one is not an error.
pub fn delete_namespace(ns: &str) -> Result<()> {
    match ip(&["netns", "delete", ns]) {
        Err(_) if !namespace_exists(ns) => Ok(()),
        other => other,
    }
}

pub fn namespace_exists(ns: &str) -> bool {
    std::path::Path::new("/run/netns").join(ns).exists()
}

fn check(ret: libc::c_int, what: impl Into<String>) -> Result<()> {
    if ret < 0 {
        return Err(Error::last_os(what));
    }
    Ok(())
}

/// Open a TAP interface `INTERFACE` inside namespace `ns` (non-blocking, no packet info).
/// The descriptor stays valid in this process's own namespace.
pub fn open_tap(ns: &str) -> Result<OwnedFd> {
    let home = File::open("/proc/self/ns/net").map_err(Error::io("open /proc/self/ns/net"))?;
    let target = File::open(format!("/run/netns/{ns}")).map_err(Error::io(format!("namespace {ns}")))?;
    // SAFETY: `target` and `home` are namespace files open for the whole function; setns
    // moves only this thread, which opens the TAP and returns home before anything else.
    check(unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) }, format!("setns into {ns}"))?;
    let tap = open_tap_here();
    // SAFETY: `home` is the open file of this thread's own namespace, taken before it left.
    check(unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) }, format!("setns back from {ns}"))?;
    tap
}

/// Open a TAP interface `name` in the current namespace.
pub fn open_tap_named(name: &str) -> Result<OwnedFd> {
    open_tap_with(name)
}

fn open_tap_here() -> Result<OwnedFd> {
    open_tap_with(INTERFACE)
}

fn open_tap_with(name: &str) -> Result<OwnedFd> {
    const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
    #[repr(C)]
    struct IfReq {
        name: [u8; libc::IFNAMSIZ],
        flags: libc::c_short,
        _pad: [u8; 22],
    }
    if name.len() >= libc::IFNAMSIZ {
        return Err(Error::InterfaceName(name.into()));
    }
    // SAFETY: the path is a NUL-terminated C string literal (static), and the result is
    // checked before it is used.
    let fd = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
    check(fd, "open /dev/net/tun")?;
    // SAFETY: `check` refused a negative result, so `fd` is the fresh descriptor `open` just
    // returned, which nothing else owns or closes.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req =
        IfReq { name: [0; libc::IFNAMSIZ], flags: (libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short, _pad: [0; 22] };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: TUNSETIFF reads and writes one struct ifreq: `req` is a live IfReq with its
    // layout (a NUL-terminated name, since it is shorter than IFNAMSIZ, the flags, padding to
    // its 40 bytes), and `fd` is our open /dev/net/tun.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut req) }, format!("TUNSETIFF {name}"))?;
    Ok(fd)
}

/// Give an interface its MAC and addresses and bring it up (`ns` None: this namespace).
pub fn configure(ns: Option<&str>, interface: &str, node: &NodeAddrs) -> Result<()> {
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = Vec::new();
        if let Some(ns) = ns {
            all.extend(["-n", ns]);
        }
        all.extend(args);
        ip(&all)
    };
    run(&["link", "set", interface, "address", &node.mac])?;
    run(&["addr", "add", &node.ipv4, "dev", interface])?;
    run(&["-6", "addr", "add", &node.ipv6, "dev", interface, "nodad"])?;
    run(&["link", "set", interface, "up"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_addresses_are_distinct() {
        let n = nodes("wls", 3);
        assert_eq!(n.len(), 4);
        assert_eq!(n[0].namespace, "wls-ap");
        assert_eq!(n[3].namespace, "wls-sta3");
        for (i, a) in n.iter().enumerate() {
            for b in &n[i + 1..] {
                assert!(a.mac != b.mac && a.ipv4 != b.ipv4 && a.ipv6 != b.ipv6);
            }
        }
        assert_eq!(n[1].ipv6, "fd77::1/64");
        assert_eq!(n[0].mac.parse::<MacAddr>().unwrap(), MacAddr([2, 0x77, 0, 0, 0, 0xfe]));
    }
}
