//! Key handles and one frame at a time.
//!
//! A key is one temporal key set up for one suite. CCMP-128 and Enhanced CCMP-N run on the
//! multi-buffer engine (the fastest backend of the CPU, chosen when the key is made), the
//! other suites on wlansec-core's reference suites. Two ways to protect a frame:
//! * whole MPDUs, as wlansec-core's `FrameSuite`: `wlansec_protect` turns a plaintext MPDU
//!   into the protected one in place (PN header inserted, MIC appended), `wlansec_unprotect`
//!   verifies and decrypts one back;
//! * CCM/GCM over data whose nonce and AAD the caller built, with a detached MIC
//!   (`wlansec_seal`, `wlansec_open`).

use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInOut, Nonce, Tag};
use wlansec_core::engine::{Engine, FastCcmp, Mode, Ways};
use wlansec_core::suite::{Ccmp256, FrameSuite, Gcmp128, Gcmp256, Pn, Sealer};

use crate::status::wlansec_status::{self, *};
use crate::{bytes, bytes_mut, guard, put};

/// The suites of `wlansec_key_new` (Enhanced CCMP-N has `wlansec_key_new_enhanced`).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum wlansec_suite {
    /// CCMP-128: 16-octet TK, 8-octet MIC, on the multi-buffer engine.
    WLANSEC_SUITE_CCMP128 = 0,
    /// CCMP-256: 32-octet TK, 16-octet MIC.
    WLANSEC_SUITE_CCMP256 = 1,
    /// GCMP-128: 16-octet TK, 16-octet MIC.
    WLANSEC_SUITE_GCMP128 = 2,
    /// GCMP-256: 32-octet TK, 16-octet MIC.
    WLANSEC_SUITE_GCMP256 = 3,
}

/// Octets of the CCM nonce of CCMP-128/256 and Enhanced CCMP-N (`wlansec_seal`, `wlansec_job`).
pub const WLANSEC_CCMP_NONCE_LEN: usize = 13;
/// Octets of the GCM nonce of GCMP-128/256.
pub const WLANSEC_GCMP_NONCE_LEN: usize = 12;
/// Octets of the MIC of CCMP-128 and Enhanced CCMP-N.
pub const WLANSEC_CCMP128_MIC_LEN: usize = 8;
/// Octets of the MIC of CCMP-256, GCMP-128 and GCMP-256.
pub const WLANSEC_LONG_MIC_LEN: usize = 16;

/// A temporal key set up for one suite (opaque). Made by `wlansec_key_new` or
/// `wlansec_key_new_enhanced`, freed by `wlansec_key_free`, which erases the key material.
pub struct wlansec_key {
    cipher: Cipher,
}

pub(crate) enum Cipher {
    /// CCMP-128 or Enhanced CCMP-N on the multi-buffer engine.
    Engine(FastCcmp),
    Ccmp256(Ccmp256),
    Gcmp128(Gcmp128),
    Gcmp256(Gcmp256),
}

/// `$body` with `$suite` bound to the key's `FrameSuite` (static dispatch).
macro_rules! with_suite {
    ($cipher:expr, $suite:ident => $body:expr) => {
        match $cipher {
            Cipher::Engine($suite) => $body,
            Cipher::Ccmp256($suite) => $body,
            Cipher::Gcmp128($suite) => $body,
            Cipher::Gcmp256($suite) => $body,
        }
    };
}

impl wlansec_key {
    pub(crate) fn cipher(&self) -> &Cipher {
        &self.cipher
    }

    fn mic_len(&self) -> usize {
        match self.cipher {
            Cipher::Engine(_) => WLANSEC_CCMP128_MIC_LEN,
            _ => WLANSEC_LONG_MIC_LEN,
        }
    }
}

/// Hand a new key to the caller through `out`.
///
/// # Safety
/// `out` is null or valid for a write of a pointer.
unsafe fn give(out: *mut *mut wlansec_key, cipher: Cipher) {
    // SAFETY: the caller's contract.
    unsafe { put(out, Box::into_raw(Box::new(wlansec_key { cipher }))) };
}

/// Set up the temporal key `tk` (`tk_len` octets) for `suite` (a `wlansec_suite` value) and
/// store a new key handle in `*out` (set to NULL on failure). Free it with `wlansec_key_free`.
///
/// # Safety
/// `tk` points to `tk_len` readable octets (the call keeps no pointer to them); `out` is
/// valid for a write of a pointer.
#[no_mangle]
pub unsafe extern "C" fn wlansec_key_new(
    suite: u32,
    tk: *const u8,
    tk_len: usize,
    out: *mut *mut wlansec_key,
) -> wlansec_status {
    guard(|| {
        if out.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { out.write(core::ptr::null_mut()) };
        // SAFETY: `tk_len` readable octets at `tk` (caller's contract).
        let tk = unsafe { bytes(tk, tk_len) }?;
        let cipher = match suite {
            0 => Cipher::Engine(FastCcmp::keyed(Engine::new(), tk, Mode::CCMP128)?),
            1 => Cipher::Ccmp256(Ccmp256::new(tk)?),
            2 => Cipher::Gcmp128(Gcmp128::new(tk)?),
            3 => Cipher::Gcmp256(Gcmp256::new(tk)?),
            _ => return Err(WLANSEC_ERR_INVALID_ARGUMENT),
        };
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { give(out, cipher) };
        Ok(())
    })
}

/// Set up the 16-octet temporal key `tk` for Enhanced CCMP-N with `ways` = N = 1, 2, 4 or 8
/// CBC-MAC sub-chains (N = 1 is CCMP-128) and store a new key handle in `*out` (NULL on
/// failure). Its frames have CCMP-128's layout; its MIC is 8 octets.
///
/// # Safety
/// As `wlansec_key_new`.
#[no_mangle]
pub unsafe extern "C" fn wlansec_key_new_enhanced(
    ways: u32,
    tk: *const u8,
    tk_len: usize,
    out: *mut *mut wlansec_key,
) -> wlansec_status {
    guard(|| {
        if out.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { out.write(core::ptr::null_mut()) };
        // SAFETY: `tk_len` readable octets at `tk` (caller's contract).
        let tk = unsafe { bytes(tk, tk_len) }?;
        let ways = Ways::new(ways as usize).map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
        let cipher = Cipher::Engine(FastCcmp::keyed(Engine::new(), tk, Mode::enhanced(ways))?);
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { give(out, cipher) };
        Ok(())
    })
}

/// Free a key handle and erase its key material (TK schedules). NULL is ignored.
///
/// # Safety
/// `key` is NULL or a handle from `wlansec_key_new*` not freed before, which no call in
/// any thread still uses and no submitted burst job still names.
#[no_mangle]
pub unsafe extern "C" fn wlansec_key_free(key: *mut wlansec_key) {
    if !key.is_null() {
        // SAFETY: made by `Box::into_raw` in `give` and not freed before (caller's contract).
        // Dropping the suites zeroizes their AES key schedules (the `zeroize` features of
        // `aes` and `aes-gcm`, `engine::Key`'s `Drop`). Dropping cannot panic.
        drop(unsafe { Box::from_raw(key) });
    }
}

/// Octets the key's suite adds to an MPDU: 8 (PN header) plus the MIC length. 0 for NULL.
///
/// # Safety
/// `key` is NULL or a live key handle.
#[no_mangle]
pub unsafe extern "C" fn wlansec_key_overhead(key: *const wlansec_key) -> usize {
    // SAFETY: NULL or a live handle (caller's contract).
    unsafe { key.as_ref() }.map_or(0, |key| with_suite!(&key.cipher, s => s.overhead()))
}

/// Octets of the key's MIC: 8 (CCMP-128, Enhanced CCMP-N) or 16. 0 for NULL.
///
/// # Safety
/// `key` is NULL or a live key handle.
#[no_mangle]
pub unsafe extern "C" fn wlansec_key_mic_len(key: *const wlansec_key) -> usize {
    // SAFETY: NULL or a live handle (caller's contract).
    unsafe { key.as_ref() }.map_or(0, wlansec_key::mic_len)
}

/// The name of the engine backend CCMP-128 and Enhanced CCMP-N run on in this process
/// ("avx512-vaes", "avx2-vaes", "aes-ni" or "portable"): a static string.
#[no_mangle]
pub extern "C" fn wlansec_backend_name() -> *const core::ffi::c_char {
    use wlansec_core::engine::Backend;
    match Engine::new().backend() {
        Backend::Avx512Vaes => c"avx512-vaes",
        Backend::Avx2Vaes => c"avx2-vaes",
        Backend::AesNi => c"aes-ni",
        Backend::Portable => c"portable",
    }
    .as_ptr()
}

/// Protect the plaintext MPDU in `buf[0..mpdu_len)` in place with packet number `pn` (at
/// most 2^48 - 1) under Key ID `key_id` (0..3): the MAC header is kept, the PN header
/// inserted after it, the body encrypted and the MIC appended. `buf_len` is the room in
/// `buf`, at least `mpdu_len + wlansec_key_overhead(key)`. The protected length is stored in
/// `*out_len` (if not NULL). The caller owns PN assignment: a PN must never repeat under one key.
///
/// # Safety
/// `key` is a live key handle; `buf` points to `buf_len` writable octets that nothing
/// else accesses during the call; `out_len` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn wlansec_protect(
    key: *const wlansec_key,
    buf: *mut u8,
    buf_len: usize,
    mpdu_len: usize,
    pn: u64,
    key_id: u8,
    out_len: *mut usize,
) -> wlansec_status {
    guard(|| {
        // SAFETY: NULL or a live handle (caller's contract).
        let key = unsafe { key.as_ref() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        // SAFETY: `buf_len` writable, exclusive octets (caller's contract).
        let buf = unsafe { bytes_mut(buf, buf_len) }?;
        let pn = Pn::new(pn).map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
        if key_id > 3 || mpdu_len > buf.len() {
            return Err(WLANSEC_ERR_INVALID_ARGUMENT);
        }
        let len = with_suite!(&key.cipher, s => {
            let needed = mpdu_len + s.overhead();
            if buf.len() < needed {
                return Err(WLANSEC_ERR_BUFFER_TOO_SMALL);
            }
            s.encapsulate(buf, mpdu_len, pn, key_id)
        })?;
        // SAFETY: NULL or valid for a write (caller's contract).
        unsafe { put(out_len, len) };
        Ok(())
    })
}

/// Verify and decrypt the protected MPDU that is all of `buf[0..len)`, in place: on
/// success the plaintext MPDU (Protected bit cleared) is at the front of `buf`, its length
/// in `*out_len`, its PN in `*out_pn` and Key ID in `*out_key_id` (each pointer may be
/// NULL). On failure `buf` is left as it came. No replay check: the caller compares the PN
/// with the last one it accepted for the frame's TID.
///
/// # Safety
/// `key` is a live key handle; `buf` points to `len` writable octets that nothing else
/// accesses during the call; each out-pointer is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn wlansec_unprotect(
    key: *const wlansec_key,
    buf: *mut u8,
    len: usize,
    out_len: *mut usize,
    out_pn: *mut u64,
    out_key_id: *mut u8,
) -> wlansec_status {
    guard(|| {
        // SAFETY: NULL or a live handle (caller's contract).
        let key = unsafe { key.as_ref() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        // SAFETY: `len` writable, exclusive octets (caller's contract).
        let buf = unsafe { bytes_mut(buf, len) }?;
        let done = with_suite!(&key.cipher, s => s.decapsulate(buf))?;
        // SAFETY: each NULL or valid for a write (caller's contract).
        unsafe {
            put(out_len, done.mpdu_len);
            put(out_pn, done.pn.value());
            put(out_key_id, done.key_id);
        }
        Ok(())
    })
}

/// The MIC of a detached call: written when sealing, checked when opening.
enum Mic<'a> {
    Seal(&'a mut [u8]),
    Open(&'a [u8]),
}

/// CCM or GCM over `data` in place with the nonce and AAD as given.
fn detached(key: &wlansec_key, nonce: &[u8], aad: &[u8], data: &mut [u8], mic: Mic<'_>) -> Result<(), wlansec_status> {
    /// `$sealer` (a `Sealer<$len>`) sealing or opening.
    macro_rules! ccm {
        ($sealer:expr, $len:expr) => {{
            let nonce = nonce.try_into().map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
            match mic {
                Mic::Seal(mic) => {
                    let mic: &mut [u8; $len] = mic.try_into().map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
                    $sealer.seal(nonce, aad, data, mic)?
                }
                Mic::Open(mic) => {
                    let mic: &[u8; $len] = mic.try_into().map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
                    $sealer.open(nonce, aad, data, mic)?
                }
            }
        }};
    }
    match &key.cipher {
        Cipher::Engine(suite) => ccm!(suite.sealer(), WLANSEC_CCMP128_MIC_LEN),
        Cipher::Ccmp256(suite) => ccm!(suite.sealer(), WLANSEC_LONG_MIC_LEN),
        Cipher::Gcmp128(suite) => gcm(suite.aead(), nonce, aad, data, mic)?,
        Cipher::Gcmp256(suite) => gcm(suite.aead(), nonce, aad, data, mic)?,
    }
    Ok(())
}

/// AES-GCM with GCMP's 12-octet nonce and 16-octet MIC; a failed open leaves `data` as it
/// was (the tag is checked before decrypting).
fn gcm<A: AeadInOut<NonceSize = U12, TagSize = U16>>(
    aead: &A,
    nonce: &[u8],
    aad: &[u8],
    data: &mut [u8],
    mic: Mic<'_>,
) -> Result<(), wlansec_status> {
    let nonce = Nonce::<A>::try_from(nonce).map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
    match mic {
        Mic::Seal(mic) => {
            if mic.len() != WLANSEC_LONG_MIC_LEN {
                return Err(WLANSEC_ERR_INVALID_ARGUMENT);
            }
            let tag = aead.encrypt_inout_detached(&nonce, aad, data.into()).map_err(|_| WLANSEC_ERR_UNSUPPORTED)?;
            mic.copy_from_slice(&tag);
        }
        Mic::Open(mic) => {
            let tag = Tag::<A>::try_from(mic).map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
            aead.decrypt_inout_detached(&nonce, aad, data.into(), &tag).map_err(|_| WLANSEC_ERR_MIC_FAILURE)?;
        }
    }
    Ok(())
}

/// The key, nonce, AAD and data of `wlansec_seal` or `wlansec_open`, checked.
struct Detached<'a> {
    key: &'a wlansec_key,
    nonce: &'a [u8],
    aad: &'a [u8],
    data: &'a mut [u8],
}

impl Detached<'_> {
    /// # Safety
    /// As `wlansec_seal`.
    unsafe fn new(
        key: *const wlansec_key,
        nonce: *const u8,
        nonce_len: usize,
        aad: *const u8,
        aad_len: usize,
        data: *mut u8,
        data_len: usize,
    ) -> Result<Self, wlansec_status> {
        // SAFETY: NULL or a live handle; each pointer to its length of octets, `data`
        // writable and exclusive (caller's contract).
        unsafe {
            Ok(Detached {
                key: key.as_ref().ok_or(WLANSEC_ERR_NULL_POINTER)?,
                nonce: bytes(nonce, nonce_len)?,
                aad: bytes(aad, aad_len)?,
                data: bytes_mut(data, data_len)?,
            })
        }
    }

    fn run(self, mic: Mic<'_>) -> Result<(), wlansec_status> {
        detached(self.key, self.nonce, self.aad, self.data, mic)
    }
}

/// Encrypt `data[0..data_len)` in place and write its MIC to `mic`, with the nonce and AAD
/// the caller built: CCM (13-octet nonce) for CCMP-128/256 and Enhanced CCMP-N, GCM
/// (12-octet nonce) for GCMP. `mic_len` is the key's MIC length (`wlansec_key_mic_len`).
/// On the engine (CCMP-128, Enhanced CCMP-N) the AAD is 15 to 30 octets (CCMP's is 22 to 30).
///
/// # Safety
/// `key` is a live key handle; `nonce`, `aad` point to `nonce_len`, `aad_len` readable
/// octets; `data`, `mic` to `data_len`, `mic_len` writable ones; the writable buffers
/// overlap no other buffer of the call and nothing else accesses them during it.
#[no_mangle]
pub unsafe extern "C" fn wlansec_seal(
    key: *const wlansec_key,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    data: *mut u8,
    data_len: usize,
    mic: *mut u8,
    mic_len: usize,
) -> wlansec_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let call = unsafe { Detached::new(key, nonce, nonce_len, aad, aad_len, data, data_len) }?;
        // SAFETY: `mic_len` writable octets, exclusive (caller's contract).
        call.run(Mic::Seal(unsafe { bytes_mut(mic, mic_len) }?))
    })
}

/// Verify the MIC `mic` and decrypt `data[0..data_len)` in place (as `wlansec_seal`). On
/// `WLANSEC_ERR_MIC_FAILURE` the data is left as ciphertext. The MIC is compared in
/// constant time.
///
/// # Safety
/// As `wlansec_seal`, except that `mic` is only read.
#[no_mangle]
pub unsafe extern "C" fn wlansec_open(
    key: *const wlansec_key,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    data: *mut u8,
    data_len: usize,
    mic: *const u8,
    mic_len: usize,
) -> wlansec_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let call = unsafe { Detached::new(key, nonce, nonce_len, aad, aad_len, data, data_len) }?;
        // SAFETY: `mic_len` readable octets (caller's contract).
        call.run(Mic::Open(unsafe { bytes(mic, mic_len) }?))
    })
}
