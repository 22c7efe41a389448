//! The station's side of 802.11w: management frames from its access point opened under
//! their keys, group-addressed robust ones checked with BIP under the IGTK, and forged
//! unprotected ones (a spoofed Deauthentication, say) dropped; SA Queries answered, so the
//! access point keeps the link when someone else asks to (re)associate in the station's name.
//! With beacon protection, once the station holds the BIGTK every beacon must carry a valid,
//! fresh MME under it: a forged, replayed or stripped beacon changes nothing.
//! An unprotected Deauthentication or Disassociation is not obeyed but asked about (IEEE
//! 802.11-2016 11.13.2): the station sends a protected SA Query; its access point answers and
//! the link stays, an access point that forgot the station cannot, and after a second of
//! silence the station joins again.

use wlansec_core::gen::Rng;
use wlansec_core::wire::mgmt::{self, ActionRepr};
use wlansec_core::wire::{Frame, Rules};

use super::Station;
use crate::node::Output;
use crate::pmf::{self, SaQuery, SA_QUERY_TIMEOUT_MS};
use crate::Result;

impl Station {
    /// Whether the link protects management frames now (negotiated, and keyed).
    fn protects_management(&self) -> bool {
        self.mfp && self.keys.is_some()
    }

    /// A management frame from the access point.
    pub(super) fn management_from(&mut self, mpdu: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let frame = Frame::new_checked(mpdu, Rules::default())?;
        if frame.addr1().is_group() {
            let (subtype, body) = (frame.frame_control().subtype(), frame.body());
            let beacon = subtype == mgmt::subtype::BEACON;
            if beacon && self.beacon_integrity.installed() && self.beacon_integrity.verify(mpdu).is_err() {
                self.counters.refused_beacons += 1;
                return Ok(());
            }
            if self.protects_management() && mgmt::is_robust(subtype, body) && self.integrity.verify(mpdu).is_err() {
                self.counters.refused_unprotected_management += 1;
                return Ok(());
            }
            return self.management(subtype, body, false, out);
        }
        let received = pmf::Received::from_peer(self.keys.as_mut(), mpdu).inspect_err(|e| {
            if let crate::Error::Frame(e) = e {
                self.counters.count_unprotect_error(e);
            }
        })?;
        if received.unprotected_robust(self.protects_management()) {
            self.counters.refused_unprotected_management += 1;
            let subtype = frame.frame_control().subtype();
            if matches!(subtype, mgmt::subtype::DEAUTHENTICATION | mgmt::subtype::DISASSOCIATION) {
                self.query_access_point(out)?;
            }
            return Ok(());
        }
        let (subtype, body) = received.body()?;
        self.management(subtype, body, received.protected, out)
    }

    /// Ask the access point, under the link's keys, whether the link still stands (once
    /// per second at most, however many forged frames ask for it).
    fn query_access_point(&mut self, out: &mut Vec<Output>) -> Result<()> {
        if self.sa_query.is_some() {
            return Ok(());
        }
        let mut id = [0u8; 2];
        self.rng.fill_bytes(&mut id);
        let bssid = self.config.bssid;
        let request = SaQuery::Request(id).to_mpdu(bssid, self.mac, bssid, self.sequence.next())?;
        if let Some(keys) = self.keys.as_mut() {
            out.push(Output::Air(pmf::protect_unicast(keys, request)?));
            self.sa_query = Some((id, self.now_ms + SA_QUERY_TIMEOUT_MS));
        }
        Ok(())
    }

    /// Whether an SA Query went unanswered past its timeout (the link is gone).
    pub(super) fn sa_query_expired(&self) -> bool {
        self.sa_query.is_some_and(|(_, deadline)| self.now_ms >= deadline)
    }

    /// An Action frame from the access point: a protected SA Query Request is answered
    /// under the link's keys, a protected Response to ours keeps the link.
    pub(super) fn action(&mut self, action: ActionRepr<'_>, protected: bool, out: &mut Vec<Output>) -> Result<()> {
        let query = SaQuery::parse(&action);
        if let (Some(SaQuery::Response(id)), true) = (&query, protected) {
            if self.sa_query.is_some_and(|(ours, _)| ours == *id) {
                self.sa_query = None;
            }
            return Ok(());
        }
        let (Some(SaQuery::Request(id)), true) = (query, protected) else { return Ok(()) };
        let bssid = self.config.bssid;
        let response = SaQuery::Response(id).to_mpdu(bssid, self.mac, bssid, self.sequence.next())?;
        if let Some(keys) = self.keys.as_mut() {
            out.push(Output::Air(pmf::protect_unicast(keys, response)?));
        }
        Ok(())
    }
}
