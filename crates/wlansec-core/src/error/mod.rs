//! One typed error for everything the engine can refuse. Each variant's message is a single
//! line naming the problem, so the CLI can print it verbatim.

use core::fmt;

mod attack;
mod capture;
mod handshake;

pub use attack::Attack;
pub use capture::CaptureError;
pub use handshake::{HandshakeError, Message};

/// Why a frame, key or request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The buffer ends before the structure it should hold.
    Truncated { what: &'static str, needed: usize, got: usize },
    /// A field holds a value the standard does not allow here.
    Malformed(&'static str),
    /// A well-formed frame of a kind this operation does not handle.
    Unsupported(&'static str),
    /// An AKM suite whose key hierarchy is not implemented (FILS, a vendor's, ...): its
    /// selector (OUI and type) and name, as `rsn::Akm` gives them.
    UnsupportedAkm { selector: [u8; 4], name: &'static str },
    /// A parameter outside the range the standard or this implementation allows.
    OutOfRange { what: &'static str, min: u64, max: u64, got: u64 },
    /// An output buffer is too small for the result.
    BufferTooSmall { needed: usize, got: usize },
    /// A WPA passphrase that is not 8 to 63 printable ASCII characters (IEEE 802.11-2016 J.4.1).
    Passphrase,
    /// A key of the wrong length for the cipher suite.
    KeyLength { expected: usize, got: usize },
    /// The frame is not marked Protected, so there is nothing to decrypt.
    NotProtected,
    /// The CCMP/GCMP header does not have its Ext IV bit set.
    ExtIvNotSet,
    /// The frame names a Key ID other than the one this key is installed under.
    KeyId { expected: u8, got: u8 },
    /// The integrity check (MIC) failed: wrong key, or the frame was altered.
    MicFailure,
    /// The WEP/TKIP ICV did not match: wrong key or a corrupted frame (not a Michael failure).
    IcvFailure,
    /// The packet number is not above the last one accepted for its replay counter.
    Replay { pn: u64, last: u64 },
    /// The 48-bit packet number space of this key is used up: rekey.
    PnExhausted,
    /// A protected frame for which no key is installed: a group-addressed frame's GTK, or
    /// the pairwise key of its link (its handshake was not seen or has not completed).
    NoKey { group: bool },
    /// A 4-way or group key handshake refused a message that does not fit its state or its
    /// rules (a bad MIC or replayed counter are `MicFailure` and `Replay`).
    Handshake(HandshakeError),
    /// A capture file is damaged or of a kind not read here.
    Capture(CaptureError),
    /// A frame that is what a published attack sends, refused by its defence.
    Attack(Attack),
}

pub type Result<T> = core::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { what, needed, got } => {
                write!(f, "truncated {what}: needs {needed} bytes, got {got}")
            }
            Error::Malformed(why) => write!(f, "malformed frame: {why}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::UnsupportedAkm { selector: [a, b, c, t], name } => {
                write!(f, "unsupported AKM suite {a:02X}-{b:02X}-{c:02X}:{t} ({name}): no key hierarchy for it")
            }
            Error::OutOfRange { what, min, max, got } => write!(f, "{what} {got} outside {min}..={max}"),
            Error::BufferTooSmall { needed, got } => {
                write!(f, "output buffer too small: needs {needed} bytes, got {got}")
            }
            Error::Passphrase => write!(f, "a WPA passphrase has 8 to 63 printable ASCII characters"),
            Error::KeyLength { expected, got } => {
                write!(f, "wrong key length: expected {expected} bytes, got {got}")
            }
            Error::NotProtected => write!(f, "frame is not protected (Protected bit clear)"),
            Error::ExtIvNotSet => write!(f, "Ext IV bit not set in the CCMP/GCMP header"),
            Error::KeyId { expected, got } => {
                write!(f, "no key installed for Key ID {got} (this key is Key ID {expected})")
            }
            Error::MicFailure => write!(f, "MIC verification failed (wrong key or tampered frame)"),
            Error::IcvFailure => write!(f, "ICV check failed (wrong key or corrupted frame)"),
            Error::Replay { pn, last } => {
                write!(f, "replayed frame: PN {pn} is not above the last accepted PN {last}")
            }
            Error::PnExhausted => write!(f, "packet number space exhausted: the key must be renewed"),
            Error::NoKey { group: true } => {
                write!(f, "no group key for this frame (message 3 or group message 1 not captured)")
            }
            Error::Handshake(e) => write!(f, "handshake: {e}"),
            Error::NoKey { group: false } => {
                write!(f, "no pairwise key for this frame (its 4-way handshake was not seen or not complete)")
            }
            Error::Capture(e) => write!(f, "capture file: {e}"),
            Error::Attack(a) => write!(f, "refused: {a}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<HandshakeError> for Error {
    fn from(e: HandshakeError) -> Self {
        Error::Handshake(e)
    }
}

impl From<Attack> for Error {
    fn from(a: Attack) -> Self {
        Error::Attack(a)
    }
}

impl From<CaptureError> for Error {
    fn from(e: CaptureError) -> Self {
        Error::Capture(e)
    }
}
