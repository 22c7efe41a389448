//! Replays the committed fuzz corpora (fuzz/corpus/<target>/) through the fuzz targets'
//! bodies, without libFuzzer: every input that once reached new code, and every crash kept
//! as a regression, runs on each `cargo test`.

#[path = "../../../fuzz/src/core_targets.rs"]
mod core_targets;
#[path = "../../../fuzz/src/input.rs"]
mod input;
#[path = "../../../fuzz/src/replay.rs"]
mod replay;

#[test]
fn every_core_target_survives_its_corpus() {
    replay::replay_all(core_targets::TARGETS);
}
