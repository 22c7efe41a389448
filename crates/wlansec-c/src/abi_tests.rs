//! The C ABI against wlansec-core's golden models on random frames of every header shape:
//! every suite through `wlansec_protect` / `wlansec_unprotect`, Enhanced CCMP-N (which has no
//! published vectors) against its reference model through one-frame seal and bursts.
//! (tests/c/test_wlansec.c checks the published vectors and intel-ipsec-mb from C.)

use core::ffi::c_int;
use core::ptr;

use crate::burst::*;
use crate::key::*;
use crate::wlansec_status::{self, *};
use wlansec_core::engine::{EnhancedCcm, EnhancedCcmp, Variant, Ways};
use wlansec_core::gen::{random_mpdu, ChaCha8Rng, Rng, SeedableRng, Shapes};
use wlansec_core::suite::{Ccmp128, Ccmp256, FrameSuite, Gcmp128, Gcmp256, Pn};

/// A key handle freed on drop.
struct Key(*mut wlansec_key);

impl Key {
    fn new(make: impl FnOnce(*mut *mut wlansec_key) -> wlansec_status) -> Key {
        let mut key = ptr::null_mut();
        assert_eq!(make(&mut key), WLANSEC_OK);
        Key(key)
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        // SAFETY: a live handle from `wlansec_key_new*`, freed once.
        unsafe { wlansec_key_free(self.0) };
    }
}

fn key(suite: wlansec_suite, tk: &[u8]) -> Key {
    // SAFETY: `tk` is `tk.len()` readable octets; `out` a valid pointer.
    Key::new(|out| unsafe { wlansec_key_new(suite as u32, tk.as_ptr(), tk.len(), out) })
}

fn enhanced_key(ways: Ways, tk: &[u8]) -> Key {
    // SAFETY: as in `key`.
    Key::new(|out| unsafe { wlansec_key_new_enhanced(ways.count() as u32, tk.as_ptr(), tk.len(), out) })
}

/// `plain` protected by the golden model and through the ABI must be the same MPDU, and
/// open back through the ABI.
fn check_mpdu(golden: &dyn FrameSuite, key: &Key, plain: &[u8], pn: u64, key_id: u8) {
    let mut want = plain.to_vec();
    want.resize(plain.len() + golden.overhead(), 0);
    golden.encapsulate(&mut want, plain.len(), Pn::new(pn).unwrap(), key_id).unwrap();
    let mut buf = plain.to_vec();
    buf.resize(want.len(), 0);
    let mut len = 0;
    // SAFETY: `buf` is `buf.len()` writable octets, `len` a valid out-pointer.
    let status = unsafe { wlansec_protect(key.0, buf.as_mut_ptr(), buf.len(), plain.len(), pn, key_id, &mut len) };
    assert_eq!((status, len), (WLANSEC_OK, want.len()));
    assert_eq!(buf, want);
    let (mut got_pn, mut got_key_id) = (0, 9);
    // SAFETY: as above.
    let status =
        unsafe { wlansec_unprotect(key.0, buf.as_mut_ptr(), buf.len(), &mut len, &mut got_pn, &mut got_key_id) };
    assert_eq!((status, len, got_pn, got_key_id), (WLANSEC_OK, plain.len(), pn, key_id));
    assert_eq!(buf[2..len], plain[2..]);
}

#[test]
fn every_suite_protects_as_its_golden_model_on_random_frames() {
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    let mut plain = Vec::new();
    for round in 0..300 {
        let mut tk = [0u8; 32];
        rng.fill_bytes(&mut tk);
        plain.clear();
        let body_len = (rng.next_u32() % 1600) as usize;
        random_mpdu(&mut rng, Shapes::default(), body_len, &mut plain);
        let (pn, key_id) = (rng.next_u64() & Pn::MAX, (round % 4) as u8);
        let ways = Ways::ALL[round % 4];
        let goldens: [(Box<dyn FrameSuite>, Key); 5] = [
            (Box::new(Ccmp128::new(&tk[..16]).unwrap()), key(wlansec_suite::WLANSEC_SUITE_CCMP128, &tk[..16])),
            (Box::new(Ccmp256::new(&tk).unwrap()), key(wlansec_suite::WLANSEC_SUITE_CCMP256, &tk)),
            (Box::new(Gcmp128::new(&tk[..16]).unwrap()), key(wlansec_suite::WLANSEC_SUITE_GCMP128, &tk[..16])),
            (Box::new(Gcmp256::new(&tk).unwrap()), key(wlansec_suite::WLANSEC_SUITE_GCMP256, &tk)),
            (
                Box::new(EnhancedCcmp::keyed(&tk[..16], ways, Variant::DomainSeparated).unwrap()),
                enhanced_key(ways, &tk[..16]),
            ),
        ];
        for (golden, key) in &goldens {
            check_mpdu(&**golden, key, &plain, pn, key_id);
        }
    }
}

/// One Enhanced CCMP-N frame with detached MIC: nonce, AAD, data, and the reference's output.
struct Frame {
    nonce: [u8; 13],
    aad: Vec<u8>,
    plain: Vec<u8>,
    data: Vec<u8>,
    mic: [u8; 8],
    want: (Vec<u8>, [u8; 8]),
}

fn frames(rng: &mut ChaCha8Rng, reference: &EnhancedCcm, count: usize) -> Vec<Frame> {
    (0..count)
        .map(|_| {
            let mut nonce = [0u8; 13];
            rng.fill_bytes(&mut nonce);
            let mut aad = vec![0u8; 22 + (rng.next_u32() % 9) as usize];
            rng.fill_bytes(&mut aad);
            let mut plain = vec![0u8; (rng.next_u32() % 1600) as usize];
            rng.fill_bytes(&mut plain);
            let (mut data, mut mic) = (plain.clone(), [0u8; 8]);
            reference.seal(&nonce, &aad, &mut data, &mut mic).unwrap();
            Frame { nonce, aad, data: plain.clone(), plain, mic: [0; 8], want: (data, mic) }
        })
        .collect()
}

fn job(key: &Key, frame: &mut Frame, at: usize) -> wlansec_job {
    wlansec_job {
        key: key.0,
        nonce: frame.nonce,
        aad: frame.aad.as_ptr(),
        aad_len: frame.aad.len(),
        data: frame.data.as_mut_ptr(),
        data_len: frame.data.len(),
        mic: frame.mic.as_mut_ptr(),
        user_data: at as *mut core::ffi::c_void,
        status: -1,
    }
}

#[test]
fn enhanced_ccmp_seals_as_its_reference_alone_at_once_and_queued() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut burst = ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { wlansec_burst_new(40, &mut burst) }, WLANSEC_OK);
    for ways in Ways::ALL {
        let mut tk = [0u8; 16];
        rng.fill_bytes(&mut tk);
        let reference = EnhancedCcm::new(&tk, ways, Variant::DomainSeparated).unwrap();
        let key = enhanced_key(ways, &tk);
        let mut frames = frames(&mut rng, &reference, 100);
        for frame in &mut frames {
            // SAFETY: every buffer is its length of valid octets.
            let status = unsafe {
                wlansec_seal(
                    key.0,
                    frame.nonce.as_ptr(),
                    13,
                    frame.aad.as_ptr(),
                    frame.aad.len(),
                    frame.data.as_mut_ptr(),
                    frame.data.len(),
                    frame.mic.as_mut_ptr(),
                    8,
                )
            };
            assert_eq!(status, WLANSEC_OK);
            assert_eq!((&frame.data, frame.mic), (&frame.want.0, frame.want.1), "{ways:?} one frame");
            frame.data.clone_from(&frame.plain);
        }
        let mut jobs: Vec<wlansec_job> = frames.iter_mut().enumerate().map(|(at, f)| job(&key, f, at)).collect();
        // SAFETY: the jobs' buffers are the frames', live and disjoint.
        assert_eq!(unsafe { wlansec_burst_seal(burst, jobs.as_mut_ptr(), jobs.len()) }, WLANSEC_OK);
        assert!(jobs.iter().all(|job| job.status == WLANSEC_OK as c_int));
        for frame in &mut frames {
            assert_eq!((&frame.data, frame.mic), (&frame.want.0, frame.want.1), "{ways:?} burst");
            frame.data.clone_from(&frame.plain);
        }
        // Queued, 40 places for 100 jobs: submit what fits, poll, go on.
        let jobs: Vec<wlansec_job> = frames.iter_mut().enumerate().map(|(at, f)| job(&key, f, at)).collect();
        let (mut next, mut done) = (0, Vec::new());
        while done.len() < jobs.len() {
            let mut accepted = 0;
            // SAFETY: the jobs' buffers stay live and untouched until polled.
            let status =
                unsafe { wlansec_burst_submit(burst, 0, jobs[next..].as_ptr(), jobs.len() - next, &mut accepted) };
            assert!(matches!(status, WLANSEC_OK | WLANSEC_ERR_BURST_FULL));
            next += accepted;
            let mut out = [jobs[0]; 16];
            // SAFETY: a live context and 16 writable jobs.
            unsafe {
                assert_eq!(wlansec_burst_flush(burst), WLANSEC_OK);
                let polled = wlansec_burst_poll(burst, out.as_mut_ptr(), out.len());
                done.extend_from_slice(&out[..polled]);
            }
        }
        for (at, job) in done.iter().enumerate() {
            assert_eq!((job.user_data as usize, job.status), (at, WLANSEC_OK as c_int), "{ways:?} in order");
        }
        for frame in &frames {
            assert_eq!((&frame.data, frame.mic), (&frame.want.0, frame.want.1), "{ways:?} queued");
        }
    }
    // SAFETY: the live context, freed once.
    unsafe { wlansec_burst_free(burst) };
}

#[test]
fn a_job_the_engine_refuses_fails_alone_and_the_rest_of_the_burst_is_done() {
    let tk = [7u8; 16];
    let reference = EnhancedCcm::new(&tk, Ways::N1, Variant::DomainSeparated).unwrap();
    let key = key(wlansec_suite::WLANSEC_SUITE_CCMP128, &tk);
    let mut frames = frames(&mut ChaCha8Rng::seed_from_u64(1), &reference, 10);
    frames[4].aad.truncate(14);
    let mut jobs: Vec<wlansec_job> = frames.iter_mut().enumerate().map(|(at, f)| job(&key, f, at)).collect();
    jobs[6].key = ptr::null();
    let mut burst = ptr::null_mut();
    // SAFETY: a valid out-pointer, then the jobs' buffers live and disjoint.
    unsafe {
        assert_eq!(wlansec_burst_new(1, &mut burst), WLANSEC_OK);
        assert_eq!(wlansec_burst_seal(burst, jobs.as_mut_ptr(), jobs.len()), WLANSEC_OK);
        wlansec_burst_free(burst);
    }
    let status = |s: wlansec_status| s as c_int;
    for (at, (job, frame)) in jobs.iter().zip(&frames).enumerate() {
        match at {
            4 => assert_eq!((job.status, &frame.data), (status(WLANSEC_ERR_UNSUPPORTED), &frame.plain)),
            6 => assert_eq!((job.status, &frame.data), (status(WLANSEC_ERR_NULL_POINTER), &frame.plain)),
            _ => assert_eq!((job.status, &frame.data, frame.mic), (status(WLANSEC_OK), &frame.want.0, frame.want.1)),
        }
    }
}
