//! The engine's CCMP framing: `suite::ccmp`'s, with the 8-octet MIC of CCMP-128 and Enhanced
//! CCMP-N, for the paths that frame MPDUs around batched engine calls.

use crate::error::Result;
use crate::suite::ccmp;
use crate::suite::mpdu::Pn;
use crate::suite::Peeked;
use crate::wire::Rules;

pub(crate) use crate::suite::ccmp::Prepared;
pub(crate) use crate::suite::mpdu::finish_decapsulate;

use super::enhanced::MIC_LEN;

/// Turn the plaintext MPDU in `buf[..mpdu_len]` into a protected one awaiting encryption.
/// Returns the layout and the protected length.
pub(crate) fn prepare_encapsulate(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
) -> Result<(Prepared, usize)> {
    ccmp::prepare_encapsulate(buf, mpdu_len, pn, key_id, rules, MIC_LEN)
}

/// Check and parse the protected MPDU that is all of `buf`.
pub(crate) fn prepare_decapsulate(buf: &[u8], rules: Rules) -> Result<(Prepared, Peeked)> {
    ccmp::prepare_decapsulate(buf, rules, MIC_LEN)
}
