//! Replays the committed corpus of the wlansec-wlan fuzz targets (see
//! crates/wlansec-core/tests/fuzz_corpus.rs).

#[path = "../../../fuzz/src/input.rs"]
mod input;
#[path = "../../../fuzz/src/replay.rs"]
mod replay;
#[path = "../../../fuzz/src/wlan_targets.rs"]
mod wlan_targets;

#[test]
fn every_wlan_target_survives_its_corpus() {
    replay::replay_all(wlan_targets::TARGETS);
}
