//! The Management MIC element (IEEE 802.11-2016 9.4.2.55): the Key ID, IPN and MIC that
//! BIP appends to a group-addressed robust management frame, as its body's last element.
//!
//! `76 | Length (16 or 24) | Key ID (2, LE) | IPN (6, IPN0 first) | MIC (8 or 16)`.

use super::element_id::MANAGEMENT_MIC;
use crate::error::{Error, Result};

/// Octets of the Key ID and IPN fields.
const FIXED_LEN: usize = 8;
const HEADER_LEN: usize = 2;
const IPN_MAX: u64 = (1 << 48) - 1;

/// One Management MIC element, its MIC borrowed from the frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MmeRepr<'a> {
    /// The IGTK's Key ID (4 or 5 for a valid key; any value parses).
    pub key_id: u16,
    /// The 48-bit IGTK packet number.
    pub ipn: u64,
    /// 8 octets (BIP-CMAC-128) or 16 (the other BIP variants).
    pub mic: &'a [u8],
}

impl<'a> MmeRepr<'a> {
    /// Octets of a whole MME with a `mic_len`-octet MIC.
    pub const fn len_with_mic(mic_len: usize) -> usize {
        HEADER_LEN + FIXED_LEN + mic_len
    }

    /// Parse a whole element (ID, Length, data).
    pub fn parse(element: &'a [u8]) -> Result<Self> {
        let [id, len, data @ ..] = element else {
            return Err(Error::Truncated { what: "MME header", needed: HEADER_LEN, got: element.len() });
        };
        if *id != MANAGEMENT_MIC {
            return Err(Error::Malformed("not a Management MIC element"));
        }
        if usize::from(*len) != data.len() {
            return Err(Error::Malformed("MME length differs from its data"));
        }
        let (fixed, mic) = data.split_first_chunk::<FIXED_LEN>().ok_or(Error::Truncated {
            what: "MME",
            needed: HEADER_LEN + FIXED_LEN,
            got: element.len(),
        })?;
        if mic.len() != 8 && mic.len() != 16 {
            return Err(Error::Malformed("MME MIC is neither 8 nor 16 octets"));
        }
        let [k0, k1, ipn @ ..] = *fixed;
        let [i0, i1, i2, i3, i4, i5] = ipn;
        Ok(MmeRepr {
            key_id: u16::from_le_bytes([k0, k1]),
            ipn: u64::from_le_bytes([i0, i1, i2, i3, i4, i5, 0, 0]),
            mic,
        })
    }

    /// The MME that ends a management frame body, its MIC `mic_len` octets long: the body
    /// before it and the element. A body that does not end in such an MME is refused.
    pub fn split_last(body: &'a [u8], mic_len: usize) -> Result<(&'a [u8], Self)> {
        let len = Self::len_with_mic(mic_len);
        let at = body.len().checked_sub(len).ok_or(Error::Truncated { what: "MME", needed: len, got: body.len() })?;
        let (before, element) = body.split_at(at);
        Ok((before, Self::parse(element)?))
    }

    pub fn buffer_len(&self) -> usize {
        Self::len_with_mic(self.mic.len())
    }

    /// Write the element at the front of `buf`; returns its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        if self.mic.len() != 8 && self.mic.len() != 16 {
            return Err(Error::Malformed("MME MIC is neither 8 nor 16 octets"));
        }
        if self.ipn > IPN_MAX {
            return Err(Error::Malformed("IPN wider than 48 bits"));
        }
        let len = self.buffer_len();
        let got = buf.len();
        let out = buf.get_mut(..len).ok_or(Error::BufferTooSmall { needed: len, got })?;
        let (head, mic) = out.split_at_mut(HEADER_LEN + FIXED_LEN);
        let [k0, k1] = self.key_id.to_le_bytes();
        let [i0, i1, i2, i3, i4, i5, ..] = self.ipn.to_le_bytes();
        head.copy_from_slice(&[MANAGEMENT_MIC, (len - HEADER_LEN) as u8, k0, k1, i0, i1, i2, i3, i4, i5]);
        mic.copy_from_slice(self.mic);
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MME of 802.11-2012 M.9.1 (BIP-CMAC-128, Key ID 4, IPN 4).
    const M91_MME: [u8; 18] = [0x4c, 0x10, 4, 0, 4, 0, 0, 0, 0, 0, 0x48, 0xdf, 0xbf, 0xa7, 0xb8, 0x27, 0x88, 0x72];

    #[test]
    fn mme_parses_and_emits_back() {
        let mme = MmeRepr::parse(&M91_MME).unwrap();
        assert_eq!((mme.key_id, mme.ipn, mme.mic), (4, 4, &M91_MME[10..]));
        let mut out = [0u8; 18];
        assert_eq!(mme.emit(&mut out), Ok(18));
        assert_eq!(out, M91_MME);
        let body = [&[2u8, 0][..], &M91_MME].concat();
        assert_eq!(MmeRepr::split_last(&body, 8), Ok((&[2u8, 0][..], mme)));
    }

    #[test]
    fn bad_mmes_give_typed_errors() {
        for cut in 0..M91_MME.len() {
            assert!(MmeRepr::parse(&M91_MME[..cut]).is_err(), "cut {cut}");
        }
        let mut wrong_id = M91_MME;
        wrong_id[0] = 48;
        assert!(matches!(MmeRepr::parse(&wrong_id), Err(Error::Malformed(_))));
        let mut odd_mic = [0x4c, 12, 4, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4];
        assert!(matches!(MmeRepr::parse(&odd_mic), Err(Error::Malformed(_))));
        odd_mic[1] = 13;
        assert!(MmeRepr::parse(&odd_mic).is_err());
        assert!(matches!(MmeRepr::split_last(&M91_MME, 16), Err(Error::Truncated { .. })));
        let wide = MmeRepr { key_id: 4, ipn: 1 << 48, mic: &[0; 8] };
        assert!(wide.emit(&mut [0; 18]).is_err());
        let ok = MmeRepr { ipn: 1, ..wide };
        assert!(matches!(ok.emit(&mut [0; 17]), Err(Error::BufferTooSmall { .. })));
    }
}
