//! SAE at the station (IEEE 802.11-2020 12.4): it commits first, answers the access point's
//! commit with its confirm and checks the access point's confirm; the PMK and PMKID it
//! accepts are its PMKSA, named in its association request. A station that holds a PMKSA
//! joins again by Open System authentication and that PMKID alone (PMKSA caching); a
//! refusal of the PMKID (status 53) sends it back to SAE. A lost commit or confirm is sent
//! again on each tick, [`SAE_RESENDS`] times, before the station starts over.

use wlansec_core::rsn::sae::message::AuthFrame;
use wlansec_core::rsn::sae::{
    Group, Instance, LoopCost, PasswordElement, PasswordToken, PmksaCache, Role, SaeError, SaeEvent, StatusCode,
};
use wlansec_core::rsn::{Akm, Pmk, RsnElementRepr};
use wlansec_core::wire::mgmt::{AuthenticationRepr, ManagementBody, STATUS_SUCCESS};

use super::{Station, StationState};
use crate::node::{Credential, Output};
use crate::security::{rsnxe_offers_h2e, SaePwe};
use crate::{Error, Result};

/// Times a commit or confirm is sent again (one a tick) before the station starts over.
pub(super) const SAE_RESENDS: u32 = 3;

/// The station's SAE state.
#[derive(Default)]
pub(super) struct SaeStation {
    instance: Option<Instance>,
    /// The last commit or confirm sent, and how often it was sent again.
    last_sent: Option<Vec<u8>>,
    resends: u32,
    /// The groups the access point refused (status 77) in this attempt; the next commit is
    /// of the next configured group and names these.
    rejected: Vec<u16>,
    /// Hash-to-element's PT per group, derived once.
    tokens: Vec<PasswordToken>,
    /// The PMKSA of the last accepted exchange: PMK, PMKID, and when it expires.
    pmksa: Option<(Pmk, [u8; 16], u64)>,
    /// Whether the access point's RSNXE offers hash-to-element (none: no beacon heard yet).
    ap_h2e: Option<bool>,
    /// Whether the commit out is by hash-to-element.
    h2e: bool,
}

impl SaeStation {
    /// The PMKSA the station may name, if alive at `now_ms`.
    pub(super) fn pmksa(&self, now_ms: u64) -> Option<(&Pmk, &[u8; 16])> {
        self.pmksa.as_ref().filter(|(_, _, expires)| now_ms < *expires).map(|(pmk, id, _)| (pmk, id))
    }

    pub(super) fn beacon_rsnxe(&mut self, rsnxe: Option<&[u8]>) {
        self.ap_h2e = Some(rsnxe.is_some_and(rsnxe_offers_h2e));
    }

    /// Forget the exchange in progress (the PMKSA stays).
    pub(super) fn reset(&mut self) {
        self.instance = None;
        self.last_sent = None;
        self.resends = 0;
    }
}

impl Station {
    /// Begin an SAE network's authentication: Open System with a live PMKSA, else a commit.
    pub(super) fn sae_start(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let Some(sae) = self.sae.as_mut() else { return Ok(()) };
        sae.reset();
        sae.rejected.clear();
        if sae.pmksa(self.now_ms).is_some() {
            let request = AuthenticationRepr::open_system(1, STATUS_SUCCESS);
            return self.send_authentication(request, out);
        }
        self.sae_commit(out)
    }

    /// A fresh commit on the first configured group the access point has not refused.
    fn sae_commit(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let (Credential::Sae(password), Some(settings)) = (&self.credential, self.config.key_management.sae()) else {
            return Ok(());
        };
        let Some(sae) = self.sae.as_mut() else { return Ok(()) };
        let Some(&group) = settings.groups.iter().find(|g| !sae.rejected.contains(&g.id())) else {
            let why = "SAE: the access point refused every configured group".to_string();
            self.config_error(why.clone(), why);
            return Ok(());
        };
        let h2e = match settings.pwe {
            SaePwe::HuntingAndPecking => false,
            SaePwe::HashToElement => true,
            SaePwe::Both => sae.ap_h2e != Some(false),
        };
        let (own, bssid) = (self.mac, self.config.bssid);
        let sae_error = |why: SaeError| Error::Sae { peer: bssid, why };
        let pwe = if h2e {
            if !sae.tokens.iter().any(|t| t.group() == group) {
                let token = PasswordToken::derive(group, self.config.ssid.as_bytes(), password).map_err(sae_error)?;
                sae.tokens.push(token);
            }
            let token = sae
                .tokens
                .iter()
                .find(|t| t.group() == group)
                .ok_or(Error::Sae { peer: bssid, why: SaeError::NoPasswordElement })?;
            PasswordElement::from_token(token, own, bssid)
        } else {
            PasswordElement::hunting_and_pecking(group, password, own, bssid, &mut self.rng, &mut LoopCost::default())
        }
        .map_err(sae_error)?;
        let mut instance = Instance::new(Role::Station, pwe, None, &mut self.rng).map_err(sae_error)?;
        if settings.ext_key {
            instance = instance.with_ext_key();
        }
        instance.reject_groups(&sae.rejected);
        let commit = instance.commit_frame();
        sae.instance = Some(instance);
        sae.h2e = h2e;
        self.send_sae(commit, out)
    }

    /// Send (and keep, for the retransmission timer) an SAE frame body.
    fn send_sae(&mut self, body: Vec<u8>, out: &mut Vec<Output>) -> Result<()> {
        let repr = AuthenticationRepr::parse(&body)?;
        self.send_authentication(repr, out)?;
        // Progress: the station's patience starts again.
        self.waited = 0;
        if let Some(sae) = self.sae.as_mut() {
            sae.last_sent = Some(body);
            sae.resends = 0;
        }
        Ok(())
    }

    fn send_authentication(&mut self, repr: AuthenticationRepr<'_>, out: &mut Vec<Output>) -> Result<()> {
        let bssid = self.config.bssid;
        let mpdu = ManagementBody::Authentication(repr).to_mpdu(bssid, self.mac, bssid, self.sequence.next())?;
        out.push(Output::Air(mpdu));
        Ok(())
    }

    /// The retransmission timer: the last commit or confirm again, [`SAE_RESENDS`] times.
    pub(super) fn sae_resend(&mut self, out: &mut Vec<Output>) -> Result<()> {
        let Some(sae) = self.sae.as_mut() else { return Ok(()) };
        if sae.resends >= SAE_RESENDS || sae.instance.as_ref().is_none_or(Instance::is_accepted) {
            return Ok(());
        }
        let Some(body) = sae.last_sent.clone() else { return Ok(()) };
        sae.resends += 1;
        let repr = AuthenticationRepr::parse(&body)?;
        self.send_authentication(repr, out)
    }

    /// An SAE Authentication frame body from the access point.
    pub(super) fn sae_frame(&mut self, body: &[u8], out: &mut Vec<Output>) -> Result<()> {
        if self.state != StationState::Authenticating {
            return Ok(());
        }
        let Some(instance) = self.sae.as_mut().and_then(|s| s.instance.as_mut()) else { return Ok(()) };
        let bssid = self.config.bssid;
        let events = match instance.handle(body) {
            Ok(events) => events,
            Err(why) => {
                self.counters.refused_sae += 1;
                self.sae_refused(why, body, out)?;
                return Err(Error::Sae { peer: bssid, why });
            }
        };
        for event in events {
            match event {
                SaeEvent::Send(frame) => self.send_sae(frame, out)?,
                SaeEvent::Accepted { pmk, pmkid } => {
                    let expires = self.now_ms.saturating_add(PmksaCache::DEFAULT_LIFETIME * 1000);
                    if let Some(sae) = self.sae.as_mut() {
                        sae.pmksa = Some((pmk, pmkid, expires));
                        sae.reset();
                    }
                    self.associate(out)?;
                }
            }
        }
        Ok(())
    }

    /// What a refused exchange means: another group after status 77, a wrong password
    /// after a confirm that does not verify (either side's), the next attempt otherwise.
    fn sae_refused(&mut self, why: SaeError, body: &[u8], out: &mut Vec<Output>) -> Result<()> {
        match why {
            SaeError::Refused(StatusCode::UNSUPPORTED_FINITE_CYCLIC_GROUP) => {
                let group = AuthFrame::new_unchecked(body).payload().get(..2).map(|g| u16::from_le_bytes([g[0], g[1]]));
                let Some(sae) = self.sae.as_mut() else { return Ok(()) };
                let own = sae.instance.as_ref().map(Instance::group).map(Group::id);
                if group.is_none() || group == own {
                    sae.rejected.extend(own);
                    sae.reset();
                    return self.sae_commit(out);
                }
            }
            SaeError::Refused(StatusCode::CHALLENGE_FAILURE) | SaeError::ConfirmMismatch => {
                let why = "SAE confirm failed (wrong password?)".to_string();
                if let Some(sae) = self.sae.as_mut() {
                    sae.reset();
                }
                self.config_error(why.clone(), why);
            }
            SaeError::Refused(status) => {
                let Some(sae) = self.sae.as_mut() else { return Ok(()) };
                sae.reset();
                // sae_pwe=2, the commit sent before a beacon said which method the access point
                // takes (or none said): the other method, once.
                let both = self.config.key_management.sae().is_some_and(|s| s.pwe == SaePwe::Both);
                if both && sae.ap_h2e != Some(sae.h2e) {
                    sae.ap_h2e = Some(sae.ap_h2e.unwrap_or(!sae.h2e));
                    return self.sae_commit(out);
                }
                self.leave(format!("SAE refused by the access point (status {})", status.0));
            }
            // A frame that does not belong to the exchange: dropped, the timer resends.
            _ => {}
        }
        Ok(())
    }

    /// The RSN element of the association request: the network's (in transition mode, with
    /// the one AKM the station takes), with the PMKID of the station's PMKSA on an SAE or
    /// OWE link.
    pub(super) fn own_rsne(&self) -> Result<Option<Vec<u8>>> {
        let akms: &[Akm] = if self.config.in_sae_transition() { &[self.akm] } else { &[] };
        let Some(rsne) = self.config.rsn_element_of(akms)? else { return Ok(None) };
        let sae_pmksa = self.sae.as_ref().and_then(|s| s.pmksa(self.now_ms)).filter(|_| self.akm != Akm::Psk);
        let owe_pmksa = self.owe_state.pmksa(self.now_ms).filter(|_| self.akm == Akm::Owe);
        let Some((_, pmkid)) = sae_pmksa.or(owe_pmksa) else { return Ok(Some(rsne)) };
        let (kind, mut repr) = RsnElementRepr::parse(&rsne)?;
        repr.pmkids = vec![*pmkid];
        Ok(Some(repr.to_bytes(kind)?))
    }

    /// The AKM of the next attempt: the network's; in transition mode SAE where the access
    /// point's beacon offers it (or none was heard), else the PSK, unless Transition Disable
    /// disabled it. An OWE station joins no access point whose beacon offers no OWE (an
    /// open BSS). Why not, when the station does not join.
    pub(super) fn transition_akm(&self) -> core::result::Result<Akm, &'static str> {
        let offered = self.ap_rsne.as_deref().map(RsnElementRepr::parse);
        let offers = |akm| offered.as_ref().is_none_or(|r| r.as_ref().is_ok_and(|(_, r)| r.akms.contains(&akm)));
        if self.config.key_management.owe().is_some() && self.beacon_heard && (offered.is_none() || !offers(Akm::Owe)) {
            return Err("the access point offers no OWE (an open network): not joined");
        }
        if !self.config.in_sae_transition() {
            return Ok(self.config.key_management.akm());
        }
        let sae = self.config.key_management.akm();
        if offers(sae) {
            Ok(sae)
        } else if offers(Akm::Psk) && !self.psk_disabled {
            Ok(Akm::Psk)
        } else {
            Err("Transition Disable: the access point offers no SAE, and the PSK is disabled")
        }
    }

    /// The access point does not know our PMKID (it forgot the PMKSA): run SAE again.
    pub(super) fn sae_pmkid_refused(&mut self, out: &mut Vec<Output>) -> Result<()> {
        if let Some(sae) = self.sae.as_mut() {
            sae.pmksa = None;
        }
        self.start(out)
    }

    /// The PMK of the station's PMKSA (an SAE network's 4-way handshake runs on it).
    pub(super) fn sae_pmk(&self) -> Option<Pmk> {
        self.sae.as_ref().and_then(|s| s.pmksa(self.now_ms)).map(|(pmk, _)| pmk.clone())
    }
}
