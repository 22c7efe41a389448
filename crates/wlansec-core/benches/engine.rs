//! Regression benchmarks of the engine (`cargo bench -p wlansec-core --bench engine`):
//! single frame, multi-buffer and Enhanced N = 8 at 64 and 1500 octets, on the detected
//! backend and the portable fallback. The side-by-side comparison with OpenSSL and the AES
//! bound is `wlansec bench ccmp`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use wlansec_core::engine::{Backend, Engine, Job, Key, Mode, Ways};

const AAD: [u8; 22] = [0x5a; 22];
const NONCE: [u8; 13] = [0x11; 13];

fn engine_benches(c: &mut Criterion) {
    for backend in [Engine::new().backend(), Backend::Portable] {
        let engine = Engine::with_backend(backend).expect("detected or portable backends run");
        let mut group = c.benchmark_group(format!("ccmp/{}", backend.name()));
        for bytes in [64usize, 1500] {
            group.throughput(Throughput::Bytes(bytes as u64));
            let mut data = vec![0xa5u8; bytes];
            for (label, mode) in [("single", Mode::CCMP128), ("enhanced-8", Mode::enhanced(Ways::N8))] {
                let key = Key::new(&[7; 16], mode).expect("16-octet key");
                group.bench_with_input(BenchmarkId::new(label, bytes), &bytes, |b, _| {
                    b.iter(|| engine.seal(&key, &NONCE, &AAD, &mut data).expect("valid job"))
                });
            }
            let frames = 4 * backend.lanes();
            let keys: Vec<Key> =
                (0..frames).map(|i| Key::new(&[i as u8; 16], Mode::CCMP128).expect("16-octet key")).collect();
            let mut buffers = vec![vec![0x3cu8; bytes]; frames];
            group.throughput(Throughput::Bytes((bytes * frames) as u64));
            group.bench_with_input(BenchmarkId::new("multibuffer", bytes), &bytes, |b, _| {
                b.iter(|| {
                    let mut jobs: Vec<Job> =
                        buffers.iter_mut().zip(&keys).map(|(d, k)| Job::new(k, NONCE, &AAD, d)).collect();
                    engine.seal_batch(&mut jobs).expect("valid jobs")
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, engine_benches);
criterion_main!(benches);
