//! Opportunistic Wireless Encryption (RFC 8110, AKM 00-0F-AC:18) as a sans-IO exchange: the
//! station puts an ephemeral public key in its association request's Diffie-Hellman
//! Parameter element ([`OweStation::request_element`]), the access point answers with its
//! own in the association response ([`respond`]), and both derive the same PMK and PMKID
//! (RFC 8110 4.4), which then key an ordinary 4-way handshake.
//!
//! z = the x-coordinate of ECDH(own secret, peer's point);
//! prk = HKDF-Extract(C | A | group, z); PMK = HKDF-Expand(prk, "OWE Key Generation", n);
//! PMKID = Truncate-128(Hash(C | A)), with C the station's and A the access point's public
//! key (x-coordinates), the group as two octets little-endian and Hash and n (its length) of
//! the group: SHA-256 for 19, SHA-384 for 20, SHA-512 for 21. All the curve arithmetic is
//! RustCrypto's (`p256`, `p384`, `p521`).
//!
//! A public key that is not the x-coordinate of a point on the group's curve is refused, and
//! so is a shared point at infinity; a group other than 19, 20 or 21 is refused with status
//! 77 (the station may try another).

use elliptic_curve::point::{AffineCoordinates, DecompressPoint};
use elliptic_curve::subtle::Choice;
use elliptic_curve::{FieldBytes, Group as _, NonZeroScalar};
use hkdf::Hkdf;
use primeorder::{AffinePoint, PrimeCurveParams, ProjectivePoint};
use rand_chacha::rand_core::CryptoRng;
use sha2::{Digest, Sha256, Sha384, Sha512};
use zeroize::Zeroizing;

use crate::rsn::element::owe::DhParameterRepr;
use crate::rsn::kdf::{KdfHash, Pmk};
pub use crate::rsn::sae::Group;
use crate::rsn::sae::StatusCode;

/// The HKDF-Expand info of the PMK.
const PMK_INFO: &[u8] = b"OWE Key Generation";

/// Why an OWE exchange was refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OweError {
    /// A group other than 19, 20 and 21 (answered with status 77).
    UnsupportedGroup(u16),
    /// A public key of the wrong length, or whose x-coordinate is no point on the curve.
    InvalidPublicKey,
    /// The shared point came out as the point at infinity.
    SharedSecretAtInfinity,
    /// The access point answered with another group than the station asked for.
    GroupMismatch { asked: u16, got: u16 },
    /// A secret scalar given that is not in 1..r of the group.
    InvalidSecret,
}

impl OweError {
    /// The status code an access point answers this refusal with.
    pub fn status_code(self) -> StatusCode {
        match self {
            OweError::UnsupportedGroup(_) | OweError::GroupMismatch { .. } => {
                StatusCode::UNSUPPORTED_FINITE_CYCLIC_GROUP
            }
            // As hostapd answers a bad public key.
            OweError::InvalidPublicKey | OweError::SharedSecretAtInfinity | OweError::InvalidSecret => {
                StatusCode::REFUSED_REASON_UNSPECIFIED
            }
        }
    }
}

impl core::fmt::Display for OweError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            OweError::UnsupportedGroup(g) => write!(f, "OWE group {g} not supported (19, 20 or 21)"),
            OweError::InvalidPublicKey => f.write_str("OWE public key is not a point on the group's curve"),
            OweError::SharedSecretAtInfinity => f.write_str("OWE shared secret is the point at infinity"),
            OweError::GroupMismatch { asked, got } => write!(f, "OWE: asked for group {asked}, answered with {got}"),
            OweError::InvalidSecret => f.write_str("OWE secret scalar not in 1..r"),
        }
    }
}

impl std::error::Error for OweError {}

/// Calls `$f::<Curve>($args)` for the curve of `$group`.
macro_rules! on_curve {
    ($group:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $group {
            Group::P256 => $f::<p256::NistP256>($($arg),*),
            Group::P384 => $f::<p384::NistP384>($($arg),*),
            Group::P521 => $f::<p521::NistP521>($($arg),*),
        }
    };
}

/// An ephemeral key pair: the secret scalar and the public x-coordinate.
struct KeyPair {
    secret: Zeroizing<Vec<u8>>,
    public: Vec<u8>,
}

fn scalar<C: PrimeCurveParams>(secret: &[u8]) -> Result<NonZeroScalar<C>, OweError> {
    let repr = FieldBytes::<C>::try_from(secret).map_err(|_| OweError::InvalidSecret)?;
    Option::from(NonZeroScalar::<C>::from_repr(repr)).ok_or(OweError::InvalidSecret)
}

fn public_x<C: PrimeCurveParams>(secret: &[u8]) -> Result<Vec<u8>, OweError> {
    let public = AffinePoint::<C>::from(ProjectivePoint::<C>::generator() * *scalar::<C>(secret)?);
    Ok(public.x().to_vec())
}

/// The x-coordinate of `secret` times the point `peer`, given as its x-coordinate (either
/// y gives the same x, so the sign need not travel).
fn shared_x<C: PrimeCurveParams>(secret: &[u8], peer_x: &[u8]) -> Result<Zeroizing<Vec<u8>>, OweError> {
    let x = FieldBytes::<C>::try_from(peer_x).map_err(|_| OweError::InvalidPublicKey)?;
    let peer = AffinePoint::<C>::decompress(&x, Choice::from(0)).into_option().ok_or(OweError::InvalidPublicKey)?;
    let shared = AffinePoint::<C>::from(ProjectivePoint::<C>::from(peer) * *scalar::<C>(secret)?);
    if bool::from(shared.is_identity()) {
        return Err(OweError::SharedSecretAtInfinity);
    }
    Ok(Zeroizing::new(shared.x().to_vec()))
}

impl KeyPair {
    fn from_secret(group: Group, secret: &[u8]) -> Result<Self, OweError> {
        let public = on_curve!(group, public_x(secret))?;
        Ok(KeyPair { secret: Zeroizing::new(secret.to_vec()), public })
    }
}

/// What an OWE exchange gives both sides: the PMK (as long as the group's hash) and its
/// PMKID.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OweKeys {
    pub group: Group,
    pub pmk: Pmk,
    pub pmkid: [u8; 16],
}

/// The PMK and PMKID from the shared x-coordinate `z` and the two public keys.
pub fn derive(group: Group, z: &[u8], sta_public: &[u8], ap_public: &[u8]) -> OweKeys {
    let salt = [sta_public, ap_public, &group.id().to_le_bytes()].concat();
    let mut pmk = Zeroizing::new([0u8; 64]);
    let n = group.hash().output_len();
    let out = &mut pmk[..n];
    // HKDF-Expand to the hash's own length never exceeds its limit (255 blocks).
    let mut pmkid = [0u8; 16];
    match group.hash() {
        KdfHash::Sha384 => {
            Hkdf::<Sha384>::new(Some(&salt), z).expand(PMK_INFO, out).unwrap_or_else(|_| unreachable!());
            pmkid.copy_from_slice(&Sha384::new().chain_update(sta_public).chain_update(ap_public).finalize()[..16]);
        }
        KdfHash::Sha512 => {
            Hkdf::<Sha512>::new(Some(&salt), z).expand(PMK_INFO, out).unwrap_or_else(|_| unreachable!());
            pmkid.copy_from_slice(&Sha512::new().chain_update(sta_public).chain_update(ap_public).finalize()[..16]);
        }
        _ => {
            Hkdf::<Sha256>::new(Some(&salt), z).expand(PMK_INFO, out).unwrap_or_else(|_| unreachable!());
            pmkid.copy_from_slice(&Sha256::new().chain_update(sta_public).chain_update(ap_public).finalize()[..16]);
        }
    }
    let pmk = Pmk::from_bytes(out).unwrap_or_else(|_| unreachable!("32, 48 or 64 octets"));
    OweKeys { group, pmk, pmkid }
}

/// The station's side: its ephemeral key, until the access point's answer completes it.
pub struct OweStation {
    group: Group,
    keys: KeyPair,
}

impl OweStation {
    pub fn new(group: Group, rng: &mut impl CryptoRng) -> Self {
        let secret = group.random_scalar(rng);
        Self::with_secret(group, &secret).unwrap_or_else(|_| unreachable!("a fresh scalar is in 1..r"))
    }

    /// A station with the secret scalar given (known-answer tests).
    pub fn with_secret(group: Group, secret: &[u8]) -> Result<Self, OweError> {
        Ok(OweStation { group, keys: KeyPair::from_secret(group, secret)? })
    }

    pub fn group(&self) -> Group {
        self.group
    }

    /// The Diffie-Hellman Parameter element of the association request, whole.
    pub fn request_element(&self) -> Vec<u8> {
        DhParameterRepr { group: self.group.id(), public_key: &self.keys.public }
            .to_bytes()
            .unwrap_or_else(|_| unreachable!("a public key of at most 66 octets fits an element"))
    }

    /// The access point's Diffie-Hellman Parameter element (whole, from the association
    /// response): the PMK and PMKID.
    pub fn complete(&self, ap_element: &[u8]) -> Result<OweKeys, OweError> {
        let ap = DhParameterRepr::parse(ap_element).map_err(|_| OweError::InvalidPublicKey)?;
        if ap.group != self.group.id() {
            return Err(OweError::GroupMismatch { asked: self.group.id(), got: ap.group });
        }
        let z = on_curve!(self.group, shared_x(&self.keys.secret, ap.public_key))?;
        Ok(derive(self.group, &z, &self.keys.public, ap.public_key))
    }
}

/// The access point's side: given the station's Diffie-Hellman Parameter element (whole)
/// and the groups it offers, its own element for the association response and the keys.
/// An error's [`OweError::status_code`] is the association response's status.
pub fn respond(
    sta_element: &[u8],
    offered: &[Group],
    rng: &mut impl CryptoRng,
) -> Result<(Vec<u8>, OweKeys), OweError> {
    let group = requested_group(sta_element, offered)?;
    respond_with_secret(sta_element, offered, &group.random_scalar(rng))
}

/// The group a station's element asks for, if it is one of `offered`.
pub fn requested_group(sta_element: &[u8], offered: &[Group]) -> Result<Group, OweError> {
    let sta = DhParameterRepr::parse(sta_element).map_err(|_| OweError::InvalidPublicKey)?;
    let group = Group::from_id(sta.group).ok_or(OweError::UnsupportedGroup(sta.group))?;
    if !offered.contains(&group) {
        return Err(OweError::UnsupportedGroup(sta.group));
    }
    Ok(group)
}

/// [`respond`] with the access point's secret scalar given (known-answer tests).
pub fn respond_with_secret(
    sta_element: &[u8],
    offered: &[Group],
    secret: &[u8],
) -> Result<(Vec<u8>, OweKeys), OweError> {
    let group = requested_group(sta_element, offered)?;
    let sta = DhParameterRepr::parse(sta_element).map_err(|_| OweError::InvalidPublicKey)?;
    let own = KeyPair::from_secret(group, secret)?;
    let z = on_curve!(group, shared_x(&own.secret, sta.public_key))?;
    let element = DhParameterRepr { group: group.id(), public_key: &own.public }
        .to_bytes()
        .unwrap_or_else(|_| unreachable!("a public key of at most 66 octets fits an element"));
    Ok((element, derive(group, &z, sta.public_key, &own.public)))
}

#[cfg(test)]
mod tests;
