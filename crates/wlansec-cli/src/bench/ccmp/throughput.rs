//! The engines' throughput per frame size: OpenSSL, RustCrypto `ccm` and the wlansec engine
//! one frame per call, the engine's multi-buffer batch (with intel-ipsec-mb's rows on the same
//! frames) and Enhanced N = 2, 4, 8; and the multi-buffer batch on frames of mixed lengths.

use aes::cipher::consts::{U13, U8};
use aes::cipher::KeyInit;
use aes::Aes128;
use anyhow::Result;
use ccm::aead::AeadInOut;
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;
use wlansec_core::engine::{Engine, Job, Key, Mode, Ways};
use wlansec_core::gen::{self, ChaCha8Rng};

use crate::bench::ipsec_mb::IpsecMb;

use super::clock::{Clock, Measured};
use super::frames::{random_bytes, AAD_LEN, MIXED, MIXED_FRAMES, MIXED_LENGTHS};
use super::ipsec_mb_rows;

/// The rows of `bytes`-octet frames, in the table's order.
pub fn measure_size(
    clock: &Clock,
    engine: Engine,
    ipsec_mb: &[IpsecMb],
    bytes: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Measured>> {
    let tk: [u8; 16] = random_bytes(rng, 16).try_into().expect("16 octets");
    let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
    let aad = random_bytes(rng, AAD_LEN);
    let mut data = random_bytes(rng, bytes);
    let mut out = Vec::new();

    // OpenSSL EVP aes-128-ccm: key set once, nonce and lengths per frame.
    let mut ctx = CipherCtx::new()?;
    ctx.encrypt_init(Some(Cipher::aes_128_ccm()), None, None)?;
    ctx.set_iv_length(13)?;
    ctx.set_tag_length(8)?;
    ctx.encrypt_init(None, Some(&tk), None)?;
    let mut tag = [0u8; 8];
    let mut openssl_frame = |data: &mut [u8]| -> Result<()> {
        ctx.encrypt_init(None, None, Some(&nonce))?;
        ctx.set_data_len(data.len())?;
        ctx.cipher_update(&aad, None)?;
        ctx.cipher_update_inplace(data, data.len())?;
        ctx.cipher_final(&mut [])?;
        ctx.tag(&mut tag)?;
        Ok(())
    };
    openssl_frame(&mut data)?;
    let sample = clock.measure(|| openssl_frame(&mut data).expect("OpenSSL CCM on checked parameters"));
    out.push(clock.result("openssl", "single", 1, bytes, sample, 1, bytes));

    let rustcrypto = ccm::Ccm::<Aes128, U8, U13>::new(&tk.into());
    let sample = clock.measure(|| {
        rustcrypto
            .encrypt_inout_detached(&nonce.into(), &aad, data.as_mut_slice().into())
            .expect("RustCrypto CCM on checked parameters");
    });
    out.push(clock.result("rustcrypto-ccm", "single", 1, bytes, sample, 1, bytes));

    let key = Key::new(&tk, Mode::CCMP128)?;
    let sample = clock.measure(|| {
        engine.seal(&key, &nonce, &aad, &mut data).expect("engine on checked parameters");
    });
    out.push(clock.result("wlansec", "single", 1, bytes, sample, 1, bytes));

    // Multi-buffer: four lane-fulls of frames, every frame with its own key.
    let lanes = engine.lanes();
    let frames = 4 * lanes;
    let tks: Vec<[u8; 16]> = (0..frames).map(|_| random_bytes(rng, 16).try_into().expect("16 octets")).collect();
    let keys: Vec<Key> = tks.iter().map(|tk| Key::new(tk, Mode::CCMP128)).collect::<wlansec_core::Result<_>>()?;
    let mut buffers: Vec<Vec<u8>> = (0..frames).map(|_| random_bytes(rng, bytes)).collect();
    let sample = clock.measure(|| {
        let mut jobs: Vec<Job> = buffers.iter_mut().zip(&keys).map(|(b, k)| Job::new(k, nonce, &aad, b)).collect();
        engine.seal_batch(&mut jobs).expect("engine on checked parameters");
    });
    out.push(clock.result("wlansec", "multibuffer", lanes, bytes, sample, frames, frames * bytes));
    for lib in ipsec_mb {
        out.extend(ipsec_mb_rows::measure(clock, engine, lib, "multibuffer", &tks, nonce, &aad, &mut buffers)?);
    }

    for ways in [Ways::N2, Ways::N4, Ways::N8] {
        let key = Key::new(&tk, Mode::enhanced(ways))?;
        let sample = clock.measure(|| {
            engine.seal(&key, &nonce, &aad, &mut data).expect("engine on checked parameters");
        });
        out.push(clock.result("wlansec", "enhanced", ways.count(), bytes, sample, 1, bytes));
    }
    Ok(out)
}

/// Multi-buffer on frames of mixed lengths, as a receiver's ring or a capture holds them:
/// `MIXED_FRAMES` frames of lengths drawn uniformly from `MIXED_LENGTHS`, each under its own
/// key; wlansec and intel-ipsec-mb on the same frames.
pub fn measure_mixed(
    clock: &Clock,
    engine: Engine,
    ipsec_mb: &[IpsecMb],
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Measured>> {
    let nonce: [u8; 13] = random_bytes(rng, 13).try_into().expect("13 octets");
    let aad = random_bytes(rng, AAD_LEN);
    let (shortest, longest) = (*MIXED_LENGTHS.start(), *MIXED_LENGTHS.end());
    let mut buffers: Vec<Vec<u8>> = (0..MIXED_FRAMES)
        .map(|_| {
            let len = shortest + gen::below(rng, (longest - shortest + 1) as u64) as usize;
            random_bytes(rng, len)
        })
        .collect();
    let tks: Vec<[u8; 16]> = (0..MIXED_FRAMES).map(|_| random_bytes(rng, 16).try_into().expect("16 octets")).collect();
    let keys: Vec<Key> = tks.iter().map(|tk| Key::new(tk, Mode::CCMP128)).collect::<wlansec_core::Result<_>>()?;
    let octets: usize = buffers.iter().map(Vec::len).sum();
    let sample = clock.measure(|| {
        let mut jobs: Vec<Job> = buffers.iter_mut().zip(&keys).map(|(b, k)| Job::new(k, nonce, &aad, b)).collect();
        engine.seal_batch(&mut jobs).expect("engine on checked parameters");
    });
    let lanes = engine.lanes();
    let mean = octets.div_ceil(MIXED_FRAMES);
    let mut out = vec![clock.result("wlansec", MIXED, lanes, mean, sample, MIXED_FRAMES, octets)];
    for lib in ipsec_mb {
        out.extend(ipsec_mb_rows::measure(clock, engine, lib, MIXED, &tks, nonce, &aad, &mut buffers)?);
    }
    Ok(out)
}
