//! The access point's group keys over time, as hostapd runs them: the GTK rotates on a
//! timer (`wpa_group_rekey`) and when a station that holds it leaves; each rotation hands the
//! new GTK to every station with the group key handshake and switches group traffic to it
//! once all have confirmed. And TKIP countermeasures (IEEE 802.11-2016 12.5.2.4): two
//! Michael MIC failures (seen here or reported by a station) within 60 s send every station
//! away, admit none for 60 s, and rotate the GTK.

use wlansec_core::rsn::{Authenticator, HandshakeError};
use wlansec_core::wire::mgmt::{DeauthenticationRepr, ManagementBody, REASON_MICHAEL_MIC_FAILURE};
use wlansec_core::wire::MacAddr;

use super::AccessPoint;
use crate::group::GroupKeys;
use crate::node::Output;
use crate::security::SecurityMode;
use crate::Result;

/// When the GTK rotates next, if it rotates on a timer.
#[derive(Default)]
pub(super) struct RekeyTimer {
    every_ms: Option<u64>,
    next_ms: u64,
}

impl RekeyTimer {
    /// Every `seconds` from `now_ms` (0: never).
    pub(super) fn every(seconds: u64, now_ms: u64) -> Self {
        let every_ms = (seconds > 0).then(|| seconds.saturating_mul(1000));
        RekeyTimer { every_ms, next_ms: now_ms.saturating_add(every_ms.unwrap_or(0)) }
    }

    /// Whether a rotation is due at `now_ms`; if so the next is set one interval on.
    pub(super) fn due(&mut self, now_ms: u64) -> bool {
        match self.every_ms {
            Some(every) if now_ms >= self.next_ms => {
                self.next_ms = now_ms.saturating_add(every);
                true
            }
            _ => false,
        }
    }
}

/// Whether a receive error is a TKIP Michael MIC failure: the frame's ICV was good and its
/// TSC new (both are checked first), so someone forged the MSDU. Other suites' MIC
/// failures and ICV failures are just bad frames.
pub(super) fn is_michael_failure(e: &crate::Error, mode: SecurityMode) -> bool {
    mode == SecurityMode::Tkip && matches!(e, crate::Error::Frame(wlansec_core::Error::MicFailure))
}

/// Give `auth` the GTK handed out now and its current Key RSC, for the next message 3 or
/// group message 1 it sends.
pub(super) fn sync_group_key(group: Option<&GroupKeys>, auth: &mut Authenticator) -> Result<()> {
    if let Some((gtk, rsc)) = group.and_then(GroupKeys::distributed) {
        auth.set_group_key(gtk.key_id, gtk.key.clone(), rsc)?;
    }
    Ok(())
}

impl AccessPoint {
    /// Start a GTK rotation: a new GTK to every station that has keys, group frames switch
    /// to it once all have it (at once when there are none).
    pub(super) fn rotate(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let Some(group) = self.group.as_mut() else { return Ok(()) };
        if !group.begin_rotation(self.config.mode, &mut self.rng)? {
            return Ok(());
        }
        self.counters.group_rekeys += 1;
        let macs: Vec<MacAddr> = self.stations.keys().copied().collect();
        for mac in macs {
            self.catch_up(mac, out)?;
        }
        self.maybe_switch();
        Ok(())
    }

    /// Start the group key handshake with `sta` if it has keys but not the GTK handed out
    /// now. A station still in a handshake catches up when that one completes.
    pub(super) fn catch_up(&mut self, sta: MacAddr, out: &mut Vec<Output>) -> Result<()> {
        let Some((gtk, rsc)) = self.group.as_ref().and_then(GroupKeys::distributed) else { return Ok(()) };
        let Some(a) = self.stations.get_mut(&sta) else { return Ok(()) };
        if a.keys.is_none() || a.gtk_confirmed == Some(gtk.generation) {
            return Ok(());
        }
        let Some(auth) = a.authenticator.as_mut() else { return Ok(()) };
        let events = match auth.rekey_group(gtk.key_id, gtk.key.clone(), rsc) {
            Ok(events) => events,
            Err(wlansec_core::Error::Handshake(HandshakeError::NotEstablished)) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        self.handle_events(sta, events, out)
    }

    /// Switch group frames to the new GTK once no station with keys lacks it.
    pub(super) fn maybe_switch(&mut self) {
        let Some(group) = self.group.as_mut() else { return };
        let Some(pending) = group.pending() else { return };
        let waiting = self
            .stations
            .values()
            .any(|a| a.keys.is_some() && a.authenticator.is_some() && a.gtk_confirmed != Some(pending));
        if !waiting {
            group.switch();
        }
    }

    /// `sta` left (deauthenticated, disassociated, or started again): forget it.
    pub(super) fn depart(&mut self, sta: MacAddr, out: &mut Vec<Output>) -> Result<()> {
        let Some(a) = self.remove_station(sta, out) else { return Ok(()) };
        self.departed(a.gtk_confirmed, out)
    }

    /// A station that had confirmed GTK generation `confirmed` is gone: if that is the GTK
    /// handed out now, rotate (it can no longer be trusted with group traffic); else a
    /// rotation may have waited only for it.
    pub(super) fn departed(&mut self, confirmed: Option<u64>, out: &mut Vec<Output>) -> Result<()> {
        let distributed = self.group.as_ref().and_then(GroupKeys::distributed).map(|(g, _)| g.generation);
        if confirmed.is_some() && confirmed == distributed {
            self.rotate(out)
        } else {
            self.maybe_switch();
            Ok(())
        }
    }

    /// A Michael MIC failure, seen here or reported by a station.
    pub(super) fn mic_failure(&mut self, out: &mut Vec<Output>) -> Result<()> {
        self.counters.mic_failures += 1;
        if !self.countermeasures.failure(self.now_ms) {
            return Ok(());
        }
        self.counters.countermeasure_activations += 1;
        self.counters.countermeasures_active = true;
        for sta in self.remove_all(out) {
            let deauth = DeauthenticationRepr { reason: REASON_MICHAEL_MIC_FAILURE };
            out.push(Output::Air(self.management_to(ManagementBody::Deauthentication(deauth), sta)?));
        }
        // The GTK may be the attacker's target: a new one (switched to at once: no stations).
        self.rotate(out)
    }
}
