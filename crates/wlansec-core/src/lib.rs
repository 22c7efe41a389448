//! wlansec-core: the IEEE 802.11 frame model and data-confidentiality suites of wlansec.
//!
//! * [`wire`]: zero-copy 802.11 frame views and validated header representations, LLC/SNAP.
//! * [`suite`]: CCMP-128/256 behind the [`suite::FrameSuite`] trait, with transmit PN and
//!   receive replay state; BIP (802.11w) for group-addressed management frames.
//! * [`rx`]: the receive pipeline (decapsulation, replay check, reassembly, A-MSDU) and its
//!   attack defences; [`tx`]: an MSDU into protected MPDUs or fragments.
//! * [`rsn`]: key hierarchy (PSK, PRF, KDF, PTK), EAPOL-Key frames, RSN element and KDEs.
//! * [`ccm`]: the CCM mode the CCMP suites are built on.
//! * [`capture`]: pcap and pcapng files, radiotap headers.
//! * [`decrypt`]: capture decryption (handshakes followed per station, every suite).
//! * [`synth`]: realistic protected captures (handshakes and traffic of every suite) to test
//!   decryptors with.
//! * [`gen`]: deterministic random frames of every header shape.

pub mod capture;
pub mod ccm;
pub mod decrypt;
pub mod engine;
pub mod error;
pub mod gen;
pub mod registry;
pub mod rsn;
pub mod rx;
pub mod suite;
pub mod synth;
pub mod tx;
pub mod wire;

pub use error::{Error, Result};
