//! The per-core engine's burst API: completions come back in submission order per station
//! with the golden model's output, receive refuses exactly what one sequential receiver
//! per station refuses, a full ring takes what fits and says so, dropping the engine with
//! frames in flight returns, and bad frames come back with typed errors; each on worker
//! threads and inline (the caller's thread the worker).

// Packets are handled in boxes here as the engine's rings move them.
#![allow(clippy::vec_box)]

use std::time::Duration;

use wlansec_core::engine::percore::{Direction, Packet, PerCoreEngine, RingFull};
use wlansec_core::engine::{Engine, Mode};
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng};
use wlansec_core::suite::{Ccmp128, Receiver, Transmitter};
use wlansec_core::Error;

mod common;

/// Long enough for any worker to answer on a loaded machine; only a stopped worker waits it.
const PATIENCE: Duration = Duration::from_secs(10);

fn key(station: u32) -> [u8; 16] {
    let mut k = [0u8; 16];
    ChaCha8Rng::seed_from_u64(u64::from(station) + 1000).fill_bytes(&mut k);
    k
}

/// Who works the frames: workers on threads of their own, or the caller's thread as the one
/// worker (an inline engine).
#[derive(Clone, Copy, Debug)]
enum Workers {
    Threads(usize),
    Inline,
}

/// 1 to `cores` worker threads, then inline: every test runs both ways.
fn every_setting(cores: usize) -> impl Iterator<Item = Workers> {
    (1..=cores).map(Workers::Threads).chain([Workers::Inline])
}

fn engine(workers: Workers, capacity: usize, stations: u32) -> PerCoreEngine {
    let mut engine = match workers {
        Workers::Threads(cores) => PerCoreEngine::with_ring_capacity(cores, Engine::new(), capacity),
        Workers::Inline => PerCoreEngine::inline(Engine::new(), capacity),
    };
    for station in 0..stations {
        engine.add_station(station, &key(station), Mode::CCMP128).unwrap();
    }
    engine
}

/// A packet per frame, tagged with its place.
fn packets(frames: &[(u32, Vec<u8>)]) -> Vec<Box<Packet>> {
    frames
        .iter()
        .enumerate()
        .map(|(tag, (station, mpdu))| {
            let mut packet = Box::new(Packet::new());
            packet.set(*station, tag as u64, mpdu);
            packet
        })
        .collect()
}

/// Every frame through the engine, tagged with its index, in bursts of random sizes that
/// overrun the rings, polling a random number at a time: the completed packets in the
/// order they came back.
fn stream(
    engine: &mut PerCoreEngine,
    direction: Direction,
    frames: &[(u32, Vec<u8>)],
    rng: &mut ChaCha8Rng,
) -> Vec<Box<Packet>> {
    let mut pending = packets(frames);
    pending.reverse();
    let mut burst = Vec::new();
    let mut completed = Vec::new();
    while completed.len() < frames.len() {
        for _ in 0..gen::below(rng, 100) {
            burst.extend(pending.pop());
        }
        // A full ring takes nothing: the rest waits for the completions below.
        let _ = engine.submit(direction, &mut burst);
        // What the rings did not take goes back, in order, ahead of the rest.
        pending.extend(burst.drain(..).rev());
        if engine.poll(&mut completed, gen::below(rng, 80) as usize) == 0 && engine.in_flight() > 0 {
            assert!(engine.wait(PATIENCE), "a worker stopped answering");
        }
    }
    assert_eq!(engine.in_flight(), 0);
    completed
}

/// The completions' results, by tag.
fn by_tag(completed: &[Box<Packet>]) -> Vec<Result<Vec<u8>, Error>> {
    let mut sorted: Vec<&Packet> = completed.iter().map(|p| &**p).collect();
    sorted.sort_by_key(|p| p.tag());
    sorted.iter().map(|p| p.result().map(<[u8]>::to_vec).map_err(Clone::clone)).collect()
}

/// 64 stations on 1 to 4 workers, rings of 32 overrun by bursts of up to 100: each
/// station's completions come back in the order its frames went in, and each frame is the
/// golden model's, a sequential transmitter per station (so every TID is in PN order).
#[test]
fn completions_come_back_in_submission_order_per_station_with_golden_output() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let stations = 64;
    let frames = common::random_frames(&mut rng, stations, 3000);
    let mut transmitters: Vec<_> = (0..stations).map(|s| Transmitter::new(Ccmp128::new(&key(s)).unwrap(), 0)).collect();
    let expected = common::golden_protected(&mut transmitters, &frames);
    for workers in every_setting(4) {
        let mut engine = engine(workers, 32, stations);
        let completed = stream(&mut engine, Direction::Protect, &frames, &mut rng);
        let mut last_tag = vec![None; stations as usize];
        for packet in &completed {
            let last = &mut last_tag[packet.station() as usize];
            assert!(*last < Some(packet.tag()), "{workers:?}: station {} out of order", packet.station());
            *last = Some(packet.tag());
        }
        let out: Vec<Vec<u8>> = by_tag(&completed).into_iter().map(Result::unwrap).collect();
        assert_eq!(out, expected, "{workers:?}");
    }
}

/// A receive stream with replays (a frame again, later) and reordering (two frames of one
/// station swapped) through rings small enough to wrap many times: every frame's outcome
/// is that of one sequential golden receiver per station on the same stream, on 1 to 3
/// workers.
#[test]
fn replays_and_reordering_are_refused_through_the_rings_as_by_a_sequential_receiver() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let stations = 12;
    let frames = common::random_frames(&mut rng, stations, 1500);
    for workers in every_setting(3) {
        let mut engine = engine(workers, 8, stations);
        let protected: Vec<(u32, Vec<u8>)> = by_tag(&stream(&mut engine, Direction::Protect, &frames, &mut rng))
            .into_iter()
            .zip(&frames)
            .map(|(r, (station, _))| (*station, r.unwrap()))
            .collect();
        let mut arriving = protected.clone();
        for _ in 0..150 {
            let at = gen::below(&mut rng, arriving.len() as u64) as usize;
            let again = arriving[gen::below(&mut rng, at as u64 + 1) as usize].clone();
            arriving.insert(at, again);
            let i = gen::below(&mut rng, arriving.len() as u64 - 1) as usize;
            if let Some(j) = (i + 1..arriving.len()).find(|&j| arriving[j].0 == arriving[i].0) {
                arriving.swap(i, j);
            }
        }
        let mut receivers: Vec<_> = (0..stations).map(|s| Receiver::new(Ccmp128::new(&key(s)).unwrap())).collect();
        let expected: Vec<Result<Vec<u8>, Error>> = arriving
            .iter()
            .map(|(station, frame)| {
                let mut buf = frame.clone();
                let done = receivers[*station as usize].unprotect(&mut buf)?;
                Ok(buf[..done.mpdu_len].to_vec())
            })
            .collect();
        let refused = expected.iter().filter(|r| matches!(r, Err(Error::Replay { .. }))).count();
        assert!(refused > 100, "the stream holds replays and reorderings: {refused}");
        let opened = by_tag(&stream(&mut engine, Direction::Unprotect, &arriving, &mut rng));
        assert_eq!(opened, expected, "{workers:?}");
    }
}

/// A worker holds at most its ring's capacity: a burst larger than that is taken up to it
/// (the rest stay, in order), the next submission is refused with `RingFull` naming the
/// worker, and once the completions are polled the rest goes in. Nothing blocks meanwhile.
#[test]
fn a_full_ring_takes_what_fits_then_refuses_until_polled() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let frames = common::random_frames(&mut rng, 1, 10);
    for workers in [Workers::Threads(1), Workers::Inline] {
        let mut engine = engine(workers, 4, 1);
        let mut packets = packets(&frames);
        assert_eq!(engine.submit(Direction::Protect, &mut packets), Ok(4));
        assert_eq!(packets.iter().map(|p| p.tag()).collect::<Vec<_>>(), (4..10).collect::<Vec<_>>());
        assert_eq!(engine.submit(Direction::Protect, &mut packets), Err(RingFull { core: 0 }), "{workers:?}");
        assert_eq!((packets.len(), engine.in_flight()), (6, 4));
        let mut completed = Vec::new();
        while completed.len() < 4 {
            assert!(engine.wait(PATIENCE));
            engine.poll(&mut completed, 3);
        }
        assert_eq!(engine.submit(Direction::Protect, &mut packets), Ok(4));
        assert_eq!(packets.len(), 2);
    }

    // Two workers: a burst stops at the first packet whose worker is full, even where a
    // later one's worker has room, so no station's packets overtake each other.
    let mut engine = engine_with_two_stations_on_two_cores();
    let mut burst: Vec<Box<Packet>> = [0, 0, 0, 1]
        .into_iter()
        .enumerate()
        .map(|(tag, station)| {
            let mut packet = Box::new(Packet::new());
            packet.set(station, tag as u64, &frames[0].1);
            packet
        })
        .collect();
    assert_eq!(engine.submit(Direction::Protect, &mut burst), Ok(2));
    assert_eq!(burst.iter().map(|p| p.tag()).collect::<Vec<_>>(), [2, 3]);
}

fn engine_with_two_stations_on_two_cores() -> PerCoreEngine {
    // Each new station goes to the worker with the fewest: 0 to one, 1 to the other.
    engine(Workers::Threads(2), 2, 2)
}

/// Dropping the engine while its workers hold frames (being worked, waiting in either
/// ring, or while a worker is parked) returns: each worker stops and what it held is
/// dropped with the rings (the allocation test checks that it is freed).
#[test]
fn dropping_the_engine_with_frames_in_flight_returns() {
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    let frames = common::random_frames(&mut rng, 6, 600);
    for workers in every_setting(3) {
        for polled in [0, 100] {
            let mut engine = engine(workers, 256, 6);
            let mut packets = packets(&frames);
            let _ = engine.submit(Direction::Protect, &mut packets);
            let mut completed = Vec::new();
            while completed.len() < polled {
                assert!(engine.wait(PATIENCE));
                let want = polled - completed.len();
                engine.poll(&mut completed, want);
            }
            drop(engine);
        }
        // An engine whose workers have parked, idle.
        let engine = engine(workers, 4, 1);
        std::thread::sleep(Duration::from_millis(2));
        drop(engine);
    }
}

/// Bad frames come back refused with the error the golden model gives, each alone, the
/// frames around them worked: a station without a key, a frame too short for its header,
/// a frame without protection, a tampered frame, a frame under another Key ID.
#[test]
fn bad_frames_come_back_with_typed_errors() {
    let mut rng = ChaCha8Rng::seed_from_u64(45);
    let frames = common::random_frames(&mut rng, 1, 6);
    for workers in every_setting(2) {
        let mut engine = engine(workers, 16, 1);
        let mut tx = vec![(0, frames[0].1.clone()), (9, frames[1].1.clone()), (0, frames[1].1[..5].to_vec())];
        tx.push((0, frames[2].1.clone()));
        let sent = by_tag(&stream(&mut engine, Direction::Protect, &tx, &mut rng));
        assert_eq!(sent[1], Err(Error::NoKey { group: false }));
        let mut golden = Transmitter::new(Ccmp128::new(&key(0)).unwrap(), 0);
        let mut short = tx[2].1.clone();
        short.resize(5 + 16, 0);
        assert_eq!(sent[2], golden.protect(&mut short, 5).map(|_| Vec::new()));
        assert!(sent[2].is_err());
        let (first, last) = (sent[0].clone().unwrap(), sent[3].clone().unwrap());

        let mut tampered = first.clone();
        *tampered.last_mut().unwrap() ^= 1;
        let mut other_key_id = last.clone();
        // The Key ID is in the top bits of the PN header's fourth octet.
        other_key_id[frames_header_len(&frames[2].1) + 3] |= 1 << 6;
        let rx =
            vec![(0, tampered), (0, frames[3].1.clone()), (0, other_key_id), (7, first.clone()), (0, first), (0, last)];
        let opened = by_tag(&stream(&mut engine, Direction::Unprotect, &rx, &mut rng));
        assert_eq!(opened[0], Err(Error::MicFailure), "{workers:?}");
        assert_eq!(opened[1], Err(Error::NotProtected), "{workers:?}");
        assert_eq!(opened[2], Err(Error::KeyId { expected: 0, got: 1 }), "{workers:?}");
        assert_eq!(opened[3], Err(Error::NoKey { group: false }), "{workers:?}");
        assert_eq!(opened[4].as_ref().unwrap(), &frames[0].1, "{workers:?}");
        assert_eq!(opened[5].as_ref().unwrap(), &frames[2].1, "{workers:?}");
    }
}

/// The MAC header's length of a plaintext MPDU of `random_mpdu`.
fn frames_header_len(mpdu: &[u8]) -> usize {
    wlansec_core::wire::Frame::new_checked(mpdu, Default::default()).unwrap().header_len()
}

/// An inline engine moves to another thread like a threaded one (its worker goes with it).
#[test]
fn an_inline_engine_is_send() {
    fn send<T: Send>(_: &T) {}
    send(&PerCoreEngine::inline(Engine::new(), 4));
}
