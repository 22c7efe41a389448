//! The TDLS peer key (TPK) handshake's keys and MICs (IEEE 802.11-2020 12.7.8.4): the TPK
//! both peers derive from the nonces of the Setup Response's Fast BSS Transition element,
//! and the FTE MIC that the Response and the Confirm carry under its TPK-KCK.
//!
//! ```text
//! TPK-Key-Input = SHA-256(min(SNonce, ANonce) || max(SNonce, ANonce))
//! TPK = KDF-SHA256-Length(TPK-Key-Input, "TDLS PMK", min(MAC_I, MAC_R) || max(MAC_I, MAC_R) || BSSID)
//! TPK-KCK = TPK[0..16], TPK-TK = TPK[16..], Length = 128 + the pairwise cipher's TK bits
//! MIC = AES-128-CMAC(TPK-KCK, MAC_I || MAC_R || Transaction Sequence || Link Identifier
//!       || RSNE || Timeout Interval || FTE with its MIC field zero)
//! ```

use aes::Aes128;
use cmac::{Cmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::element::ft::{FtElement, FAST_BSS_TRANSITION_ID};
use super::kdf::{kdf_sha256, Secret};
use super::{CipherSuite, RsnElementRepr};
use crate::error::{Error, Result};
use crate::wire::mgmt::element_id::RSN;
use crate::wire::mgmt::Elements;
use crate::wire::tdls::{element_id, LinkIdRepr, SetupAction};
use crate::wire::MacAddr;

/// The KDF label of the TPK.
const TPK_LABEL: &[u8] = b"TDLS PMK";
/// Octets of the TPK-KCK and of the FTE MIC (AES-128-CMAC).
pub const KCK_LEN: usize = 16;
pub const MIC_LEN: usize = 16;
/// Where the MIC is in a whole FTE: after ID, Length and MIC Control.
const FTE_MIC_AT: usize = 4;

/// A TDLS peer key: the KCK that signs the setup frames and the TK of the direct link.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Tpk {
    pub kck: Secret,
    pub tk: Secret,
}

/// Derive the TPK of the link between `initiator` and `responder` in `bssid` from the
/// initiator's SNonce and the responder's ANonce, for a pairwise cipher with `tk_len`-octet keys.
pub fn derive_tpk(
    snonce: &[u8; 32],
    anonce: &[u8; 32],
    initiator: MacAddr,
    responder: MacAddr,
    bssid: MacAddr,
    tk_len: usize,
) -> Result<Tpk> {
    let (low, high) = if snonce <= anonce { (snonce, anonce) } else { (anonce, snonce) };
    let mut key_input: [u8; 32] = Sha256::new().chain_update(low).chain_update(high).finalize().into();
    let (first, second) = if initiator <= responder { (initiator, responder) } else { (responder, initiator) };
    let context = [first.0, second.0, bssid.0].concat();
    let mut tpk = [0u8; KCK_LEN + 32];
    let tpk_len = KCK_LEN + tk_len;
    let out = tpk.get_mut(..tpk_len).ok_or(Error::KeyLength { expected: 32, got: tk_len })?;
    let derived = kdf_sha256(&key_input, TPK_LABEL, &context, out);
    key_input.zeroize();
    derived?;
    let keys = Tpk { kck: Secret::from_slice(&tpk[..KCK_LEN])?, tk: Secret::from_slice(&tpk[KCK_LEN..tpk_len])? };
    tpk.zeroize();
    Ok(keys)
}

/// What the TPK handshake takes from a Setup Response or Confirm: the four elements the MIC
/// covers (whole, as they are in the frame), the link they name, the nonces and the MIC.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TpkMessage<'a> {
    pub link: LinkIdRepr,
    pub pairwise: CipherSuite,
    pub anonce: [u8; 32],
    pub snonce: [u8; 32],
    link_element: &'a [u8],
    rsne: &'a [u8],
    timeout: &'a [u8],
    fte: &'a [u8],
}

impl<'a> TpkMessage<'a> {
    /// Find the Link Identifier, RSN, Timeout Interval and FT elements among a setup frame's.
    pub fn find(elements: Elements<'a>) -> Result<Self> {
        let whole = |id| elements.find(id).map(|e| e.as_bytes());
        let missing = Error::Malformed("TDLS setup without its Link Identifier, RSN, Timeout Interval and FT elements");
        let (Some(link_element), Some(rsne), Some(timeout), Some(fte)) = (
            whole(element_id::LINK_IDENTIFIER),
            whole(RSN),
            whole(element_id::TIMEOUT_INTERVAL),
            whole(FAST_BSS_TRANSITION_ID),
        ) else {
            return Err(missing);
        };
        let link = LinkIdRepr::parse(link_element)?;
        let (_, rsn) = RsnElementRepr::parse(rsne)?;
        let pairwise =
            *rsn.pairwise_ciphers.first().ok_or(Error::Malformed("TDLS RSN element without a pairwise cipher"))?;
        let ft = FtElement::parse(&fte[2..], MIC_LEN)?;
        Ok(TpkMessage { link, pairwise, anonce: ft.anonce, snonce: ft.snonce, link_element, rsne, timeout, fte })
    }

    /// The TPK this message's nonces and link give.
    pub fn tpk(&self) -> Result<Tpk> {
        let tk_len =
            self.pairwise.tk_len().ok_or(Error::Unsupported("TDLS pairwise cipher with no known TK length"))?;
        derive_tpk(&self.snonce, &self.anonce, self.link.initiator, self.link.responder, self.link.bssid, tk_len)
    }

    /// The FTE MIC of this message as `action` under `kck`.
    pub fn mic(&self, kck: &[u8], action: SetupAction) -> Result<[u8; MIC_LEN]> {
        let mut mac = <Cmac<Aes128> as KeyInit>::new_from_slice(kck)
            .map_err(|_| Error::KeyLength { expected: KCK_LEN, got: kck.len() })?;
        mac.update(&self.link.initiator.0);
        mac.update(&self.link.responder.0);
        mac.update(&[action.transaction_sequence()]);
        mac.update(self.link_element);
        mac.update(self.rsne);
        mac.update(self.timeout);
        mac.update(&self.fte[..FTE_MIC_AT]);
        mac.update(&[0; MIC_LEN]);
        mac.update(&self.fte[FTE_MIC_AT + MIC_LEN..]);
        Ok(mac.finalize().into_bytes().into())
    }

    /// Check the MIC the FTE carries, in constant time.
    pub fn verify(&self, kck: &[u8], action: SetupAction) -> Result<()> {
        let expected = self.mic(kck, action)?;
        if bool::from(expected.ct_eq(&self.fte[FTE_MIC_AT..FTE_MIC_AT + MIC_LEN])) {
            Ok(())
        } else {
            Err(Error::MicFailure)
        }
    }
}

#[cfg(test)]
mod tests;
