//! `one-core-profile MODE FRAMES ROUNDS`: the kernel (`seal_batch`/`open_batch` over jobs made
//! in the timed region, as `wlansec bench ccmp` times it) and the per-core engine, inline and
//! with one worker fed from this thread, on the same stream of FRAMES frames (MODE `1500`:
//! 1500-octet bodies; `mixed`: 28..=1500), ROUNDS times each, in functions of their own so
//! that `callgrind_annotate --inclusive=yes` gives each one's instructions. Frames are
//! refilled outside those functions, as the bench does.

#![allow(clippy::vec_box)]

use std::time::Duration;

use wlansec_core::engine::percore::{Direction, Packet, PerCoreEngine};
use wlansec_core::engine::{Engine, Job, Key, Mode};
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes};

const STATIONS: usize = 64;
const BURST: usize = 64;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mixed = args[1] == "mixed";
    let frames: usize = args[2].parse().unwrap();
    let rounds: usize = args[3].parse().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let tks: Vec<[u8; 16]> = (0..STATIONS)
        .map(|_| {
            let mut k = [0; 16];
            rng.fill_bytes(&mut k);
            k
        })
        .collect();
    let lengths: Vec<usize> =
        (0..frames).map(|_| if mixed { 28 + gen::below(&mut rng, 1473) as usize } else { 1500 }).collect();
    let engine = Engine::new();
    let keys: Vec<Key> = tks.iter().map(|tk| Key::new(tk, Mode::CCMP128).unwrap()).collect();
    let nonce = [7u8; 13];
    let aad = [9u8; 22];
    let plain: Vec<Vec<u8>> = lengths.iter().map(|&len| vec![0x5a; len]).collect();
    let mut buffers = plain.clone();
    let mics = kernel_seal(engine, &keys, nonce, &aad, &mut buffers);
    let sealed = buffers.clone();
    let mpdus: Vec<(u32, Vec<u8>)> = lengths
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let mut mpdu = Vec::new();
            gen::random_mpdu(&mut rng, Shapes { management: false }, len, &mut mpdu);
            ((i % STATIONS) as u32, mpdu)
        })
        .collect();
    let mut inline = Stream::new(PerCoreEngine::inline(engine, 1024), &tks, frames);
    let mut fed = Stream::new(PerCoreEngine::new(1, engine), &tks, frames);
    inline.fill(&mpdus);
    inline_protect(&mut inline);
    let protected = inline.outputs();
    for _ in 0..rounds {
        buffers.clone_from(&plain);
        kernel_seal(engine, &keys, nonce, &aad, &mut buffers);
        buffers.clone_from(&sealed);
        kernel_open(engine, &keys, nonce, &aad, &mut buffers, &mics);
        inline.fill(&mpdus);
        inline_protect(&mut inline);
        inline.add_stations(&tks);
        inline.fill(&protected);
        inline_unprotect(&mut inline);
        fed.fill(&mpdus);
        fed_protect(&mut fed);
        fed.add_stations(&tks);
        fed.fill(&protected);
        fed_unprotect(&mut fed);
    }
    assert!(inline.done.iter().chain(&fed.done).all(|p| p.result().is_ok()));
}

#[inline(never)]
fn kernel_seal(engine: Engine, keys: &[Key], nonce: [u8; 13], aad: &[u8], buffers: &mut [Vec<u8>]) -> Vec<[u8; 8]> {
    let mut jobs: Vec<Job> =
        buffers.iter_mut().zip(keys.iter().cycle()).map(|(b, k)| Job::new(k, nonce, aad, b)).collect();
    engine.seal_batch(&mut jobs).unwrap();
    jobs.iter().map(|j| j.mic).collect()
}

#[inline(never)]
fn kernel_open(engine: Engine, keys: &[Key], nonce: [u8; 13], aad: &[u8], buffers: &mut [Vec<u8>], mics: &[[u8; 8]]) {
    let mut jobs: Vec<Job> =
        buffers.iter_mut().zip(keys.iter().cycle()).map(|(b, k)| Job::new(k, nonce, aad, b)).collect();
    for (job, mic) in jobs.iter_mut().zip(mics) {
        job.mic = *mic;
    }
    engine.open_batch(&mut jobs).unwrap();
    assert!(jobs.iter().all(|j| j.verified));
}

// Each asserts its setting, so that the compiler does not merge the four into one.
#[inline(never)]
fn inline_protect(s: &mut Stream) {
    assert!(s.engine.is_inline());
    s.run(Direction::Protect)
}
#[inline(never)]
fn inline_unprotect(s: &mut Stream) {
    assert!(s.engine.is_inline() && s.engine.cores() == 1);
    s.run(Direction::Unprotect)
}
#[inline(never)]
fn fed_protect(s: &mut Stream) {
    assert!(!s.engine.is_inline());
    s.run(Direction::Protect)
}
#[inline(never)]
fn fed_unprotect(s: &mut Stream) {
    assert!(!s.engine.is_inline() && s.engine.cores() == 1);
    s.run(Direction::Unprotect)
}

struct Stream {
    engine: PerCoreEngine,
    source: Vec<Box<Packet>>,
    burst: Vec<Box<Packet>>,
    done: Vec<Box<Packet>>,
}

impl Stream {
    fn new(engine: PerCoreEngine, tks: &[[u8; 16]], frames: usize) -> Self {
        let mut s = Stream {
            engine,
            source: (0..frames).map(|_| Box::new(Packet::with_capacity(1600))).collect(),
            burst: Vec::with_capacity(BURST),
            done: Vec::with_capacity(frames),
        };
        s.add_stations(tks);
        s
    }
    fn add_stations(&mut self, tks: &[[u8; 16]]) {
        for (station, tk) in tks.iter().enumerate() {
            self.engine.add_station(station as u32, tk, Mode::CCMP128).unwrap();
        }
    }
    fn fill(&mut self, frames: &[(u32, Vec<u8>)]) {
        self.source.append(&mut self.done);
        for (packet, (tag, (station, mpdu))) in self.source.iter_mut().zip(frames.iter().enumerate().rev()) {
            packet.set(*station, tag as u64, mpdu);
        }
    }
    /// The bench's loop (`bench/ccmp/sharded.rs`, `PerCore::run`).
    fn run(&mut self, direction: Direction) {
        let total = self.source.len();
        while self.done.len() < total {
            while self.burst.len() < BURST {
                let Some(packet) = self.source.pop() else { break };
                self.burst.push(packet);
            }
            if !self.burst.is_empty() {
                let _ = self.engine.submit(direction, &mut self.burst);
            }
            self.engine.poll(&mut self.done, usize::MAX);
            if !self.burst.is_empty() {
                self.engine.wait_for(self.engine.in_flight().div_ceil(2), Duration::from_secs(5));
            } else if self.source.is_empty() {
                self.engine.wait_for(self.engine.in_flight(), Duration::from_secs(5));
            }
        }
    }
    fn outputs(&mut self) -> Vec<(u32, Vec<u8>)> {
        self.done.sort_unstable_by_key(|p| p.tag());
        self.done.iter().map(|p| (p.station(), p.result().unwrap().to_vec())).collect()
    }
}
