//! Simultaneous Authentication of Equals (IEEE 802.11-2020 12.4), the WPA3-Personal
//! password authentication, as sans-IO state machines: [`Instance`] is one protocol instance
//! (a station's, or one peer's at an access point) and [`Responder`] the access point's
//! parent process over many peers, with anti-clogging tokens and the PMKSA cache. Each takes
//! Authentication frame bodies and answers with [`SaeEvent`]s; neither touches a clock or a
//! socket.
//!
//! * [`group`]: groups 19, 20 and 21 on RustCrypto's P-256, P-384 and P-521.
//! * [`pwe`]: the password element by hunting-and-pecking (constant time: 40 iterations,
//!   blinded residue test) or by hash-to-element (simplified SWU, RFC 9380 6.6.2).
//! * [`keys`]: keyseed, KCK, PMK, PMKID and the confirm function.
//! * [`message`]: commit and confirm frames, parsed and emitted.
//!
//! The Dragonblood defences (CVE-2019-9494..9499 class) are each in one place: peer scalars
//! outside 1 < s < r and elements off the curve are refused ([`group`]); a commit equal to
//! our own is dropped as a reflection ([`Instance`]); a wrong confirm changes nothing; the
//! open commits past a threshold must carry an anti-clogging token ([`clogging`]);
//! hunting-and-pecking's work does not depend on the password ([`pwe`]); a Rejected Groups
//! list naming an offered group is refused as a downgrade ([`Responder`]).

pub mod clogging;
pub mod group;
mod instance;
pub mod keys;
pub mod message;
pub mod pmksa;
pub mod pwe;
mod responder;

#[cfg(test)]
mod tests;

use core::fmt;

pub use clogging::AntiClogging;
pub use group::Group;
pub use instance::{Instance, Role, SaeEvent};
pub use keys::SaeKeys;
pub use message::{AuthFrame, CommitRepr, ConfirmRepr, SaeMessage};
pub use pmksa::{PmksaCache, PmksaEntry};
pub use pwe::{LoopCost, Password, PasswordElement, PasswordToken, PweMethod, HUNTING_AND_PECKING_ITERATIONS};
pub use responder::{Responder, ResponderConfig};

/// A status code of an Authentication frame (9.4.1.9, Table 9-50): the ones SAE uses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct StatusCode(pub u16);

impl StatusCode {
    pub const SUCCESS: StatusCode = StatusCode(0);
    pub const REFUSED_REASON_UNSPECIFIED: StatusCode = StatusCode(1);
    /// Authentication rejected because of challenge failure: a confirm that does not verify.
    pub const CHALLENGE_FAILURE: StatusCode = StatusCode(15);
    pub const ANTI_CLOGGING_TOKEN_REQUIRED: StatusCode = StatusCode(76);
    pub const UNSUPPORTED_FINITE_CYCLIC_GROUP: StatusCode = StatusCode(77);
    pub const UNKNOWN_PASSWORD_IDENTIFIER: StatusCode = StatusCode(123);
    /// A commit whose password element is by hash-to-element.
    pub const SAE_HASH_TO_ELEMENT: StatusCode = StatusCode(126);
    pub const SAE_PK: StatusCode = StatusCode(127);
}

/// Why an SAE frame or request was refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum SaeError {
    /// The frame ends before the field it should hold.
    Truncated { what: &'static str, needed: usize, got: usize },
    /// A field holds a value the standard does not allow.
    Malformed(&'static str),
    /// A Finite Cyclic Group not offered here.
    UnsupportedGroup(u16),
    /// A peer commit-scalar outside 1 < scalar < r.
    ScalarOutOfRange,
    /// A peer COMMIT-ELEMENT with a coordinate not below p or not on the curve.
    InvalidElement,
    /// The peer's commit is our own sent back (a reflection attack).
    Reflection,
    /// K came out as the point at infinity.
    SharedSecretAtInfinity,
    /// The peer's confirm does not verify.
    ConfirmMismatch,
    /// A message this instance does not take in its state.
    Unexpected(&'static str),
    /// A commit by hash-to-element where hunting-and-pecking is used, or the other way round.
    PweMethodMismatch,
    /// A password identifier other than the configured one (or none where one is needed).
    UnknownPasswordIdentifier,
    /// Past the threshold of open commits a commit must carry a valid anti-clogging token.
    TokenRequired,
    /// No password element could be derived (hunting-and-pecking found none; PT at infinity).
    NoPasswordElement,
    /// A hash-to-element commit names as rejected a group this side offers: someone refused
    /// the stronger group in our name (a downgrade).
    RejectedGroupOffered(u16),
    /// A password identifier longer than an element can carry (253 octets).
    IdentifierTooLong,
    /// The peer refused our message with this status.
    Refused(StatusCode),
}

impl SaeError {
    /// The status to answer the peer's frame with; `None`: drop the frame silently.
    pub fn status(self) -> Option<StatusCode> {
        match self {
            SaeError::UnsupportedGroup(_) => Some(StatusCode::UNSUPPORTED_FINITE_CYCLIC_GROUP),
            SaeError::UnknownPasswordIdentifier => Some(StatusCode::UNKNOWN_PASSWORD_IDENTIFIER),
            SaeError::TokenRequired => Some(StatusCode::ANTI_CLOGGING_TOKEN_REQUIRED),
            SaeError::ConfirmMismatch => Some(StatusCode::CHALLENGE_FAILURE),
            SaeError::Reflection | SaeError::Unexpected(_) | SaeError::Refused(_) => None,
            _ => Some(StatusCode::REFUSED_REASON_UNSPECIFIED),
        }
    }
}

impl fmt::Display for SaeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaeError::Truncated { what, needed, got } => write!(f, "truncated {what}: needs {needed} bytes, got {got}"),
            SaeError::Malformed(why) => write!(f, "malformed SAE frame: {why}"),
            SaeError::UnsupportedGroup(g) => write!(f, "finite cyclic group {g} not supported"),
            SaeError::ScalarOutOfRange => write!(f, "peer commit-scalar outside 1 < scalar < r"),
            SaeError::InvalidElement => write!(f, "peer commit-element is not a point of the group"),
            SaeError::Reflection => write!(f, "peer commit equals our own (reflection)"),
            SaeError::SharedSecretAtInfinity => write!(f, "shared secret K is the point at infinity"),
            SaeError::ConfirmMismatch => write!(f, "peer confirm does not verify"),
            SaeError::Unexpected(what) => write!(f, "unexpected {what}"),
            SaeError::PweMethodMismatch => write!(f, "peer uses the other password element method"),
            SaeError::UnknownPasswordIdentifier => write!(f, "unknown password identifier"),
            SaeError::TokenRequired => write!(f, "anti-clogging token required"),
            SaeError::NoPasswordElement => write!(f, "no password element could be derived"),
            SaeError::RejectedGroupOffered(g) => write!(f, "peer says group {g} was rejected, but it is offered here"),
            SaeError::IdentifierTooLong => write!(f, "password identifier longer than 253 octets"),
            SaeError::Refused(s) => write!(f, "peer refused with status {}", s.0),
        }
    }
}

impl std::error::Error for SaeError {}
