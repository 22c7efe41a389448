//! Running a target's body over every file of its committed corpus, for the crates' tests.

use std::path::Path;

use crate::input::Target;

/// Run each target over every file of `fuzz/corpus/<name>/`; a target without a corpus, or
/// with an empty one, fails (a corpus lost on the way would otherwise pass silently).
pub fn replay_all(targets: &[Target]) {
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (name, body) in targets {
        let dir = corpora.join(name);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut inputs = 0;
        for entry in entries {
            let path = entry.expect("a readable corpus directory").path();
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // Name the input before running it, so a panic says which one.
            eprintln!("{name}: {}", path.display());
            body(&data);
            inputs += 1;
        }
        assert!(inputs > 0, "{}: empty corpus", dir.display());
    }
}
