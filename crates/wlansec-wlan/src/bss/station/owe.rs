//! OWE at the station (RFC 8110): a fresh ephemeral key for each association request, whose
//! Diffie-Hellman Parameter element it carries; the access point's element in the
//! association response gives the PMK of the 4-way handshake. An answer without one, or
//! with a public key that is no point on the curve, is refused.
//!
//! A refusal with status 77 (the group not supported) makes the station ask again on its
//! next configured group. The PMK and PMKID of an accepted answer are the station's PMKSA:
//! its next association request names the PMKID (beside a fresh element), and an answer
//! without an element means the access point took the cached PMKSA (RFC 8110 4.2).

use wlansec_core::rsn::owe::{OweError, OweStation};
use wlansec_core::rsn::sae::{Group, PmksaCache};
use wlansec_core::rsn::Pmk;
use wlansec_core::wire::mgmt::Elements;

use wlansec_core::rsn::element::owe::OweTransitionRepr;

use super::{Station, StationState};
use crate::node::Output;
use crate::security::owe_dh_element;
use crate::{Error, Result};

/// The station's OWE state beside its key pair.
#[derive(Default)]
pub(super) struct OweState {
    /// The groups the access point refused (status 77) in this attempt.
    refused: Vec<Group>,
    /// The PMKSA of the last accepted answer: PMK, PMKID, and when it expires.
    pmksa: Option<(Pmk, [u8; 16], u64)>,
}

impl OweState {
    /// The PMKSA the station may name, if alive at `now_ms`.
    pub(super) fn pmksa(&self, now_ms: u64) -> Option<(&Pmk, &[u8; 16])> {
        self.pmksa.as_ref().filter(|(_, _, expires)| now_ms < *expires).map(|(pmk, id, _)| (pmk, id))
    }

    /// A new attempt tries every configured group again.
    pub(super) fn restart(&mut self) {
        self.refused.clear();
    }
}

impl Station {
    /// A fresh key pair on the first configured group the access point has not refused:
    /// its element for the association request (none on a network without OWE, or when
    /// every group was refused).
    pub(super) fn owe_request_element(&mut self) -> Option<Vec<u8>> {
        let refused = &self.owe_state.refused;
        let group = *self.config.key_management.owe()?.groups.iter().find(|g| !refused.contains(g))?;
        let station = OweStation::new(group, &mut self.rng);
        let element = station.request_element();
        self.owe = Some(station);
        Some(element)
    }

    /// The access point refused the group of the request out (status 77): ask again on the
    /// next one, or give up when none is left.
    pub(super) fn owe_group_refused(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let Some(station) = self.owe.take() else { return Ok(()) };
        self.owe_state.refused.push(station.group());
        let groups = self.config.key_management.owe().map_or(&[][..], |s| &s.groups[..]);
        if groups.iter().all(|g| self.owe_state.refused.contains(g)) {
            let why = "OWE: the access point refused every configured group".to_string();
            self.config_error(why.clone(), why);
            return Ok(());
        }
        self.associate(out)
    }

    /// A beacon (its `elements`) of the open BSS of an OWE transition pair, heard by an OWE
    /// station: it joins the OWE BSS the element names instead (true), starting again if it
    /// was joining. A station with a link keeps it (a forged beacon must not move it).
    pub(super) fn owe_transition_to(&mut self, elements: &Elements<'_>, out: &mut Vec<Output>) -> Result<bool> {
        let linked = matches!(self.state, StationState::Handshaking | StationState::Connected);
        if self.config.key_management.owe().is_none() || elements.rsn().is_some() || linked {
            return Ok(false);
        }
        let named = elements.iter().map_while(core::result::Result::ok).find_map(|e| {
            OweTransitionRepr::parse(e.as_bytes()).ok().map(|t| (t.bssid, String::from_utf8_lossy(t.ssid).into_owned()))
        });
        let Some((bssid, ssid)) = named.filter(|(bssid, _)| *bssid != self.config.bssid) else { return Ok(false) };
        self.config.bssid = bssid;
        self.config.ssid = ssid;
        self.beacon_heard = false;
        self.ap_rsne = None;
        self.ap_rsnxe = None;
        if matches!(self.state, StationState::Authenticating | StationState::Associating) {
            self.start(out)?;
        }
        Ok(true)
    }

    /// The PMK of the access point's association response `elements`, which must answer
    /// the station's own key, or (no element) take the PMKSA the request named; a refused
    /// answer leaves the network (to try again later).
    pub(super) fn owe_pmk(&mut self, elements: &Elements<'_>) -> Result<Pmk> {
        let bssid = self.config.bssid;
        let station = self.owe.take().ok_or(Error::ModeLacks { mode: "owe".into(), what: "OWE key" })?;
        let answer = owe_dh_element(elements);
        if answer.is_none() {
            if let Some((pmk, _)) = self.owe_state.pmksa(self.now_ms) {
                return Ok(pmk.clone());
            }
        }
        let keys = answer.ok_or(OweError::InvalidPublicKey).and_then(|ap| station.complete(ap));
        match keys {
            Ok(keys) => {
                let expires = self.now_ms.saturating_add(PmksaCache::DEFAULT_LIFETIME * 1000);
                self.owe_state.pmksa = Some((keys.pmk.clone(), keys.pmkid, expires));
                Ok(keys.pmk)
            }
            Err(why) => {
                self.counters.refused_owe += 1;
                self.leave(format!("OWE answer refused: {why}"));
                Err(Error::Owe { peer: bssid, why })
            }
        }
    }
}
