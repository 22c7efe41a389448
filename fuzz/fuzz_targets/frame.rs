//! The `frame` target; its body is `wlansec_fuzz::core_targets::frame`, which the corpus
//! replay test runs too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wlansec_fuzz::core_targets::frame(data));
