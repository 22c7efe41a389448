//! OWE at the access point (RFC 8110): the association request's Diffie-Hellman Parameter
//! element goes to the core's [`owe::respond`], whose element the association response
//! carries; the PMK both sides derive keys the 4-way handshake.
//!
//! The access point holds no Diffie-Hellman state between frames: its ephemeral key is
//! made, used and dropped while it answers one request. The PMK lives on in that station's
//! association and in the PMKSA cache, so that a station that associates again naming its
//! PMKID skips the Diffie-Hellman (the answer then carries no element, RFC 8110 4.2). What a
//! flood of requests can hold is so bounded by the association table (an association
//! whose handshake has not verified a MIC is evictable, and dropped when its handshake
//! times out) and by the cache's [`MAX_OWE_PMKSAS`] (the first to expire goes).

use wlansec_core::rsn::owe::{self, OweError};
use wlansec_core::rsn::sae::{PmksaCache, PmksaEntry};
use wlansec_core::rsn::{Akm, Pmk};
use wlansec_core::wire::mgmt::Elements;
use wlansec_core::wire::MacAddr;

use super::{AccessPoint, LoggedPmk, STATUS_INVALID_AKMP};
use crate::security::owe_dh_element;

/// OWE PMKSAs the access point holds at most (hostapd's PMKSA cache holds 1024).
pub(crate) const MAX_OWE_PMKSAS: usize = 1024;

/// OWE's answer to an association request.
pub(super) struct OweAnswer {
    /// The access point's Diffie-Hellman element (none: a cached PMKSA's PMK).
    pub element: Option<Vec<u8>>,
    pub pmk: Pmk,
    /// A fresh PMKSA, cached once the link's 4-way handshake completes.
    pub pmksa: Option<PmksaEntry>,
}

impl AccessPoint {
    /// OWE's answer to `sta`'s association request `elements`, whose RSN element named
    /// `pmkids`: the PMK of a cached PMKSA (no element in the answer), or a fresh
    /// Diffie-Hellman's with the access point's element and the PMKSA to cache once the
    /// 4-way handshake proves the station holds its PMK; or the status the request is
    /// refused with (and why).
    pub(super) fn owe_respond(
        &mut self,
        sta: MacAddr,
        elements: &Elements<'_>,
        pmkids: &[[u8; 16]],
    ) -> Result<OweAnswer, u16> {
        let now_s = self.now_ms / 1000;
        if let Some(entry) = pmkids.iter().find_map(|id| self.owe_pmksa.get(sta, id, now_s)) {
            return Ok(OweAnswer { element: None, pmk: entry.pmk.clone(), pmksa: None });
        }
        let Some(settings) = self.config.key_management.owe() else { return Err(STATUS_INVALID_AKMP) };
        let Some(theirs) = owe_dh_element(elements) else { return Err(STATUS_INVALID_AKMP) };
        match owe::respond(theirs, &settings.groups, &mut self.rng) {
            Ok((ours, keys)) => {
                let logged = LoggedPmk { station: sta, akm: Akm::Owe, pmkid: keys.pmkid, pmk: keys.pmk.clone() };
                self.log_pmk(logged);
                let expires_at = now_s.saturating_add(PmksaCache::DEFAULT_LIFETIME);
                let pmksa =
                    PmksaEntry { peer: sta, group: keys.group, pmk: keys.pmk.clone(), pmkid: keys.pmkid, expires_at };
                Ok(OweAnswer { element: Some(ours), pmk: keys.pmk, pmksa: Some(pmksa) })
            }
            Err(why) => {
                self.refused(sta, why);
                Err(why.status_code().0)
            }
        }
    }

    /// Cache the PMKSA of `sta`'s OWE association: its 4-way handshake has completed, so
    /// the station holds the PMK. (Cached at the association request, an outsider's request
    /// in the station's name would replace the entry its last verified link left.)
    pub(super) fn cache_owe_pmksa(&mut self, pmksa: PmksaEntry) {
        self.owe_pmksa.insert_bounded(pmksa, MAX_OWE_PMKSAS, self.now_ms / 1000);
    }

    /// How many OWE PMKSAs the access point holds.
    #[cfg(test)]
    pub(crate) fn owe_pmksas(&self) -> usize {
        self.owe_pmksa.len()
    }

    /// Count and remember (for status, a while) a refused OWE request.
    fn refused(&mut self, sta: MacAddr, why: OweError) {
        self.counters.refused_owe += 1;
        self.table.failures.record(sta, format!("OWE association refused: {why}"), self.now_ms);
    }
}
