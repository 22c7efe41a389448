//! The committed C header is what cbindgen makes of the crate now: regenerate it and compare.
//! `WLANSEC_WRITE_HEADER=1 cargo test -p wlansec-c --test header` rewrites it.

use std::path::Path;

#[test]
fn committed_header_matches_the_rust_declarations() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen parses the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = crate_dir.join("include/wlansec.h");
    if std::env::var_os("WLANSEC_WRITE_HEADER").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write the header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: run `WLANSEC_WRITE_HEADER=1 cargo test -p wlansec-c --test header` and commit it",
        path.display()
    );
}
