//! intel-ipsec-mb's AES-CCM-128 for `wlansec bench ccmp`: its job API and its burst API
//! through the C shim `ipsec_mb.c`, which build.rs compiles where the library's header is
//! installed (`cfg(ipsec_mb)`); the library itself is loaded at run time. And the check that
//! its ciphertext and MIC equal the engine's, octet for octet, before any of it is timed.

// Without the shim only `IpsecMb::open` runs (to say the library is not installed).
#![cfg_attr(not(ipsec_mb), allow(dead_code))]

use std::marker::PhantomData;

use anyhow::{bail, Context, Result};
use wlansec_core::engine::{Engine, Job, Key, Mode};
use wlansec_core::gen::{self, ChaCha8Rng, Rng, SeedableRng, Shapes};
use wlansec_core::suite::{ccmp, Aad, Pn};
use wlansec_core::wire::{Frame as MacFrame, Rules};
use zeroize::Zeroize;

pub const NONCE_LEN: usize = 13;
pub const MIC_LEN: usize = 8;

/// How frames are handed to the library.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Api {
    /// IMB_GET_NEXT_JOB / IMB_SUBMIT_JOB per frame, then IMB_FLUSH_JOB.
    Job,
    /// IMB_GET_NEXT_BURST / IMB_SUBMIT_BURST for all frames, then IMB_FLUSH_BURST.
    Burst,
}

impl Api {
    pub const ALL: [Api; 2] = [Api::Job, Api::Burst];
}

/// The library's code paths (IMB_ARCH), one per instruction-set level.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Arch {
    NoAesNi = 1,
    Sse = 2,
    Avx = 3,
    Avx2 = 4,
    Avx512 = 5,
}

impl Arch {
    fn from_imb(value: u32) -> Option<Self> {
        [Arch::NoAesNi, Arch::Sse, Arch::Avx, Arch::Avx2, Arch::Avx512].into_iter().find(|a| *a as u32 == value)
    }

    pub fn name(self) -> &'static str {
        match self {
            Arch::NoAesNi => "no-aesni",
            Arch::Sse => "sse",
            Arch::Avx => "avx",
            Arch::Avx2 => "avx2",
            Arch::Avx512 => "avx512",
        }
    }

    /// Whether to set up this architecture's manager beside init_mb_mgr_auto's: the CPU
    /// runs its code (AVX-512's is left to init_mb_mgr_auto, which picks it wherever it
    /// runs; the no-AES-NI code is not an anchor).
    fn beside_auto(self) -> bool {
        match self {
            Arch::Avx512 | Arch::NoAesNi => false,
            Arch::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            Arch::Avx => std::arch::is_x86_feature_detected!("avx"),
            Arch::Sse => std::arch::is_x86_feature_detected!("sse4.2") && std::arch::is_x86_feature_detected!("aes"),
        }
    }
}

/// The bench row's implementation name.
pub fn row_name(arch: Arch, api: Api) -> &'static str {
    match (arch, api) {
        (Arch::NoAesNi, Api::Job) => "ipsec-mb no-aesni job",
        (Arch::NoAesNi, Api::Burst) => "ipsec-mb no-aesni burst",
        (Arch::Sse, Api::Job) => "ipsec-mb sse job",
        (Arch::Sse, Api::Burst) => "ipsec-mb sse burst",
        (Arch::Avx, Api::Job) => "ipsec-mb avx job",
        (Arch::Avx, Api::Burst) => "ipsec-mb avx burst",
        (Arch::Avx2, Api::Job) => "ipsec-mb avx2 job",
        (Arch::Avx2, Api::Burst) => "ipsec-mb avx2 burst",
        (Arch::Avx512, Api::Job) => "ipsec-mb avx512 job",
        (Arch::Avx512, Api::Burst) => "ipsec-mb avx512 burst",
    }
}

/// An AES-128 encryption schedule in the library's layout (16-octet aligned), expanded by
/// the library itself.
#[repr(C, align(16))]
pub struct KeySchedule([u8; 16 * 15]);

impl Drop for KeySchedule {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// One frame for the library: `data` encrypted in place, its MIC into `mic`. The layout is
/// `struct wimb_frame` in ipsec_mb.c; the borrows keep every pointer valid while it lives.
#[repr(C)]
pub struct Frame<'a> {
    enc_keys: *const KeySchedule,
    aad: *const u8,
    data: *mut u8,
    aad_len: u64,
    len: u64,
    nonce: [u8; NONCE_LEN],
    pub mic: [u8; MIC_LEN],
    borrows: PhantomData<(&'a KeySchedule, &'a [u8], &'a mut [u8])>,
}

const _: () = assert!(size_of::<Frame<'_>>() == 64, "the layout of struct wimb_frame");

impl<'a> Frame<'a> {
    pub fn new(schedule: &'a KeySchedule, nonce: [u8; NONCE_LEN], aad: &'a [u8], data: &'a mut [u8]) -> Self {
        Frame {
            enc_keys: schedule,
            aad: aad.as_ptr(),
            data: data.as_mut_ptr(),
            aad_len: aad.len() as u64,
            len: data.len() as u64,
            nonce,
            mic: [0; MIC_LEN],
            borrows: PhantomData,
        }
    }
}

#[cfg(ipsec_mb)]
mod ffi {
    use super::{Frame, KeySchedule};

    #[repr(C)]
    pub struct Handle {
        _opaque: [u8; 0],
    }

    pub const NO_LIBRARY: i32 = 1;
    pub const NO_SYMBOL: i32 = 2;
    pub const OTHER_VERSION: i32 = 3;
    pub const JOBS_LOST: i32 = -2;

    unsafe extern "C" {
        pub fn wimb_open(out: *mut *mut Handle, want: u32, version: *mut u32, arch: *mut u32) -> i32;
        pub fn wimb_close(handle: *mut Handle);
        pub fn wimb_header_version() -> u32;
        pub fn wimb_strerror(handle: *const Handle, error: i32) -> *const core::ffi::c_char;
        pub fn wimb_keyexp_128(handle: *const Handle, key: *const [u8; 16], enc: *mut KeySchedule);
        pub fn wimb_seal_jobs(handle: *const Handle, frames: *mut Frame<'_>, n: usize) -> i32;
        pub fn wimb_seal_burst(handle: *const Handle, frames: *mut Frame<'_>, n: usize) -> i32;
    }
}

/// The loaded library and one multi-buffer manager.
pub struct IpsecMb {
    #[cfg(ipsec_mb)]
    handle: core::ptr::NonNull<ffi::Handle>,
    #[cfg(not(ipsec_mb))]
    never: std::convert::Infallible,
    version: u32,
    arch: Arch,
}

fn version_text(v: u32) -> String {
    format!("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff)
}

impl IpsecMb {
    /// Load libIPSec_MB and set up a manager for `arch`, or (`None`) for the one that
    /// `init_mb_mgr_auto` picks for this CPU; the error says why the library's rows cannot
    /// run. The caller asks only for an `arch` the CPU has.
    #[cfg(ipsec_mb)]
    pub fn open(arch: Option<Arch>) -> Result<Self> {
        let (mut handle, mut version, mut chosen) = (core::ptr::null_mut(), 0, 0);
        // SAFETY: the shim writes only through the three out-pointers.
        let status = unsafe { ffi::wimb_open(&mut handle, arch.map_or(0, |a| a as u32), &mut version, &mut chosen) };
        // SAFETY: the shim's function takes no argument and returns the header's version constant.
        let built_for = version_text(unsafe { ffi::wimb_header_version() });
        match (status, core::ptr::NonNull::new(handle)) {
            (0, Some(handle)) => {
                let mut lib = IpsecMb { handle, version, arch: Arch::NoAesNi };
                lib.arch = Arch::from_imb(chosen).context("intel-ipsec-mb set up no architecture")?;
                Ok(lib)
            }
            (ffi::NO_LIBRARY, _) => bail!("intel-ipsec-mb not installed (no libIPSec_MB.so.1; Debian: libipsec-mb1)"),
            (ffi::NO_SYMBOL, _) => {
                bail!("libIPSec_MB lacks alloc_mb_mgr, init_mb_mgr_{}, free_mb_mgr or imb_get_version", arch.map_or("auto", Arch::name))
            }
            (ffi::OTHER_VERSION, _) => bail!(
                "intel-ipsec-mb {} installed, wlansec built against {built_for} (its manager's layout may differ): rebuild wlansec",
                version_text(version)
            ),
            _ => bail!("intel-ipsec-mb: could not allocate a multi-buffer manager"),
        }
    }

    /// Every manager this CPU runs: init_mb_mgr_auto's first, then the others, widest first
    /// (1.3's AVX-512 CCM is the slower one on short frames, so the narrower ones count).
    pub fn open_every_manager() -> Result<Vec<Self>> {
        let auto = IpsecMb::open(None)?;
        let auto_arch = auto.arch();
        let others = [Arch::Avx2, Arch::Avx, Arch::Sse].into_iter().filter(|&a| a != auto_arch && a.beside_auto());
        let mut libs = vec![auto];
        for arch in others {
            libs.push(IpsecMb::open(Some(arch))?);
        }
        Ok(libs)
    }

    #[cfg(not(ipsec_mb))]
    pub fn open(_arch: Option<Arch>) -> Result<Self> {
        bail!("intel-ipsec-mb not installed when wlansec was built (no intel-ipsec-mb.h; Debian: libipsec-mb-dev)")
    }

    /// The library's version at run time.
    pub fn version(&self) -> String {
        version_text(self.version)
    }

    /// The architecture the manager runs.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Expand a 16-octet key with the library's IMB_AES_KEYEXP_128.
    #[cfg(ipsec_mb)]
    pub fn key_schedule(&self, key: &[u8; 16]) -> KeySchedule {
        let mut schedule = KeySchedule([0; 16 * 15]);
        // SAFETY: the shim reads 16 octets and writes at most the schedule's 240.
        unsafe { ffi::wimb_keyexp_128(self.handle.as_ptr(), key, &mut schedule) };
        schedule
    }

    #[cfg(not(ipsec_mb))]
    pub fn key_schedule(&self, _key: &[u8; 16]) -> KeySchedule {
        match self.never {}
    }

    /// Seal every frame through `api`; every job must come back completed.
    #[cfg(ipsec_mb)]
    pub fn seal(&self, api: Api, frames: &mut [Frame<'_>]) -> Result<()> {
        let handle = self.handle.as_ptr();
        // SAFETY: each frame's pointers come from live borrows of the lengths it records
        // (`Frame::new`), and the manager is this handle's alone (`IpsecMb` is not `Sync`).
        let status = unsafe {
            match api {
                Api::Job => ffi::wimb_seal_jobs(handle, frames.as_mut_ptr(), frames.len()),
                Api::Burst => ffi::wimb_seal_burst(handle, frames.as_mut_ptr(), frames.len()),
            }
        };
        match status {
            0 => Ok(()),
            ffi::JOBS_LOST => bail!("intel-ipsec-mb {api:?} API: fewer jobs came back than were submitted"),
            error => {
                // SAFETY: imb_get_strerror returns a static string or NULL (shim: NULL when absent).
                let text = unsafe { ffi::wimb_strerror(handle, error) };
                let text = if text.is_null() {
                    "job not completed".into()
                } else {
                    // SAFETY: not null (tested above): a NUL-terminated static string of the
                    // library, which `self` keeps loaded until it drops (`wimb_close`).
                    unsafe { core::ffi::CStr::from_ptr(text) }.to_string_lossy()
                };
                bail!("intel-ipsec-mb {api:?} API: {text} (error {error})")
            }
        }
    }

    #[cfg(not(ipsec_mb))]
    pub fn seal(&self, _api: Api, _frames: &mut [Frame<'_>]) -> Result<()> {
        match self.never {}
    }
}

#[cfg(ipsec_mb)]
impl Drop for IpsecMb {
    fn drop(&mut self) {
        // SAFETY: opened by wimb_open, closed once.
        unsafe { ffi::wimb_close(self.handle.as_ptr()) };
    }
}

/// One frame's CCM inputs, given alike to both implementations.
#[derive(Clone)]
pub struct CcmInput {
    pub tk: [u8; 16],
    pub nonce: [u8; NONCE_LEN],
    pub aad: Vec<u8>,
    pub payload: Vec<u8>,
}

/// A frame's sealed output: ciphertext and MIC.
pub type Sealed = (Vec<u8>, [u8; MIC_LEN]);

/// `count` CCMP frames of `bytes` payload octets behind random 802.11 headers (every DS
/// combination, QoS or not, management or data, so AADs of 22 to 30 octets), each under its
/// own key, with the nonce and AAD that CCMP builds from the header.
pub fn ccmp_frames(seed: u64, bytes: usize, count: usize) -> Result<Vec<CcmInput>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut header = Vec::new();
            gen::random_mpdu(&mut rng, Shapes::default(), 0, &mut header);
            let frame = MacFrame::new_checked(&header[..], Rules::default())?;
            let pn = Pn::new(gen::below(&mut rng, Pn::MAX + 1))?;
            let mut tk = [0; 16];
            rng.fill_bytes(&mut tk);
            let mut payload = vec![0; bytes];
            rng.fill_bytes(&mut payload);
            Ok(CcmInput {
                tk,
                nonce: ccmp::nonce(&frame, pn)?,
                aad: Aad::new(&frame, Rules::default()).as_slice().to_vec(),
                payload,
            })
        })
        .collect()
}

/// The engine's output for `inputs`, sealed as one multi-buffer batch.
pub fn seal_wlansec(engine: Engine, inputs: &[CcmInput]) -> Result<Vec<Sealed>> {
    let keys: Vec<Key> = inputs.iter().map(|i| Key::new(&i.tk, Mode::CCMP128)).collect::<wlansec_core::Result<_>>()?;
    let mut data: Vec<Vec<u8>> = inputs.iter().map(|i| i.payload.clone()).collect();
    let mut jobs: Vec<Job> =
        inputs.iter().zip(&keys).zip(&mut data).map(|((i, key), d)| Job::new(key, i.nonce, &i.aad, d)).collect();
    engine.seal_batch(&mut jobs)?;
    let mics: Vec<[u8; MIC_LEN]> = jobs.iter().map(|j| j.mic).collect();
    Ok(data.into_iter().zip(mics).collect())
}

/// The library's output for `inputs`, through `api`, all frames submitted together.
pub fn seal_ipsec_mb(lib: &IpsecMb, api: Api, inputs: &[CcmInput]) -> Result<Vec<Sealed>> {
    let schedules: Vec<KeySchedule> = inputs.iter().map(|i| lib.key_schedule(&i.tk)).collect();
    let mut data: Vec<Vec<u8>> = inputs.iter().map(|i| i.payload.clone()).collect();
    let mut frames: Vec<Frame> =
        inputs.iter().zip(&schedules).zip(&mut data).map(|((i, s), d)| Frame::new(s, i.nonce, &i.aad, d)).collect();
    lib.seal(api, &mut frames)?;
    let mics: Vec<[u8; MIC_LEN]> = frames.iter().map(|f| f.mic).collect();
    Ok(data.into_iter().zip(mics).collect())
}

/// Every frame's ciphertext and MIC must be equal; the first that is not is the error.
pub fn compare(inputs: &[CcmInput], wlansec: &[Sealed], ipsec_mb: &[Sealed]) -> Result<()> {
    if wlansec.len() != inputs.len() || ipsec_mb.len() != inputs.len() {
        bail!("{} frames in, {} out of wlansec, {} out of intel-ipsec-mb", inputs.len(), wlansec.len(), ipsec_mb.len());
    }
    for (index, ((input, ours), theirs)) in inputs.iter().zip(wlansec).zip(ipsec_mb).enumerate() {
        let what = if ours.0 != theirs.0 {
            "ciphertext"
        } else if ours.1 != theirs.1 {
            "MIC"
        } else {
            continue;
        };
        bail!(
            "intel-ipsec-mb and wlansec differ in the {what} of frame {index} ({} payload octets, {}-octet AAD, \
             nonce {}): not timing a wrong result",
            input.payload.len(),
            input.aad.len(),
            hex::encode(input.nonce)
        );
    }
    Ok(())
}

/// Seal `inputs` with both and compare them octet for octet.
pub fn check_agreement(lib: &IpsecMb, engine: Engine, api: Api, inputs: &[CcmInput]) -> Result<()> {
    let wlansec = seal_wlansec(engine, inputs)?;
    let ipsec_mb = seal_ipsec_mb(lib, api, inputs)?;
    compare(inputs, &wlansec, &ipsec_mb).with_context(|| format!("{api:?} API"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [usize; 6] = [64, 256, 512, 1024, 1500, 2304];

    /// The library's managers the bench times (every one the CPU runs). The `..._with_ipsec_mb` tests need libipsec-mb: without it they get none
    /// and print `skipped:`, or fail where WLANSEC_REQUIRE_ALL=1 (scripts/setup.sh installs
    /// it, so a missing library there is a broken setup, not a skip).
    fn managers() -> Vec<IpsecMb> {
        // Where the header is installed the shim must have been built.
        assert!(
            cfg!(ipsec_mb) || !std::path::Path::new("/usr/include/intel-ipsec-mb.h").exists(),
            "intel-ipsec-mb.h is installed but build.rs did not build the shim"
        );
        match IpsecMb::open_every_manager() {
            Ok(libs) => libs,
            Err(why) => {
                let required = std::env::var_os("WLANSEC_REQUIRE_ALL").is_some_and(|v| v == "1");
                assert!(!required, "WLANSEC_REQUIRE_ALL=1, and {why:#}");
                println!("skipped: {why:#}");
                Vec::new()
            }
        }
    }

    #[test]
    fn ccmp_frames_cover_every_aad_length() {
        let mut lengths: Vec<usize> = ccmp_frames(7, 64, 64).unwrap().iter().map(|i| i.aad.len()).collect();
        lengths.sort();
        lengths.dedup();
        assert_eq!(lengths, [22, 24, 28, 30]);
    }

    #[test]
    fn agrees_with_the_engine_at_every_size_and_aad_length_with_ipsec_mb() {
        for lib in managers() {
            println!("intel-ipsec-mb {} ({})", lib.version(), lib.arch().name());
            for &bytes in &SIZES {
                let inputs = ccmp_frames(bytes as u64, bytes, 40).unwrap();
                for api in Api::ALL {
                    check_agreement(&lib, Engine::new(), api, &inputs).unwrap();
                }
            }
        }
    }

    /// One manager through every position of its job queue (IMB_MAX_JOBS = 256), calls of
    /// 48 and 32 frames by either API as the bench makes them: every frame comes back,
    /// sealed as the engine seals it. (1.3's IMB_FLUSH_BURST, asked for more jobs than are
    /// in flight, returns too many at some positions; the shim asks for exactly those.)
    #[test]
    fn every_queue_position_gives_back_every_frame_with_ipsec_mb() {
        let inputs = ccmp_frames(11, 64, 48).unwrap();
        let wlansec = seal_wlansec(Engine::new(), &inputs).unwrap();
        for lib in managers() {
            for round in 0..16 {
                for api in Api::ALL {
                    for n in std::iter::once(48).chain(std::iter::repeat_n(32, round)) {
                        let theirs = seal_ipsec_mb(&lib, api, &inputs[..n])
                            .unwrap_or_else(|e| panic!("round {round}, {n} frames: {e}"));
                        compare(&inputs[..n], &wlansec[..n], &theirs).unwrap();
                    }
                }
            }
        }
    }

    /// The published CCMP-128 MPDUs (802.11 and 802.11i test vectors) through the shim:
    /// the library's output checked against a source other than wlansec.
    #[test]
    fn reproduces_the_published_ccmp_vectors_with_ipsec_mb() {
        let libs = managers();
        if libs.is_empty() {
            return;
        }
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/vectors/ccmp128.json")).unwrap();
        let field = |v: &serde_json::Value, name: &str| hex::decode(v[name].as_str().unwrap()).unwrap();
        let mut checked = 0;
        for vector in file["vectors"].as_array().unwrap().iter().filter(|v| v["verified"] == true) {
            let header_len = vector["header_len"].as_u64().unwrap() as usize;
            let plain = field(vector, "plaintext_mpdu");
            let encrypted = field(vector, "encrypted_mpdu");
            let input = CcmInput {
                tk: field(vector, "tk").try_into().unwrap(),
                nonce: field(vector, "nonce").try_into().unwrap(),
                aad: field(vector, "aad"),
                payload: plain[header_len..].to_vec(),
            };
            let body = &encrypted[header_len + 8..];
            let (ciphertext, mic) = body.split_at(body.len() - MIC_LEN);
            for (lib, api) in libs.iter().flat_map(|lib| Api::ALL.map(|api| (lib, api))) {
                let sealed = seal_ipsec_mb(lib, api, core::slice::from_ref(&input)).unwrap();
                assert_eq!(sealed[0].0, ciphertext, "{} {:?} {api:?}", vector["id"], lib.arch());
                assert_eq!(sealed[0].1, mic, "{} {:?} {api:?}", vector["id"], lib.arch());
            }
            checked += 1;
        }
        assert_eq!(checked, 8, "the verified CCMP-128 vectors");
    }

    /// The check catches a shim that hands the library a wrong AAD, nonce, key or payload
    /// octet (one frame among many): each alteration must make `compare` fail.
    #[test]
    fn the_agreement_check_catches_one_altered_input_octet_with_ipsec_mb() {
        let Some(lib) = managers().into_iter().next() else { return };
        let inputs = ccmp_frames(3, 1500, 24).unwrap();
        let wlansec = seal_wlansec(Engine::new(), &inputs).unwrap();
        type Alteration = fn(&mut CcmInput);
        let alterations: [(&str, Alteration); 4] = [
            ("AAD", |i| i.aad[7] ^= 0x01),
            ("nonce", |i| i.nonce[12] ^= 0x80),
            ("key", |i| i.tk[0] ^= 0x01),
            ("payload", |i| i.payload[1499] ^= 0x01),
        ];
        for api in Api::ALL {
            compare(&inputs, &wlansec, &seal_ipsec_mb(&lib, api, &inputs).unwrap()).unwrap();
            for (what, alter) in alterations {
                let mut altered = inputs.clone();
                alter(&mut altered[17]);
                let theirs = seal_ipsec_mb(&lib, api, &altered).unwrap();
                let error = compare(&inputs, &wlansec, &theirs).expect_err(what).to_string();
                assert!(error.contains("frame 17"), "{api:?} {what}: {error}");
            }
        }
    }
}
