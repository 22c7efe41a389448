//! The password element (IEEE 802.11-2020 12.4.4.2): by hunting-and-pecking, a loop that
//! always runs its 40 iterations, or by hash-to-element, PT from the password and SSID with
//! the simplified SWU map and then PWE = `[val]PT` for the two MAC addresses.

use core::fmt;

use rand_chacha::rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroizing;

use super::group::{self, on_curve, Group, Hunt, SaeCurve};
use super::keys::{hkdf_expand, hmac, kdf_sha256_bits};
use super::SaeError;
use crate::rsn::kdf::KdfHash;
use crate::wire::MacAddr;

/// How both sides derive the password element; hash-to-element is signalled by status
/// code 126 (SAE_HASH_TO_ELEMENT) in the commit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PweMethod {
    HuntingAndPecking,
    HashToElement,
}

/// Iterations hunting-and-pecking always runs (k of 12.4.4.2.2), so its time says nothing
/// about the iteration that found the element.
pub const HUNTING_AND_PECKING_ITERATIONS: u8 = 40;

/// The password and its optional identifier (12.4.3): zeroized on drop, never printed.
#[derive(Clone)]
pub struct Password {
    password: Zeroizing<Vec<u8>>,
    identifier: Option<Vec<u8>>,
}

impl Password {
    pub fn new(password: &[u8], identifier: Option<&[u8]>) -> Password {
        Password { password: Zeroizing::new(password.to_vec()), identifier: identifier.map(<[u8]>::to_vec) }
    }

    pub fn identifier(&self) -> Option<&[u8]> {
        self.identifier.as_deref()
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Password").field("identifier", &self.identifier).finish_non_exhaustive()
    }
}

/// The work one hunting-and-pecking derivation did: the same for every password (the
/// timing defence a test counts instead of timing).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct LoopCost {
    pub iterations: u32,
    /// HMAC computations of pwd-seed plus KDF blocks of pwd-value.
    pub hashes: u32,
    /// Blinded quadratic-residue tests.
    pub residue_tests: u32,
}

/// A password element of a group (x || y): secret, zeroized on drop, never printed.
#[derive(Clone)]
pub struct PasswordElement {
    group: Group,
    method: PweMethod,
    element: Zeroizing<Vec<u8>>,
}

impl PasswordElement {
    pub fn group(&self) -> Group {
        self.group
    }

    pub fn method(&self) -> PweMethod {
        self.method
    }

    /// x || y, for known-answer tests.
    pub fn as_bytes(&self) -> &[u8] {
        &self.element
    }

    /// Hunting-and-pecking (12.4.4.2.2): pwd-seed = HMAC-SHA256(MAX(a1, a2) || MIN(a1, a2),
    /// password || counter), pwd-value = KDF-SHA256-len(p)(pwd-seed, "SAE Hunting and
    /// Pecking", p); the first pwd-value below p with x³ + ax + b a square is x, and y has
    /// the parity of pwd-seed. Always 40 iterations (more only if none of them found one,
    /// which happens once in 2⁴⁰), each doing the same work; after the find the password is
    /// swapped for a random one of equal length so later iterations touch no secret.
    pub fn hunting_and_pecking(
        group: Group,
        password: &Password,
        a1: MacAddr,
        a2: MacAddr,
        rng: &mut impl CryptoRng,
        cost: &mut LoopCost,
    ) -> Result<PasswordElement, SaeError> {
        let element = on_curve!(group, hunt(&password.password, a1, a2, rng, cost))?;
        Ok(PasswordElement { group, method: PweMethod::HuntingAndPecking, element })
    }

    /// Hash-to-element's second step (12.4.4.2.3): PWE = `[val]PT` with
    /// val = H(<0>n, MAX(a1, a2) || MIN(a1, a2)) mod (r - 1) + 1.
    pub fn from_token(pt: &PasswordToken, a1: MacAddr, a2: MacAddr) -> Result<PasswordElement, SaeError> {
        let group = pt.group;
        let (max, min) = max_min(a1, a2);
        let hash = group.hash();
        let val = hmac(hash, &vec![0u8; hash.output_len()], &[&max.0, &min.0]);
        let element = on_curve!(group, group::pwe_from_pt(&pt.element, &val)).ok_or(SaeError::NoPasswordElement)?;
        Ok(PasswordElement { group, method: PweMethod::HashToElement, element })
    }
}

impl fmt::Debug for PasswordElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PasswordElement")
            .field("group", &self.group)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

fn max_min(a1: MacAddr, a2: MacAddr) -> (MacAddr, MacAddr) {
    if a1.0 > a2.0 {
        (a1, a2)
    } else {
        (a2, a1)
    }
}

fn hunt<C: SaeCurve>(
    password: &[u8],
    a1: MacAddr,
    a2: MacAddr,
    rng: &mut impl CryptoRng,
    cost: &mut LoopCost,
) -> Result<Zeroizing<Vec<u8>>, SaeError> {
    let group = C::GROUP;
    let (max, min) = max_min(a1, a2);
    let mut key = [0u8; 12];
    key[..6].copy_from_slice(&max.0);
    key[6..].copy_from_slice(&min.0);
    let prime = group::prime_bytes::<C>();
    let mut stub = Zeroizing::new(vec![0u8; password.len()]);
    rng.fill_bytes(&mut stub);
    let mut base = Zeroizing::new(vec![0u8; password.len()]);
    let mut value = Zeroizing::new(vec![0u8; group.prime_len()]);
    let mut hunt = Hunt::<C>::new(rng);
    let mut counter: u8 = 1;
    loop {
        let found = hunt.found();
        for ((b, p), s) in base.iter_mut().zip(password).zip(stub.iter()) {
            *b = u8::conditional_select(p, s, found);
        }
        let seed = hmac(KdfHash::Sha256, &key, &[&base, &[counter]]);
        kdf_sha256_bits(&seed, b"SAE Hunting and Pecking", &prime, group.prime_bits(), &mut value);
        hunt.offer(&value, Choice::from(seed[31] & 1), rng);
        cost.iterations += 1;
        cost.hashes += 1 + group.prime_len().div_ceil(32) as u32;
        cost.residue_tests += 1;
        if counter >= HUNTING_AND_PECKING_ITERATIONS && bool::from(hunt.found()) {
            break;
        }
        counter = counter.checked_add(1).ok_or(SaeError::NoPasswordElement)?;
    }
    hunt.finish().ok_or(SaeError::NoPasswordElement)
}

/// PT, hash-to-element's password token for one group (12.4.4.2.3): derived once from the
/// password, its identifier and the SSID, and kept for every peer. Secret, never printed.
#[derive(Clone)]
pub struct PasswordToken {
    group: Group,
    element: Zeroizing<Vec<u8>>,
}

/// The intermediate values of PT, for known-answer tests.
pub struct TokenSteps {
    pub pwd_seed: Zeroizing<Vec<u8>>,
    pub pwd_value1: Zeroizing<Vec<u8>>,
    pub pwd_value2: Zeroizing<Vec<u8>>,
}

impl PasswordToken {
    /// pwd-seed = HKDF-Extract(SSID, password [|| identifier]); pwd-value1/2 =
    /// HKDF-Expand(pwd-seed, "SAE Hash to Element u1 P1" / "... u2 P2", len) with
    /// len = olen(p) + ceil(olen(p)/2); u = pwd-value mod p; PT = SSWU(u1) + SSWU(u2).
    pub fn derive(group: Group, ssid: &[u8], password: &Password) -> Result<PasswordToken, SaeError> {
        Self::derive_with_steps(group, ssid, password).map(|(pt, _)| pt)
    }

    pub fn derive_with_steps(
        group: Group,
        ssid: &[u8],
        password: &Password,
    ) -> Result<(PasswordToken, TokenSteps), SaeError> {
        let hash = group.hash();
        let identifier = password.identifier.as_deref().unwrap_or_default();
        let pwd_seed = hmac(hash, ssid, &[&password.password, identifier]);
        let len = group.prime_len() + group.prime_len().div_ceil(2);
        let mut pwd_value1 = Zeroizing::new(vec![0u8; len]);
        let mut pwd_value2 = Zeroizing::new(vec![0u8; len]);
        hkdf_expand(hash, &pwd_seed, b"SAE Hash to Element u1 P1", &mut pwd_value1);
        hkdf_expand(hash, &pwd_seed, b"SAE Hash to Element u2 P2", &mut pwd_value2);
        let element =
            on_curve!(group, group::pt_from_values(&pwd_value1, &pwd_value2)).ok_or(SaeError::NoPasswordElement)?;
        Ok((PasswordToken { group, element }, TokenSteps { pwd_seed, pwd_value1, pwd_value2 }))
    }

    pub fn group(&self) -> Group {
        self.group
    }

    /// x || y, for known-answer tests.
    pub fn as_bytes(&self) -> &[u8] {
        &self.element
    }
}

impl fmt::Debug for PasswordToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PasswordToken").field("group", &self.group).finish_non_exhaustive()
    }
}
