//! The station's side of 802.11w: management frames from its access point opened under
//! their keys, group-addressed robust ones checked with BIP under the IGTK, and forged
//! unprotected ones (a spoofed Deauthentication, say) dropped; SA Queries answered, so the
//! access point keeps the link when someone else asks to (re)associate in the station's name.

use wlansec_core::wire::mgmt::{self, ActionRepr};
use wlansec_core::wire::{Frame, Rules};

use super::Station;
use crate::node::Output;
use crate::pmf::{self, SaQuery};
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
            return Ok(());
        }
        let (subtype, body) = received.body()?;
        self.management(subtype, body, received.protected, out)
    }

    /// An Action frame from the access point: a protected SA Query Request is answered
    /// under the link's keys.
    pub(super) fn action(&mut self, action: ActionRepr<'_>, protected: bool, out: &mut Vec<Output>) -> Result<()> {
        let (Some(SaQuery::Request(id)), true) = (SaQuery::parse(&action), protected) else { return Ok(()) };
        let bssid = self.config.bssid;
        let response = SaQuery::Response(id).to_mpdu(bssid, self.mac, bssid, self.sequence.next())?;
        if let Some(keys) = self.keys.as_mut() {
            out.push(Output::Air(pmf::protect_unicast(keys, response)?));
        }
        Ok(())
    }
}
