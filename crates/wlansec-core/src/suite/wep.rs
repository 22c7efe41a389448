//! WEP (IEEE 802.11-2016 12.3.2), kept because the laboratory measures it: RC4 keyed with
//! `IV || key` over the data and its CRC-32 ICV. It has no replay protection; its 24-bit
//! IV is what this crate's interfaces call the packet number.
//!
//! Protected MPDU: `MAC header | IV0 IV1 IV2 KeyID<<6 | RC4(data || ICV)`.

use rc4::{KeyInit, Rc4, StreamCipher};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::suite::mpdu::{self, Pn, ReplayClass};
use crate::suite::{Decapsulated, FrameSuite, Peeked};
use crate::wire::{Frame, FrameControl, Rules};

/// Octets of the IV field after the MAC header.
pub const IV_LEN: usize = 4;
/// Octets of the ICV.
pub const ICV_LEN: usize = 4;
/// The largest WEP IV.
pub const IV_MAX: u64 = (1 << 24) - 1;

/// CRC-32 (IEEE 802.3) of `data`, as transmitted (little-endian).
pub fn crc32_icv(data: &[u8]) -> [u8; ICV_LEN] {
    crc32fast::hash(data).to_le_bytes()
}

/// WEP keyed with a 5-octet (WEP-40) or 13-octet (WEP-104) key.
pub struct Wep {
    /// `IV(3) || key`; the IV octets are filled in per frame.
    seed: Zeroizing<[u8; 16]>,
    key_len: usize,
    rules: Rules,
}

impl Wep {
    pub fn new(key: &[u8]) -> Result<Self> {
        if key.len() != 5 && key.len() != 13 {
            return Err(Error::KeyLength { expected: 13, got: key.len() });
        }
        let mut seed = Zeroizing::new([0u8; 16]);
        seed[3..3 + key.len()].copy_from_slice(key);
        Ok(Wep { seed, key_len: key.len(), rules: Rules::default() })
    }

    pub fn with_rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    fn rc4_for(&self, iv: [u8; 3]) -> Rc4 {
        let mut seed = self.seed.clone();
        seed[..3].copy_from_slice(&iv);
        Rc4::new_from_slice(&seed[..3 + self.key_len]).unwrap_or_else(|_| unreachable!())
    }
}

impl FrameSuite for Wep {
    fn overhead(&self) -> usize {
        IV_LEN + ICV_LEN
    }

    /// `pn` is the 24-bit IV (IV0 is its most significant octet, as in the vectors).
    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        if key_id > 3 {
            return Err(Error::Malformed("Key ID must be 0..=3"));
        }
        if pn.value() > IV_MAX {
            return Err(Error::Malformed("WEP IV wider than 24 bits"));
        }
        let out_len = mpdu_len + IV_LEN + ICV_LEN;
        let v = pn.value().to_be_bytes();
        let iv = [v[5], v[6], v[7]];
        let h = mpdu::insert_security_header(buf, mpdu_len, self.rules, &[iv[0], iv[1], iv[2], key_id << 6], ICV_LEN)?;
        let data_end = mpdu_len + IV_LEN;
        let icv = crc32_icv(&buf[h + IV_LEN..data_end]);
        buf[data_end..out_len].copy_from_slice(&icv);
        self.rc4_for(iv).apply_keystream(&mut buf[h + IV_LEN..out_len]);
        Ok(out_len)
    }

    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        let frame = mpdu::protected_frame(buf, self.rules, IV_LEN + ICV_LEN, "WEP MPDU")?;
        let b = frame.body();
        if b[3] & 0x20 != 0 {
            return Err(Error::Unsupported("Ext IV set: a TKIP, CCMP or GCMP frame, not WEP"));
        }
        let iv = u64::from_be_bytes([0, 0, 0, 0, 0, b[0], b[1], b[2]]);
        Ok(Peeked { pn: Pn::new(iv)?, key_id: b[3] >> 6, class: ReplayClass::of(&frame) })
    }

    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        let peeked = self.peek(buf)?;
        let len = buf.len();
        let mut frame = Frame::new_checked(&mut *buf, self.rules)?;
        let h = frame.header_len();
        let b = frame.body();
        let iv = [b[0], b[1], b[2]];
        let body = &mut frame.body_mut()[IV_LEN..];
        self.rc4_for(iv).apply_keystream(body);
        let (data, icv) = body.split_at(body.len() - ICV_LEN);
        if !bool::from(crc32_icv(data).ct_eq(icv)) {
            self.rc4_for(iv).apply_keystream(body);
            return Err(Error::IcvFailure);
        }
        frame.set_flag(FrameControl::PROTECTED, false)?;
        buf.copy_within(h + IV_LEN..len - ICV_LEN, h);
        Ok(Decapsulated { mpdu_len: len - IV_LEN - ICV_LEN, pn: peeked.pn, key_id: peeked.key_id, class: peeked.class })
    }

    fn replay_protected(&self) -> bool {
        false
    }
}
