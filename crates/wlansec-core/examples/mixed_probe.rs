use rand::SeedableRng;
use wlansec_core::engine::batch::{Backend, Engine, Job};
use wlansec_core::engine::key::{Key, Mode};
fn main() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let iters: usize = std::env::args().nth(1).map_or(3000, |s| s.parse().unwrap());
    let nkeys: usize = std::env::args().nth(2).map_or(64, |s| s.parse().unwrap());
    let engine =
        if std::env::var("AESNI").is_ok() { Engine::with_backend(Backend::AesNi).unwrap() } else { Engine::new() };
    let keys: Vec<Key> = (0..nkeys).map(|i| Key::new(&[i as u8; 16], Mode::CCMP128).unwrap()).collect();
    let round = std::env::var("ROUND16").is_ok();
    let fixed: Option<usize> = std::env::var("FIXED").ok().map(|s| s.parse().unwrap());
    let lens: Vec<usize> = (0..64)
        .map(|_| {
            let l = 28 + wlansec_core::gen::below(&mut rng, 1473) as usize;
            if let Some(f) = fixed {
                f
            } else if round {
                l / 16 * 16
            } else {
                l
            }
        })
        .collect();
    let mut bufs: Vec<Vec<u8>> = lens.iter().map(|&l| vec![7u8; l]).collect();
    let aad = [3u8; 22];
    let total: usize = lens.iter().sum();
    let mut times = Vec::new();
    for _ in 0..iters {
        let t0 = std::time::Instant::now();
        let mut jobs: Vec<Job> =
            bufs.iter_mut().enumerate().map(|(i, b)| Job::new(&keys[i % nkeys], [i as u8; 13], &aad, b)).collect();
        engine.seal_batch(&mut jobs).unwrap();
        std::hint::black_box(&jobs);
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let med = times[times.len() / 2];
    println!("{} keys {}: {:.3} GB/s", engine.backend().name(), nkeys, total as f64 / med / 1e9);
}
