//! Verilates the access point's CCMP peripherals from hdl/rtl with Debian's `verilator --cc`
//! and compiles them, the Verilator runtime and src/shim.cpp with the system C++ compiler:
//! `ccmp_axi` (encapsulation), `ccmp_decap_axi` (decapsulation) and `ccmp_axi_mutant`
//! (ccmp_axi with one bit changed, MUTATION below: the tests see it break equality). Sets
//! `cfg(verilated)` when that worked; without verilator the crate builds and says so at
//! run time ([`Error::NotBuilt`]).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The models: Verilator prefix (the C++ class), top module, and whether the mutation applies.
const MODELS: [(&str, &str, bool); 3] = [
    ("Vccmp_axi", "ccmp_axi", false),
    ("Vccmp_decap_axi", "ccmp_decap_axi", false),
    ("Vccmp_axi_mutant", "ccmp_axi", true),
];
/// One bit of the design: ccmp_axi sets the Protected bit of every frame it sends; the mutant
/// leaves it clear.
const MUTATION: (&str, &str, &str) =
    ("ccmp_axi.v", "{9'h0, 1'b1, 118'h0};  // Protected", "{9'h0, 1'b0, 118'h0};  // Protected");

fn main() {
    println!("cargo::rustc-check-cfg=cfg(verilated)");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let hdl = manifest.join("../../hdl");
    println!("cargo::rerun-if-changed={}", hdl.join("rtl").display());
    println!("cargo::rerun-if-changed=src/shim.cpp");
    println!("cargo::rerun-if-env-changed=PATH");
    let Some(root) = verilator_root() else {
        println!("cargo::warning=verilator not found: the RTL models are not built (apt install verilator)");
        return;
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(3)
        .warnings(false)
        .include(root.join("include"))
        .include(root.join("include/vltstd"));
    for define in ["VM_COVERAGE", "VM_SC", "VM_TRACE", "VM_TRACE_FST", "VM_TRACE_VCD"] {
        build.define(define, "0");
    }
    build.flag_if_supported("-faligned-new").flag_if_supported("-fcf-protection=none");
    for (prefix, top, mutated) in MODELS {
        let rtl = if mutated { mutated_rtl(&hdl.join("rtl"), &out.join("rtl-mutant")) } else { hdl.join("rtl") };
        let dir = out.join(prefix);
        let status = Command::new("verilator")
            .args(["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal", "--prefix", prefix])
            .args(["--top-module", top, "-Mdir"])
            .arg(&dir)
            .arg(format!("-I{}", rtl.display()))
            .arg(hdl.join("lint.vlt"))
            .arg(rtl.join(format!("{top}.v")))
            .status()
            .expect("verilator runs");
        assert!(status.success(), "verilator --cc {top} ({prefix}) failed");
        build.include(&dir);
        for entry in std::fs::read_dir(&dir).expect("verilator's output") {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == "cpp") {
                build.file(path);
            }
        }
    }
    for runtime in ["verilated.cpp", "verilated_threads.cpp"] {
        build.file(root.join("include").join(runtime));
    }
    build.file("src/shim.cpp").compile("wlansec_rtl_models");
    println!("cargo::rustc-cfg=verilated");
}

/// VERILATOR_ROOT as the installed verilator reports it, when it runs.
fn verilator_root() -> Option<PathBuf> {
    let out = Command::new("verilator").args(["--getenv", "VERILATOR_ROOT"]).output().ok()?;
    let root = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && root.join("include/verilated.cpp").exists()).then_some(root)
}

/// A copy of `rtl` in `to` with MUTATION applied (it must match exactly once).
fn mutated_rtl(rtl: &Path, to: &Path) -> PathBuf {
    std::fs::create_dir_all(to).expect("OUT_DIR is writable");
    for entry in std::fs::read_dir(rtl).expect("hdl/rtl") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().expect("a file name").to_string_lossy().into_owned();
        let mut text = std::fs::read_to_string(&path).expect("RTL source");
        if name == MUTATION.0 {
            assert_eq!(text.matches(MUTATION.1).count(), 1, "the mutation's line is no longer in {name}");
            text = text.replace(MUTATION.1, MUTATION.2);
        }
        std::fs::write(to.join(&name), text).expect("OUT_DIR is writable");
    }
    to.to_path_buf()
}
