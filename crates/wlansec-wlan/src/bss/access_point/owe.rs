//! OWE at the access point (RFC 8110): the association request's Diffie-Hellman Parameter
//! element goes to the core's [`owe::respond`], whose element the association response
//! carries; the PMK both sides derive keys the 4-way handshake.
//!
//! The access point holds no Diffie-Hellman state between frames: its ephemeral key is
//! made, used and dropped while it answers one request, and the PMK lives on only in that
//! station's association. What a flood of requests can hold is so bounded by the
//! association table (an association whose handshake has not verified a MIC is evictable,
//! and dropped when its handshake times out).

use wlansec_core::rsn::owe::{self, OweError};
use wlansec_core::rsn::{Akm, Pmk};
use wlansec_core::wire::mgmt::Elements;
use wlansec_core::wire::MacAddr;

use super::{AccessPoint, LoggedPmk, STATUS_INVALID_AKMP};
use crate::security::owe_dh_element;

impl AccessPoint {
    /// OWE's answer to `sta`'s association request `elements`: the access point's
    /// Diffie-Hellman Parameter element and the PMK, or the status the request is refused
    /// with (and why).
    pub(super) fn owe_respond(&mut self, sta: MacAddr, elements: &Elements<'_>) -> Result<(Vec<u8>, Pmk), u16> {
        let Some(settings) = self.config.key_management.owe() else { return Err(STATUS_INVALID_AKMP) };
        let Some(theirs) = owe_dh_element(elements) else { return Err(STATUS_INVALID_AKMP) };
        match owe::respond(theirs, &settings.groups, &mut self.rng) {
            Ok((ours, keys)) => {
                let logged = LoggedPmk { station: sta, akm: Akm::Owe, pmkid: keys.pmkid, pmk: keys.pmk.clone() };
                self.log_pmk(logged);
                Ok((ours, keys.pmk))
            }
            Err(why) => {
                self.refused(sta, why);
                Err(why.status_code().0)
            }
        }
    }

    /// Count and remember (for status, a while) a refused OWE request.
    fn refused(&mut self, sta: MacAddr, why: OweError) {
        self.counters.refused_owe += 1;
        self.table.failures.record(sta, format!("OWE association refused: {why}"), self.now_ms);
    }
}
