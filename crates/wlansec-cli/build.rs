//! `wlansec bench ccmp` compares against intel-ipsec-mb through a small C shim
//! (src/bench/ipsec_mb.c). It is compiled only where the library's header is installed
//! (Debian: libipsec-mb-dev), and then sets `cfg(ipsec_mb)`; elsewhere the bench says the
//! library is not installed. The library itself is loaded at run time.

use std::path::Path;

const SHIM: &str = "src/bench/ipsec_mb.c";
const HEADER: &str = "/usr/include/intel-ipsec-mb.h";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(ipsec_mb)");
    println!("cargo::rerun-if-changed={SHIM}");
    // Rebuild when the header appears or changes (installing the package after a build).
    println!("cargo::rerun-if-changed={}", if Path::new(HEADER).exists() { HEADER } else { "/usr/include" });
    let built = cc::Build::new().file(SHIM).warnings(true).extra_warnings(true).try_compile("wlansec_ipsec_mb");
    if built.is_ok() {
        println!("cargo::rustc-cfg=ipsec_mb");
    }
}
