//! The access point's side of 802.11w: management frames from a station opened under its
//! link's keys (and forged unprotected ones dropped), the negotiation of management frame
//! protection at association, and the SA Query that keeps a forged (re)association from
//! tearing down a protected link (IEEE 802.11-2016 11.13.2): the AP answers "try later"
//! (status 30) and asks the associated station, under their keys, whether it is still
//! there; an answer keeps the link, silence for a second ends it.

use wlansec_core::gen::Rng;
use wlansec_core::wire::mgmt::{ActionRepr, ManagementBody};
use wlansec_core::wire::MacAddr;

use super::AccessPoint;
use crate::node::{Output, PeerEvent};
use crate::pmf::{self, SaQuery, SA_QUERY_TIMEOUT_MS};
use crate::Result;

/// What a protected link without keys would be (it cannot be: `protects_management` checks).
const NO_KEYS: crate::Error = crate::Error::Frame(wlansec_core::Error::NoKey { group: false });

/// An SA Query the access point sent a station and waits to hear answered.
pub(super) struct PendingSaQuery {
    id: [u8; 2],
    deadline_ms: u64,
}

impl AccessPoint {
    /// Whether the link with `sta` protects its management frames now (negotiated, and
    /// keyed: before the 4-way handshake ends, nothing can be protected yet).
    pub(super) fn protects_management(&self, sta: MacAddr) -> bool {
        self.stations.get(&sta).is_some_and(|a| a.mfp && a.keys.is_some())
    }

    /// A management frame from `sta`, opened when protected; a robust one that comes
    /// unprotected on a protected link is a forgery and is dropped (counted).
    pub(super) fn management_from(&mut self, sta: MacAddr, mpdu: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let keys = self.stations.get_mut(&sta).and_then(|a| a.keys.as_mut());
        let received = pmf::Received::from_peer(keys, mpdu).inspect_err(|e| {
            if let crate::Error::Frame(e) = e {
                self.counters.count_unprotect_error(e);
            }
        })?;
        if received.unprotected_robust(self.protects_management(sta)) {
            self.counters.refused_unprotected_management += 1;
            return Ok(());
        }
        if received.protected {
            // Opened under the station's own keys: the station sent it.
            out.push(Output::Peer(PeerEvent::Accepted(sta)));
        }
        let (subtype, body) = received.body()?;
        self.management(sta, subtype, body, received.protected, out)
    }

    /// A robust management frame for `sta`: protected under its keys when the link
    /// protects management frames.
    pub(super) fn robust_to(&mut self, body: ManagementBody<'_>, sta: MacAddr) -> Result<Vec<u8>> {
        let mpdu = self.management_to(body, sta)?;
        if !self.protects_management(sta) {
            return Ok(mpdu);
        }
        let keys = self.stations.get_mut(&sta).and_then(|a| a.keys.as_mut());
        pmf::protect_unicast(keys.ok_or(NO_KEYS)?, mpdu)
    }

    /// A (re)association request from a station that holds a protected link: keep the link
    /// and ask the station under its keys (once per attempt) whether it is still there.
    pub(super) fn query_before_reassociating(&mut self, sta: MacAddr, out: &mut Vec<Output>) -> Result<()> {
        let pending = self.stations.get(&sta).is_some_and(|a| a.sa_query.is_some());
        if !pending {
            let mut id = [0u8; 2];
            self.rng.fill_bytes(&mut id);
            let deadline_ms = self.now_ms + SA_QUERY_TIMEOUT_MS;
            if let Some(a) = self.stations.get_mut(&sta) {
                a.sa_query = Some(PendingSaQuery { id, deadline_ms });
                self.table.sa_queries.insert(sta);
            }
            let bssid = self.config.bssid;
            let request = SaQuery::Request(id).to_mpdu(sta, bssid, bssid, self.sequence.next())?;
            let keys = self.stations.get_mut(&sta).and_then(|a| a.keys.as_mut());
            out.push(Output::Air(pmf::protect_unicast(keys.ok_or(NO_KEYS)?, request)?));
            self.counters.sa_queries += 1;
        }
        Ok(())
    }

    /// An Action frame from `sta`: an SA Query Response that answers ours keeps the link; a
    /// station's own SA Query Request is answered. Only protected ones count.
    pub(super) fn action(
        &mut self,
        sta: MacAddr,
        action: ActionRepr<'_>,
        protected: bool,
        out: &mut Vec<Output>,
    ) -> Result<()> {
        if !protected {
            return Ok(());
        }
        match SaQuery::parse(&action) {
            Some(SaQuery::Response(id)) => {
                if let Some(a) = self.stations.get_mut(&sta) {
                    if a.sa_query.as_ref().is_some_and(|q| q.id == id) {
                        a.sa_query = None;
                        self.table.sa_queries.remove(&sta);
                    }
                }
            }
            Some(SaQuery::Request(id)) => {
                let bssid = self.config.bssid;
                let response = SaQuery::Response(id).to_mpdu(sta, bssid, bssid, self.sequence.next())?;
                let keys = self.stations.get_mut(&sta).and_then(|a| a.keys.as_mut());
                if let Some(keys) = keys {
                    out.push(Output::Air(pmf::protect_unicast(keys, response)?));
                }
            }
            None => {}
        }
        Ok(())
    }

    /// The stations whose SA Query went unanswered: their link is gone.
    pub(super) fn expire_sa_queries(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let now = self.now_ms;
        let stations = &self.stations;
        let silent: Vec<MacAddr> = self
            .table
            .sa_queries
            .iter()
            .filter(|mac| stations.get(mac).and_then(|a| a.sa_query.as_ref()).is_some_and(|q| now >= q.deadline_ms))
            .copied()
            .collect();
        for sta in silent {
            self.depart(sta, out)?;
        }
        Ok(())
    }
}
