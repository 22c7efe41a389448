//! The engine's CCMP framing: `suite::ccmp`'s, with the 8-octet MIC of CCMP-128 and Enhanced
//! CCMP-N, for the paths that frame MPDUs around batched engine calls.

use crate::error::{Error, Result};
use crate::suite::ccmp;
use crate::suite::mpdu::Pn;
use crate::suite::Peeked;
use crate::wire::Rules;

pub(crate) use crate::suite::ccmp::Prepared;
pub(crate) use crate::suite::mpdu::{finish_decapsulate, Gap};

use super::enhanced::{MAX_PAYLOAD, MIC_LEN};

/// Turn the plaintext MPDU in `buf[..mpdu_len]` (with `headroom`: in
/// `buf[PN_HEADER_LEN..][..mpdu_len]`, see `mpdu::prepare_encapsulate` with `headroom`) into
/// a protected one awaiting encryption at the front of `buf`. Returns the layout and the
/// protected length; refuses a payload the engine can't take (`check_payload`).
#[inline(always)]
pub(crate) fn prepare_encapsulate(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
    headroom: bool,
) -> Result<(Prepared, usize)> {
    let (prepared, out_len) = ccmp::prepare_encapsulate(buf, mpdu_len, pn, key_id, rules, MIC_LEN, headroom)?;
    check_payload(prepared.data.len())?;
    Ok((prepared, out_len))
}

/// Check and parse the protected MPDU that is all of `buf`.
#[inline(always)]
pub(crate) fn prepare_decapsulate(buf: &[u8], rules: Rules) -> Result<(Prepared, Peeked)> {
    ccmp::prepare_decapsulate(buf, rules, MIC_LEN)
}

/// Why the engine refuses `len` octets of data, if it does: more than CCM's 2-octet length
/// field holds.
#[inline(always)]
pub(crate) fn check_payload(len: usize) -> Result<()> {
    match len > MAX_PAYLOAD {
        true => Err(Error::Unsupported("payload too long for the CCMP length field")),
        false => Ok(()),
    }
}
