//! The `rx_pipeline` target; its body is `wlansec_fuzz::core_targets::rx_pipeline`, which the corpus
//! replay test runs too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wlansec_fuzz::core_targets::rx_pipeline(data));
