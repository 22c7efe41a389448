//! The engine's public face: backend selection at run time, single-frame and batch
//! (multi-buffer) sealing and opening of CCM payloads, and MPDU batches with CCMP framing.

use core::mem::MaybeUninit;

use subtle::ConstantTimeEq;

use crate::error::{Error, Result};
use crate::suite::ccmp::CounterBlock;
use crate::suite::mpdu::Pn;
use crate::suite::{Ccmp, Sealer};
use crate::wire::Rules;

use super::enhanced::{MIC_LEN, NONCE_LEN};
use super::framing;
use super::kernel::FrameTask;
pub use super::kernel::TASK_CHUNK;
use super::key::{Key, Mode};
use super::portable::Portable;

/// Which implementation of the lane kernel runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Backend {
    /// The `aes` crate (constant-time software AES where the CPU has no AES instructions).
    Portable,
    /// AES-NI on 128-bit registers.
    AesNi,
    /// AVX-512 + VAES: four lanes per 512-bit VAESENC (Enhanced N = 4, 8 and batches), EVEX
    /// AES-NI with 32 vector registers for one and two lanes.
    Avx512Vaes,
    /// AVX2 + VAES without AVX-512 (e.g. Zen 3): two lanes per 256-bit VAESENC (Enhanced
    /// N = 2, 4, 8 and batches), AES-NI for one lane.
    Avx2Vaes,
}

impl Backend {
    pub const ALL: [Backend; 4] = [Backend::Portable, Backend::AesNi, Backend::Avx512Vaes, Backend::Avx2Vaes];

    /// The fastest backend this CPU runs. The zmm kernel also where 512-bit VAES runs as
    /// two 256-bit halves (AMD Zen 4: 0.98 cycles per zmm VAESENC, four blocks, against 0.49
    /// per xmm one): the same blocks per cycle as ymm in half the instructions. Measured on
    /// an AMD EPYC family 19h model 11h (2026-11-28, e00f9a0, `wlansec bench ccmp
    /// [--backend avx2-vaes]` alternating, 8 and 10 runs, everything else paused, medians;
    /// `docs/results/2026-11-28-zen4-host-engine/ab-e00f9a0-*.txt`), cycles/byte zmm vs ymm:
    /// multi-buffer 0.408 vs 0.399 (1500 B), 1.123 vs 1.326 (64 B), 0.562 vs 0.627 (256 B):
    /// ymm ahead at 1 kB and over since e00f9a0 by 2 %, zmm ahead on short frames; Enhanced
    /// N = 8 0.406 vs 0.438 (1500 B), 2.019 vs 2.424 (64 B; f1a645a's set).
    pub fn detect() -> Self {
        [Backend::Avx512Vaes, Backend::Avx2Vaes, Backend::AesNi]
            .into_iter()
            .find(|b| b.is_available())
            .unwrap_or(Backend::Portable)
    }

    pub fn is_available(self) -> bool {
        match self {
            Backend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Backend::AesNi => {
                std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse4.1")
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512Vaes => {
                Backend::AesNi.is_available()
                    && std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("vaes")
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2Vaes => {
                Backend::AesNi.is_available()
                    && std::arch::is_x86_feature_detected!("avx")
                    && std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("vaes")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::AesNi => "aes-ni",
            Backend::Avx512Vaes => "avx512-vaes",
            Backend::Avx2Vaes => "avx2-vaes",
        }
    }

    /// Frames a batch keeps in flight on this CPU: 16 on the zmm backend where the CPU issues
    /// two 512-bit VAESENCs a cycle, else 8. Eight lanes' step (40 VAESENCs) is bound by its
    /// MAC chains' latency, 10 rounds of 4 cycles: at two VAESENCs a cycle (AMD family 1Ah,
    /// Zen 5: 0.49 cycles each) half the AES units idle, and 16 lanes' step takes 43 cycles
    /// against 41 (`wlansec bench ccmp`'s `lane_steps`; 1500-octet batches 0.355 → 0.24
    /// cycles/byte, `docs/results/2026-11-29-sixteen-lanes/`). At one a cycle (Zen 4, Intel)
    /// the step is bound by the AES units either way: lane-fulls of 16 like frames sealed 64 ×
    /// 1500 octets at 0.319–0.326 TSC ticks a byte against 0.300–0.312 for 8 on a Zen-4 class
    /// (2026-11-28). ymm has 16 registers, too few for 16 lanes' state.
    pub fn lanes(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512Vaes if issues_two_zmm_vaesenc_a_cycle() => 16,
            _ => 8,
        }
    }

    /// The lane counts a batch can run on with this backend (`Engine::with_lanes`).
    pub fn lane_counts(self) -> &'static [usize] {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512Vaes => &[8, 16],
            _ => &[8],
        }
    }
}

/// AMD family 1Ah (Zen 5) and later: two 512-bit VAESENCs a cycle. Intel's cores and Zen 4
/// issue one (Zen 4 as two 256-bit halves). Read once: CPUID leaves a virtual machine for
/// the hypervisor (microseconds), and an engine is made per batch in places (the receive
/// path's `Engine::new`: asked each time, capture decryption lost a fifth of its speed).
#[cfg(target_arch = "x86_64")]
fn issues_two_zmm_vaesenc_a_cycle() -> bool {
    use core::arch::x86_64::__cpuid;
    static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WIDE.get_or_init(|| {
        let vendor = __cpuid(0);
        let amd = [vendor.ebx, vendor.edx, vendor.ecx] == [0x6874_7541, 0x6974_6e65, 0x444d_4163];
        let signature = __cpuid(1).eax;
        let family = (signature >> 8) & 0xf;
        let family = if family == 0xf { family + ((signature >> 20) & 0xff) } else { family };
        amd && family >= 0x1a
    })
}

// `open_tasks` gives one verdict bit per task of a chunk in a `u64`.
const _: () = assert!(TASK_CHUNK <= u64::BITS as usize);

/// One frame of a batch: seal fills `mic`, open checks it and sets `verified`.
pub struct Job<'a> {
    pub key: &'a Key,
    /// Counter block A_0 of the job's nonce, the form in which the kernels take it (and
    /// the engine's framing makes it: 13-octet nonces, copied by the compiler as two
    /// overlapping words, stalled on the stores of the copy before).
    a0: CounterBlock,
    /// CCMP AAD, 22..=30 octets (the engine takes 15..=30: two CBC-MAC blocks).
    pub aad: &'a [u8],
    pub data: &'a mut [u8],
    pub mic: [u8; MIC_LEN],
    /// After `open_batch`: whether the MIC verified (if not, `data` is back to ciphertext).
    pub verified: bool,
}

impl<'a> Job<'a> {
    pub fn new(key: &'a Key, nonce: [u8; NONCE_LEN], aad: &'a [u8], data: &'a mut [u8]) -> Self {
        Job::with_counter_block(key, CounterBlock::from_nonce(&nonce), aad, data)
    }

    /// A job from its nonce's counter block A_0.
    pub(crate) fn with_counter_block(key: &'a Key, a0: CounterBlock, aad: &'a [u8], data: &'a mut [u8]) -> Self {
        Job { key, a0, aad, data, mic: [0; MIC_LEN], verified: false }
    }
}

/// The fast CCMP-128 / Enhanced CCMP-N engine.
#[derive(Clone, Copy, Debug)]
pub struct Engine {
    backend: Backend,
    /// Frames a batch keeps in flight (`Backend::lanes`).
    lanes: usize,
}

impl Default for Engine {
    fn default() -> Self {
        let backend = Backend::detect();
        Engine { backend, lanes: backend.lanes() }
    }
}

impl Engine {
    /// The engine on the fastest backend of this CPU.
    pub fn new() -> Self {
        Engine::default()
    }

    pub fn with_backend(backend: Backend) -> Result<Self> {
        if !backend.is_available() {
            return Err(Error::Unsupported("this CPU lacks the features of the requested engine backend"));
        }
        Ok(Engine { backend, lanes: backend.lanes() })
    }

    /// The same engine with batches on `lanes` lanes, one of its backend's `lane_counts`
    /// (to compare them, or to test each on any CPU that runs the backend).
    pub fn with_lanes(self, lanes: usize) -> Result<Self> {
        if !self.backend.lane_counts().contains(&lanes) {
            return Err(Error::Unsupported("a lane count the engine backend does not run"));
        }
        Ok(Engine { lanes, ..self })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Frames a batch keeps in flight.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Encrypt `data` in place and return its MIC (one frame, its sub-chains in parallel).
    pub fn seal(&self, key: &Key, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8]) -> Result<[u8; MIC_LEN]> {
        let mut task = task(key, CounterBlock::from_nonce(nonce), aad, data, false)?;
        self.run_frame(&mut task);
        Ok(task.mic())
    }

    /// Verify and decrypt in place; on failure `data` stays ciphertext and `MicFailure` is
    /// returned. The MIC comparison is constant time.
    pub fn open(
        &self,
        key: &Key,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        data: &mut [u8],
        mic: &[u8; MIC_LEN],
    ) -> Result<()> {
        let mut task = task(key, CounterBlock::from_nonce(nonce), aad, data, true)?;
        self.run_frame(&mut task);
        if task.mic_matches(mic) {
            return Ok(());
        }
        let mut again = FrameTask { open: false, ..task };
        self.run_frame(&mut again);
        Err(Error::MicFailure)
    }

    /// Seal every job, frames interleaved across the backend's lanes. Checks every job
    /// before touching any.
    pub fn seal_batch(&self, jobs: &mut [Job<'_>]) -> Result<()> {
        self.run_jobs(jobs, false, |chunk, tasks| {
            self.run(tasks);
            for (job, task) in chunk.iter_mut().zip(&*tasks) {
                job.mic = task.mic();
            }
        })
    }

    /// Open every job; each job's `verified` tells its outcome (failed ones keep their
    /// ciphertext). Errors only for malformed jobs, before touching any.
    pub fn open_batch(&self, jobs: &mut [Job<'_>]) -> Result<()> {
        self.run_jobs(jobs, true, |chunk, tasks| {
            let verdicts = self.open_and_verify(tasks, |at| chunk[at].mic);
            for (job, at) in chunk.iter_mut().zip(0..) {
                job.verified = verdicts & (1 << at) != 0;
            }
        })
    }

    /// Seal tasks made by `task` (each with `open` false) and write each one's MIC to the
    /// MIC octets in the same place of `mics`.
    pub(crate) fn seal_tasks(&self, tasks: &mut [FrameTask<'_>], mics: &mut [&mut [u8; MIC_LEN]]) {
        self.run(tasks);
        for (task, mic) in tasks.iter().zip(mics) {
            **mic = task.mic();
        }
    }

    /// Open up to `TASK_CHUNK` tasks made by `task` (each with `open` true), each checked
    /// against the MIC in the same place of `mics`: the verdicts come back as bits, bit `i`
    /// set if task `i` verified (its data is plaintext now; a failed one's is ciphertext
    /// again). The tasks are spent.
    pub(crate) fn open_tasks(&self, tasks: &mut [FrameTask<'_>], mics: &[[u8; MIC_LEN]]) -> u64 {
        assert!(tasks.len() <= TASK_CHUNK && mics.len() == tasks.len(), "one verdict bit and MIC per task");
        self.open_and_verify(tasks, |at| mics[at])
    }

    /// Run opening tasks (at most `TASK_CHUNK`) and compare each one's MIC with `mic(i)` of its
    /// index: bit `i` of the result is set if task `i` verified. The failed frames' tasks,
    /// moved to the front, seal again to restore the ciphertext.
    fn open_and_verify(&self, tasks: &mut [FrameTask<'_>], mic: impl Fn(usize) -> [u8; MIC_LEN]) -> u64 {
        self.run(tasks);
        let mut verdicts = 0;
        let mut failed = 0;
        for at in 0..tasks.len() {
            let verified = tasks[at].mic_matches(&mic(at));
            verdicts |= u64::from(verified) << at;
            if !verified {
                tasks[failed] = FrameTask { open: false, acc: [0; 16], ..tasks[at] };
                failed += 1;
            }
        }
        self.run(&mut tasks[..failed]);
        verdicts
    }

    /// Check every job, then make their tasks `TASK_CHUNK` at a time, in an array on the
    /// stack, for `work` to run and read the results of. (A task vector
    /// per call, one allocation, cost a tenth of a 32-frame batch of 64-octet frames: 1.50
    /// against 1.36 cycles/byte, see docs/enhanced-ccmp.md.)
    fn run_jobs<'k>(
        &self,
        jobs: &mut [Job<'k>],
        open: bool,
        mut work: impl FnMut(&mut [Job<'k>], &mut [FrameTask<'k>]),
    ) -> Result<()> {
        for job in jobs.iter() {
            check(job.aad, job.data)?;
        }
        let mut tasks = [const { MaybeUninit::<FrameTask<'k>>::uninit() }; TASK_CHUNK];
        for chunk in jobs.chunks_mut(TASK_CHUNK) {
            for (slot, job) in tasks.iter_mut().zip(chunk.iter_mut()) {
                slot.write(frame_task(job.key, job.a0, job.aad, job.data, open));
            }
            // SAFETY: the loop above wrote the first `chunk.len()` tasks (`FrameTask` has no
            // drop glue, so the ones of a longer earlier chunk need none either).
            let tasks = unsafe { &mut *(&raw mut tasks[..chunk.len()] as *mut [FrameTask<'k>]) };
            work(chunk, tasks);
        }
        Ok(())
    }

    /// Protect a batch of MPDUs in place (see `FrameSuite::encapsulate`), interleaved across
    /// the lanes; each MPDU's `result` is its protected length or why it was refused.
    pub fn protect_mpdus(&self, mpdus: &mut [MpduJob<'_>], rules: Rules) {
        let mut prepared = Vec::with_capacity(mpdus.len());
        for (index, mpdu) in mpdus.iter_mut().enumerate() {
            mpdu.result = framing::prepare_encapsulate(mpdu.buf, mpdu.len, mpdu.pn, mpdu.key_id, rules, false).map(
                |(p, out_len)| {
                    prepared.push((index, p));
                    out_len
                },
            );
        }
        let mut jobs = Vec::with_capacity(prepared.len());
        let mut mics = Vec::with_capacity(prepared.len());
        let mut prepared = prepared.iter().peekable();
        for (index, mpdu) in mpdus.iter_mut().enumerate() {
            let Some((_, p)) = prepared.next_if(|(i, _)| *i == index) else {
                continue;
            };
            let (data, rest) = mpdu.buf[p.data.start..].split_at_mut(p.data.len());
            jobs.push(Job::with_counter_block(mpdu.key, p.nonce, p.aad.as_slice(), data));
            mics.push(&mut rest[..MIC_LEN]);
        }
        self.seal_batch(&mut jobs).expect("every job was checked when its MPDU was prepared");
        for (job, mic) in jobs.iter().zip(mics) {
            mic.copy_from_slice(&job.mic);
        }
    }

    /// One frame on as many lanes as its key has sub-chains (`stitched`).
    fn run_frame(&self, task: &mut FrameTask<'_>) {
        if task.open {
            self.frame::<true>(task)
        } else {
            self.frame::<false>(task)
        }
    }

    fn frame<const OPEN: bool>(&self, task: &mut FrameTask<'_>) {
        let lanes = task.key.mode.ways.count();
        // SAFETY: the backend's CPU features were checked (`Backend::is_available`) when the
        // engine was made, and the task comes from `frame_task()` of a checked frame, whose
        // data is an exclusive borrow.
        unsafe {
            match self.backend {
                Backend::Portable => frame_portable::<OPEN>(task, lanes),
                #[cfg(target_arch = "x86_64")]
                Backend::AesNi => match lanes {
                    1 => super::aesni::frame::<1, OPEN>(task),
                    2 => super::aesni::frame::<2, OPEN>(task),
                    4 => super::aesni::frame::<4, OPEN>(task),
                    _ => super::aesni::frame::<8, OPEN>(task),
                },
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512Vaes => match lanes {
                    1 => super::aesni::frame_avx512::<1, OPEN>(task),
                    2 => super::aesni::frame_avx512::<2, OPEN>(task),
                    4 => super::vaes::frame512::<4, OPEN>(task),
                    _ => super::vaes::frame512::<8, OPEN>(task),
                },
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2Vaes => match lanes {
                    1 => super::aesni::frame::<1, OPEN>(task),
                    2 => super::vaes::frame256::<2, OPEN>(task),
                    4 => super::vaes::frame256::<4, OPEN>(task),
                    _ => super::vaes::frame256::<8, OPEN>(task),
                },
                #[cfg(not(target_arch = "x86_64"))]
                _ => frame_portable::<OPEN>(task, lanes),
            }
        }
    }

    /// A batch through the lane scheduler, on the engine's lanes (8 for a batch of at most 8
    /// frames: 16 lanes would idle half their steps).
    fn run(&self, tasks: &mut [FrameTask<'_>]) {
        // SAFETY: the backend's CPU features were checked (`Backend::is_available`) when the
        // engine was made, and every task comes from `frame_task()` of a checked frame, whose
        // data is an exclusive borrow.
        unsafe {
            match self.backend {
                Backend::Portable => super::lanes::run::<Portable, 8>(Portable, tasks),
                #[cfg(target_arch = "x86_64")]
                Backend::AesNi => super::aesni::run::<8>(tasks),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512Vaes => match self.lanes {
                    16 if tasks.len() > 8 => super::vaes::run512::<16>(tasks),
                    _ => super::vaes::run512::<8>(tasks),
                },
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2Vaes => super::vaes::run256::<8>(tasks),
                #[cfg(not(target_arch = "x86_64"))]
                _ => super::lanes::run::<Portable, 8>(Portable, tasks),
            }
        }
    }
}

/// One frame on the portable kernel, on `lanes` lanes (its key's N).
///
/// # Safety
/// `task` as `FrameTask` requires.
unsafe fn frame_portable<const OPEN: bool>(task: &mut FrameTask<'_>, lanes: usize) {
    use super::stitched::run_frame;
    // SAFETY: the caller vouches for the task.
    unsafe {
        match lanes {
            1 => run_frame::<Portable, 1, OPEN>(Portable, task),
            2 => run_frame::<Portable, 2, OPEN>(Portable, task),
            4 => run_frame::<Portable, 4, OPEN>(Portable, task),
            _ => run_frame::<Portable, 8, OPEN>(Portable, task),
        }
    }
}

/// Why the engine refuses a frame with this AAD and data, if it does.
fn check(aad: &[u8], data: &[u8]) -> Result<()> {
    if !(15..=30).contains(&aad.len()) {
        return Err(Error::Unsupported("engine AAD must be 15..=30 octets (CCMP's is 22..=30)"));
    }
    framing::check_payload(data.len())
}

/// The task of one frame for `seal_tasks` or `open_tasks` (`open`), or why the engine
/// refuses the frame.
#[inline(always)]
pub(crate) fn task<'k>(
    key: &'k Key,
    a0: CounterBlock,
    aad: &'k [u8],
    data: &mut [u8],
    open: bool,
) -> Result<FrameTask<'k>> {
    check(aad, data)?;
    Ok(frame_task(key, a0, aad, data, open))
}

/// The task of a frame that passed `check`.
#[inline(always)]
fn frame_task<'k>(key: &'k Key, a0: CounterBlock, aad: &'k [u8], data: &mut [u8], open: bool) -> FrameTask<'k> {
    FrameTask { key, a0, aad, data: data.as_mut_ptr(), len: data.len(), open, acc: [0; 16], s0: [0; 16] }
}

impl FrameTask<'_> {
    /// The MIC the run computed.
    fn mic(&self) -> [u8; MIC_LEN] {
        // One 64-bit XOR (an octet loop was 29 instructions a frame, a fifth of a 64-octet
        // frame's set-up).
        let mic = |block: &[u8; 16]| u64::from_ne_bytes(block[..MIC_LEN].try_into().expect("8 octets"));
        (mic(&self.acc) ^ mic(&self.s0)).to_ne_bytes()
    }

    /// Whether the MIC the run computed is `mic`, compared in constant time as one 64-bit
    /// word (octet by octet, `subtle` hides each octet's comparison from the optimiser with
    /// a call: eight calls per frame).
    fn mic_matches(&self, mic: &[u8; MIC_LEN]) -> bool {
        bool::from(u64::from_ne_bytes(self.mic()).ct_eq(&u64::from_ne_bytes(*mic)))
    }
}

/// One MPDU of a batch: the plaintext MPDU in `buf[..len]`, room for the overhead behind it.
pub struct MpduJob<'a> {
    pub key: &'a Key,
    pub buf: &'a mut [u8],
    pub len: usize,
    pub pn: Pn,
    pub key_id: u8,
    /// After `protect_mpdus`: the protected length, or why this MPDU was refused.
    pub result: Result<usize>,
}

impl<'a> MpduJob<'a> {
    pub fn new(key: &'a Key, buf: &'a mut [u8], len: usize, pn: Pn, key_id: u8) -> Self {
        MpduJob { key, buf, len, pn, key_id, result: Ok(0) }
    }
}

/// An engine key as a `FrameSuite`: CCMP-128 or Enhanced CCMP-N on the fast engine,
/// MPDU-compatible with `suite::Ccmp128` and `engine::EnhancedCcmp`.
pub struct Keyed {
    engine: Engine,
    key: Key,
}

/// The fast engine's frame suite.
pub type FastCcmp = Ccmp<Keyed, MIC_LEN>;

impl FastCcmp {
    pub fn keyed(engine: Engine, tk: &[u8], mode: Mode) -> Result<Self> {
        Ok(Ccmp::from_sealer(Keyed { engine, key: Key::new(tk, mode)? }))
    }
}

impl Keyed {
    /// The engine key, for the batch paths (`Job`, `MpduJob`).
    pub fn key(&self) -> &Key {
        &self.key
    }
}

impl Sealer<MIC_LEN> for Keyed {
    fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &mut [u8; MIC_LEN]) -> Result<()> {
        *mic = self.engine.seal(&self.key, nonce, aad, data)?;
        Ok(())
    }
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: &mut [u8], mic: &[u8; MIC_LEN]) -> Result<()> {
        self.engine.open(&self.key, nonce, aad, data, mic)
    }
}
