//! The `bip` target; its body is `wlansec_fuzz::core_targets::bip`, which the corpus
//! replay test runs too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wlansec_fuzz::core_targets::bip(data));
