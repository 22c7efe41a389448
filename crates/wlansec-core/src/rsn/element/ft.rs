//! The elements the FT key hierarchy is named by (IEEE 802.11-2020 9.4.2.46-47): the
//! Mobility Domain element (MDID) and the Fast BSS Transition element (R0KH-ID, R1KH-ID,
//! nonces), as an initial mobility domain association carries them in its association
//! frames and its 4-way handshake's messages 2 and 3.

use crate::error::{Error, Result};

/// Element IDs.
pub const MOBILITY_DOMAIN_ID: u8 = 54;
pub const FAST_BSS_TRANSITION_ID: u8 = 55;

/// FTE subelement IDs.
mod subelement {
    pub const R1KH_ID: u8 = 1;
    pub const R0KH_ID: u8 = 3;
}

/// The MDID of a Mobility Domain element body (MDID, FT Capability and Policy).
pub fn mdid(body: &[u8]) -> Result<[u8; 2]> {
    match body {
        [a, b, _] => Ok([*a, *b]),
        _ => Err(Error::Malformed("Mobility Domain element of other than 3 octets")),
    }
}

/// What a Fast BSS Transition element body names: the key holders (R0KH-ID 1 to 48 octets,
/// R1KH-ID 6) and the nonces.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FtElement<'a> {
    pub anonce: [u8; 32],
    pub snonce: [u8; 32],
    pub r0kh_id: Option<&'a [u8]>,
    pub r1kh_id: Option<[u8; 6]>,
}

impl<'a> FtElement<'a> {
    /// Parse a body whose MIC field has `mic_len` octets (16; 24 for FT-802.1X-SHA384).
    pub fn parse(body: &'a [u8], mic_len: usize) -> Result<Self> {
        let fixed = 2 + mic_len + 64;
        if body.len() < fixed {
            return Err(Error::Truncated { what: "Fast BSS Transition element", needed: fixed, got: body.len() });
        }
        let mut anonce = [0u8; 32];
        let mut snonce = [0u8; 32];
        anonce.copy_from_slice(&body[2 + mic_len..2 + mic_len + 32]);
        snonce.copy_from_slice(&body[2 + mic_len + 32..fixed]);
        let mut out = FtElement { anonce, snonce, r0kh_id: None, r1kh_id: None };
        let mut rest = &body[fixed..];
        while let [id, len, tail @ ..] = rest {
            let data = tail.get(..usize::from(*len)).ok_or(Error::Malformed("FTE subelement runs past the element"))?;
            match *id {
                subelement::R1KH_ID => {
                    out.r1kh_id = Some(data.try_into().map_err(|_| Error::Malformed("R1KH-ID of other than 6 octets"))?)
                }
                subelement::R0KH_ID if (1..=48).contains(&data.len()) => out.r0kh_id = Some(data),
                subelement::R0KH_ID => return Err(Error::Malformed("R0KH-ID of other than 1 to 48 octets")),
                _ => {}
            }
            rest = &tail[data.len()..];
        }
        if !rest.is_empty() {
            return Err(Error::Malformed("FTE subelement header cut short"));
        }
        Ok(out)
    }

    /// A body with a zero MIC field of `mic_len` octets, the nonces and the two key holders.
    pub fn to_body(&self, mic_len: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; 2 + mic_len];
        out.extend_from_slice(&self.anonce);
        out.extend_from_slice(&self.snonce);
        if let Some(r1) = self.r1kh_id {
            out.extend_from_slice(&[subelement::R1KH_ID, 6]);
            out.extend_from_slice(&r1);
        }
        if let Some(r0) = self.r0kh_id {
            if r0.is_empty() || r0.len() > 48 {
                return Err(Error::Malformed("R0KH-ID of other than 1 to 48 octets"));
            }
            out.extend_from_slice(&[subelement::R0KH_ID, r0.len() as u8]);
            out.extend_from_slice(r0);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_fte_round_trips_and_bad_ones_are_refused() {
        let fte = FtElement { anonce: [1; 32], snonce: [2; 32], r0kh_id: Some(b"r0kh.example"), r1kh_id: Some([3; 6]) };
        for mic_len in [16, 24] {
            let body = fte.to_body(mic_len).unwrap();
            assert_eq!(FtElement::parse(&body, mic_len).unwrap(), fte);
            assert!(FtElement::parse(&body[..body.len() - 1], mic_len).is_err());
        }
        let body = fte.to_body(16).unwrap();
        assert!(FtElement::parse(&body[..80], 16).is_err());
        assert_eq!(mdid(&[0xa1, 0xb2, 0x01]).unwrap(), [0xa1, 0xb2]);
        assert!(mdid(&[0xa1]).is_err());
    }
}
