//! AES key wrap (RFC 3394) as EAPOL-Key frames use it for Key Data (12.7.2): the KEK wraps
//! the Key Data after it is padded with `0xDD 0x00...` to a multiple of 8 octets, at
//! least 16.

use aes_kw::{KeyInit, KwAes128, KwAes192, KwAes256};
use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// The 8 octets RFC 3394 adds to what it wraps.
pub const WRAP_OVERHEAD: usize = 8;

/// Wrap `plain` (a multiple of 8 octets, at least 16) under a 16-, 24- or 32-octet `kek`.
pub fn wrap(kek: &[u8], plain: &[u8]) -> Result<Vec<u8>> {
    check_blocks(plain.len(), "key data to wrap")?;
    let mut out = vec![0u8; plain.len() + WRAP_OVERHEAD];
    let done = match kek.len() {
        16 => KwAes128::new_from_slice(kek).map(|kw| kw.wrap_key(plain, &mut out).map(|_| ())),
        24 => KwAes192::new_from_slice(kek).map(|kw| kw.wrap_key(plain, &mut out).map(|_| ())),
        32 => KwAes256::new_from_slice(kek).map(|kw| kw.wrap_key(plain, &mut out).map(|_| ())),
        got => return Err(Error::KeyLength { expected: 16, got }),
    };
    match done {
        Ok(Ok(())) => Ok(out),
        _ => Err(Error::Malformed("AES key wrap refused its input")),
    }
}

/// Unwrap `wrapped` and check its integrity value. A wrong KEK or altered data gives
/// `Error::MicFailure`.
pub fn unwrap(kek: &[u8], wrapped: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    check_blocks(wrapped.len(), "wrapped key data")?;
    if wrapped.len() < 24 {
        return Err(Error::Truncated { what: "wrapped key data", needed: 24, got: wrapped.len() });
    }
    let mut out = Zeroizing::new(vec![0u8; wrapped.len() - WRAP_OVERHEAD]);
    let done = match kek.len() {
        16 => KwAes128::new_from_slice(kek).map(|kw| kw.unwrap_key(wrapped, &mut out).map(|_| ())),
        24 => KwAes192::new_from_slice(kek).map(|kw| kw.unwrap_key(wrapped, &mut out).map(|_| ())),
        32 => KwAes256::new_from_slice(kek).map(|kw| kw.unwrap_key(wrapped, &mut out).map(|_| ())),
        got => return Err(Error::KeyLength { expected: 16, got }),
    };
    match done {
        Ok(Ok(())) => Ok(out),
        _ => Err(Error::MicFailure),
    }
}

/// Pad Key Data for wrapping: append `0xDD` then zeros up to a multiple of 8 octets, and to
/// at least 16; data already a multiple of 8 and at least 16 long is left as it is.
pub fn pad_key_data(plain: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(plain.to_vec());
    if !out.len().is_multiple_of(8) || out.len() < 16 {
        out.push(0xdd);
        while !out.len().is_multiple_of(8) || out.len() < 16 {
            out.push(0);
        }
    }
    out
}

fn check_blocks(len: usize, what: &'static str) -> Result<()> {
    if !len.is_multiple_of(8) {
        return Err(Error::Malformed("AES key wrap data is not a multiple of 8 octets"));
    }
    if len < 16 {
        return Err(Error::Truncated { what, needed: 16, got: len });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_rules() {
        assert_eq!(&pad_key_data(&[1; 3])[..], &[1, 1, 1, 0xdd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(pad_key_data(&[1; 22]).len(), 24);
        assert_eq!(pad_key_data(&[1; 24]).len(), 24);
        assert_eq!(pad_key_data(&[1; 8]).len(), 16);
    }

    #[test]
    fn bad_input_is_refused_without_panic() {
        let kek = [1u8; 16];
        assert!(wrap(&kek, &[0; 12]).is_err());
        assert!(wrap(&[0; 15], &[0; 16]).is_err());
        let wrapped = wrap(&kek, &[5; 16]).unwrap();
        assert_eq!(&unwrap(&kek, &wrapped).unwrap()[..], &[5; 16]);
        let mut bad = wrapped.clone();
        bad[3] ^= 1;
        assert_eq!(unwrap(&kek, &bad), Err(Error::MicFailure));
        assert!(unwrap(&kek, &wrapped[..16]).is_err());
        assert!(unwrap(&kek, &wrapped[..23]).is_err());
    }
}
