//! Robust Security Network key management (IEEE 802.11-2016 12.6-12.7): the key hierarchy
//! ([`kdf`]), AES key wrap ([`keywrap`]), EAPOL-Key frames ([`eapol`]), the RSN element and
//! Key Data items ([`element`]), the 4-way and group key handshakes ([`handshake`]), SAE,
//! the password authentication of WPA3-Personal ([`sae`]), and OWE, the unauthenticated
//! Diffie-Hellman exchange of open networks ([`owe`]).

pub mod eapol;
pub mod element;
pub mod handshake;
pub mod kdf;
pub mod keywrap;
pub mod owe;
pub mod sae;
pub mod tdls;

pub use eapol::{EapolKey, EapolKeyRepr, KeyDescriptorVersion, KeyInfo, KeyIntegrity, Message};
pub use element::{negotiate_mfp, Akm, CipherSuite, MfpPolicy, RsnElementRepr};
pub use handshake::{Authenticator, Event, HandshakeError, Params, Supplicant};
pub use kdf::{derive_ptk, derive_ptk_with, pmk_from_passphrase, AkmKeys, KdfHash, Pmk, Ptk, Secret};
