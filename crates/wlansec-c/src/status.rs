//! The status every call returns, and its message.

use core::ffi::{c_char, c_int};

use wlansec_core::Error;

/// What a call did: `WLANSEC_OK`, or why it refused or failed. A refused call changed
/// nothing the caller can see, except where its description says otherwise.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum wlansec_status {
    /// Success.
    WLANSEC_OK = 0,
    /// A pointer the call needs was null (a buffer pointer may be null only with length 0).
    WLANSEC_ERR_NULL_POINTER = 1,
    /// An argument outside its range: unknown suite, N of Enhanced CCMP-N, nonce or MIC
    /// length, PN wider than 48 bits, Key ID above 3, unknown burst operation.
    WLANSEC_ERR_INVALID_ARGUMENT = 2,
    /// The temporal key has the wrong length for the suite.
    WLANSEC_ERR_KEY_LENGTH = 3,
    /// The buffer has no room for the suite's overhead.
    WLANSEC_ERR_BUFFER_TOO_SMALL = 4,
    /// The frame is not a well-formed protected (or protectable) MPDU.
    WLANSEC_ERR_MALFORMED_FRAME = 5,
    /// Well-formed but beyond what this suite or path takes (e.g. AAD length, payload
    /// longer than CCMP's length field, a burst job whose key is not CCMP-128 or Enhanced
    /// CCMP-N).
    WLANSEC_ERR_UNSUPPORTED = 6,
    /// The MIC did not verify: wrong key or tampered frame. The data is left as it came.
    WLANSEC_ERR_MIC_FAILURE = 7,
    /// A burst queue or an engine ring is full: poll completions before submitting more.
    WLANSEC_ERR_QUEUE_FULL = 8,
    /// An internal error (a bug in libwlansec): the call was abandoned; the buffers it was
    /// given may hold partial results.
    WLANSEC_ERR_PANIC = 9,
    /// The per-core engine refused a received frame whose PN is not above the last one
    /// accepted for its station and TID (a replay).
    WLANSEC_ERR_REPLAY = 10,
    /// The per-core engine has no key for the packet's station.
    WLANSEC_ERR_NO_KEY = 11,
}

use wlansec_status::*;

impl From<Error> for wlansec_status {
    fn from(error: Error) -> Self {
        match error {
            Error::KeyLength { .. } => WLANSEC_ERR_KEY_LENGTH,
            Error::BufferTooSmall { .. } => WLANSEC_ERR_BUFFER_TOO_SMALL,
            Error::MicFailure | Error::IcvFailure => WLANSEC_ERR_MIC_FAILURE,
            Error::Truncated { .. }
            | Error::Malformed(_)
            | Error::NotProtected
            | Error::ExtIvNotSet
            | Error::KeyId { .. } => WLANSEC_ERR_MALFORMED_FRAME,
            Error::OutOfRange { .. } => WLANSEC_ERR_INVALID_ARGUMENT,
            Error::Replay { .. } => WLANSEC_ERR_REPLAY,
            Error::NoKey { .. } => WLANSEC_ERR_NO_KEY,
            _ => WLANSEC_ERR_UNSUPPORTED,
        }
    }
}

impl wlansec_status {
    fn message(self) -> &'static core::ffi::CStr {
        match self {
            WLANSEC_OK => c"success",
            WLANSEC_ERR_NULL_POINTER => c"a required pointer was null",
            WLANSEC_ERR_INVALID_ARGUMENT => c"an argument is outside its range",
            WLANSEC_ERR_KEY_LENGTH => c"wrong temporal key length for the suite",
            WLANSEC_ERR_BUFFER_TOO_SMALL => c"buffer too small for the protected frame",
            WLANSEC_ERR_MALFORMED_FRAME => c"malformed or truncated frame",
            WLANSEC_ERR_UNSUPPORTED => c"not supported by this suite or path",
            WLANSEC_ERR_MIC_FAILURE => c"MIC verification failed (wrong key or tampered frame)",
            WLANSEC_ERR_QUEUE_FULL => c"queue full: poll completions first",
            WLANSEC_ERR_PANIC => c"internal error in libwlansec",
            WLANSEC_ERR_REPLAY => c"replayed frame: PN not above the last one accepted",
            WLANSEC_ERR_NO_KEY => c"no key for the packet's station",
        }
    }

    const ALL: [wlansec_status; 12] = [
        WLANSEC_OK,
        WLANSEC_ERR_NULL_POINTER,
        WLANSEC_ERR_INVALID_ARGUMENT,
        WLANSEC_ERR_KEY_LENGTH,
        WLANSEC_ERR_BUFFER_TOO_SMALL,
        WLANSEC_ERR_MALFORMED_FRAME,
        WLANSEC_ERR_UNSUPPORTED,
        WLANSEC_ERR_MIC_FAILURE,
        WLANSEC_ERR_QUEUE_FULL,
        WLANSEC_ERR_PANIC,
        WLANSEC_ERR_REPLAY,
        WLANSEC_ERR_NO_KEY,
    ];
}

/// A one-line English message for a status code: a static string the caller must not free.
/// Any integer is accepted; one that is no status gives "unknown status".
#[no_mangle]
pub extern "C" fn wlansec_status_message(status: c_int) -> *const c_char {
    wlansec_status::ALL
        .into_iter()
        .find(|s| *s as c_int == status)
        .map_or(c"unknown status", wlansec_status::message)
        .as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_own_message_and_unknown_codes_have_one_too() {
        let message = |code: c_int| {
            // SAFETY: `wlansec_status_message` returns a static NUL-terminated string.
            unsafe { core::ffi::CStr::from_ptr(wlansec_status_message(code)) }.to_str().unwrap()
        };
        let messages: std::collections::HashSet<_> = wlansec_status::ALL.map(|s| message(s as c_int)).into();
        assert_eq!(messages.len(), wlansec_status::ALL.len());
        assert_eq!(message(-1), "unknown status");
        assert_eq!(message(wlansec_status::ALL.len() as c_int), "unknown status");
    }
}
