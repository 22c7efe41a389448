//! `wlansec bench ccmp` compares against intel-ipsec-mb through a small C shim
//! (src/bench/ipsec_mb.c). It is compiled only where the library's header is installed
//! (Debian: libipsec-mb-dev), and then sets `cfg(ipsec_mb)`; elsewhere the bench says the
//! library is not installed. The library itself is loaded at run time.
//!
//! It also records the commit the binary is built from (`WLANSEC_COMMIT`, "-dirty" when
//! the Rust sources differed from it), which `--version` and the benches' JSON report: every
//! figure names the code it measured.

use std::path::Path;
use std::process::Command;

const SHIM: &str = "src/bench/ipsec_mb.c";
const HEADER: &str = "/usr/include/intel-ipsec-mb.h";

fn main() {
    record_commit();
    println!("cargo::rustc-check-cfg=cfg(ipsec_mb)");
    println!("cargo::rerun-if-changed={SHIM}");
    // Rebuild when the header appears or changes (installing the package after a build).
    println!("cargo::rerun-if-changed={}", if Path::new(HEADER).exists() { HEADER } else { "/usr/include" });
    let built = cc::Build::new().file(SHIM).warnings(true).extra_warnings(true).try_compile("wlansec_ipsec_mb");
    if built.is_ok() {
        println!("cargo::rustc-cfg=ipsec_mb");
    }
}

/// `WLANSEC_COMMIT`: HEAD's short hash, "-dirty" if a tracked file of the crates or the
/// workspace's manifest differs from it, or "unknown" outside a git checkout. Runs again
/// when HEAD moves or any of those files changes.
fn record_commit() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) => {
            let status: Vec<&str> =
                ["status", "--porcelain", "--untracked-files=no", "--"].into_iter().chain(SOURCES).collect();
            let dirty = git(&status).is_none_or(|changes| !changes.is_empty());
            format!("{hash}{}", if dirty { "-dirty" } else { "" })
        }
        None => "unknown".to_string(),
    };
    println!("cargo::rustc-env=WLANSEC_COMMIT={commit}");
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        // Only paths that exist: cargo runs the script again every build for a missing one.
        for path in ["HEAD", "refs/heads", "packed-refs"].map(|path| format!("{git_dir}/{path}")) {
            if Path::new(&path).exists() {
                println!("cargo::rerun-if-changed={path}");
            }
        }
    }
    for path in SOURCES {
        println!("cargo::rerun-if-changed={path}");
    }
}

/// What the binary is built from, relative to this crate: every crate and the workspace's
/// manifest and lock file.
const SOURCES: [&str; 3] = ["..", "../../Cargo.toml", "../../Cargo.lock"];
