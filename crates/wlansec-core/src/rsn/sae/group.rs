//! The finite cyclic groups SAE runs on (IEEE 802.11-2020 12.4.3, 12.4.4.2): the NIST prime
//! curves of groups 19, 20 and 21, and every operation the protocol needs from them. All the
//! field and curve arithmetic is RustCrypto's (`p256`, `p384`, `p521`); this file only says
//! which operation SAE calls for, on the octet strings the frames carry.
//!
//! The state machine above stores scalars and points as those octet strings (a scalar in
//! `prime_len` octets, an element as x || y), so it does not depend on the curve type; each
//! function here decodes them, validating as the standard requires, and dispatches on
//! [`Group`].

use elliptic_curve::bigint::NonZero;
use elliptic_curve::ops::Reduce;
use elliptic_curve::point::{AffineCoordinates, DecompressPoint};
use elliptic_curve::subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use elliptic_curve::{Curve, Field, FieldBytes, PrimeField};
use primeorder::osswu::{AffineOsswuMap, OsswuMap};
use primeorder::{AffinePoint, PrimeCurveParams, ProjectivePoint};
use rand_chacha::rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::SaeError;
use crate::rsn::kdf::KdfHash;

/// An elliptic-curve group SAE may run on (12.4.4.2.1; the group numbers of the IANA
/// registry the standard refers to).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Group {
    /// Group 19: NIST P-256.
    P256,
    /// Group 20: NIST P-384.
    P384,
    /// Group 21: NIST P-521.
    P521,
}

impl Group {
    pub const ALL: [Group; 3] = [Group::P256, Group::P384, Group::P521];

    /// The group of a Finite Cyclic Group field, if it is one implemented here.
    pub fn from_id(id: u16) -> Option<Group> {
        match id {
            19 => Some(Group::P256),
            20 => Some(Group::P384),
            21 => Some(Group::P521),
            _ => None,
        }
    }

    /// The Finite Cyclic Group number.
    pub fn id(self) -> u16 {
        match self {
            Group::P256 => 19,
            Group::P384 => 20,
            Group::P521 => 21,
        }
    }

    /// Octets of the prime (and of the order): the length of a scalar and of each coordinate.
    pub fn prime_len(self) -> usize {
        match self {
            Group::P256 => 32,
            Group::P384 => 48,
            Group::P521 => 66,
        }
    }

    /// Bits of the prime (hunting-and-pecking's pwd-value length).
    pub fn prime_bits(self) -> usize {
        match self {
            Group::P256 => 256,
            Group::P384 => 384,
            Group::P521 => 521,
        }
    }

    /// Octets of an element: x || y.
    pub fn element_len(self) -> usize {
        2 * self.prime_len()
    }

    /// The hash of hash-to-element and of its keys, by the length of the prime (Table 12-1).
    pub fn hash(self) -> KdfHash {
        match self {
            Group::P256 => KdfHash::Sha256,
            Group::P384 => KdfHash::Sha384,
            Group::P521 => KdfHash::Sha512,
        }
    }
}

/// A curve of [`Group`], with the two conversions its `Uint` type has to make concretely.
pub(super) trait SaeCurve:
    PrimeCurveParams + elliptic_curve::hazmat::FieldArithmetic<FieldElement: OsswuMap>
{
    const GROUP: Group;

    /// `hash mod (r - 1) + 1` as a scalar (12.4.4.2.3: val for PWE = [val]PT); `hash` is at
    /// most as long as the order. Depends only on the MAC addresses, so no secret is timed.
    fn val_scalar(hash: &[u8]) -> Self::Scalar;
}

macro_rules! sae_curve {
    ($curve:ty, $group:expr) => {
        impl SaeCurve for $curve {
            const GROUP: Group = $group;

            fn val_scalar(hash: &[u8]) -> Self::Scalar {
                type Uint = <$curve as Curve>::Uint;
                let mut wide = [0u8; Uint::BYTES];
                wide[Uint::BYTES - hash.len()..].copy_from_slice(hash);
                let val = Uint::from_be_slice(&wide);
                let order: Uint = *<$curve as Curve>::ORDER.as_ref();
                let modulus = NonZero::new(order.wrapping_sub(&Uint::ONE)).expect("the order is above 1");
                let reduced = val.rem(&modulus).wrapping_add(&Uint::ONE);
                <Self::Scalar as Reduce<Uint>>::reduce(&reduced)
            }
        }
    };
}

sae_curve!(p256::NistP256, Group::P256);
sae_curve!(p384::NistP384, Group::P384);
sae_curve!(p521::NistP521, Group::P521);

/// Calls `$f::<Curve>($args)` for the curve of `$group`.
macro_rules! on_curve {
    ($group:expr, $($f:ident)::+($($arg:expr),* $(,)?)) => {
        match $group {
            Group::P256 => $($f)::+::<p256::NistP256>($($arg),*),
            Group::P384 => $($f)::+::<p384::NistP384>($($arg),*),
            Group::P521 => $($f)::+::<p521::NistP521>($($arg),*),
        }
    };
}
pub(super) use on_curve;

impl Group {
    /// A uniform scalar in 2..r (`prime_len` octets): what rand and mask are drawn from.
    pub fn random_scalar(self, rng: &mut impl CryptoRng) -> Zeroizing<Vec<u8>> {
        on_curve!(self, random_scalar(rng))
    }
}

type Fe<C> = <C as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;
type Sc<C> = <C as elliptic_curve::CurveArithmetic>::Scalar;

/// A scalar from exactly `prime_len` octets, if below r.
pub(super) fn scalar<C: SaeCurve>(bytes: &[u8]) -> Option<Sc<C>> {
    let repr = FieldBytes::<C>::try_from(bytes).ok()?;
    Sc::<C>::from_repr(repr).into_option()
}

/// A point from x || y: each coordinate below p and the point on the curve. The point at
/// infinity has no x || y encoding, so it never comes out of here.
pub(super) fn element<C: SaeCurve>(bytes: &[u8]) -> Option<AffinePoint<C>> {
    let len = C::GROUP.prime_len();
    if bytes.len() != 2 * len {
        return None;
    }
    let x = FieldBytes::<C>::try_from(&bytes[..len]).ok()?;
    let y = FieldBytes::<C>::try_from(&bytes[len..]).ok()?;
    AffinePoint::<C>::from_coordinates(&x, &y).into_option()
}

/// x || y of a point that is not the point at infinity.
pub(super) fn encode_element<C: SaeCurve>(point: &AffinePoint<C>) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(C::GROUP.element_len()));
    out.extend_from_slice(&point.x());
    out.extend_from_slice(&point.y());
    out
}

/// `bytes` (big-endian, any length) reduced modulo p, by Horner's rule over chunks one
/// octet shorter than p (so each chunk is already a field element).
pub(super) fn field_from_wide<C: SaeCurve>(bytes: &[u8]) -> Fe<C> {
    let len = C::GROUP.prime_len();
    let chunk_len = len - 1;
    let first = match bytes.len() % chunk_len {
        0 => chunk_len,
        n => n,
    };
    let mut acc = Fe::<C>::ZERO;
    let mut rest = bytes;
    let mut take = first.min(bytes.len());
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(take);
        let mut repr = FieldBytes::<C>::default();
        repr[len - chunk.len()..].copy_from_slice(chunk);
        let value = Fe::<C>::from_repr(repr).unwrap_or(Fe::<C>::ZERO);
        let shift = Fe::<C>::from(2u64).pow_vartime([8 * chunk.len() as u64]);
        acc = acc * shift + value;
        rest = tail;
        take = chunk_len;
    }
    acc
}

/// The simplified SWU map of RFC 9380 6.6.2 (with the curve's Z of its 8.2 suites, the
/// values 12.4.4.2.3 names): a field element to a point.
pub(super) fn sswu<C: SaeCurve>(u: &Fe<C>) -> AffinePoint<C> {
    AffinePoint::<C>::osswu(u)
}

/// PT = SSWU(u1) + SSWU(u2), from the two wide pwd-values of 12.4.4.2.3.
pub(super) fn pt_from_values<C: SaeCurve>(value1: &[u8], value2: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    let p1 = ProjectivePoint::<C>::from(sswu::<C>(&field_from_wide::<C>(value1)));
    let p2 = ProjectivePoint::<C>::from(sswu::<C>(&field_from_wide::<C>(value2)));
    let pt = AffinePoint::<C>::from(p1 + p2);
    (!bool::from(pt.is_identity())).then(|| encode_element::<C>(&pt))
}

/// PWE = [val]PT with val = `hash` mod (r - 1) + 1.
pub(super) fn pwe_from_pt<C: SaeCurve>(pt: &[u8], hash: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    let pt = element::<C>(pt)?;
    let pwe = AffinePoint::<C>::from(ProjectivePoint::<C>::from(pt) * C::val_scalar(hash));
    (!bool::from(pwe.is_identity())).then(|| encode_element::<C>(&pwe))
}

/// The blinded quadratic-residue test of 12.4.4.2.2: whether `v` is a square modulo p,
/// computed on `v·r²·qr` or `v·r²·qnr` (by the parity of a fresh random r) so the value a
/// side channel could see is independent of `v`. Constant time in `v`.
fn is_square_blind<C: SaeCurve>(v: &Fe<C>, qr: &Fe<C>, qnr: &Fe<C>, rng: &mut impl CryptoRng) -> Choice {
    let r = random_nonzero::<C>(rng);
    let odd = r.is_odd();
    let blinded = *v * r.square();
    let with_qr = blinded * qr;
    let with_qnr = blinded * qnr;
    let num = Fe::<C>::conditional_select(&with_qnr, &with_qr, odd);
    // LGR(num) = 1 when blinded by the residue; = -1 when blinded by the non-residue.
    let has_root = num.sqrt().is_some();
    Choice::conditional_select(&!has_root, &(has_root & !num.is_zero()), odd)
}

fn random_nonzero<C: SaeCurve>(rng: &mut impl CryptoRng) -> Fe<C> {
    loop {
        let r = Fe::<C>::random(rng);
        if !bool::from(r.is_zero()) {
            return r;
        }
    }
}

/// What hunting-and-pecking keeps between its iterations, all selected in constant time.
pub(super) struct Hunt<C: SaeCurve> {
    x: Fe<C>,
    seed_odd: Choice,
    found: Choice,
    qr: Fe<C>,
    qnr: Fe<C>,
}

impl<C: SaeCurve> Hunt<C> {
    pub(super) fn new(rng: &mut impl CryptoRng) -> Self {
        let qr = random_nonzero::<C>(rng).square();
        // p ≡ 3 (mod 4) on all three curves, so -1 is a non-residue and so is -(s²).
        let qnr = -random_nonzero::<C>(rng).square();
        Hunt { x: Fe::<C>::ZERO, seed_odd: Choice::from(0), found: Choice::from(0), qr, qnr }
    }

    pub(super) fn found(&self) -> Choice {
        self.found
    }

    /// One candidate: `value` is pwd-value (prime_len octets, big-endian), `seed_odd` the LSB
    /// of its pwd-seed. Keeps the first candidate that is below p with x³ + ax + b a square;
    /// every call does the same work whatever the outcome.
    pub(super) fn offer(&mut self, value: &[u8], seed_odd: Choice, rng: &mut impl CryptoRng) {
        let mut repr = FieldBytes::<C>::default();
        repr.copy_from_slice(value);
        let parsed = Fe::<C>::from_repr(repr);
        let in_range = parsed.is_some();
        let x = parsed.unwrap_or(Fe::<C>::ZERO);
        let y_squared = x.square() * x + C::EQUATION_A * x + C::EQUATION_B;
        let valid = in_range & is_square_blind::<C>(&y_squared, &self.qr, &self.qnr, rng);
        let take = valid & !self.found;
        self.x = Fe::<C>::conditional_select(&self.x, &x, take);
        self.seed_odd = Choice::conditional_select(&self.seed_odd, &seed_odd, take);
        self.found |= valid;
    }

    /// PWE = (x, y) with LSB(y) = LSB(pwd-seed), once a candidate was found.
    pub(super) fn finish(self) -> Option<Zeroizing<Vec<u8>>> {
        if !bool::from(self.found) {
            return None;
        }
        let point = AffinePoint::<C>::decompress(&self.x.to_repr(), self.seed_odd).into_option()?;
        Some(encode_element::<C>(&point))
    }
}

/// A scalar in 2..r, uniformly: rand and mask of the commit (12.4.5.2).
fn random_scalar<C: SaeCurve>(rng: &mut impl CryptoRng) -> Zeroizing<Vec<u8>> {
    loop {
        let s = Sc::<C>::random(rng);
        if !bool::from(s.is_zero() | s.ct_eq(&Sc::<C>::ONE)) {
            return Zeroizing::new(s.to_repr().to_vec());
        }
    }
}

/// commit-scalar = (rand + mask) mod r and COMMIT-ELEMENT = inverse([mask]PWE)
/// (12.4.5.2); `None` when the scalar comes out 0 or 1 (the caller draws again).
pub(super) fn commit<C: SaeCurve>(pwe: &[u8], rand: &[u8], mask: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let pwe = element::<C>(pwe)?;
    let rand = scalar::<C>(rand)?;
    let mask = scalar::<C>(mask)?;
    let sum = rand + mask;
    if bool::from(sum.is_zero() | sum.ct_eq(&Sc::<C>::ONE)) {
        return None;
    }
    let element = AffinePoint::<C>::from(-(ProjectivePoint::<C>::from(pwe) * mask));
    if bool::from(element.is_identity()) {
        return None;
    }
    Some((sum.to_repr().to_vec(), encode_element::<C>(&element).to_vec()))
}

/// A peer's commit-scalar: 1 < scalar < r (12.4.5.4).
pub(super) fn check_scalar<C: SaeCurve>(bytes: &[u8]) -> Result<(), SaeError> {
    let s = scalar::<C>(bytes).ok_or(SaeError::ScalarOutOfRange)?;
    if bool::from(s.is_zero() | s.ct_eq(&Sc::<C>::ONE)) {
        return Err(SaeError::ScalarOutOfRange);
    }
    Ok(())
}

/// A peer's COMMIT-ELEMENT: coordinates below p, on the curve (12.4.5.4). Prime-order
/// curves have no small subgroup, so this is the whole check.
pub(super) fn check_element<C: SaeCurve>(bytes: &[u8]) -> Result<(), SaeError> {
    element::<C>(bytes).map(|_| ()).ok_or(SaeError::InvalidElement)
}

/// k = F(K), K = [rand]([peer-scalar]PWE + PEER-ELEMENT) (12.4.5.4): the x coordinate;
/// the point at infinity is refused.
pub(super) fn shared_secret<C: SaeCurve>(
    pwe: &[u8],
    rand: &[u8],
    peer_scalar: &[u8],
    peer_element: &[u8],
) -> Result<Zeroizing<Vec<u8>>, SaeError> {
    let pwe = element::<C>(pwe).ok_or(SaeError::InvalidElement)?;
    let rand = scalar::<C>(rand).ok_or(SaeError::ScalarOutOfRange)?;
    let peer_scalar = scalar::<C>(peer_scalar).ok_or(SaeError::ScalarOutOfRange)?;
    let peer_element = element::<C>(peer_element).ok_or(SaeError::InvalidElement)?;
    let k = ProjectivePoint::<C>::from(pwe) * peer_scalar + ProjectivePoint::<C>::from(peer_element);
    let k = AffinePoint::<C>::from(k * rand);
    if bool::from(k.is_identity()) {
        return Err(SaeError::SharedSecretAtInfinity);
    }
    Ok(Zeroizing::new(k.x().to_vec()))
}

/// (a + b) mod r, as `prime_len` octets.
pub(super) fn scalar_sum<C: SaeCurve>(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    Some((scalar::<C>(a)? + scalar::<C>(b)?).to_repr().to_vec())
}

/// p as `prime_len` big-endian octets (hunting-and-pecking's KDF context).
pub(super) fn prime_bytes<C: SaeCurve>() -> Vec<u8> {
    // p - 1 is even, so p is p - 1 with its last bit set.
    let mut p = (-Fe::<C>::ONE).to_repr().to_vec();
    let last = p.len() - 1;
    p[last] |= 1;
    p
}
