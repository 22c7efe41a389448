//! The Rust side of `make bench-c`: CCMP-128 through wlansec-core's Rust API on the frames
//! tests/c/bench_overhead.c gives the C API (same generator, seed, sizes and call counts).
//! Prints `<workload> <octets> <median ns per frame>` per workload.

use std::hint::black_box;
use std::time::Instant;

use wlansec_core::engine::percore::{Direction, Packet, PerCoreEngine};
use wlansec_core::engine::{Engine, FastCcmp, Job, Key, Mode};
use wlansec_core::suite::{FrameSuite, Pn};

const BURST: usize = 32;
const REPS: usize = 15;
const HEADER: usize = 24;
const AAD: usize = 22;
const SIZES: [usize; 3] = [64, 512, 1500];

/// splitmix64, as the C side.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn fill(&mut self, out: &mut [u8]) {
        for octet in out {
            *octet = self.next() as u8;
        }
    }
}

/// Calls per repetition: about 0.4 M frame-octets, at least one call.
fn calls_for(len: usize, frames: usize) -> usize {
    (400_000 / (len * frames)).max(1)
}

/// The median over `REPS` repetitions of `calls` calls of `call`, in ns per frame.
fn median_ns(calls: usize, frames: usize, mut call: impl FnMut(usize)) -> f64 {
    let mut reps: Vec<f64> = (0..REPS)
        .map(|_| {
            let start = Instant::now();
            for c in 0..calls {
                call(c);
            }
            start.elapsed().as_nanos() as f64 / (calls * frames) as f64
        })
        .collect();
    reps.sort_by(f64::total_cmp);
    reps[REPS / 2]
}

#[inline(never)]
fn seal_call(engine: &Engine, key: &Key, nonce: &[u8; 13], aad: &[u8], data: &mut [u8]) -> [u8; 8] {
    engine.seal(key, nonce, aad, data).expect("sealed")
}

fn main() {
    let mut rng = SplitMix(48);
    let mut tk = [0u8; 16];
    rng.fill(&mut tk);
    let engine = Engine::new();
    let key = Key::new(&tk, Mode::CCMP128).expect("16-octet key");
    let suite = FastCcmp::keyed(engine, &tk, Mode::CCMP128).expect("16-octet key");
    let mut nonces = [[0u8; 13]; BURST];
    let mut aads = [[0u8; AAD]; BURST];
    let mut data = vec![[0u8; 1500]; BURST];
    let mut mics = [[0u8; 8]; BURST];
    let mut per_core = PerCoreEngine::new(1, engine);
    per_core.add_station(0, &tk, Mode::CCMP128).expect("16-octet key");
    // As the C side: the caller on the second CPU, off the worker's (the first). Left to the
    // scheduler, the caller at times ran on the worker's core, where a round trip of 32
    // frames at 512 octets takes 138-140 ns a frame against 82-84 on cores apart.
    if let Some(&second) = core_affinity::get_core_ids().unwrap_or_default().get(1) {
        core_affinity::set_for_current(second);
    }
    let mut packets: Vec<Box<Packet>> = (0..BURST).map(|_| Box::new(Packet::with_capacity(HEADER + 1500))).collect();
    for len in SIZES {
        for i in 0..BURST {
            rng.fill(&mut nonces[i]);
            rng.fill(&mut aads[i]);
            rng.fill(&mut data[i][..len]);
        }
        let mut mpdu = vec![0u8; HEADER + len];
        rng.fill(&mut mpdu);
        mpdu[..2].copy_from_slice(&[0x08, 0x01]);
        let mut buf = vec![0u8; HEADER + 1500 + 16];

        let calls = calls_for(len, 1);
        let ns = median_ns(calls, 1, |_| {
            mics[0] = engine.seal(&key, &nonces[0], &aads[0], &mut data[0][..len]).expect("sealed");
        });
        println!("seal {len} {ns:.2}");
        // The same behind a call the compiler may not inline (as across a module boundary),
        // so the engine's dispatch is not hoisted out of the loop: what a call costs at all.
        let ns = median_ns(calls, 1, |_| {
            mics[0] = seal_call(black_box(&engine), &key, &nonces[0], &aads[0], &mut data[0][..len]);
        });
        println!("seal-call {len} {ns:.2}");
        let ns = median_ns(calls, 1, |c| {
            buf[..HEADER + len].copy_from_slice(&mpdu);
            let pn = Pn::new(c as u64 + 1).expect("48 bits");
            suite.encapsulate(&mut buf, HEADER + len, pn, 0).expect("protected");
        });
        println!("protect {len} {ns:.2}");

        let ns = median_ns(calls_for(len, BURST), BURST, |_| {
            let mut jobs: Vec<Job<'_>> = data
                .iter_mut()
                .zip(&nonces)
                .zip(&aads)
                .map(|((data, nonce), aad)| Job::new(&key, *nonce, aad, &mut data[..len]))
                .collect();
            engine.seal_batch(&mut jobs).expect("sealed");
            for (job, mic) in jobs.iter().zip(&mut mics) {
                *mic = job.mic;
            }
        });
        println!("burst32 {len} {ns:.2}");

        // The per-core engine, one worker: 32 packets filled, submitted and polled back.
        let ns = median_ns(calls_for(len, BURST), BURST, |_| {
            for (tag, packet) in packets.iter_mut().enumerate() {
                packet.set(0, tag as u64, &mpdu);
            }
            assert_eq!(per_core.submit(Direction::Protect, &mut packets), Ok(BURST));
            while packets.len() < BURST {
                per_core.wait_for(BURST - packets.len(), std::time::Duration::from_secs(1));
                per_core.poll(&mut packets, BURST);
            }
        });
        println!("engine32 {len} {ns:.2}");
    }
}
