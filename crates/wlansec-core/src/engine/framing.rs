//! The engine's CCMP framing is `suite::ccmp`'s, the one CCMP framing, at the 8-octet MIC of
//! CCMP-128 and Enhanced CCMP-N: the names the engine's batched paths call (the receive
//! pipeline calls `suite::ccmp` itself).

use crate::error::Result;
use crate::suite::ccmp;
use crate::suite::mpdu::Pn;
use crate::suite::Peeked;
use crate::wire::Rules;

pub(crate) use crate::suite::ccmp::{check_payload, Prepared};
pub(crate) use crate::suite::mpdu::{finish_decapsulate, Gap};

use super::enhanced::MIC_LEN;

/// `ccmp::prepare_encapsulate` at the engine's MIC length: the plaintext MPDU in
/// `buf[..mpdu_len]` (with `headroom`: in `buf[PN_HEADER_LEN..][..mpdu_len]`) into a
/// protected one awaiting encryption at the front of `buf`.
#[inline(always)]
pub(crate) fn prepare_encapsulate(
    buf: &mut [u8],
    mpdu_len: usize,
    pn: Pn,
    key_id: u8,
    rules: Rules,
    headroom: bool,
) -> Result<(Prepared, usize)> {
    ccmp::prepare_encapsulate::<MIC_LEN>(buf, mpdu_len, pn, key_id, rules, headroom)
}

/// `ccmp::prepare_decapsulate` at the engine's MIC length: check and parse the protected
/// MPDU that is all of `buf`.
#[inline(always)]
pub(crate) fn prepare_decapsulate(buf: &[u8], rules: Rules) -> Result<(Prepared, Peeked)> {
    ccmp::prepare_decapsulate::<MIC_LEN>(buf, rules)
}
