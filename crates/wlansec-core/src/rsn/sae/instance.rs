//! One SAE protocol instance (IEEE 802.11-2020 12.4.8.6): commit, confirm, accept.

use core::fmt;

use rand_chacha::rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::group::{self, on_curve, Group};
use super::keys::SaeKeys;
use super::message::{CommitRepr, ConfirmRepr, SaeMessage};
use super::pwe::{PasswordElement, PweMethod};
use super::SaeError;
use crate::rsn::kdf::{KdfHash, Pmk};

/// Which side an instance is: a station commits first; an access point's instance starts
/// with the station's commit and answers it with its own commit and its confirm.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    Station,
    AccessPoint,
}

/// What an instance asks its owner to do.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SaeEvent {
    /// Transmit this Authentication frame body to the peer.
    Send(Vec<u8>),
    /// Both confirms verified: the PMK and PMKID of the new PMKSA.
    Accepted { pmk: Pmk, pmkid: [u8; 16] },
}

/// A commit's scalar and element, as the frames carry them.
#[derive(Clone, PartialEq, Eq)]
struct Commit {
    scalar: Vec<u8>,
    element: Vec<u8>,
}

enum State {
    /// Our commit is out; waiting for the peer's.
    Committed,
    /// Both commits known, our confirm out; waiting for the peer's confirm.
    Confirmed {
        peer: Commit,
        keys: SaeKeys,
    },
    Accepted {
        keys: SaeKeys,
    },
}

/// One protocol instance with one peer. Its secrets (the password element, rand, the keys)
/// are zeroized on drop and never printed.
pub struct Instance {
    role: Role,
    pwe: PasswordElement,
    rand: Zeroizing<Vec<u8>>,
    own: Commit,
    identifier: Option<Vec<u8>>,
    /// The Rejected Groups list (group numbers, 2 octets little-endian each) of a
    /// hash-to-element exchange: a station's own, sent in its commit; an access point's
    /// from the station's commit. It salts the keyseed.
    rejected_groups: Option<Vec<u8>>,
    token: Option<Vec<u8>>,
    /// SAE-EXT-KEY (AKM 24): the PMK is one hash long.
    ext_key: bool,
    send_confirm: u16,
    state: State,
}

impl Instance {
    /// A new instance: draws rand and mask (2..r) and computes the commit (12.4.5.2).
    /// `identifier` is the password identifier both sides send in their commits.
    pub fn new(
        role: Role,
        pwe: PasswordElement,
        identifier: Option<&[u8]>,
        rng: &mut impl CryptoRng,
    ) -> Result<Instance, SaeError> {
        loop {
            let rand = pwe.group().random_scalar(rng);
            let mask = pwe.group().random_scalar(rng);
            match Self::with_rand_mask(role, pwe.clone(), identifier, &rand, &mask) {
                Err(SaeError::ScalarOutOfRange) => continue,
                other => return other,
            }
        }
    }

    /// An instance with the given rand and mask (each `prime_len` octets), for known-answer
    /// tests; [`SaeError::ScalarOutOfRange`] when rand + mask is 0 or 1 modulo r.
    pub fn with_rand_mask(
        role: Role,
        pwe: PasswordElement,
        identifier: Option<&[u8]>,
        rand: &[u8],
        mask: &[u8],
    ) -> Result<Instance, SaeError> {
        if identifier.is_some_and(|id| id.len() > 253) {
            return Err(SaeError::IdentifierTooLong);
        }
        let (scalar, element) =
            on_curve!(pwe.group(), group::commit(pwe.as_bytes(), rand, mask)).ok_or(SaeError::ScalarOutOfRange)?;
        Ok(Instance {
            role,
            pwe,
            rand: Zeroizing::new(rand.to_vec()),
            own: Commit { scalar, element },
            identifier: identifier.map(<[u8]>::to_vec),
            rejected_groups: None,
            token: None,
            ext_key: false,
            send_confirm: 0,
            state: State::Committed,
        })
    }

    /// This instance runs for SAE-EXT-KEY (AKM 24, IEEE 802.11-2020 12.4.5.4 as REVme
    /// amends it): its PMK is as long as the KDF's hash (48 octets on group 20 by
    /// hash-to-element), not 256 bits. Both sides must agree; the AKM they associate with
    /// says which.
    pub fn with_ext_key(mut self) -> Instance {
        self.ext_key = true;
        self
    }

    /// A station's hash-to-element commit lists the groups the access point refused (status
    /// UNSUPPORTED_FINITE_CYCLIC_GROUP) before this one, so the access point can tell a
    /// downgrade (12.4.5.3); the list salts the keyseed. Ignored for hunting-and-pecking.
    pub fn reject_groups(&mut self, ids: &[u16]) {
        let list: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
        let h2e = self.pwe.method() == PweMethod::HashToElement;
        self.rejected_groups = (h2e && !list.is_empty() && self.role == Role::Station).then_some(list);
    }

    pub fn group(&self) -> Group {
        self.pwe.group()
    }

    pub fn is_accepted(&self) -> bool {
        matches!(self.state, State::Accepted { .. })
    }

    /// The keys, once both commits are known.
    pub fn keys(&self) -> Option<&SaeKeys> {
        match &self.state {
            State::Committed => None,
            State::Confirmed { keys, .. } | State::Accepted { keys } => Some(keys),
        }
    }

    /// Our commit-scalar and COMMIT-ELEMENT.
    pub fn own_commit(&self) -> (&[u8], &[u8]) {
        (&self.own.scalar, &self.own.element)
    }

    /// Our commit message, with the anti-clogging token the peer asked for, if any.
    pub fn commit_frame(&self) -> Vec<u8> {
        let mut out = Vec::new();
        CommitRepr {
            group: self.group(),
            h2e: self.pwe.method() == PweMethod::HashToElement,
            token: self.token.as_deref(),
            scalar: &self.own.scalar,
            element: &self.own.element,
            password_identifier: self.identifier.as_deref(),
            rejected_groups: self.rejected_groups.as_deref().filter(|_| self.role == Role::Station),
        }
        .emit(&mut out);
        out
    }

    /// Take one SAE Authentication frame body from the peer. On an error the state is as
    /// before the frame; [`SaeError::status`] says how to answer.
    pub fn handle(&mut self, frame: &[u8]) -> Result<Vec<SaeEvent>, SaeError> {
        match SaeMessage::parse(frame)? {
            SaeMessage::Commit(commit) => self.receive_commit(&commit),
            SaeMessage::Confirm(confirm) => self.receive_confirm(&confirm),
            SaeMessage::TokenRequired { group, token } => {
                if !matches!(self.state, State::Committed) || group != self.group().id() || self.role != Role::Station {
                    return Err(SaeError::Unexpected("anti-clogging token request"));
                }
                self.token = Some(token.to_vec());
                Ok(vec![SaeEvent::Send(self.commit_frame())])
            }
            SaeMessage::Refused { status, .. } => Err(SaeError::Refused(status)),
        }
    }

    fn receive_commit(&mut self, commit: &CommitRepr<'_>) -> Result<Vec<SaeEvent>, SaeError> {
        if commit.group != self.group() {
            return Err(SaeError::UnsupportedGroup(commit.group.id()));
        }
        if commit.h2e != (self.pwe.method() == PweMethod::HashToElement) {
            return Err(SaeError::PweMethodMismatch);
        }
        if commit.password_identifier != self.identifier.as_deref() {
            return Err(SaeError::UnknownPasswordIdentifier);
        }
        let peer = Commit { scalar: commit.scalar.to_vec(), element: commit.element.to_vec() };
        match &self.state {
            State::Committed => {}
            // A retransmitted commit: the peer lost our answer (an access point's is its
            // commit and its confirm).
            State::Confirmed { peer: known, .. } if *known == peer => {
                let mut events = Vec::new();
                if self.role == Role::AccessPoint {
                    events.push(SaeEvent::Send(self.commit_frame()));
                }
                events.push(SaeEvent::Send(self.confirm_frame()?));
                return Ok(events);
            }
            _ => return Err(SaeError::Unexpected("commit")),
        }
        let group = self.group();
        on_curve!(group, group::check_scalar(&peer.scalar))?;
        on_curve!(group, group::check_element(&peer.element))?;
        let reflected = peer.scalar.ct_eq(&self.own.scalar) & peer.element.ct_eq(&self.own.element);
        if bool::from(reflected) {
            return Err(SaeError::Reflection);
        }
        let k = on_curve!(group, group::shared_secret(self.pwe.as_bytes(), &self.rand, &peer.scalar, &peer.element))?;
        let sum =
            on_curve!(group, group::scalar_sum(&self.own.scalar, &peer.scalar)).ok_or(SaeError::ScalarOutOfRange)?;
        let hash = match self.pwe.method() {
            PweMethod::HuntingAndPecking => KdfHash::Sha256,
            PweMethod::HashToElement => group.hash(),
        };
        if commit.h2e && self.role == Role::AccessPoint {
            self.rejected_groups = commit.rejected_groups.map(<[u8]>::to_vec);
        }
        let keys = SaeKeys::derive(hash, self.ext_key, self.rejected_groups.as_deref(), &k, &sum);
        self.state = State::Confirmed { peer, keys };
        let mut events = Vec::new();
        if self.role == Role::AccessPoint {
            events.push(SaeEvent::Send(self.commit_frame()));
        }
        events.push(SaeEvent::Send(self.confirm_frame()?));
        Ok(events)
    }

    fn confirm_frame(&mut self) -> Result<Vec<u8>, SaeError> {
        let State::Confirmed { peer, keys } = &self.state else {
            return Err(SaeError::Unexpected("confirm before the peer's commit"));
        };
        self.send_confirm = self.send_confirm.saturating_add(1);
        let confirm = keys.confirm(self.send_confirm, &self.own.scalar, &self.own.element, &peer.scalar, &peer.element);
        let mut out = Vec::new();
        ConfirmRepr { send_confirm: self.send_confirm, confirm: &confirm }.emit(&mut out);
        Ok(out)
    }

    fn receive_confirm(&mut self, confirm: &ConfirmRepr<'_>) -> Result<Vec<SaeEvent>, SaeError> {
        let State::Confirmed { peer, keys } = &self.state else {
            return Err(SaeError::Unexpected("confirm"));
        };
        let verifier_ok = keys.verify(
            confirm.confirm,
            confirm.send_confirm,
            &peer.scalar,
            &peer.element,
            &self.own.scalar,
            &self.own.element,
        );
        if !verifier_ok {
            return Err(SaeError::ConfirmMismatch);
        }
        let keys = keys.clone();
        let event = SaeEvent::Accepted { pmk: keys.pmk().clone(), pmkid: keys.pmkid() };
        self.state = State::Accepted { keys };
        self.rand = Zeroizing::new(Vec::new());
        Ok(vec![event])
    }
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Committed => "Committed",
            State::Confirmed { .. } => "Confirmed",
            State::Accepted { .. } => "Accepted",
        };
        f.debug_struct("Instance")
            .field("role", &self.role)
            .field("group", &self.group())
            .field("state", &state)
            .finish_non_exhaustive()
    }
}
