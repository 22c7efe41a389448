//! OWE at the station (RFC 8110): a fresh ephemeral key for each association request, whose
//! Diffie-Hellman Parameter element it carries; the access point's element in the
//! association response gives the PMK of the 4-way handshake. An answer without one, or
//! with a public key that is no point on the curve, is refused.

use wlansec_core::rsn::owe::{OweError, OweStation};
use wlansec_core::rsn::Pmk;
use wlansec_core::wire::mgmt::Elements;

use super::Station;
use crate::security::owe_dh_element;
use crate::{Error, Result};

impl Station {
    /// A fresh key pair on the network's first group: its element for the association
    /// request (none on a network without OWE).
    pub(super) fn owe_request_element(&mut self) -> Option<Vec<u8>> {
        let group = *self.config.key_management.owe()?.groups.first()?;
        let station = OweStation::new(group, &mut self.rng);
        let element = station.request_element();
        self.owe = Some(station);
        Some(element)
    }

    /// The PMK of the access point's association response `elements`, which must answer
    /// the station's own key; a refused answer leaves the network (to try again later).
    pub(super) fn owe_pmk(&mut self, elements: &Elements<'_>) -> Result<Pmk> {
        let bssid = self.config.bssid;
        let station = self.owe.take().ok_or(Error::ModeLacks { mode: "owe".into(), what: "OWE key" })?;
        let keys = owe_dh_element(elements).ok_or(OweError::InvalidPublicKey).and_then(|ap| station.complete(ap));
        keys.map(|k| k.pmk).map_err(|why| {
            self.counters.refused_owe += 1;
            self.leave(format!("OWE answer refused: {why}"));
            Error::Owe { peer: bssid, why }
        })
    }
}
