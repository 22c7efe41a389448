//! Why a 4-way or group key handshake refused a message, and the message kinds it names.
//! Kept on the ground floor beside [`super::Error`] (which wraps it), so `rsn` depends on
//! `error` and never the other way round.

use core::fmt;

/// Which handshake message a frame is, from its Key Information bits (and, to tell
/// message 2 from message 4, whether it carries a nonce or Key Data).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Message {
    FourWay1,
    FourWay2,
    FourWay3,
    FourWay4,
    Group1,
    Group2,
    /// A Request frame from the supplicant (e.g. a MIC failure report or rekey request).
    Request,
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Message::FourWay1 => "message 1",
            Message::FourWay2 => "message 2",
            Message::FourWay3 => "message 3",
            Message::FourWay4 => "message 4",
            Message::Group1 => "group message 1",
            Message::Group2 => "group message 2",
            Message::Request => "a request",
        })
    }
}

/// Why a handshake refused an EAPOL-Key message or a request of its owner. A bad MIC and a
/// replayed counter are `Error::MicFailure` and `Error::Replay`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HandshakeError {
    /// A message this side does not take now; `expected` is the one it waits for, if any.
    Unexpected { expected: Option<Message>, got: Message },
    /// A message from the same side of the handshake (an authenticator's message sent to an
    /// authenticator, or the other way round), or under another key descriptor version.
    NotFromPeer,
    /// A message whose Key Information flags break the rules for its kind.
    Flags { message: Message, why: &'static str },
    /// The RSN element in message 2 differs from the association request's, or the one in
    /// message 3 from the beacon's: a downgrade.
    RsnElementMismatch { message: Message },
    /// The RSN Extension element in message 3 differs from the beacon's (one present, the
    /// other not, or different): a beacon stripped of SAE hash-to-element, a downgrade.
    RsnxeMismatch,
    /// A group key message without a GTK KDE.
    NoGtk,
    /// An all-zero TK or GTK, the mark of a key-reinstallation attack.
    AllZeroKey,
    /// A GTK Key ID outside 1..=3.
    GtkKeyId(u8),
    /// An IGTK Key ID other than 4 or 5.
    IgtkKeyId(u16),
    /// A BIGTK (beacon integrity key) Key ID other than 6 or 7.
    BigtkKeyId(u16),
    /// A group rekey asked for before the 4-way handshake completed.
    NotEstablished,
}

impl fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandshakeError::Unexpected { expected: Some(expected), got } => {
                write!(f, "{got} where {expected} was expected")
            }
            HandshakeError::Unexpected { expected: None, got } => write!(f, "{got} not expected in this state"),
            HandshakeError::NotFromPeer => write!(f, "a message not from the peer's side of this handshake"),
            HandshakeError::Flags { message, why } => write!(f, "{message} {why}"),
            HandshakeError::RsnElementMismatch { message: Message::FourWay3 } => {
                write!(f, "RSN element in message 3 differs from the beacon (downgrade)")
            }
            HandshakeError::RsnElementMismatch { message } => {
                write!(f, "RSN element in {message} differs from the association request")
            }
            HandshakeError::RsnxeMismatch => {
                write!(f, "RSN Extension element in message 3 differs from the beacon (downgrade)")
            }
            HandshakeError::NoGtk => write!(f, "group key message without a GTK KDE"),
            HandshakeError::AllZeroKey => write!(f, "all-zero key refused"),
            HandshakeError::GtkKeyId(id) => write!(f, "GTK Key ID {id} (must be 1..=3)"),
            HandshakeError::IgtkKeyId(id) => write!(f, "IGTK Key ID {id} (must be 4 or 5)"),
            HandshakeError::BigtkKeyId(id) => write!(f, "BIGTK Key ID {id} (must be 6 or 7)"),
            HandshakeError::NotEstablished => write!(f, "the 4-way handshake has not completed"),
        }
    }
}
