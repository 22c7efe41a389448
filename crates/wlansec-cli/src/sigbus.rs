//! A mapped input that another process truncates while it is read raises SIGBUS on the
//! first page past its new end. Reading the file instead of mapping it would avoid that but
//! costs a quarter of `decrypt`'s throughput (measured: 467 vs 638 MB per CPU-second), so the
//! map stays and SIGBUS is handled: one line on stderr naming the input, the unfinished
//! output's temporary file removed, exit status 1. The handler uses only async-signal-safe
//! calls (write, unlink, _exit) on text prepared before the map is read.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();
static TEMPORARY: OnceLock<CString> = OnceLock::new();

extern "C" fn on_sigbus(_: libc::c_int) {
    if let Some(message) = MESSAGE.get() {
        // SAFETY: write(2) on stderr from a preformatted buffer: async-signal-safe.
        unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
    }
    if let Some(path) = TEMPORARY.get() {
        // SAFETY: unlink(2) of a prepared C string: async-signal-safe.
        unsafe { libc::unlink(path.as_ptr()) };
    }
    // SAFETY: _exit(2) ends the process without running anything else: async-signal-safe.
    unsafe { libc::_exit(1) };
}

/// From now on, a SIGBUS (the mapped `input` shrank) ends the process cleanly, removing
/// `temporary` (the output being written). Called once, before the map is read.
pub fn guard(input: &Path, temporary: &Path) {
    let message = format!(
        "wlansec: error: {}: the file shrank while it was being read (another process truncated it)\n",
        input.display()
    );
    let _ = MESSAGE.set(message.into_bytes());
    if let Ok(path) = CString::new(temporary.as_os_str().as_bytes()) {
        let _ = TEMPORARY.set(path);
    }
    // SAFETY: installing a handler that only makes async-signal-safe calls.
    unsafe { libc::signal(libc::SIGBUS, on_sigbus as extern "C" fn(libc::c_int) as *const () as libc::sighandler_t) };
}
