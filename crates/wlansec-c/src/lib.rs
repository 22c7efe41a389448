//! libwlansec: the wlansec suites and the multi-buffer engine behind a C ABI.
//!
//! * [`key`]: key handles (CCMP-128/256, GCMP-128/256, Enhanced CCMP-N) and one frame at a
//!   time: a whole MPDU protected in place with the MIC appended, or CCM/GCM over data the
//!   caller framed, with a detached MIC.
//! * [`burst`]: many frames per call through the multi-buffer engine, at once or queued
//!   (submit, flush, poll), on the calling thread.
//! * [`percore`]: the per-core engine: whole MPDUs of many stations submitted to one worker
//!   thread per core, which keeps each station's key, PNs and replay counters; completions
//!   polled.
//! * [`status`]: the status codes and their messages.
//!
//! The header `include/wlansec.h` is generated from this crate by cbindgen with
//! `cbindgen.toml` (`tests/header.rs` regenerates it and fails when the committed one
//! differs). Every exported function checks its pointers and lengths before reading
//! through them and runs its body under `catch_unwind`, so bad input gives a status code
//! and a panic never unwinds into C.

#![allow(non_camel_case_types)]

#[cfg(test)]
mod abi_tests;
pub mod burst;
pub mod key;
pub mod percore;
pub mod status;

pub use burst::{wlansec_burst, wlansec_job};
pub use key::wlansec_key;
pub use status::wlansec_status;

use core::slice;

use status::wlansec_status::*;

// What the header promises, checked by the compiler: a key may be shared by threads, an
// engine and a packet may move between them, and the ciphers of the key handles erase their
// key schedules when dropped (the engine's `Key` does so in its `Drop`).
const _: () = {
    const fn shared<T: Send + Sync>() {}
    const fn movable<T: Send>() {}
    const fn erased_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    shared::<wlansec_key>();
    movable::<percore::wlansec_engine>();
    movable::<percore::wlansec_packet>();
    erased_on_drop::<aes::Aes128>();
    erased_on_drop::<aes::Aes256>();
    erased_on_drop::<aes_gcm::Aes128Gcm>();
    erased_on_drop::<aes_gcm::Aes256Gcm>();
};

/// `len` octets at `ptr`, which may be null only when `len` is 0.
///
/// # Safety
/// Unless null, `ptr` points to `len` octets readable for `'a` that nothing writes during `'a`.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], wlansec_status> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(WLANSEC_ERR_NULL_POINTER);
    }
    if len > isize::MAX as usize {
        return Err(WLANSEC_ERR_INVALID_ARGUMENT);
    }
    // SAFETY: non-null, at most isize::MAX octets, readable and unaliased by the caller's contract.
    Ok(unsafe { slice::from_raw_parts(ptr, len) })
}

/// `bytes` for writing.
///
/// # Safety
/// Unless null, `ptr` points to `len` octets writable for `'a` that nothing else reads or
/// writes during `'a`.
unsafe fn bytes_mut<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [u8], wlansec_status> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(WLANSEC_ERR_NULL_POINTER);
    }
    if len > isize::MAX as usize {
        return Err(WLANSEC_ERR_INVALID_ARGUMENT);
    }
    // SAFETY: non-null, at most isize::MAX octets, writable and exclusive by the caller's contract.
    Ok(unsafe { slice::from_raw_parts_mut(ptr, len) })
}

/// Store `value` through an optional out-pointer.
///
/// # Safety
/// Unless null, `out` is valid for a write of `T`.
unsafe fn put<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-null and valid for a write by the caller's contract.
        unsafe { out.write(value) };
    }
}

/// Run an exported function's body: its status, or `WLANSEC_ERR_PANIC` if it panicked
/// (unwinding into C is undefined behaviour).
fn guard(body: impl FnOnce() -> Result<(), wlansec_status>) -> wlansec_status {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(())) => WLANSEC_OK,
        Ok(Err(status)) => status,
        Err(_) => WLANSEC_ERR_PANIC,
    }
}
