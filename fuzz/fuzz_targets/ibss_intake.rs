//! The `ibss_intake` target; its body is `wlansec_fuzz::wlan_targets::ibss_intake`, which the corpus
//! replay test runs too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wlansec_fuzz::wlan_targets::ibss_intake(data));
