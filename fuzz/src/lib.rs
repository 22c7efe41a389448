//! The bodies of the fuzz targets, shared by the cargo-fuzz binaries (fuzz_targets/) and the
//! corpus replay tests of the crates (crates/*/tests/fuzz_corpus.rs), which include these
//! modules by path so that `cargo test` replays every committed input without libFuzzer.

pub mod core_targets;
pub mod input;
pub mod wlan_targets;
