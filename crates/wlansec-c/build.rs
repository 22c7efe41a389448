//! The shared library's SONAME (libwlansec.so.MAJOR), so programs linked against the
//! installed `libwlansec.so` symlink load the ABI they were built for.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libwlansec.so.{major}");
    }
}
