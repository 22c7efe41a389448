//! SAE Authentication frames (IEEE 802.11-2020 9.3.3.12, 9.4.1.x, Table 9-41): a zero-copy
//! view of the frame body ([`AuthFrame`]) and the parsed commit and confirm messages
//! ([`CommitRepr`], [`ConfirmRepr`]) with their emitters. Parsing never panics: every length
//! is checked before it is read.

use super::group::Group;
use super::{SaeError, StatusCode};

/// Authentication Algorithm Number of SAE.
pub const ALGORITHM_SAE: u16 = 3;
/// Authentication Transaction Sequence Number of a commit and of a confirm.
pub const TRANSACTION_COMMIT: u16 = 1;
pub const TRANSACTION_CONFIRM: u16 = 2;

const ELEMENT_EXTENSION: u8 = 255;
const EXT_PASSWORD_IDENTIFIER: u8 = 33;
const EXT_REJECTED_GROUPS: u8 = 92;
const EXT_ANTI_CLOGGING_TOKEN: u8 = 93;
/// A token shorter than this in a hunting-and-pecking commit is read as elements instead
/// (the peer's tokens are one HMAC-SHA256 long).
const MIN_TOKEN_LEN: usize = 32;

/// The body of an Authentication frame: algorithm, transaction sequence number, status
/// code, then the algorithm's fields.
#[derive(Debug, Clone)]
pub struct AuthFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> AuthFrame<T> {
    pub const HEADER_LEN: usize = 6;

    pub fn new_unchecked(buffer: T) -> Self {
        AuthFrame { buffer }
    }

    pub fn new_checked(buffer: T) -> Result<Self, SaeError> {
        let got = buffer.as_ref().len();
        if got < Self::HEADER_LEN {
            return Err(SaeError::Truncated { what: "Authentication frame", needed: Self::HEADER_LEN, got });
        }
        Ok(AuthFrame { buffer })
    }

    fn u16_at(&self, at: usize) -> u16 {
        let b = self.buffer.as_ref();
        u16::from_le_bytes([b[at], b[at + 1]])
    }

    pub fn algorithm(&self) -> u16 {
        self.u16_at(0)
    }

    pub fn transaction(&self) -> u16 {
        self.u16_at(2)
    }

    pub fn status(&self) -> StatusCode {
        StatusCode(self.u16_at(4))
    }

    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[Self::HEADER_LEN..]
    }
}

/// A commit message (12.4.7.4): the group, in hunting-and-pecking an optional anti-clogging
/// token before the scalar, the scalar and element, then the optional Password Identifier,
/// Rejected Groups and (hash-to-element) Anti-Clogging Token Container elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitRepr<'a> {
    pub group: Group,
    /// Sent with status SAE_HASH_TO_ELEMENT (the password element is by hash-to-element).
    pub h2e: bool,
    pub token: Option<&'a [u8]>,
    pub scalar: &'a [u8],
    pub element: &'a [u8],
    pub password_identifier: Option<&'a [u8]>,
    pub rejected_groups: Option<&'a [u8]>,
}

/// A confirm message (12.4.7.5): send-confirm and the confirm value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmRepr<'a> {
    pub send_confirm: u16,
    pub confirm: &'a [u8],
}

/// What an SAE Authentication frame says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaeMessage<'a> {
    Commit(CommitRepr<'a>),
    Confirm(ConfirmRepr<'a>),
    /// Status ANTI_CLOGGING_TOKEN_REQUIRED: resend the commit with this token.
    TokenRequired {
        group: u16,
        token: &'a [u8],
    },
    /// Any other status: the peer refused (`transaction` says which message).
    Refused {
        transaction: u16,
        status: StatusCode,
    },
}

impl<'a> SaeMessage<'a> {
    /// Parse an SAE Authentication frame body.
    pub fn parse(frame: &'a [u8]) -> Result<SaeMessage<'a>, SaeError> {
        let frame = AuthFrame::new_checked(frame)?;
        if frame.algorithm() != ALGORITHM_SAE {
            return Err(SaeError::Malformed("authentication algorithm is not SAE"));
        }
        let (transaction, status) = (frame.transaction(), frame.status());
        let payload = &frame.buffer[AuthFrame::<&[u8]>::HEADER_LEN..];
        match (transaction, status) {
            (TRANSACTION_COMMIT, StatusCode::SUCCESS) => CommitRepr::parse(payload, false).map(SaeMessage::Commit),
            (TRANSACTION_COMMIT, StatusCode::SAE_HASH_TO_ELEMENT) => {
                CommitRepr::parse(payload, true).map(SaeMessage::Commit)
            }
            (TRANSACTION_COMMIT, StatusCode::ANTI_CLOGGING_TOKEN_REQUIRED) => {
                let group = le16(payload, "token request")?;
                let rest = &payload[2..];
                // In hash-to-element the token comes in its container element, the only
                // thing after the group; otherwise the rest is the token itself.
                let token = match rest {
                    [ELEMENT_EXTENSION, len, EXT_ANTI_CLOGGING_TOKEN, token @ ..]
                        if usize::from(*len) == token.len() + 1 =>
                    {
                        token
                    }
                    _ => rest,
                };
                Ok(SaeMessage::TokenRequired { group, token })
            }
            (TRANSACTION_CONFIRM, StatusCode::SUCCESS) => {
                let send_confirm = le16(payload, "confirm")?;
                Ok(SaeMessage::Confirm(ConfirmRepr { send_confirm, confirm: &payload[2..] }))
            }
            (TRANSACTION_COMMIT | TRANSACTION_CONFIRM, status) => Ok(SaeMessage::Refused { transaction, status }),
            _ => Err(SaeError::Malformed("authentication transaction sequence number is not 1 or 2")),
        }
    }
}

fn le16(payload: &[u8], what: &'static str) -> Result<u16, SaeError> {
    match payload {
        [a, b, ..] => Ok(u16::from_le_bytes([*a, *b])),
        _ => Err(SaeError::Truncated { what, needed: 2, got: payload.len() }),
    }
}

#[derive(Default)]
struct Elements<'a> {
    password_identifier: Option<&'a [u8]>,
    rejected_groups: Option<&'a [u8]>,
    token: Option<&'a [u8]>,
}

/// The elements after the scalar and element; other elements are skipped.
fn parse_elements(mut rest: &[u8]) -> Result<Elements<'_>, SaeError> {
    let mut out = Elements::default();
    while !rest.is_empty() {
        let [id, len, tail @ ..] = rest else {
            return Err(SaeError::Truncated { what: "element header", needed: 2, got: rest.len() });
        };
        let len = usize::from(*len);
        if tail.len() < len {
            return Err(SaeError::Truncated { what: "element", needed: len, got: tail.len() });
        }
        let (body, next) = tail.split_at(len);
        if *id == ELEMENT_EXTENSION {
            match body {
                [EXT_PASSWORD_IDENTIFIER, value @ ..] => out.password_identifier = Some(value),
                [EXT_REJECTED_GROUPS, value @ ..] if !value.is_empty() && value.len() % 2 == 0 => {
                    out.rejected_groups = Some(value)
                }
                [EXT_REJECTED_GROUPS, ..] => return Err(SaeError::Malformed("Rejected Groups element of odd length")),
                [EXT_ANTI_CLOGGING_TOKEN, value @ ..] => out.token = Some(value),
                _ => {}
            }
        }
        rest = next;
    }
    Ok(out)
}

impl<'a> CommitRepr<'a> {
    /// Parse a commit's fields (after the status code). `h2e` is whether its status was
    /// SAE_HASH_TO_ELEMENT. A group not implemented here is [`SaeError::UnsupportedGroup`].
    pub fn parse(payload: &'a [u8], h2e: bool) -> Result<CommitRepr<'a>, SaeError> {
        let id = le16(payload, "commit")?;
        let group = Group::from_id(id).ok_or(SaeError::UnsupportedGroup(id))?;
        let rest = &payload[2..];
        let fields = group.prime_len() + group.element_len();
        if rest.len() < fields {
            return Err(SaeError::Truncated { what: "commit scalar and element", needed: fields, got: rest.len() });
        }
        let (token, rest) = match rest.len() - fields {
            extra if !h2e && extra >= MIN_TOKEN_LEN => (Some(&rest[..extra]), &rest[extra..]),
            _ => (None, rest),
        };
        let (scalar, rest) = rest.split_at(group.prime_len());
        let (element, rest) = rest.split_at(group.element_len());
        let elements = parse_elements(rest)?;
        Ok(CommitRepr {
            group,
            h2e,
            token: token.or(if h2e { elements.token } else { None }),
            scalar,
            element,
            password_identifier: elements.password_identifier,
            rejected_groups: elements.rejected_groups,
        })
    }

    /// Append the whole Authentication frame body.
    pub fn emit(&self, out: &mut Vec<u8>) {
        let status = if self.h2e { StatusCode::SAE_HASH_TO_ELEMENT } else { StatusCode::SUCCESS };
        header(out, TRANSACTION_COMMIT, status);
        out.extend_from_slice(&self.group.id().to_le_bytes());
        if let (Some(token), false) = (self.token, self.h2e) {
            out.extend_from_slice(token);
        }
        out.extend_from_slice(self.scalar);
        out.extend_from_slice(self.element);
        if let Some(id) = self.password_identifier {
            extension(out, EXT_PASSWORD_IDENTIFIER, id);
        }
        if let Some(groups) = self.rejected_groups {
            extension(out, EXT_REJECTED_GROUPS, groups);
        }
        if let (Some(token), true) = (self.token, self.h2e) {
            extension(out, EXT_ANTI_CLOGGING_TOKEN, token);
        }
    }
}

impl ConfirmRepr<'_> {
    /// Append the whole Authentication frame body.
    pub fn emit(&self, out: &mut Vec<u8>) {
        header(out, TRANSACTION_CONFIRM, StatusCode::SUCCESS);
        out.extend_from_slice(&self.send_confirm.to_le_bytes());
        out.extend_from_slice(self.confirm);
    }
}

/// The answer ANTI_CLOGGING_TOKEN_REQUIRED to a commit, carrying `token`.
pub fn emit_token_request(group: u16, token: &[u8], h2e: bool, out: &mut Vec<u8>) {
    header(out, TRANSACTION_COMMIT, StatusCode::ANTI_CLOGGING_TOKEN_REQUIRED);
    out.extend_from_slice(&group.to_le_bytes());
    if h2e {
        extension(out, EXT_ANTI_CLOGGING_TOKEN, token);
    } else {
        out.extend_from_slice(token);
    }
}

/// A refusal of message `transaction` with `status` (no fields follow).
pub fn emit_refusal(transaction: u16, status: StatusCode, out: &mut Vec<u8>) {
    header(out, transaction, status);
}

fn header(out: &mut Vec<u8>, transaction: u16, status: StatusCode) {
    out.extend_from_slice(&ALGORITHM_SAE.to_le_bytes());
    out.extend_from_slice(&transaction.to_le_bytes());
    out.extend_from_slice(&status.0.to_le_bytes());
}

fn extension(out: &mut Vec<u8>, ext_id: u8, value: &[u8]) {
    // Values here are a password identifier, a group list or a token: all far below 254.
    out.extend_from_slice(&[ELEMENT_EXTENSION, (value.len() + 1) as u8, ext_id]);
    out.extend_from_slice(value);
}
