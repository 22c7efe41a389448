//! TKIP (IEEE 802.11-2016 12.5.2): per-packet RC4 keys from phase-1/phase-2 key mixing of
//! the TK, transmitter address and 48-bit TSC; a CRC-32 ICV per MPDU; and the Michael MIC
//! per MSDU, over `DA || SA || Priority || 0 0 0 || MSDU`, appended before fragmentation.
//!
//! Protected MPDU: `MAC header | WEPSeed0 WEPSeed1 TSC0 KeyID|ExtIV | TSC2..TSC5 |
//! RC4(data [|| Michael MIC in the last fragment] || ICV)`.
//!
//! The 32-octet TKIP TK is the 16-octet encryption key, then the Authenticator→Supplicant
//! Michael key, then the Supplicant→Authenticator one. Which Michael key a frame uses
//! follows its direction: [`Tkip::with_role`] fixes it; by default it is read from the
//! frame (From DS or a group address: the authenticator sent it).

use rc4::{KeyInit, Rc4, StreamCipher};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::suite::michael::{msdu_mic, MICHAEL_LEN};
use crate::suite::mpdu::{self, Pn, ReplayClass};
use crate::suite::wep::{crc32_icv, ICV_LEN};
use crate::suite::{Decapsulated, FrameSuite, Peeked};
use crate::wire::{Frame, FrameControl, HeaderRepr, Rules};

/// Octets of the IV / Ext IV header after the MAC header.
pub const IV_LEN: usize = 8;
const EXT_IV: u8 = 0x20;

/// The TKIP S-box, derived from the AES S-box: `(2·S[i]) << 8 | (3·S[i])` in GF(2^8).
const SBOX: [u16; 256] = {
    let aes = aes_sbox();
    let mut out = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let s = aes[i];
        let s2 = xtime(s);
        out[i] = ((s2 as u16) << 8) | (s2 ^ s) as u16;
        i += 1;
    }
    out
};

const fn xtime(b: u8) -> u8 {
    (b << 1) ^ if b & 0x80 != 0 { 0x1b } else { 0 }
}

/// The AES S-box: multiplicative inverse in GF(2^8) followed by the affine map.
const fn aes_sbox() -> [u8; 256] {
    let mut sbox = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        // Inverse by search over products (only at compile time).
        let mut inv = 0u8;
        if i != 0 {
            let mut j = 1;
            while j < 256 {
                if gf_mul(i as u8, j as u8) == 1 {
                    inv = j as u8;
                    break;
                }
                j += 1;
            }
        }
        let x = inv;
        sbox[i] = x ^ x.rotate_left(1) ^ x.rotate_left(2) ^ x.rotate_left(3) ^ x.rotate_left(4) ^ 0x63;
        i += 1;
    }
    sbox
}

const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    p
}

fn s(v: u16) -> u16 {
    SBOX[usize::from(v as u8)] ^ SBOX[usize::from(v >> 8)].swap_bytes()
}

fn mk16(hi: u8, lo: u8) -> u16 {
    (u16::from(hi) << 8) | u16::from(lo)
}

/// Phase 1: TTAK from TK, transmitter address and IV32 (TSC5..TSC2).
pub fn phase1(tk: &[u8; 16], ta: &[u8; 6], iv32: u32) -> [u16; 5] {
    let mut p = [iv32 as u16, (iv32 >> 16) as u16, mk16(ta[1], ta[0]), mk16(ta[3], ta[2]), mk16(ta[5], ta[4])];
    for i in 0..8u16 {
        let j = 2 * usize::from(i & 1);
        p[0] = p[0].wrapping_add(s(p[4] ^ mk16(tk[1 + j], tk[j])));
        p[1] = p[1].wrapping_add(s(p[0] ^ mk16(tk[5 + j], tk[4 + j])));
        p[2] = p[2].wrapping_add(s(p[1] ^ mk16(tk[9 + j], tk[8 + j])));
        p[3] = p[3].wrapping_add(s(p[2] ^ mk16(tk[13 + j], tk[12 + j])));
        p[4] = p[4].wrapping_add(s(p[3] ^ mk16(tk[1 + j], tk[j]))).wrapping_add(i);
    }
    p
}

/// Phase 2: the 16-octet RC4 key (WEP seed) from TTAK, TK and IV16 (TSC1..TSC0).
pub fn phase2(tk: &[u8; 16], ttak: &[u16; 5], iv16: u16) -> [u8; 16] {
    let k = |i: usize| mk16(tk[i + 1], tk[i]);
    let mut p = [ttak[0], ttak[1], ttak[2], ttak[3], ttak[4], ttak[4].wrapping_add(iv16)];
    p[0] = p[0].wrapping_add(s(p[5] ^ k(0)));
    p[1] = p[1].wrapping_add(s(p[0] ^ k(2)));
    p[2] = p[2].wrapping_add(s(p[1] ^ k(4)));
    p[3] = p[3].wrapping_add(s(p[2] ^ k(6)));
    p[4] = p[4].wrapping_add(s(p[3] ^ k(8)));
    p[5] = p[5].wrapping_add(s(p[4] ^ k(10)));
    p[0] = p[0].wrapping_add((p[5] ^ k(12)).rotate_right(1));
    p[1] = p[1].wrapping_add((p[0] ^ k(14)).rotate_right(1));
    p[2] = p[2].wrapping_add(p[1].rotate_right(1));
    p[3] = p[3].wrapping_add(p[2].rotate_right(1));
    p[4] = p[4].wrapping_add(p[3].rotate_right(1));
    p[5] = p[5].wrapping_add(p[4].rotate_right(1));
    let [hi, lo] = iv16.to_be_bytes();
    let mut key = [0u8; 16];
    key[0] = hi;
    key[1] = (hi | 0x20) & 0x7f;
    key[2] = lo;
    key[3] = ((p[5] ^ k(0)) >> 1) as u8;
    for (i, word) in p.iter().enumerate() {
        key[4 + 2 * i..6 + 2 * i].copy_from_slice(&word.to_le_bytes());
    }
    key
}

/// Which side of the 4-way handshake this key's holder is, to pick Michael keys.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    Authenticator,
    Supplicant,
}

/// TKIP keyed with a 32-octet TK.
pub struct Tkip {
    key: Zeroizing<[u8; 32]>,
    role: Option<Role>,
    rules: Rules,
}

impl Tkip {
    pub fn new(tk: &[u8]) -> Result<Self> {
        let key: [u8; 32] = tk.try_into().map_err(|_| Error::KeyLength { expected: 32, got: tk.len() })?;
        Ok(Tkip { key: Zeroizing::new(key), role: None, rules: Rules::default() })
    }

    /// Fix which side this key belongs to, instead of reading each frame's direction.
    pub fn with_role(mut self, role: Role) -> Self {
        self.role = Some(role);
        self
    }

    pub fn with_rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    fn tk(&self) -> &[u8; 16] {
        self.key[..16].try_into().unwrap_or_else(|_| unreachable!())
    }

    /// The Michael key of frames the authenticator sent (true) or the supplicant sent.
    fn michael_key(&self, from_authenticator: bool) -> [u8; MICHAEL_LEN] {
        let at = if from_authenticator { 16 } else { 24 };
        self.key[at..at + MICHAEL_LEN].try_into().unwrap_or_else(|_| unreachable!())
    }

    fn sent_by_authenticator<T: AsRef<[u8]>>(&self, frame: &Frame<T>, transmitting: bool) -> bool {
        match self.role {
            Some(role) => (role == Role::Authenticator) == transmitting,
            None => {
                let fc = frame.frame_control();
                frame.addr1().is_group() || (fc.from_ds() && !fc.to_ds())
            }
        }
    }

    /// The Michael MIC of the MSDU a header and body belong to, under the key for the
    /// frame's direction (`transmitting`: this key's holder sends it).
    pub fn msdu_mic<T: AsRef<[u8]>>(
        &self,
        frame: &Frame<T>,
        msdu: &[u8],
        transmitting: bool,
    ) -> Result<[u8; MICHAEL_LEN]> {
        let header = HeaderRepr::parse(frame)?;
        let priority = ReplayClass::of(frame).priority();
        let key = self.michael_key(self.sent_by_authenticator(frame, transmitting));
        Ok(msdu_mic(&key, header.da(), header.sa(), priority, msdu))
    }

    /// Check the Michael MIC at the end of a reassembled MSDU whose first fragment's header
    /// is `frame`; returns the MSDU length without the MIC. `Error::MicFailure` here is a
    /// Michael failure: feed it to a [`MicFailureMonitor`](super::michael::MicFailureMonitor).
    pub fn verify_msdu<T: AsRef<[u8]>>(&self, frame: &Frame<T>, msdu_with_mic: &[u8]) -> Result<usize> {
        let len = msdu_with_mic.len().checked_sub(MICHAEL_LEN).ok_or(Error::Truncated {
            what: "TKIP MSDU with Michael MIC",
            needed: MICHAEL_LEN,
            got: msdu_with_mic.len(),
        })?;
        let expected = self.msdu_mic(frame, &msdu_with_mic[..len], false)?;
        if bool::from(subtle::ConstantTimeEq::ct_eq(&expected[..], &msdu_with_mic[len..])) {
            Ok(len)
        } else {
            Err(Error::MicFailure)
        }
    }

    fn rc4_for(&self, ta: &[u8; 6], tsc: u64) -> Rc4 {
        let ttak = phase1(self.tk(), ta, (tsc >> 16) as u32);
        let mut seed = Zeroizing::new(phase2(self.tk(), &ttak, tsc as u16));
        let rc4 = Rc4::new_from_slice(&seed[..]).unwrap_or_else(|_| unreachable!());
        seed.fill(0);
        rc4
    }

    /// Encrypt one MPDU (or fragment) without adding a Michael MIC: the caller has already
    /// appended it to the MSDU before fragmenting. Adds [`IV_LEN`] + [`ICV_LEN`] octets.
    pub fn encapsulate_mpdu(&self, buf: &mut [u8], mpdu_len: usize, tsc: Pn, key_id: u8) -> Result<usize> {
        if key_id > 3 {
            return Err(Error::Malformed("Key ID must be 0..=3"));
        }
        let out_len = mpdu_len + IV_LEN + ICV_LEN;
        let t = tsc.value().to_le_bytes();
        let iv = [t[1], (t[1] | 0x20) & 0x7f, t[0], (key_id << 6) | EXT_IV, t[2], t[3], t[4], t[5]];
        let h = mpdu::insert_security_header(buf, mpdu_len, self.rules, &iv, ICV_LEN)?;
        let ta =
            Frame::new_checked(&buf[..h], self.rules)?.addr2().ok_or(Error::Unsupported("frame without Address 2"))?.0;
        let data_end = mpdu_len + IV_LEN;
        let icv = crc32_icv(&buf[h + IV_LEN..data_end]);
        buf[data_end..out_len].copy_from_slice(&icv);
        self.rc4_for(&ta, tsc.value()).apply_keystream(&mut buf[h + IV_LEN..out_len]);
        Ok(out_len)
    }

    /// Decrypt one MPDU (or fragment) and check its ICV, without the Michael check; the
    /// plaintext MPDU is left at the front of `buf`. `Error::IcvFailure` on a bad ICV.
    pub fn decapsulate_mpdu(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        let peeked = self.peek(buf)?;
        let len = buf.len();
        let mut frame = Frame::new_checked(&mut *buf, self.rules)?;
        let ta = frame.addr2().ok_or(Error::Unsupported("frame without Address 2"))?.0;
        let h = frame.header_len();
        let body = &mut frame.body_mut()[IV_LEN..];
        let mut rc4 = self.rc4_for(&ta, peeked.pn.value());
        rc4.apply_keystream(body);
        let (data, icv) = body.split_at(body.len() - ICV_LEN);
        if !bool::from(subtle::ConstantTimeEq::ct_eq(&crc32_icv(data)[..], icv)) {
            // Leave the frame as it came in.
            self.rc4_for(&ta, peeked.pn.value()).apply_keystream(body);
            return Err(Error::IcvFailure);
        }
        frame.set_flag(FrameControl::PROTECTED, false)?;
        buf.copy_within(h + IV_LEN..len - ICV_LEN, h);
        Ok(Decapsulated { mpdu_len: len - IV_LEN - ICV_LEN, ..to_decapsulated(peeked) })
    }
}

fn to_decapsulated(p: Peeked) -> Decapsulated {
    Decapsulated { mpdu_len: 0, pn: p.pn, key_id: p.key_id, class: p.class }
}

/// Read the TSC and Key ID from a TKIP IV / Ext IV header.
fn parse_iv(iv: &[u8]) -> Result<(Pn, u8)> {
    if iv[3] & EXT_IV == 0 {
        return Err(Error::ExtIvNotSet);
    }
    let tsc = u64::from_le_bytes([iv[2], iv[0], iv[4], iv[5], iv[6], iv[7], 0, 0]);
    Ok((Pn::new(tsc)?, iv[3] >> 6))
}

impl FrameSuite for Tkip {
    /// IV/Ext IV, Michael MIC and ICV of an unfragmented MSDU.
    fn overhead(&self) -> usize {
        IV_LEN + MICHAEL_LEN + ICV_LEN
    }

    /// Protect a whole (unfragmented) MSDU: append its Michael MIC, then encrypt.
    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        let needed = mpdu_len + self.overhead();
        if buf.len() < needed {
            return Err(Error::BufferTooSmall { needed, got: buf.len() });
        }
        let frame = Frame::new_checked(&buf[..mpdu_len], self.rules)?;
        if frame.frame_control().more_fragments()
            || frame.sequence_control().is_some_and(|sc| sc.fragment_number() != 0)
        {
            return Err(Error::Unsupported("TKIP fragment: add the Michael MIC to the MSDU and use encapsulate_mpdu"));
        }
        let mic = self.msdu_mic(&frame, frame.body(), true)?;
        buf[mpdu_len..mpdu_len + MICHAEL_LEN].copy_from_slice(&mic);
        self.encapsulate_mpdu(buf, mpdu_len + MICHAEL_LEN, pn, key_id)
    }

    fn msdu_mic(&self, mpdu: &[u8]) -> Result<Option<[u8; 8]>> {
        let frame = Frame::new_checked(mpdu, self.rules)?;
        Tkip::msdu_mic(self, &frame, frame.body(), true).map(Some)
    }

    fn encapsulate_fragment(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        self.encapsulate_mpdu(buf, mpdu_len, pn, key_id)
    }

    fn fragment_overhead(&self) -> usize {
        IV_LEN + ICV_LEN
    }

    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        let frame = mpdu::protected_frame(buf, self.rules, IV_LEN + ICV_LEN, "TKIP MPDU")?;
        let (pn, key_id) = parse_iv(frame.body())?;
        Ok(Peeked { pn, key_id, class: ReplayClass::of(&frame) })
    }

    /// Decrypt an unfragmented MPDU and check both its ICV and its Michael MIC. A Michael
    /// failure (after a good ICV) is `Error::MicFailure`, the countermeasures event.
    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        let frame = Frame::new_checked(&*buf, self.rules)?;
        if frame.frame_control().more_fragments()
            || frame.sequence_control().is_some_and(|sc| sc.fragment_number() != 0)
        {
            return Err(Error::Unsupported(
                "TKIP fragment: use decapsulate_mpdu and verify_msdu on the reassembled MSDU",
            ));
        }
        let original = Zeroizing::new(buf.to_vec());
        let done = self.decapsulate_mpdu(buf)?;
        let frame = Frame::new_checked(&buf[..done.mpdu_len], self.rules)?;
        match self.verify_msdu(&frame, frame.body()) {
            Ok(_) => Ok(Decapsulated { mpdu_len: done.mpdu_len - MICHAEL_LEN, ..done }),
            Err(e) => {
                buf.copy_from_slice(&original);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_matches_the_published_table_corners() {
        // First and last entries of the TKIP S-box as printed in 802.11 (Table 12-?).
        assert_eq!(SBOX[0], 0xc6a5);
        assert_eq!(SBOX[1], 0xf884);
        assert_eq!(SBOX[255], 0x2c3a);
    }
}
