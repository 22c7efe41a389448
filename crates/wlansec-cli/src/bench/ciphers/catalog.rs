//! The ciphers the bench compares, each behind one buffer-to-buffer interface ([`Engine`]).
//!
//! Block ciphers run in CBC with PKCS#7 padding (the .NET default the study used) and in
//! CTR; the AEADs, RC4 (per frame, as WEP/TKIP key it) and wlansec's own CCMP are measured
//! the way they are used. IVs and nonces are all-zero: each run keys afresh and the bench
//! never sends anything; real traffic needs unique ones.
//! Every operation keys a fresh cipher, as the study's per-file
//! transforms did; the key schedule is a negligible share of even the smallest file.

use std::marker::PhantomData;

use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{
    BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InOutBuf, KeyInit, KeyIvInit,
    StreamCipher, StreamCipherCore,
};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::{AeadInOut, Nonce, Tag};
use aes_gcm::{Aes128Gcm, Aes256Gcm};
use anyhow::{anyhow, bail, ensure, Result};
use blowfish::Blowfish;
use chacha20poly1305::ChaCha20Poly1305;
use ctr::flavors::{Ctr128BE, Ctr64BE};
use ctr::CtrCore;

/// CTR cores (not the buffering wrappers, whose key check insists on the largest key size
/// of the variable-key ciphers): 128-bit counters for 16-octet blocks, 64-bit for 8.
type Ctr128<C> = CtrCore<C, Ctr128BE>;
type Ctr64<C> = CtrCore<C, Ctr64BE>;
use des::{Des, TdesEde3};
use rc2::Rc2;
use rc6::RC6;
use wlansec_core::suite::{Ccmp128, Receiver, Transmitter};
use wlansec_core::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};
use zeroize::Zeroizing;

use aes::cipher::consts::{U16, U20, U24, U32};

/// RC6-32/20/b: 32-bit words, 20 rounds, b-octet key (the AES-candidate parameters).
pub type Rc6_128 = RC6<u32, U20, U16>;
pub type Rc6_192 = RC6<u32, U20, U24>;
pub type Rc6_256 = RC6<u32, U20, U32>;

/// Octets of file data per frame for the per-frame engines: an Ethernet MTU's worth.
pub const FRAME_PAYLOAD: usize = 1500;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Algorithm {
    Aes,
    Des,
    Tdes,
    Rc2,
    Blowfish,
    Rc6,
    ChaCha20Poly1305,
    AesGcm,
    Rc4,
    Ccmp,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Aes => "AES",
            Algorithm::Des => "DES",
            Algorithm::Tdes => "3DES",
            Algorithm::Rc2 => "RC2",
            Algorithm::Blowfish => "Blowfish",
            Algorithm::Rc6 => "RC6",
            Algorithm::ChaCha20Poly1305 => "ChaCha20-Poly1305",
            Algorithm::AesGcm => "AES-GCM",
            Algorithm::Rc4 => "RC4",
            Algorithm::Ccmp => "CCMP",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Mode {
    /// CBC with PKCS#7 padding.
    Cbc,
    /// CTR: a 128-bit big-endian counter for 16-octet blocks, 64-bit for 8-octet blocks.
    Ctr,
    /// One AEAD message over the whole file (empty AAD, 16-octet tag).
    Aead,
    /// RC4 rekeyed per 1500-octet frame with IV ‖ secret, as WEP (and TKIP's per-packet key).
    WepFrames,
    /// wlansec's CCMP-128 over 1500-octet QoS data MPDUs through Transmitter/Receiver.
    CcmpFrames,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Cbc => "CBC",
            Mode::Ctr => "CTR",
            Mode::Aead => "AEAD",
            Mode::WepFrames => "WEP-frames",
            Mode::CcmpFrames => "CCMP-frames",
        }
    }
}

/// One cipher at one key size in one mode.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Variant {
    pub algorithm: Algorithm,
    /// Key size as the study names it (DES 64, 3DES 168, ...).
    pub key_bits: u32,
    pub mode: Mode,
}

impl Variant {
    const fn new(algorithm: Algorithm, key_bits: u32, mode: Mode) -> Self {
        Variant { algorithm, key_bits, mode }
    }

    /// E.g. `AES-128-CBC`, `Blowfish-448-CBC`, `CCMP-128-CCMP-frames`.
    pub fn label(&self) -> String {
        format!("{}-{}-{}", self.algorithm.name(), self.key_bits, self.mode.name())
    }

    /// Octets of key material the cipher is given.
    pub fn key_len(&self) -> usize {
        match self.algorithm {
            Algorithm::Tdes => 24,
            _ => self.key_bits as usize / 8,
        }
    }

    /// Octets of IV (CBC), initial counter block (CTR) or nonce (AEAD); 0 for the per-frame
    /// engines, which derive theirs per frame.
    pub fn iv_len(&self) -> usize {
        match (self.algorithm, self.mode) {
            (_, Mode::WepFrames | Mode::CcmpFrames) => 0,
            (_, Mode::Aead) => 12,
            (Algorithm::Aes | Algorithm::Rc6, _) => 16,
            _ => 8,
        }
    }

    /// Keys a fresh engine with an all-zero IV/nonce and no AAD (what the bench measures).
    pub fn engine(&self, key: &[u8]) -> Result<Box<dyn Engine>> {
        self.engine_with(key, &vec![0; self.iv_len()], &[])
    }

    /// Keys a fresh engine; `key` must be `key_len()` octets and `iv` `iv_len()` octets;
    /// `aad` is authenticated by the AEADs only.
    pub fn engine_with(&self, key: &[u8], iv: &[u8], aad: &[u8]) -> Result<Box<dyn Engine>> {
        ensure!(
            iv.len() == self.iv_len(),
            "{}: IV/nonce must be {} octets, got {}",
            self.label(),
            self.iv_len(),
            iv.len()
        );
        ensure!(aad.is_empty() || self.mode == Mode::Aead, "{}: only the AEADs take AAD", self.label());
        let iv = iv.to_vec();
        let aad = aad.to_vec();
        ensure!(
            key.len() == self.key_len(),
            "{}: key must be {} octets, got {}",
            self.label(),
            self.key_len(),
            key.len()
        );
        let key = Zeroizing::new(key.to_vec());
        use Algorithm as A;
        let engine: Box<dyn Engine> = match (self.algorithm, self.key_bits, self.mode) {
            (A::Aes, 128, m) => block::<Aes128, Ctr128<Aes128>>(m, key, iv)?,
            (A::Aes, 192, m) => block::<Aes192, Ctr128<Aes192>>(m, key, iv)?,
            (A::Aes, 256, m) => block::<Aes256, Ctr128<Aes256>>(m, key, iv)?,
            (A::Des, 64, m) => block::<Des, Ctr64<Des>>(m, key, iv)?,
            (A::Tdes, 168, m) => block::<TdesEde3, Ctr64<TdesEde3>>(m, key, iv)?,
            (A::Rc2, 64 | 128, m) => block::<Rc2, Ctr64<Rc2>>(m, key, iv)?,
            (A::Blowfish, 32..=448, m) => block::<Blowfish, Ctr64<Blowfish>>(m, key, iv)?,
            (A::Rc6, 128, m) => block::<Rc6_128, Ctr128<Rc6_128>>(m, key, iv)?,
            (A::Rc6, 192, m) => block::<Rc6_192, Ctr128<Rc6_192>>(m, key, iv)?,
            (A::Rc6, 256, m) => block::<Rc6_256, Ctr128<Rc6_256>>(m, key, iv)?,
            (A::ChaCha20Poly1305, 256, Mode::Aead) => {
                Box::new(AeadEngine::<ChaCha20Poly1305> { key, nonce: iv, aad, _a: PhantomData })
            }
            (A::AesGcm, 128, Mode::Aead) => Box::new(AeadEngine::<Aes128Gcm> { key, nonce: iv, aad, _a: PhantomData }),
            (A::AesGcm, 256, Mode::Aead) => Box::new(AeadEngine::<Aes256Gcm> { key, nonce: iv, aad, _a: PhantomData }),
            (A::Rc4, 128, Mode::WepFrames) => Box::new(WepFrames { key }),
            (A::Ccmp, 128, Mode::CcmpFrames) => Box::new(CcmpFrames { key }),
            _ => bail!("no engine for {}", self.label()),
        };
        Ok(engine)
    }
}

/// Every variant of the comparison, in the study's order followed by today's ciphers.
pub fn variants() -> Vec<Variant> {
    use Algorithm as A;
    use Mode::*;
    let mut all = Vec::new();
    let block_ciphers: [(Algorithm, &[u32]); 6] = [
        (A::Aes, &[128, 192, 256]),
        (A::Des, &[64]),
        (A::Tdes, &[168]),
        (A::Rc2, &[64, 128]),
        (A::Blowfish, &[128]),
        (A::Rc6, &[128, 192, 256]),
    ];
    for (algorithm, sizes) in block_ciphers {
        for &bits in sizes {
            for mode in [Cbc, Ctr] {
                all.push(Variant::new(algorithm, bits, mode));
            }
        }
    }
    all.extend([
        Variant::new(A::ChaCha20Poly1305, 256, Aead),
        Variant::new(A::AesGcm, 128, Aead),
        Variant::new(A::AesGcm, 256, Aead),
        Variant::new(A::Rc4, 128, WepFrames),
        Variant::new(A::Ccmp, 128, CcmpFrames),
    ]);
    all
}

/// Blowfish's key-size sweep (32..448 bits, CBC); 128 is already in [`variants`].
pub fn blowfish_sweep() -> Vec<Variant> {
    [32, 64, 192, 256, 320, 384, 448]
        .into_iter()
        .map(|bits| Variant::new(Algorithm::Blowfish, bits, Mode::Cbc))
        .collect()
}

/// Finds a variant of [`variants`] or [`blowfish_sweep`] by its label (case-insensitive).
pub fn find(label: &str) -> Result<Variant> {
    variants()
        .into_iter()
        .chain(blowfish_sweep())
        .find(|v| v.label().eq_ignore_ascii_case(label))
        .ok_or_else(|| anyhow!("unknown cipher variant {label:?} (see `wlansec bench ciphers --list`)"))
}

/// A keyed cipher in one mode, run buffer to buffer over a whole file.
pub trait Engine {
    /// The most octets `encrypt` writes for `len` octets of plaintext.
    fn max_ciphertext_len(&self, len: usize) -> usize;
    /// Encrypts `input` into the front of `out`; returns the ciphertext length.
    fn encrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize>;
    /// Decrypts (and for the AEADs and CCMP verifies) `input`; returns the plaintext length.
    fn decrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize>;
}

/// Block cipher `C` in CBC, or in CTR as `S` (`C` with the counter width of its block).
fn block<C, S>(mode: Mode, key: Zeroizing<Vec<u8>>, iv: Vec<u8>) -> Result<Box<dyn Engine>>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + KeyInit + 'static,
    S: KeyIvInit + StreamCipherCore + 'static,
{
    match mode {
        Mode::Cbc => Ok(Box::new(CbcEngine::<C> { key, iv, _c: PhantomData })),
        Mode::Ctr => Ok(Box::new(CtrEngine::<S> { key, iv, _s: PhantomData })),
        other => bail!("a block cipher runs in CBC or CTR, not {}", other.name()),
    }
}

fn block_len<C: BlockCipherEncrypt>() -> usize {
    C::block_size()
}

struct CbcEngine<C> {
    key: Zeroizing<Vec<u8>>,
    iv: Vec<u8>,
    _c: PhantomData<C>,
}

impl<C> Engine for CbcEngine<C>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + KeyInit,
{
    fn max_ciphertext_len(&self, len: usize) -> usize {
        let b = block_len::<C>();
        (len / b + 1) * b
    }

    fn encrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let enc = cbc::Encryptor::<C>::new_from_slices(&self.key, &self.iv)
            .map_err(|_| anyhow!("CBC: bad key or IV length"))?;
        let ct = enc.encrypt_padded_b2b::<Pkcs7>(input, out).map_err(|_| anyhow!("CBC: output buffer too small"))?;
        Ok(ct.len())
    }

    fn decrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let dec = cbc::Decryptor::<C>::new_from_slices(&self.key, &self.iv)
            .map_err(|_| anyhow!("CBC: bad key or IV length"))?;
        let pt = dec
            .decrypt_padded_b2b::<Pkcs7>(input, out)
            .map_err(|_| anyhow!("CBC: ciphertext is not a whole number of blocks or its padding is bad"))?;
        Ok(pt.len())
    }
}

struct CtrEngine<S> {
    key: Zeroizing<Vec<u8>>,
    iv: Vec<u8>,
    _s: PhantomData<S>,
}

impl<S> CtrEngine<S>
where
    S: KeyIvInit + StreamCipherCore,
{
    fn apply(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let out = out.get_mut(..input.len()).ok_or_else(|| anyhow!("CTR: output buffer too small"))?;
        let buf = InOutBuf::new(input, out).map_err(|_| anyhow!("CTR: length mismatch"))?;
        S::new_from_slices(&self.key, &self.iv)
            .map_err(|_| anyhow!("CTR: bad key or IV length"))?
            .try_apply_keystream_partial(buf)
            .map_err(|_| anyhow!("CTR: keystream exhausted"))?;
        Ok(input.len())
    }
}

impl<S> Engine for CtrEngine<S>
where
    S: KeyIvInit + StreamCipherCore,
{
    fn max_ciphertext_len(&self, len: usize) -> usize {
        len
    }
    fn encrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        self.apply(input, out)
    }
    fn decrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        self.apply(input, out)
    }
}

const TAG_LEN: usize = 16;

struct AeadEngine<A> {
    key: Zeroizing<Vec<u8>>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    _a: PhantomData<A>,
}

impl<A> Engine for AeadEngine<A>
where
    A: AeadInOut + KeyInit,
{
    fn max_ciphertext_len(&self, len: usize) -> usize {
        len + TAG_LEN
    }

    fn encrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let aead = A::new_from_slice(&self.key).map_err(|_| anyhow!("AEAD: bad key length"))?;
        let nonce = Nonce::<A>::try_from(&self.nonce[..]).map_err(|_| anyhow!("AEAD: bad nonce length"))?;
        let (body, rest) = out
            .get_mut(..input.len() + TAG_LEN)
            .ok_or_else(|| anyhow!("AEAD: output buffer too small"))?
            .split_at_mut(input.len());
        let tag = aead
            .encrypt_inout_detached(
                &nonce,
                &self.aad,
                InOutBuf::new(input, body).map_err(|_| anyhow!("AEAD: length mismatch"))?,
            )
            .map_err(|_| anyhow!("AEAD: message too long"))?;
        rest.copy_from_slice(&tag);
        Ok(input.len() + TAG_LEN)
    }

    fn decrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let aead = A::new_from_slice(&self.key).map_err(|_| anyhow!("AEAD: bad key length"))?;
        let nonce = Nonce::<A>::try_from(&self.nonce[..]).map_err(|_| anyhow!("AEAD: bad nonce length"))?;
        let body_len =
            input.len().checked_sub(TAG_LEN).ok_or_else(|| anyhow!("AEAD: ciphertext shorter than its tag"))?;
        let (body, tag) = input.split_at(body_len);
        let tag = Tag::<A>::try_from(tag).map_err(|_| anyhow!("AEAD: bad tag length"))?;
        let out = out.get_mut(..body_len).ok_or_else(|| anyhow!("AEAD: output buffer too small"))?;
        aead.decrypt_inout_detached(
            &nonce,
            &self.aad,
            InOutBuf::new(body, out).map_err(|_| anyhow!("AEAD: length mismatch"))?,
            &tag,
        )
        .map_err(|_| anyhow!("AEAD: tag verification failed"))?;
        Ok(body_len)
    }
}

/// RC4 keyed per frame with a 24-bit IV (the frame counter) before the 104-bit secret.
struct WepFrames {
    key: Zeroizing<Vec<u8>>,
}

impl WepFrames {
    fn apply(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let out = out.get_mut(..input.len()).ok_or_else(|| anyhow!("RC4: output buffer too small"))?;
        let mut per_frame = Zeroizing::new([0u8; 16]);
        per_frame[3..].copy_from_slice(&self.key[3..]);
        for (n, (src, dst)) in input.chunks(FRAME_PAYLOAD).zip(out.chunks_mut(FRAME_PAYLOAD)).enumerate() {
            per_frame[..3].copy_from_slice(&(n as u32).to_be_bytes()[1..]);
            rc4::Rc4::new_from_slice(&per_frame[..])
                .map_err(|_| anyhow!("RC4: bad key length"))?
                .try_apply_keystream_b2b(src, dst)
                .map_err(|_| anyhow!("RC4: length mismatch"))?;
        }
        Ok(input.len())
    }
}

impl Engine for WepFrames {
    fn max_ciphertext_len(&self, len: usize) -> usize {
        len
    }
    fn encrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        self.apply(input, out)
    }
    fn decrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        self.apply(input, out)
    }
}

/// The file as a train of QoS data MPDUs (STA → AP, TID 0), each protected with CCMP-128.
struct CcmpFrames {
    key: Zeroizing<Vec<u8>>,
}

/// CCMP header (8) + MIC (8).
const CCMP_OVERHEAD: usize = 16;

fn qos_data_header() -> HeaderRepr {
    let fc = FrameControl::new(FrameType::Data, 8).with_flag(FrameControl::TO_DS, true);
    HeaderRepr {
        frame_control: fc,
        duration: 0,
        addr1: MacAddr([0x02, 0, 0, 0, 0, 0xa1]),
        addr2: MacAddr([0x02, 0, 0, 0, 0, 0x51]),
        addr3: MacAddr([0x02, 0, 0, 0, 0, 0xd1]),
        sequence_control: SequenceControl::new(0, 0),
        addr4: None,
        qos_control: Some(QosControl(0)),
        ht_control: None,
    }
}

impl CcmpFrames {
    fn frames(len: usize) -> usize {
        len.div_ceil(FRAME_PAYLOAD)
    }
}

impl Engine for CcmpFrames {
    fn max_ciphertext_len(&self, len: usize) -> usize {
        len + Self::frames(len) * (qos_data_header().header_len() + CCMP_OVERHEAD)
    }

    fn encrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        ensure!(out.len() >= self.max_ciphertext_len(input.len()), "CCMP: output buffer too small");
        let mut tx = Transmitter::new(Ccmp128::new(&self.key)?, 0);
        let header = qos_data_header();
        let mut at = 0;
        for chunk in input.chunks(FRAME_PAYLOAD) {
            let frame = &mut out[at..];
            let h = header.emit(frame, Rules::default())?;
            frame[h..h + chunk.len()].copy_from_slice(chunk);
            at += tx.protect(&mut frame[..h + chunk.len() + CCMP_OVERHEAD], h + chunk.len())?;
        }
        Ok(at)
    }

    fn decrypt(&self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let mut rx = Receiver::new(Ccmp128::new(&self.key)?);
        let full = qos_data_header().header_len() + FRAME_PAYLOAD + CCMP_OVERHEAD;
        let mut frame = [0u8; 2400];
        let mut at = 0;
        for protected in input.chunks(full) {
            let frame = frame.get_mut(..protected.len()).ok_or_else(|| anyhow!("CCMP: frame too long"))?;
            frame.copy_from_slice(protected);
            let done = rx.unprotect(frame)?;
            let h = qos_data_header().header_len();
            let body = &frame[h..done.mpdu_len];
            out.get_mut(at..at + body.len())
                .ok_or_else(|| anyhow!("CCMP: output buffer too small"))?
                .copy_from_slice(body);
            at += body.len();
        }
        Ok(at)
    }
}
