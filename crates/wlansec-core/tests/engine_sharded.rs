//! The sharded engine gives every frame the PN a single sequential transmitter per station
//! would, so each TID's frames leave in PN order, on one thread or several; output equals the
//! golden model's.

use wlansec_core::engine::sharded::{FrameBatch, ShardedEngine};
use wlansec_core::engine::{Engine, EnhancedCcmp, Mode, Variant, Ways};
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes};
use wlansec_core::suite::{Ccmp128, FrameSuite, Receiver, Transmitter};

mod common;

/// Worker threads 0: the caller's thread is the one worker (an inline engine).
const INLINE: usize = 0;

fn engine(threads: usize) -> ShardedEngine {
    match threads {
        INLINE => ShardedEngine::inline(Engine::new()),
        threads => ShardedEngine::new(threads, Engine::new()),
    }
}

/// One call of the engine on owned frames: each frame's MPDU or error, in order.
fn call(
    engine: &mut ShardedEngine,
    protect: bool,
    frames: &[(u32, Vec<u8>)],
) -> Result<Vec<Result<Vec<u8>, wlansec_core::Error>>, wlansec_core::Error> {
    let mut batch = FrameBatch::new();
    for (station, mpdu) in frames {
        batch.push(*station, mpdu);
    }
    match protect {
        true => engine.protect(&mut batch)?,
        false => engine.unprotect(&mut batch)?,
    }
    Ok(batch.iter().map(|(_, r)| r.map(<[u8]>::to_vec).map_err(Clone::clone)).collect())
}

fn protect_all(engine: &mut ShardedEngine, frames: &[(u32, Vec<u8>)]) -> Vec<Result<Vec<u8>, wlansec_core::Error>> {
    call(engine, true, frames).unwrap()
}

fn unprotect_all(engine: &mut ShardedEngine, frames: &[(u32, Vec<u8>)]) -> Vec<Result<Vec<u8>, wlansec_core::Error>> {
    call(engine, false, frames).unwrap()
}

#[test]
fn sharded_output_equals_one_sequential_transmitter_per_station() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let stations = 6u32;
    let keys: Vec<[u8; 16]> = (0..stations)
        .map(|_| {
            let mut k = [0u8; 16];
            rng.fill_bytes(&mut k);
            k
        })
        .collect();
    let modes = [Mode::CCMP128, Mode::enhanced(Ways::N4)];
    let frames = common::random_frames(&mut rng, stations, 300);

    let golden = |station: u32| -> Box<dyn FrameSuite> {
        let tk = &keys[station as usize];
        match modes[station as usize % 2].ways {
            Ways::N1 => Box::new(Ccmp128::new(tk).unwrap()),
            ways => Box::new(EnhancedCcmp::keyed(tk, ways, Variant::DomainSeparated).unwrap()),
        }
    };
    let mut transmitters: Vec<_> = (0..stations).map(|s| Transmitter::new(golden(s), 0)).collect();
    let expected = common::golden_protected(&mut transmitters, &frames);

    for threads in [INLINE, 1, 2, 3] {
        let mut engine = engine(threads);
        for station in 0..stations {
            engine.add_station(station, &keys[station as usize], modes[station as usize % 2]).unwrap();
        }
        let out = protect_all(&mut engine, &frames);
        let out: Vec<Vec<u8>> = out.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(out, expected, "{threads} threads");
        // A receiver per station takes every frame in order: no PN regresses within a TID.
        let mut receivers: Vec<_> = (0..stations).map(|s| Receiver::new(golden(s))).collect();
        for ((station, _), protected) in frames.iter().zip(&out) {
            receivers[*station as usize].unprotect(&mut protected.clone()).unwrap();
        }
    }
}

/// A frame the engine can't protect (here, too short for a MAC header) still takes its
/// station's next PN, as `suite::Transmitter::protect` does: the frames after it carry the
/// golden model's PNs, on one thread or several.
#[test]
fn a_refused_frame_takes_a_pn_as_the_golden_transmitter_does() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let tk = [3u8; 16];
    let mut frames: Vec<(u32, Vec<u8>)> = (0..40)
        .map(|_| {
            let mut mpdu = Vec::new();
            gen::random_mpdu(&mut rng, Shapes { management: false }, 300, &mut mpdu);
            (0, mpdu)
        })
        .collect();
    frames[17].1.truncate(5);
    let mut golden = Transmitter::new(Ccmp128::new(&tk).unwrap(), 0);
    let expected: Vec<Option<Vec<u8>>> = frames
        .iter()
        .map(|(_, mpdu)| {
            let mut buf = mpdu.clone();
            buf.resize(mpdu.len() + 16, 0);
            let len = golden.protect(&mut buf, mpdu.len()).ok()?;
            buf.truncate(len);
            Some(buf)
        })
        .collect();
    assert!(expected[17].is_none());
    for threads in [INLINE, 1, 2, 3] {
        let mut engine = engine(threads);
        engine.add_station(0, &tk, Mode::CCMP128).unwrap();
        let out: Vec<Option<Vec<u8>>> = protect_all(&mut engine, &frames).into_iter().map(Result::ok).collect();
        assert_eq!(out, expected, "{threads} threads");
    }
}

#[test]
fn frames_for_unknown_stations_are_refused() {
    let mut engine = ShardedEngine::new(2, Engine::new());
    let mut mpdu = Vec::new();
    gen::random_mpdu(&mut ChaCha8Rng::seed_from_u64(1), Shapes::default(), 10, &mut mpdu);
    assert!(call(&mut engine, true, &[(7, mpdu)]).is_err());
}

/// The receive side on 1..3 workers: every protected frame opens to its plaintext MPDU
/// (the golden model's `Receiver` agrees), a replayed frame, a frame older than its TID's
/// last, and a tampered frame are refused; counters persist across calls and restart when
/// a key is replaced.
#[test]
fn sharded_receive_opens_in_order_and_refuses_replays_and_tampering() {
    use wlansec_core::Error;
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let stations = 5u32;
    let keys: Vec<[u8; 16]> = (0..stations)
        .map(|_| {
            let mut k = [0u8; 16];
            rng.fill_bytes(&mut k);
            k
        })
        .collect();
    let frames: Vec<(u32, Vec<u8>)> = (0..200)
        .map(|_| {
            let station = gen::below(&mut rng, u64::from(stations)) as u32;
            let mut mpdu = Vec::new();
            let body = gen::below(&mut rng, 1600) as usize;
            gen::random_mpdu(&mut rng, Shapes { management: false }, body, &mut mpdu);
            (station, mpdu)
        })
        .collect();
    for threads in [INLINE, 1, 2, 3] {
        let mut engine = engine(threads);
        for station in 0..stations {
            engine.add_station(station, &keys[station as usize], Mode::CCMP128).unwrap();
        }
        let protected: Vec<(u32, Vec<u8>)> = protect_all(&mut engine, &frames)
            .into_iter()
            .zip(&frames)
            .map(|(r, (station, _))| (*station, r.unwrap()))
            .collect();
        // Independent check of the ciphertext: the golden receiver opens every frame.
        for (station, frame) in &protected {
            let mut golden = Receiver::new(Ccmp128::new(&keys[*station as usize]).unwrap());
            golden.unprotect(&mut frame.clone()).unwrap();
        }
        let opened = unprotect_all(&mut engine, &protected);
        for ((_, mpdu), result) in frames.iter().zip(opened) {
            assert_eq!(&result.unwrap(), mpdu, "{threads} threads");
        }

        // The same frames again (a later call): every one is a replay.
        let again = unprotect_all(&mut engine, &protected[..10]);
        assert!(again.iter().all(|r| matches!(r, Err(Error::Replay { .. }))));

        // New frames, one tampered, one delivered twice within the call.
        let fresh: Vec<(u32, Vec<u8>)> = protect_all(&mut engine, &frames[..6])
            .into_iter()
            .zip(&frames)
            .map(|(r, (station, _))| (*station, r.unwrap()))
            .collect();
        let mut batch = fresh.clone();
        let last = batch[2].1.len() - 1;
        batch[2].1[last] ^= 0x01;
        batch.push(fresh[4].clone());
        let opened = unprotect_all(&mut engine, &batch);
        assert!(matches!(opened[2], Err(Error::MicFailure)));
        assert!(matches!(opened[6], Err(Error::Replay { .. })));
        for i in [0, 1, 3, 4, 5] {
            assert_eq!(opened[i].as_ref().unwrap(), &frames[i].1);
        }

        // A replaced key restarts the counters: PN 1 under the new key is accepted.
        engine.add_station(frames[0].0, &keys[0], Mode::CCMP128).unwrap();
        let renewed = protect_all(&mut engine, &frames[..1]);
        let renewed = renewed.into_iter().next().unwrap().unwrap();
        let opened = unprotect_all(&mut engine, &[(frames[0].0, renewed)]);
        assert_eq!(opened[0].as_ref().unwrap(), &frames[0].1);
    }
}

/// A batch's buffers are the pool: each call works on them in place and leaves them where
/// they were, so refilling the batch for the next call reuses the same memory.
#[test]
fn a_batch_keeps_its_buffers_across_calls() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let frames: Vec<(u32, Vec<u8>)> = (0..100)
        .map(|i| {
            let mut mpdu = Vec::new();
            gen::random_mpdu(&mut rng, Shapes { management: false }, 1500, &mut mpdu);
            (i % 4, mpdu)
        })
        .collect();
    for threads in [INLINE, 1, 2] {
        let mut engine = engine(threads);
        for station in 0..4 {
            engine.add_station(station, &[station as u8; 16], Mode::CCMP128).unwrap();
        }
        let mut batch = FrameBatch::new();
        let mut addresses = Vec::new();
        for round in 0..3 {
            batch.clear();
            for (station, mpdu) in &frames {
                batch.push(*station, mpdu);
            }
            engine.protect(&mut batch).unwrap();
            let now: Vec<*const u8> = batch.iter().map(|(_, r)| r.unwrap().as_ptr()).collect();
            if round == 0 {
                addresses = now;
            } else {
                assert_eq!(now, addresses, "{threads} threads, round {round}");
            }
        }
    }
}

/// A frame refused after the engine began opening it (its MIC failed) keeps its MAC and PN
/// headers as they arrived: given again, unfilled, it is refused for its MIC again, not as
/// a frame without protection.
#[test]
fn a_frame_refused_for_its_mic_keeps_its_headers() {
    use wlansec_core::Error;
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    let mut mpdu = Vec::new();
    gen::random_mpdu(&mut rng, Shapes { management: false }, 700, &mut mpdu);
    for threads in [INLINE, 1, 2] {
        let key = [7u8; 16];
        let mut engine = engine(threads);
        engine.add_station(3, &key, Mode::CCMP128).unwrap();
        let mut protected = protect_all(&mut engine, &[(3, mpdu.clone())]).remove(0).unwrap();
        *protected.last_mut().unwrap() ^= 0x01;
        let mut batch = FrameBatch::new();
        batch.push(3, &protected);
        for call in 0..2 {
            engine.unprotect(&mut batch).unwrap();
            let (_, result) = batch.iter().next().unwrap();
            assert!(matches!(result, Err(Error::MicFailure)), "{threads} threads, call {call}: {result:?}");
        }
    }
}

/// A frame whose payload is too long for CCM's length field (more than 0xffff octets) is
/// refused alone, with `Unsupported`, both ways: the frames around it, of the same station
/// and in the same engine batch, are protected and opened as if it were not there.
#[test]
fn an_overlong_frame_is_refused_alone() {
    use wlansec_core::Error;
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let frames: Vec<(u32, Vec<u8>)> = [300, 0x10000, 500, 400]
        .into_iter()
        .map(|len| {
            let mut mpdu = Vec::new();
            gen::random_mpdu(&mut rng, Shapes { management: false }, len, &mut mpdu);
            (5, mpdu)
        })
        .collect();
    for threads in [INLINE, 1, 2] {
        let mut engine = engine(threads);
        engine.add_station(5, &[9u8; 16], Mode::CCMP128).unwrap();
        let protected = protect_all(&mut engine, &frames);
        assert!(matches!(protected[1], Err(Error::Unsupported(_))), "{threads} threads: {:?}", protected[1]);
        let (first, last) = (protected[0].clone().unwrap(), protected[2].clone().unwrap());
        // The overlong frame as it would arrive: protected headers (its own PN), too much
        // data for one MIC.
        let mut overlong = protected[3].clone().unwrap();
        let mic_at = overlong.len() - 8;
        overlong.splice(mic_at..mic_at, vec![0x5a; 0x10000]);
        let opened = unprotect_all(&mut engine, &[(5, first), (5, overlong), (5, last)]);
        assert!(matches!(opened[1], Err(Error::Unsupported(_))), "{threads} threads: {:?}", opened[1]);
        assert_eq!(opened[0].as_ref().unwrap(), &frames[0].1, "{threads} threads");
        assert_eq!(opened[2].as_ref().unwrap(), &frames[2].1, "{threads} threads");
    }
}
