//! Arguments that parse but are invalid together or out of range: reported like a command
//! line that does not parse (one line, exit status 2), apart from inputs and runs that fail
//! (exit status 1).

use std::fmt;

/// An invalid argument.
#[derive(Debug)]
pub struct Usage(anyhow::Error);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for Usage {}

/// Mark an error as an invalid argument (for `map_err`).
pub fn usage(err: anyhow::Error) -> anyhow::Error {
    anyhow::Error::new(Usage(err))
}
