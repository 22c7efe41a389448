//! SAE at the access point (IEEE 802.11-2020 12.4): Authentication frames of algorithm 3
//! go to the core's [`Responder`] (one per password element method offered: `sae_pwe=2`
//! takes both), which answers with its commit and confirm, an anti-clogging token request
//! past the threshold of open commits, or a refusal's status. An accepted exchange leaves a
//! PMKSA; the station's association request names it by its PMKID, and its PMK is the one
//! the 4-way handshake runs on.
//!
//! Anyone can open an exchange with a commit from a forged address: past the anti-clogging
//! threshold only with the token sent to that address, which an attacker on the air hears.
//! So at most [`MAX_SAE_EXCHANGES`] are open at once, a new one evicting the oldest (a
//! station finishes within a round trip, a flood's exchanges never do), and each is
//! forgotten [`SAE_EXCHANGE_TIMEOUT_MS`] after its first commit, accepted or not (an
//! accepted one lives on as its PMKSA, which expires with the PMK lifetime).

use std::collections::BTreeMap;

use wlansec_core::gen::ChaCha8Rng;
use wlansec_core::rsn::sae::message::{emit_refusal, AuthFrame, TRANSACTION_COMMIT};
use wlansec_core::rsn::sae::{Password, PweMethod, Responder, ResponderConfig, SaeError, SaeEvent, StatusCode};
use wlansec_core::rsn::{Akm, Pmk, RsnElementRepr};
use wlansec_core::wire::mgmt::{AuthenticationRepr, ManagementBody};
use wlansec_core::wire::MacAddr;

use super::{AccessPoint, LoggedPmk};
use crate::node::Output;
use crate::security::SaeSettings;
use crate::{Error, Result};

/// SAE exchanges open at once at most: a flood of commits that carry the tokens sent to its
/// forged addresses holds this many, the oldest evicted by each new one.
pub(crate) const MAX_SAE_EXCHANGES: usize = 64;
/// How long an exchange is kept after its first commit: a station finishes in a few
/// retransmissions (250 ms apart), or starts again with a new commit.
pub(crate) const SAE_EXCHANGE_TIMEOUT_MS: u64 = 5_000;

/// The access point's SAE side: its responders and the exchanges they hold.
pub(super) struct SaeAccessPoint {
    responders: Vec<(PweMethod, Responder)>,
    /// When each open exchange began, and under which method.
    exchanges: BTreeMap<MacAddr, (u64, PweMethod)>,
}

impl SaeAccessPoint {
    pub(super) fn new(
        settings: &SaeSettings,
        bssid: MacAddr,
        ssid: &str,
        password: &Password,
        rng: &mut ChaCha8Rng,
    ) -> Result<Self> {
        let methods = [PweMethod::HashToElement, PweMethod::HuntingAndPecking];
        let responders = methods
            .into_iter()
            .filter(|&m| settings.pwe.accepts(m))
            .map(|method| {
                let config = ResponderConfig {
                    groups: settings.groups.clone(),
                    ext_key: settings.ext_key,
                    ..ResponderConfig::new(bssid, ssid.as_bytes(), password.clone(), method)
                };
                Responder::new(config, rng).map(|r| (method, r)).map_err(|why| Error::Sae { peer: bssid, why })
            })
            .collect::<Result<_>>()?;
        Ok(SaeAccessPoint { responders, exchanges: BTreeMap::new() })
    }

    /// Open exchanges (accepted ones not yet associated included).
    pub(super) fn open(&self) -> usize {
        self.exchanges.len()
    }

    /// The PMK of `sta`'s PMKSA named `pmkid`, if alive.
    fn pmk(&self, sta: MacAddr, pmkid: &[u8; 16], now_s: u64) -> Option<Pmk> {
        self.responders.iter().find_map(|(_, r)| r.pmksa().get(sta, pmkid, now_s)).map(|e| e.pmk.clone())
    }

    /// Forget `sta`'s exchange (its PMKSA, if it was accepted, stays).
    fn forget(&mut self, sta: MacAddr) {
        if self.exchanges.remove(&sta).is_some() {
            for (_, r) in &mut self.responders {
                r.forget(sta);
            }
        }
    }

    /// Record that `sta`'s exchange is open (since `now_ms`, if new); past the bound the
    /// oldest other one goes. Whether one was evicted.
    fn opened(&mut self, sta: MacAddr, method: PweMethod, now_ms: u64) -> bool {
        self.exchanges.entry(sta).or_insert((now_ms, method));
        if self.exchanges.len() <= MAX_SAE_EXCHANGES {
            return false;
        }
        let oldest = self.exchanges.iter().filter(|(&m, _)| m != sta).min_by_key(|(_, &(began, _))| began);
        let Some(oldest) = oldest.map(|(&m, _)| m) else { return false };
        self.forget(oldest);
        true
    }

    /// The responder of a frame's method: a commit says it (status 126: hash-to-element), a
    /// confirm belongs to its exchange's; with one responder, that one.
    fn responder_for(&mut self, sta: MacAddr, frame: &AuthFrame<&[u8]>) -> (PweMethod, &mut Responder) {
        let method = if frame.transaction() == TRANSACTION_COMMIT {
            match frame.status() {
                StatusCode::SAE_HASH_TO_ELEMENT => PweMethod::HashToElement,
                _ => PweMethod::HuntingAndPecking,
            }
        } else {
            self.exchanges.get(&sta).map_or(PweMethod::HashToElement, |&(_, m)| m)
        };
        let at = self.responders.iter().position(|(m, _)| *m == method).unwrap_or(0);
        let (method, responder) = &mut self.responders[at];
        (*method, responder)
    }
}

impl AccessPoint {
    /// SAE exchanges open now (for tests and status).
    pub fn sae_exchanges(&self) -> usize {
        self.sae.as_ref().map_or(0, SaeAccessPoint::open)
    }

    /// The clock of the SAE side: rotate the token secrets, expire PMKSAs and exchanges.
    pub(super) fn sae_tick(&mut self) {
        let now_ms = self.now_ms;
        let Some(sae) = self.sae.as_mut() else { return };
        for (_, r) in &mut sae.responders {
            r.tick(now_ms / 1000, &mut self.rng);
        }
        let expired: Vec<MacAddr> = sae
            .exchanges
            .iter()
            .filter(|(_, &(began, _))| now_ms.saturating_sub(began) >= SAE_EXCHANGE_TIMEOUT_MS)
            .map(|(&mac, _)| mac)
            .collect();
        for mac in expired {
            sae.forget(mac);
        }
    }

    /// An SAE Authentication frame body from `sta`.
    pub(super) fn sae_frame(&mut self, sta: MacAddr, body: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let now_ms = self.now_ms;
        let Some(sae) = self.sae.as_mut() else { return Ok(()) };
        let Ok(frame) = AuthFrame::new_checked(body) else { return Ok(()) };
        let transaction = frame.transaction();
        let (method, responder) = sae.responder_for(sta, &frame);
        let events = match responder.handle(sta, body, &mut self.rng) {
            Ok(events) => events,
            Err(why) => {
                self.counters.refused_sae += 1;
                if why == SaeError::ConfirmMismatch {
                    // Why, for status, a while (a bounded few).
                    let failure = "SAE confirm failed (wrong password?)".to_string();
                    self.table.failures.record(sta, failure, now_ms);
                }
                if let Some(status) = why.status() {
                    let mut refusal = Vec::new();
                    emit_refusal(transaction, status, &mut refusal);
                    self.send_sae(sta, &refusal, out)?;
                }
                return Err(Error::Sae { peer: sta, why });
            }
        };
        let mut token_request = false;
        for event in events {
            match event {
                SaeEvent::Send(frame) => {
                    token_request |=
                        AuthFrame::new_unchecked(&frame[..]).status() == StatusCode::ANTI_CLOGGING_TOKEN_REQUIRED;
                    self.send_sae(sta, &frame, out)?;
                }
                SaeEvent::Accepted { pmk, pmkid } => {
                    let akm = self.config.key_management.akm();
                    self.log_pmk(LoggedPmk { station: sta, akm, pmkid, pmk })
                }
            }
        }
        let Some(sae) = self.sae.as_mut() else { return Ok(()) };
        if token_request {
            self.counters.sae_token_requests += 1;
        } else if sae.opened(sta, method, now_ms) {
            self.counters.evicted_unproven += 1;
        }
        Ok(())
    }

    fn send_sae(&mut self, sta: MacAddr, body: &[u8], out: &mut Vec<Output>) -> Result<()> {
        let repr = AuthenticationRepr::parse(body)?;
        out.push(Output::Air(self.management_to(ManagementBody::Authentication(repr), sta)?));
        Ok(())
    }

    /// The AKM a station's association request `theirs` takes: the network's SAE AKM, or in
    /// transition mode the PSK; none when it names neither.
    pub(super) fn chosen_akm(&self, theirs: &RsnElementRepr) -> Option<Akm> {
        let sae = self.config.key_management.akm();
        let offered: &[Akm] = if self.transition_psk.is_some() { &[sae, Akm::Psk] } else { &[sae] };
        offered.iter().copied().find(|akm| theirs.akms.contains(akm))
    }

    /// The PMK an SAE station's association request names by a PMKID in `pmkids` and the
    /// exchange it ends; none (the request is refused, status 53) when no PMKSA of `sta`
    /// has one of them.
    pub(super) fn sae_pmk(&mut self, sta: MacAddr, pmkids: &[[u8; 16]]) -> Option<Pmk> {
        let now_s = self.now_ms / 1000;
        let sae = self.sae.as_mut()?;
        let pmk = pmkids.iter().find_map(|id| sae.pmk(sta, id, now_s))?;
        sae.forget(sta);
        Some(pmk)
    }
}
