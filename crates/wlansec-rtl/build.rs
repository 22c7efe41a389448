//! Verilates the access point's CCMP peripherals from hdl/rtl with Debian's `verilator --cc`
//! and compiles them, the Verilator runtime and src/shim.cpp with the system C++ compiler:
//! `ccmp_axi` (encapsulation), `ccmp_decap_axi` (decapsulation) and `ccmp_axi_mutant`
//! (ccmp_axi with one bit changed, MUTATION below: the tests see it break equality). Sets
//! `cfg(verilated)` when that worked; without verilator the crate builds and says so at
//! run time ([`Error::NotBuilt`]).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
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
    println!("cargo::rerun-if-changed={}", hdl.join("lint.vlt").display());
    println!("cargo::rerun-if-changed={SHIM}");
    println!("cargo::rerun-if-env-changed=PATH");
    let Some(root) = verilator_root() else {
        println!("cargo::warning=verilator not found: the RTL models are not built (apt install verilator)");
        return;
    };
    // The models are the same in every profile (clippy, test, release): built once per RTL,
    // shim and verilator, in the target directory beside the profiles.
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let target = out.ancestors().nth(4).unwrap_or(&out).to_path_buf();
    let models = target.join("verilated").join(format!("{:016x}", inputs_hash(&hdl, &manifest)));
    if !models.join(format!("lib{LIB}.a")).exists() {
        let building = models.with_extension(format!("building-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&building);
        build_models(&hdl, &root, &manifest.join(SHIM), &building);
        // Another build may have finished first: its models are the same.
        if std::fs::rename(&building, &models).is_err() {
            let _ = std::fs::remove_dir_all(&building);
        }
    }
    // Models of earlier inputs are not used again.
    let key = models.file_name().expect("a key").to_owned();
    for entry in std::fs::read_dir(target.join("verilated")).into_iter().flatten().flatten() {
        if entry.file_name() != key && !entry.file_name().to_string_lossy().contains("building") {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    println!("cargo::rustc-link-search=native={}", models.display());
    println!("cargo::rustc-link-lib=static={LIB}");
    println!("cargo::rustc-link-lib=dylib=stdc++");
    println!("cargo::rustc-cfg=verilated");
}

const SHIM: &str = "src/shim.cpp";
const LIB: &str = "wlansec_rtl_models";

/// Verilate every model into `dir` and compile them, the runtime and the shim into `LIB` there.
fn build_models(hdl: &Path, root: &Path, shim: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("the target directory is writable");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(3)
        .warnings(false)
        .cargo_metadata(false)
        .out_dir(dir)
        .include(root.join("include"))
        .include(root.join("include/vltstd"));
    for define in ["VM_COVERAGE", "VM_SC", "VM_TRACE", "VM_TRACE_FST", "VM_TRACE_VCD"] {
        build.define(define, "0");
    }
    build.flag_if_supported("-faligned-new").flag_if_supported("-fcf-protection=none");
    for (prefix, top, mutated) in MODELS {
        let rtl = if mutated { mutated_rtl(&hdl.join("rtl"), &dir.join("rtl-mutant")) } else { hdl.join("rtl") };
        let model = dir.join(prefix);
        let status = Command::new("verilator")
            .args(["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal", "--prefix", prefix])
            .args(["--top-module", top, "-Mdir"])
            .arg(&model)
            .arg(format!("-I{}", rtl.display()))
            .arg(hdl.join("lint.vlt"))
            .arg(rtl.join(format!("{top}.v")))
            .status()
            .expect("verilator runs");
        assert!(status.success(), "verilator --cc {top} ({prefix}) failed");
        build.include(&model);
        for entry in std::fs::read_dir(&model).expect("verilator's output") {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == "cpp") {
                build.file(path);
            }
        }
    }
    for runtime in ["verilated.cpp", "verilated_threads.cpp"] {
        build.file(root.join("include").join(runtime));
    }
    build.file(shim).compile(LIB);
}

/// What the models are built from: the RTL, the lint waivers, the shim, this script (its
/// flags and the mutation) and the verilator that runs.
fn inputs_hash(hdl: &Path, manifest: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(hdl.join("rtl")).expect("hdl/rtl").map(|e| e.expect("a directory entry").path()).collect();
    files.sort();
    files.extend([hdl.join("lint.vlt"), manifest.join(SHIM), manifest.join("build.rs")]);
    for file in files {
        file.file_name().hash(&mut hasher);
        std::fs::read(&file).expect("an input of the models").hash(&mut hasher);
    }
    let version = Command::new("verilator").arg("--version").output().expect("verilator runs").stdout;
    version.hash(&mut hasher);
    hasher.finish()
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
