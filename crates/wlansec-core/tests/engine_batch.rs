//! The fast engine against the golden model: every backend (the portable fallback and the
//! accelerated ones this CPU has), single frame and batch, CCMP-128 and Enhanced CCMP-N,
//! on random mixes of keys, lengths and header shapes, and on the published CCMP vectors.

use serde_json::Value;
use wlansec_core::engine::{
    Backend, Engine, EnhancedCcm, EnhancedCcmp, FastCcmp, Job, Key, Mode, MpduJob, Variant, Ways,
};
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes, MAX_MSDU_LEN};
use wlansec_core::suite::{Ccmp128, FrameSuite, Pn};
use wlansec_core::wire::Rules;
use wlansec_core::Error;

const OVERHEAD: usize = 16;

/// An engine on every backend this CPU runs, at each of its lane counts; says which backends
/// it skips (`skipped: ...`, visible with `--nocapture`), so a run on a CPU without AVX-512
/// or VAES does not pass silently.
fn engines() -> Vec<Engine> {
    let (run, skipped): (Vec<Backend>, Vec<Backend>) = Backend::ALL.into_iter().partition(|b| b.is_available());
    let names = |list: &[Backend]| list.iter().map(|b| b.name()).collect::<Vec<_>>().join(", ");
    eprintln!("engine backends tested: {}", names(&run));
    if !skipped.is_empty() {
        eprintln!("skipped: the {} backends (this CPU lacks their features)", names(&skipped));
    }
    for &backend in &skipped {
        assert!(Engine::with_backend(backend).is_err(), "{backend:?} refused where the CPU lacks it");
    }
    let engines: Vec<Engine> = run
        .into_iter()
        .flat_map(|b| {
            b.lane_counts().iter().map(move |&lanes| Engine::with_backend(b).unwrap().with_lanes(lanes).unwrap())
        })
        .collect();
    assert_eq!(engines[0].backend(), Backend::Portable, "the fallback always runs");
    engines
}

/// The most lanes a batch runs on, on any backend: lane-fulls of as many like frames are
/// lane-fulls for every lane count.
fn most_lanes() -> usize {
    Backend::ALL.iter().flat_map(|b| b.lane_counts()).copied().max().unwrap()
}

/// A backend is skipped only where the CPU lacks its features: the flags the kernel reports
/// (/proc/cpuinfo) decide which backends must run, so a detection that wrongly turned a
/// kernel off on a CPU that has it fails here instead of passing as a skip.
/// Sixteen lanes by default exactly where the CPU issues two 512-bit VAESENCs a cycle (AMD
/// family 1Ah and later, read here from /proc/cpuinfo); any other lane count is refused.
#[test]
fn the_zmm_backend_takes_16_lanes_where_the_cpu_issues_two_vaesencs_a_cycle() {
    let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else {
        eprintln!("skipped: no /proc/cpuinfo to read the CPU's family from");
        return;
    };
    let field = |name: &str| {
        cpuinfo.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then(|| value.trim().to_string())
        })
    };
    let amd = field("vendor_id").as_deref() == Some("AuthenticAMD");
    let family: u32 = field("cpu family").and_then(|f| f.parse().ok()).unwrap_or(0);
    for backend in Backend::ALL {
        let wide = cfg!(target_arch = "x86_64") && backend.name() == "avx512-vaes" && amd && family >= 0x1a;
        assert_eq!(backend.lanes(), if wide { 16 } else { 8 }, "{} on family {family:#x}", backend.name());
        assert!(backend.lane_counts().contains(&backend.lanes()));
        if let Ok(engine) = Engine::with_backend(backend) {
            assert_eq!(engine.lanes(), backend.lanes());
            assert!(engine.with_lanes(12).is_err(), "{}: 12 lanes", backend.name());
            assert_eq!(engine.with_lanes(16).is_ok(), backend.lane_counts().contains(&16), "{}", backend.name());
        }
    }
}

#[test]
fn every_backend_the_cpus_flags_allow_runs() {
    let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else {
        eprintln!("skipped: no /proc/cpuinfo to read the CPU's flags from");
        return;
    };
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("flags").and_then(|rest| rest.split_once(':')))
        .map_or(Vec::new(), |(_, list)| list.split_whitespace().collect());
    let has = |needed: &[&str]| needed.iter().all(|flag| flags.contains(flag));
    for backend in Backend::ALL {
        let needed: &[&str] = match backend {
            Backend::Portable => &[],
            #[cfg(target_arch = "x86_64")]
            Backend::AesNi => &["aes", "sse4_1"],
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512Vaes => &["aes", "sse4_1", "avx2", "avx512f", "avx512bw", "avx512vl", "vaes"],
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2Vaes => &["aes", "sse4_1", "avx", "avx2", "vaes"],
        };
        assert_eq!(backend.is_available(), has(needed), "{} (needs {needed:?})", backend.name());
    }
}

fn modes() -> Vec<Mode> {
    let mut modes = vec![Mode::CCMP128];
    for ways in [Ways::N2, Ways::N4, Ways::N8] {
        modes.push(Mode::enhanced(ways));
        modes.push(Mode { ways, variant: Variant::Naive });
    }
    modes
}

/// The golden model of a mode: `suite::Ccmp128`, or the Enhanced reference.
fn golden(tk: &[u8], mode: Mode, rules: Rules) -> Box<dyn FrameSuite> {
    match mode.ways {
        Ways::N1 => Box::new(Ccmp128::new(tk).unwrap().with_rules(rules)),
        ways => Box::new(EnhancedCcmp::keyed(tk, ways, mode.variant).unwrap().with_rules(rules)),
    }
}

fn protect(suite: &dyn FrameSuite, plain: &[u8], pn: u64, key_id: u8) -> Vec<u8> {
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + OVERHEAD, 0);
    let len = suite.encapsulate(&mut buf, plain.len(), Pn::new(pn).unwrap(), key_id).unwrap();
    buf.truncate(len);
    buf
}

struct Case {
    tk: [u8; 16],
    mode: Mode,
    plain: Vec<u8>,
    pn: u64,
    key_id: u8,
}

fn random_cases(seed: u64, count: usize, max_body: usize) -> Vec<Case> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let modes = modes();
    (0..count)
        .map(|_| {
            let mut tk = [0u8; 16];
            rng.fill_bytes(&mut tk);
            let body = match gen::below(&mut rng, 6) {
                0 => [0, 1, 15, 16, 17, 31, 32, 33, 127, 128, 129][gen::below(&mut rng, 11) as usize],
                _ => gen::below(&mut rng, max_body as u64 + 1) as usize,
            };
            let mut plain = Vec::new();
            gen::random_mpdu(&mut rng, Shapes::default(), body, &mut plain);
            Case {
                tk,
                mode: modes[gen::below(&mut rng, modes.len() as u64) as usize],
                plain,
                pn: 1 + gen::below(&mut rng, Pn::MAX),
                key_id: gen::below(&mut rng, 4) as u8,
            }
        })
        .collect()
}

#[test]
fn single_frame_path_matches_the_golden_model_on_every_backend() {
    let cases = random_cases(1, 150, MAX_MSDU_LEN);
    for engine in engines() {
        for case in &cases {
            let expected = protect(&*golden(&case.tk, case.mode, Rules::default()), &case.plain, case.pn, case.key_id);
            let fast = FastCcmp::keyed(engine, &case.tk, case.mode).unwrap();
            assert_eq!(protect(&fast, &case.plain, case.pn, case.key_id), expected, "{:?} {:?}", engine, case.mode);
            let mut buf = expected.clone();
            let done = fast.decapsulate(&mut buf).unwrap();
            assert_eq!(&buf[..done.mpdu_len], &case.plain[..]);
        }
    }
}

#[test]
fn batches_match_the_single_frame_path_and_the_golden_model() {
    for engine in engines() {
        for (round, batch_len) in [1usize, 3, 8, 16, 17, 40].into_iter().enumerate() {
            let cases = random_cases(100 + round as u64, batch_len, MAX_MSDU_LEN);
            let keys: Vec<Key> = cases.iter().map(|c| Key::new(&c.tk, c.mode).unwrap()).collect();
            let mut bufs: Vec<Vec<u8>> = cases
                .iter()
                .map(|c| {
                    let mut b = c.plain.clone();
                    b.resize(c.plain.len() + OVERHEAD, 0);
                    b
                })
                .collect();
            let mut jobs: Vec<MpduJob> = bufs
                .iter_mut()
                .zip(&cases)
                .zip(&keys)
                .map(|((buf, c), key)| MpduJob::new(key, buf, c.plain.len(), Pn::new(c.pn).unwrap(), c.key_id))
                .collect();
            engine.protect_mpdus(&mut jobs, Rules::default());
            let lens: Vec<usize> = jobs.iter().map(|j| *j.result.as_ref().unwrap()).collect();
            for ((buf, len), c) in bufs.iter().zip(lens).zip(&cases) {
                let expected = protect(&*golden(&c.tk, c.mode, Rules::default()), &c.plain, c.pn, c.key_id);
                assert_eq!(&buf[..len], &expected[..], "{engine:?} batch of {batch_len}, {:?}", c.mode);
            }
        }
    }
}

#[test]
fn open_batch_verifies_each_frame_and_restores_failed_ones() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for engine in engines() {
        let cases = random_cases(200, 24, 600);
        let keys: Vec<Key> = cases.iter().map(|c| Key::new(&c.tk, c.mode).unwrap()).collect();
        let aads: Vec<Vec<u8>> = (0..cases.len()).map(|i| vec![i as u8; 22 + i % 9]).collect();
        let nonces: Vec<[u8; 13]> = (0..cases.len()).map(|i| [i as u8 ^ 0x5a; 13]).collect();
        let mut data: Vec<Vec<u8>> = cases.iter().map(|c| c.plain.clone()).collect();
        let mut jobs: Vec<Job> =
            data.iter_mut().enumerate().map(|(i, d)| Job::new(&keys[i], nonces[i], &aads[i], d)).collect();
        engine.seal_batch(&mut jobs).unwrap();
        let tampered: Vec<bool> = (0..jobs.len()).map(|_| gen::below(&mut rng, 3) == 0).collect();
        for (job, &bad) in jobs.iter_mut().zip(&tampered) {
            if bad {
                match (job.data.len(), gen::below(&mut rng, 2)) {
                    (0, _) | (_, 0) => job.mic[gen::below(&mut rng, 8) as usize] ^= 1 << gen::below(&mut rng, 8),
                    (n, _) => job.data[gen::below(&mut rng, n as u64) as usize] ^= 0x80,
                }
            }
        }
        let ciphertexts: Vec<Vec<u8>> = jobs.iter().map(|j| j.data.to_vec()).collect();
        engine.open_batch(&mut jobs).unwrap();
        for (i, job) in jobs.iter().enumerate() {
            assert_eq!(job.verified, !tampered[i], "{engine:?} job {i}");
            let expected = if tampered[i] { &ciphertexts[i] } else { &cases[i].plain };
            assert_eq!(&job.data[..], &expected[..], "{engine:?} job {i}");
        }
    }
}

#[test]
fn long_payloads_carry_the_counter_into_its_high_octet() {
    // Beyond 255 blocks (4080 octets) the 2-octet CTR counter carries into its high octet.
    let mut rng = ChaCha8Rng::seed_from_u64(300);
    for engine in engines() {
        for (len, mode) in [4079usize, 4080, 4096, 8000, 11454].into_iter().zip(modes()) {
            let mut tk = [0u8; 16];
            rng.fill_bytes(&mut tk);
            let mut plain = Vec::new();
            gen::random_mpdu(&mut rng, Shapes::default(), len, &mut plain);
            let expected = protect(&*golden(&tk, mode, Rules::default()), &plain, 5, 0);
            let fast = FastCcmp::keyed(engine, &tk, mode).unwrap();
            assert_eq!(protect(&fast, &plain, 5, 0), expected, "{engine:?} {len} {mode:?}");
        }
    }
}

#[test]
fn every_backend_reproduces_the_published_ccmp_vectors() {
    let file: Value = serde_json::from_str(include_str!("../../../tests/vectors/ccmp128.json")).unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    for engine in engines() {
        for v in vectors {
            let hex = |k: &str| hex::decode(v[k].as_str().unwrap()).unwrap();
            let rules = match v["rules"].as_str().unwrap() {
                "802.11i-2004" => Rules::IEEE80211I_2004,
                _ => Rules::IEEE80211_2016,
            };
            let pn = u64::from_str_radix(v["pn"].as_str().unwrap(), 16).unwrap();
            let key_id = v["key_id"].as_u64().unwrap() as u8;
            let fast = FastCcmp::keyed(engine, &hex("tk"), Mode::CCMP128).unwrap().with_rules(rules);
            let want = v.get("encrypted_mpdu").or(v.get("encrypted_mpdu_with_protected_bit_set")).unwrap();
            let out = protect(&fast, &hex("plaintext_mpdu"), pn, key_id);
            assert_eq!(hex::encode(&out), want.as_str().unwrap(), "{engine:?} {}", v["id"]);
            let (mut ours, mut theirs) = (out.clone(), out);
            let golden = Ccmp128::new(&hex("tk")).unwrap().with_rules(rules);
            assert_eq!(fast.decapsulate(&mut ours), golden.decapsulate(&mut theirs));
            assert_eq!(ours, theirs);
        }
    }
}

#[test]
fn the_engine_refuses_bad_input_with_typed_errors() {
    let key = Key::new(&[3; 16], Mode::CCMP128).unwrap();
    let engine = Engine::new();
    assert!(matches!(Key::new(&[0; 32], Mode::CCMP128), Err(Error::KeyLength { expected: 16, got: 32 })));
    assert!(matches!(engine.seal(&key, &[0; 13], &[0; 10], &mut [0; 4]), Err(Error::Unsupported(_))));
    assert!(matches!(engine.seal(&key, &[0; 13], &[0; 22], &mut vec![0; 70000]), Err(Error::Unsupported(_))));
    let mut data = *b"some data";
    let mic = engine.seal(&key, &[1; 13], &[2; 22], &mut data).unwrap();
    let ciphertext = data;
    let mut wrong = mic;
    wrong[7] ^= 1;
    assert_eq!(engine.open(&key, &[1; 13], &[2; 22], &mut data, &wrong), Err(Error::MicFailure));
    assert_eq!(data, ciphertext, "a failed open leaves the ciphertext");
    engine.open(&key, &[1; 13], &[2; 22], &mut data, &mic).unwrap();
    assert_eq!(&data, b"some data");
}

/// A malformed job anywhere in a batch, past the engine's first chunk of 64 too, fails the
/// call before any job is touched.
#[test]
fn a_malformed_job_in_a_later_chunk_fails_the_batch_before_any_job_is_touched() {
    let key = Key::new(&[9; 16], Mode::CCMP128).unwrap();
    let (aad, short_aad) = ([0x22u8; 22], [0x22u8; 14]);
    for engine in engines() {
        for (bad, open) in [(0, false), (100, false), (129, true)] {
            let plain: Vec<Vec<u8>> = (0..130).map(|i| vec![i as u8; 64]).collect();
            let mut data = plain.clone();
            let mut jobs: Vec<Job> = data
                .iter_mut()
                .enumerate()
                .map(|(i, d)| Job::new(&key, [i as u8; 13], if i == bad { &short_aad } else { &aad }, d))
                .collect();
            let outcome = if open { engine.open_batch(&mut jobs) } else { engine.seal_batch(&mut jobs) };
            assert!(matches!(outcome, Err(Error::Unsupported(_))), "{engine:?} job {bad}");
            assert!(jobs.iter().all(|j| j.mic == [0; 8] && !j.verified), "{engine:?} job {bad}");
            assert_eq!(data, plain, "{engine:?} job {bad}: no job touched");
        }
    }
}

#[test]
fn the_portable_fallback_and_the_accelerated_backends_agree_byte_for_byte() {
    let cases = random_cases(400, 50, MAX_MSDU_LEN);
    let keys: Vec<Key> = cases.iter().map(|c| Key::new(&c.tk, c.mode).unwrap()).collect();
    let aad = [0x33u8; 24];
    let run = |engine: Engine| -> Vec<(Vec<u8>, [u8; 8])> {
        let mut data: Vec<Vec<u8>> = cases.iter().map(|c| c.plain.clone()).collect();
        let mut jobs: Vec<Job> =
            data.iter_mut().zip(&keys).enumerate().map(|(i, (d, k))| Job::new(k, [i as u8; 13], &aad, d)).collect();
        engine.seal_batch(&mut jobs).unwrap();
        let mics: Vec<[u8; 8]> = jobs.iter().map(|j| j.mic).collect();
        data.into_iter().zip(mics).collect()
    };
    let engines = engines();
    let reference = run(engines[0]);
    for &engine in &engines[1..] {
        assert_eq!(run(engine), reference, "{engine:?} differs from the portable backend");
    }
}

/// Every AAD length the engine takes (15..=30 octets; CCMP's are 22..=30), single frame and
/// batch, against RustCrypto `ccm` (an independent CCM): the AAD and B0/A0 blocks the engine
/// composes in registers must be CCM's.
#[test]
fn every_aad_length_matches_rustcrypto_ccm() {
    use aes::Aes128;
    use ccm::aead::{AeadInOut, KeyInit};
    use ccm::consts::{U13, U8};
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for engine in engines() {
        for aad_len in 15..=30usize {
            let mut tk = [0u8; 16];
            let mut nonce = [0u8; 13];
            let mut aad = vec![0u8; aad_len];
            rng.fill_bytes(&mut tk);
            rng.fill_bytes(&mut nonce);
            rng.fill_bytes(&mut aad);
            let plain: Vec<Vec<u8>> = (0..9)
                .map(|i| {
                    let mut p = vec![0u8; [0, 1, 15, 16, 17, 64, 100, 1500, 2304][i]];
                    rng.fill_bytes(&mut p);
                    p
                })
                .collect();
            let reference = ccm::Ccm::<Aes128, U8, U13>::new(&tk.into());
            let expected: Vec<(Vec<u8>, Vec<u8>)> = plain
                .iter()
                .map(|p| {
                    let mut c = p.clone();
                    let tag = reference.encrypt_inout_detached(&nonce.into(), &aad, c.as_mut_slice().into()).unwrap();
                    (c, tag.to_vec())
                })
                .collect();
            let key = Key::new(&tk, Mode::CCMP128).unwrap();
            for (p, (c, tag)) in plain.iter().zip(&expected) {
                let mut data = p.clone();
                let mic = engine.seal(&key, &nonce, &aad, &mut data).unwrap();
                assert_eq!((&data, &mic.to_vec()), (c, tag), "{engine:?} AAD {aad_len}");
            }
            let mut data = plain.clone();
            let mut jobs: Vec<Job> = data.iter_mut().map(|d| Job::new(&key, nonce, &aad, d)).collect();
            engine.seal_batch(&mut jobs).unwrap();
            for (job, (c, tag)) in jobs.iter().zip(&expected) {
                assert_eq!((&job.data.to_vec(), &job.mic.to_vec()), (c, tag));
            }
        }
    }
}

/// Every backend, single frame, every mode, against the golden model (`EnhancedCcm`; for
/// N = 1 it is CCMP-128, checked against `suite::Ccmp128` and RustCrypto `ccm` above): every
/// payload length 0..=300 (all residues modulo 8 lanes of 16 octets) and random lengths up to
/// 2304, random AAD lengths; opening restores the plaintext, and a tampered MIC is refused
/// with the ciphertext left as it was.
#[test]
fn every_backend_matches_the_golden_model_at_every_length_and_refuses_a_tampered_mic() {
    struct Sealed {
        key: Key,
        nonce: [u8; 13],
        aad: Vec<u8>,
        plain: Vec<u8>,
        cipher: Vec<u8>,
        mic: [u8; 8],
    }
    let mut rng = ChaCha8Rng::seed_from_u64(2304);
    let mut cases = Vec::new();
    for mode in modes() {
        let random: Vec<usize> = (0..40).map(|_| gen::below(&mut rng, MAX_MSDU_LEN as u64 + 1) as usize).collect();
        for len in (0..=300).chain(random).chain([MAX_MSDU_LEN]) {
            let mut tk = [0u8; 16];
            let mut nonce = [0u8; 13];
            let mut aad = vec![0u8; 22 + gen::below(&mut rng, 9) as usize];
            let mut plain = vec![0u8; len];
            for buf in [&mut tk[..], &mut nonce[..], &mut aad[..], &mut plain[..]] {
                rng.fill_bytes(buf);
            }
            let mut cipher = plain.clone();
            let mut mic = [0u8; 8];
            EnhancedCcm::new(&tk, mode.ways, mode.variant).unwrap().seal(&nonce, &aad, &mut cipher, &mut mic).unwrap();
            cases.push(Sealed { key: Key::new(&tk, mode).unwrap(), nonce, aad, plain, cipher, mic });
        }
    }
    for engine in engines() {
        for c in &cases {
            let what = || format!("{engine:?} {:?} {} octets", c.key.mode(), c.plain.len());
            let mut data = c.plain.clone();
            let mic = engine.seal(&c.key, &c.nonce, &c.aad, &mut data).unwrap();
            assert!(data == c.cipher && mic == c.mic, "seal: {}", what());
            engine.open(&c.key, &c.nonce, &c.aad, &mut data, &mic).unwrap();
            assert!(data == c.plain, "open: {}", what());
            let mut data = c.cipher.clone();
            let mut bad = c.mic;
            bad[c.plain.len() % 8] ^= 1 << (c.plain.len() % 7);
            assert_eq!(engine.open(&c.key, &c.nonce, &c.aad, &mut data, &bad), Err(Error::MicFailure), "{}", what());
            assert!(data == c.cipher, "a refused open keeps the ciphertext: {}", what());
        }
    }
}

/// Batches of mixed sizes (0..=2304 octets), keys and modes on every backend, sealed and
/// opened against the golden model, some with a tampered MIC: lanes that finish early take
/// the next frame under another key while the others are mid-frame.
#[test]
fn mixed_batches_match_the_golden_model_on_every_backend() {
    let mut rng = ChaCha8Rng::seed_from_u64(64);
    let modes = modes();
    for engine in engines() {
        // Past 64 frames the engine works its batch in chunks: 65 and 130 end in partial ones.
        for batch_len in [1usize, 7, 8, 9, 33, 64, 65, 130] {
            let mut golden = Vec::new();
            let mut keys = Vec::new();
            let mut plain = Vec::new();
            for _ in 0..batch_len {
                let mut tk = [0u8; 16];
                rng.fill_bytes(&mut tk);
                let mode = modes[gen::below(&mut rng, modes.len() as u64) as usize];
                golden.push(EnhancedCcm::new(&tk, mode.ways, mode.variant).unwrap());
                keys.push(Key::new(&tk, mode).unwrap());
                let len = match gen::below(&mut rng, 4) {
                    0 => gen::below(&mut rng, 48) as usize,
                    _ => gen::below(&mut rng, MAX_MSDU_LEN as u64 + 1) as usize,
                };
                let mut p = vec![0u8; len];
                rng.fill_bytes(&mut p);
                plain.push(p);
            }
            let aad = [0x5au8; 24];
            let nonces: Vec<[u8; 13]> = (0..batch_len).map(|i| [i as u8; 13]).collect();
            let mut data = plain.clone();
            let mut jobs: Vec<Job> =
                data.iter_mut().enumerate().map(|(i, d)| Job::new(&keys[i], nonces[i], &aad, d)).collect();
            engine.seal_batch(&mut jobs).unwrap();
            let mut ciphertexts = Vec::new();
            for (i, job) in jobs.iter_mut().enumerate() {
                let (mut c, mut mic) = (plain[i].clone(), [0u8; 8]);
                golden[i].seal(&nonces[i], &aad, &mut c, &mut mic).unwrap();
                assert!(job.data[..] == c[..] && job.mic == mic, "{engine:?} batch of {batch_len}, job {i}");
                if i % 3 == 1 {
                    job.mic[i % 8] ^= 0x10;
                }
                ciphertexts.push(c);
            }
            engine.open_batch(&mut jobs).unwrap();
            for (i, job) in jobs.iter().enumerate() {
                let expected = if i % 3 == 1 { &ciphertexts[i] } else { &plain[i] };
                assert!(job.verified == (i % 3 != 1) && job.data[..] == expected[..], "{engine:?} open, job {i}");
            }
        }
    }
}

/// Lane-fulls of like CCMP-128 frames (the same number of full blocks, each with or each
/// without a short last block), which the engine runs in lock step rather than through the
/// lane scheduler: every length to 300 octets and some to 2304 (each lane-full with short
/// last blocks of different lengths), between lane-fulls of unlike frames and Enhanced
/// frames, sealed and opened against the golden model, some with a tampered MIC (whose
/// frames go back to ciphertext in a lane-full of their own).
#[test]
fn lane_fulls_of_like_frames_match_the_golden_model_on_every_backend() {
    let mut rng = ChaCha8Rng::seed_from_u64(1616);
    let lanes = most_lanes();
    let mut lens: Vec<usize> = Vec::new();
    for blocks in (0..=18).chain([63, 93, 94, 143]) {
        let len = |rng: &mut ChaCha8Rng, short: bool| {
            if short {
                16 * blocks + 1 + gen::below(rng, 15) as usize
            } else {
                16 * blocks
            }
        };
        for short in [false, true] {
            lens.extend((0..lanes).map(|_| len(&mut rng, short)));
        }
        // An unlike lane-full (one frame a block longer), then an Enhanced frame among
        // like CCMP-128 ones: both go to the scheduler.
        lens.extend((0..lanes).map(|i| 16 * (blocks + usize::from(i == 3))));
    }
    let modes: Vec<Mode> = lens
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let (group, at) = (i / (3 * lanes), i % (3 * lanes));
            if group % 4 == 3 && at == lanes + 2 {
                Mode::enhanced(Ways::N4)
            } else {
                Mode::CCMP128
            }
        })
        .collect();
    for engine in engines() {
        let mut golden = Vec::new();
        let mut keys = Vec::new();
        let mut plain = Vec::new();
        for (&len, &mode) in lens.iter().zip(&modes) {
            let mut tk = [0u8; 16];
            rng.fill_bytes(&mut tk);
            golden.push(EnhancedCcm::new(&tk, mode.ways, mode.variant).unwrap());
            keys.push(Key::new(&tk, mode).unwrap());
            let mut p = vec![0u8; len];
            rng.fill_bytes(&mut p);
            plain.push(p);
        }
        let aad: Vec<Vec<u8>> = lens
            .iter()
            .map(|_| {
                let mut a = vec![0u8; 22 + gen::below(&mut rng, 9) as usize];
                rng.fill_bytes(&mut a);
                a
            })
            .collect();
        let nonces: Vec<[u8; 13]> = (0..lens.len()).map(|i| [i as u8 ^ 0x5c; 13]).collect();
        let mut data = plain.clone();
        let mut jobs: Vec<Job> =
            data.iter_mut().enumerate().map(|(i, d)| Job::new(&keys[i], nonces[i], &aad[i], d)).collect();
        engine.seal_batch(&mut jobs).unwrap();
        let mut ciphertexts = Vec::new();
        for (i, job) in jobs.iter_mut().enumerate() {
            let (mut c, mut mic) = (plain[i].clone(), [0u8; 8]);
            golden[i].seal(&nonces[i], &aad[i], &mut c, &mut mic).unwrap();
            assert!(job.data[..] == c[..] && job.mic == mic, "{engine:?} seal, job {i} of {} octets", plain[i].len());
            if i % 11 == 5 {
                job.mic[i % 8] ^= 0x01;
            }
            ciphertexts.push(c);
        }
        engine.open_batch(&mut jobs).unwrap();
        for (i, job) in jobs.iter().enumerate() {
            let expected = if i % 11 == 5 { &ciphertexts[i] } else { &plain[i] };
            assert!(job.verified == (i % 11 != 5) && job.data[..] == expected[..], "{engine:?} open, job {i}");
        }
    }
}

/// Lane-fulls of like frames whose keys come from a pool of three, so that a lane-full
/// often holds some of the previous one's keys in the same lanes (a station's traffic):
/// the wide kernels keep a group of lanes' packed round keys when every lane of it holds
/// its key already, and must reload them when only some do.
#[test]
fn lane_fulls_that_share_some_keys_match_the_golden_model_on_every_backend() {
    let mut rng = ChaCha8Rng::seed_from_u64(333);
    let pool: Vec<[u8; 16]> = (0..3).map(|i| [0x33 ^ i as u8; 16]).collect();
    let keys: Vec<Key> = pool.iter().map(|tk| Key::new(tk, Mode::CCMP128).unwrap()).collect();
    let golden: Vec<EnhancedCcm> =
        pool.iter().map(|tk| EnhancedCcm::new(tk, Ways::N1, Variant::DomainSeparated).unwrap()).collect();
    let lanes = most_lanes();
    let frames = 64 * lanes;
    let picks: Vec<usize> = (0..frames).map(|_| gen::below(&mut rng, 3) as usize).collect();
    let aad = [0xa5u8; 24];
    for engine in engines() {
        for len in [0, 64, 100] {
            let plain: Vec<Vec<u8>> = (0..frames).map(|i| vec![i as u8; len]).collect();
            let nonces: Vec<[u8; 13]> = (0..frames).map(|i| [(i * 7) as u8; 13]).collect();
            let mut data = plain.clone();
            let mut jobs: Vec<Job> =
                data.iter_mut().enumerate().map(|(i, d)| Job::new(&keys[picks[i]], nonces[i], &aad, d)).collect();
            engine.seal_batch(&mut jobs).unwrap();
            for (i, job) in jobs.iter().enumerate() {
                let (mut c, mut mic) = (plain[i].clone(), [0u8; 8]);
                golden[picks[i]].seal(&nonces[i], &aad, &mut c, &mut mic).unwrap();
                assert!(job.data[..] == c[..] && job.mic == mic, "{engine:?} seal, frame {i} of {len} octets");
            }
        }
    }
}
