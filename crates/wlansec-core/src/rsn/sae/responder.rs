//! The access point's SAE parent process (IEEE 802.11-2020 12.4.8.5): one [`Instance`] per
//! peer, anti-clogging past the threshold of open commits, and the PMKSA cache the accepted
//! exchanges fill.

use std::collections::HashMap;

use rand_chacha::rand_core::CryptoRng;

use super::clogging::AntiClogging;
use super::group::Group;
use super::instance::{Instance, Role, SaeEvent};
use super::message::{emit_token_request, SaeMessage};
use super::pmksa::{PmksaCache, PmksaEntry};
use super::pwe::{LoopCost, Password, PasswordElement, PasswordToken, PweMethod};
use super::SaeError;
use crate::wire::MacAddr;

/// What the access point offers.
#[derive(Clone, Debug)]
pub struct ResponderConfig {
    pub own: MacAddr,
    pub ssid: Vec<u8>,
    pub password: Password,
    pub method: PweMethod,
    /// Groups accepted, in order of preference.
    pub groups: Vec<Group>,
    /// Open commits from which a commit must carry an anti-clogging token.
    pub clogging_threshold: usize,
    /// Seconds a PMKSA stays cached.
    pub pmk_lifetime: u64,
    /// SAE-EXT-KEY (AKM 24): every exchange's PMK is one hash long
    /// ([`Instance::with_ext_key`]).
    pub ext_key: bool,
}

impl ResponderConfig {
    pub fn new(own: MacAddr, ssid: &[u8], password: Password, method: PweMethod) -> ResponderConfig {
        ResponderConfig {
            own,
            ssid: ssid.to_vec(),
            password,
            method,
            groups: vec![Group::P256],
            clogging_threshold: AntiClogging::DEFAULT_THRESHOLD,
            pmk_lifetime: PmksaCache::DEFAULT_LIFETIME,
            ext_key: false,
        }
    }
}

#[derive(Debug)]
pub struct Responder {
    config: ResponderConfig,
    /// Hash-to-element's PT of each offered group, derived once.
    tokens: Vec<PasswordToken>,
    instances: HashMap<MacAddr, Instance>,
    clogging: AntiClogging,
    pmksa: PmksaCache,
    now: u64,
}

impl Responder {
    pub fn new(config: ResponderConfig, rng: &mut impl CryptoRng) -> Result<Responder, SaeError> {
        let tokens = match config.method {
            PweMethod::HashToElement => config
                .groups
                .iter()
                .map(|&g| PasswordToken::derive(g, &config.ssid, &config.password))
                .collect::<Result<_, _>>()?,
            PweMethod::HuntingAndPecking => Vec::new(),
        };
        let clogging = AntiClogging::new(config.clogging_threshold, rng);
        Ok(Responder { config, tokens, instances: HashMap::new(), clogging, pmksa: PmksaCache::default(), now: 0 })
    }

    /// Exchanges begun and not yet accepted.
    pub fn open_commits(&self) -> usize {
        self.instances.values().filter(|i| !i.is_accepted()).count()
    }

    pub fn pmksa(&self) -> &PmksaCache {
        &self.pmksa
    }

    /// Advance the clock to `now` (seconds): rotates the token secret, expires PMKSAs.
    pub fn tick(&mut self, now: u64, rng: &mut impl CryptoRng) {
        self.now = now;
        self.clogging.tick(now, rng);
        self.pmksa.expire(now);
    }

    /// Drop `peer`'s exchange (its authentication timed out or it left).
    pub fn forget(&mut self, peer: MacAddr) {
        self.instances.remove(&peer);
    }

    /// Take one SAE Authentication frame body from `peer`. On an error nothing changed;
    /// [`SaeError::status`] says how to answer.
    pub fn handle(&mut self, peer: MacAddr, frame: &[u8], rng: &mut impl CryptoRng) -> Result<Vec<SaeEvent>, SaeError> {
        let message = SaeMessage::parse(frame)?;
        let fresh_commit =
            matches!(message, SaeMessage::Commit(_)) && self.instances.get(&peer).is_none_or(Instance::is_accepted);
        let events = if let (true, SaeMessage::Commit(commit)) = (fresh_commit, &message) {
            // Before any password element is derived: a flood costs one HMAC per frame.
            if self.clogging.required(self.open_commits())
                && !commit.token.is_some_and(|t| self.clogging.check(peer, t))
            {
                let mut out = Vec::new();
                let h2e = self.config.method == PweMethod::HashToElement;
                emit_token_request(commit.group.id(), &self.clogging.token(peer), h2e, &mut out);
                return Ok(vec![SaeEvent::Send(out)]);
            }
            if !self.config.groups.contains(&commit.group) {
                return Err(SaeError::UnsupportedGroup(commit.group.id()));
            }
            let rejected = commit.rejected_groups.unwrap_or_default().chunks_exact(2);
            if let Some(id) = rejected
                .map(|g| u16::from_le_bytes([g[0], g[1]]))
                .find(|&id| commit.h2e && Group::from_id(id).is_some_and(|g| self.config.groups.contains(&g)))
            {
                return Err(SaeError::RejectedGroupOffered(id));
            }
            let pwe = self.password_element(commit.group, peer, rng)?;
            let mut instance = Instance::new(Role::AccessPoint, pwe, self.config.password.identifier(), rng)?;
            if self.config.ext_key {
                instance = instance.with_ext_key();
            }
            let events = instance.handle(frame)?;
            self.instances.insert(peer, instance);
            events
        } else {
            let instance = self.instances.get_mut(&peer).ok_or(SaeError::Unexpected("frame without an exchange"))?;
            instance.handle(frame)?
        };
        for event in &events {
            if let SaeEvent::Accepted { pmk, pmkid } = event {
                let group = self.instances.get(&peer).map_or(Group::P256, Instance::group);
                let expires_at = self.now + self.config.pmk_lifetime;
                self.pmksa.insert(PmksaEntry { peer, group, pmk: pmk.clone(), pmkid: *pmkid, expires_at });
            }
        }
        Ok(events)
    }

    fn password_element(
        &self,
        group: Group,
        peer: MacAddr,
        rng: &mut impl CryptoRng,
    ) -> Result<PasswordElement, SaeError> {
        match self.config.method {
            PweMethod::HashToElement => {
                let pt =
                    self.tokens.iter().find(|t| t.group() == group).ok_or(SaeError::UnsupportedGroup(group.id()))?;
                PasswordElement::from_token(pt, self.config.own, peer)
            }
            PweMethod::HuntingAndPecking => PasswordElement::hunting_and_pecking(
                group,
                &self.config.password,
                self.config.own,
                peer,
                rng,
                &mut LoopCost::default(),
            ),
        }
    }
}
