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
            assert!(matches!(status, WLANSEC_OK | WLANSEC_ERR_QUEUE_FULL));
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

/// Every packet polled from `engine` until `count` have come back (waiting for them).
fn poll_all(engine: *mut crate::percore::wlansec_engine, count: usize) -> Vec<*mut crate::percore::wlansec_packet> {
    use crate::percore::*;
    let mut done = vec![ptr::null_mut(); count];
    let mut polled = 0;
    while polled < count {
        // SAFETY: a live engine; `done[polled..]` has `count - polled` writable entries.
        unsafe {
            wlansec_engine_wait(engine, count - polled, 100_000);
            polled += wlansec_engine_poll(engine, done[polled..].as_mut_ptr(), count - polled);
        }
    }
    done
}

/// A live packet's tag.
fn tag(packet: *mut crate::percore::wlansec_packet) -> u64 {
    // SAFETY: the callers pass live packets the test owns.
    unsafe { crate::percore::wlansec_packet_tag(packet) }
}

#[test]
fn the_per_core_engine_protects_as_the_golden_model_and_refuses_replays() {
    use crate::percore::*;
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let tks = [[1u8; 16], [2u8; 16]];
    let mut engine = ptr::null_mut();
    // SAFETY: valid out-pointer; then a live engine and readable keys.
    unsafe {
        assert_eq!(wlansec_engine_new(2, 8, &mut engine), WLANSEC_OK);
        for (station, tk) in tks.iter().enumerate() {
            let ways = [1, 4][station];
            assert_eq!(wlansec_engine_add_station(engine, station as u32, ways, tk.as_ptr(), 16), WLANSEC_OK);
        }
        assert_eq!(wlansec_engine_add_station(engine, 5, 3, tks[0].as_ptr(), 16), WLANSEC_ERR_INVALID_ARGUMENT);
    }
    let goldens: [Box<dyn FrameSuite>; 2] = [
        Box::new(Ccmp128::new(&tks[0]).unwrap()),
        Box::new(EnhancedCcmp::keyed(&tks[1], Ways::N4, Variant::DomainSeparated).unwrap()),
    ];
    // 30 frames, alternating stations, and one for station 9, which has no key.
    let mut plains = Vec::new();
    let mut packets: Vec<*mut wlansec_packet> = (0..31)
        .map(|at| {
            let mut plain = Vec::new();
            let body_len = (rng.next_u32() % 700) as usize;
            random_mpdu(&mut rng, Shapes { management: false }, body_len, &mut plain);
            let mut packet = ptr::null_mut();
            let station = if at == 30 { 9 } else { at % 2 };
            // SAFETY: valid out-pointer; then a live packet and `plain` readable.
            unsafe {
                assert_eq!(wlansec_packet_new(plain.len(), &mut packet), WLANSEC_OK);
                assert_eq!(wlansec_packet_set(packet, station, at as u64, plain.as_ptr(), plain.len()), WLANSEC_OK);
            }
            plains.push(plain);
            packet
        })
        .collect();
    // Rings of 8 per worker: submit what is taken, poll, go on.
    let mut done = Vec::new();
    let mut next = 0;
    while next < packets.len() {
        let mut accepted = 0;
        // SAFETY: a live engine; the entries from `next` are live packets this test owns.
        let status = unsafe {
            wlansec_engine_submit(engine, 0, packets[next..].as_mut_ptr(), packets.len() - next, &mut accepted)
        };
        assert!(matches!(status, WLANSEC_OK | WLANSEC_ERR_QUEUE_FULL), "{status:?}");
        assert!(packets[next..next + accepted].iter().all(|p| p.is_null()), "taken entries are NULL");
        next += accepted;
        done.extend(poll_all(engine, accepted));
    }
    let result = |packet: *mut wlansec_packet| {
        let (mut mpdu, mut len) = (ptr::null(), 0);
        // SAFETY: a live packet this test owns; its MPDU lives until it is filled or freed.
        unsafe {
            let status = wlansec_packet_result(packet, &mut mpdu, &mut len);
            (status, (status == WLANSEC_OK).then(|| core::slice::from_raw_parts(mpdu, len).to_vec()))
        }
    };
    let mut pns = [0u64; 2];
    done.sort_by_key(|&p| tag(p));
    for (at, &packet) in done.iter().enumerate() {
        let (status, mpdu) = result(packet);
        if at == 30 {
            assert_eq!(status, WLANSEC_ERR_NO_KEY);
            continue;
        }
        let station = at % 2;
        pns[station] += 1;
        let mut want = plains[at].clone();
        want.resize(want.len() + 16, 0);
        let len = goldens[station].encapsulate(&mut want, plains[at].len(), Pn::new(pns[station]).unwrap(), 0).unwrap();
        want.truncate(len);
        assert_eq!((status, mpdu), (WLANSEC_OK, Some(want)), "frame {at}");
    }
    // Back through the engine: opened, then the same frames again are replays.
    for round in 0..2 {
        let mut batch: Vec<*mut wlansec_packet> = done[..30].to_vec();
        for &packet in &batch {
            let (_, mpdu) = result(packet);
            let mpdu = mpdu.unwrap_or_default();
            // SAFETY: a live packet this test owns.
            unsafe {
                let (station, tag) = (wlansec_packet_station(packet), wlansec_packet_tag(packet));
                assert_eq!(wlansec_packet_set(packet, station, tag, mpdu.as_ptr(), mpdu.len()), WLANSEC_OK);
            }
        }
        let mut back = Vec::new();
        for chunk in batch.chunks_mut(8) {
            let mut accepted = 0;
            // SAFETY: live packets this test owns.
            unsafe {
                assert_eq!(wlansec_engine_submit(engine, 1, chunk.as_mut_ptr(), chunk.len(), &mut accepted), WLANSEC_OK)
            };
            back.extend(poll_all(engine, accepted));
        }
        for &packet in &back {
            let at = tag(packet) as usize;
            let (status, mpdu) = result(packet);
            match round {
                0 => assert_eq!((status, mpdu.map(|m| m[2..].to_vec())), (WLANSEC_OK, Some(plains[at][2..].to_vec()))),
                _ => assert_eq!(status, WLANSEC_ERR_REPLAY, "frame {at} again"),
            }
            if round == 0 {
                // Protect it again for the replay round: the protected MPDU is the golden one.
                let mut want = plains[at].clone();
                want.resize(want.len() + 16, 0);
                let station = at % 2;
                let pn = (at / 2 + 1) as u64;
                let len = goldens[station].encapsulate(&mut want, plains[at].len(), Pn::new(pn).unwrap(), 0).unwrap();
                // SAFETY: a live packet this test owns.
                unsafe { wlansec_packet_set(packet, station as u32, at as u64, want.as_ptr(), len) };
            }
        }
        done[..30].copy_from_slice(&{
            let mut sorted = back;
            sorted.sort_by_key(|&p| tag(p));
            sorted
        });
    }
    // SAFETY: every packet is this test's, each freed once; then the engine.
    unsafe {
        for packet in done {
            wlansec_packet_free(packet);
        }
        wlansec_engine_free(engine);
    }
}
