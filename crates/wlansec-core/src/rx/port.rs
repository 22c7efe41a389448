//! The 802.1X controlled port (IEEE 802.1X-2010 6.4, 802.11-2016 12.7.1): what of a delivered
//! frame an access point, station or IBSS peer takes from the air. On a protected network an
//! unprotected frame passes only as one whole EAPOL frame of the receiver's own handshake:
//! not fragmented, not aggregated, addressed to the receiver (FragAttacks CVE-2020-26140,
//! -26143, -26144). An EAPOL frame, protected or not, goes only to the receiver's handshake
//! and only when addressed to it: never to the host and never forwarded (CVE-2020-26139).
//! Plaintext EAPOL stays admitted after keys are installed, as a retransmitted message 3 may
//! come unprotected before the authenticator has installed its key; the handshake's replay
//! counter and MIC decide about it.

use crate::error::{Attack, Result};
use crate::wire::MacAddr;

use super::{Defences, Delivered};

/// One MSDU taken off a delivered frame, owned: its addresses and its LLC/SNAP header and
/// payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedMsdu {
    pub da: MacAddr,
    pub sa: MacAddr,
    pub body: Vec<u8>,
}

/// What the port admits of a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Admitted {
    /// An EAPOL frame (802.1X header onwards) for the receiver's handshake.
    Eapol(Vec<u8>),
    /// MSDUs for the host or to forward.
    Data(Vec<OwnedMsdu>),
}

/// Apply the port rule of `receiver` (its own address) to `delivered`, on a network that
/// `protected_network` says protects its data.
pub fn admit(
    delivered: &Delivered<'_>,
    receiver: MacAddr,
    protected_network: bool,
    defences: Defences,
) -> Result<Admitted> {
    let whole = !delivered.is_amsdu() && !delivered.reassembled;
    let mut msdus = Vec::new();
    for msdu in delivered.msdus() {
        let msdu = msdu?;
        msdus.push((msdu.eapol().is_some(), OwnedMsdu { da: msdu.da, sa: msdu.sa, body: msdu.body.to_vec() }));
    }
    let unprotected = protected_network && !delivered.protected;
    if unprotected && defences.plaintext_only_eapol && !(whole && msdus.len() == 1 && msdus[0].0) {
        return Err(Attack::PlaintextData.into());
    }
    let eapol_at = msdus.iter().position(|(eapol, _)| *eapol);
    if let Some(at) = eapol_at.filter(|_| protected_network) {
        let to_receiver = whole && msdus.len() == 1 && msdus[at].1.da == receiver;
        if defences.eapol_only_to_its_receiver && !to_receiver {
            return Err(Attack::EapolForwarding.into());
        }
        if to_receiver {
            let body = std::mem::take(&mut msdus[at].1.body);
            return Ok(Admitted::Eapol(body[crate::wire::llc::SNAP_HEADER_LEN..].to_vec()));
        }
    }
    Ok(Admitted::Data(msdus.into_iter().map(|(_, m)| m).collect()))
}
