//! Many frames per call on the multi-buffer engine (CCMP-128 and Enhanced CCMP-N).
//!
//! A `wlansec_burst` is one thread's engine context: the backend and the job list the
//! engine fills, kept from call to call so a call allocates nothing. Two ways to use it:
//! * at once: `wlansec_burst_seal` / `wlansec_burst_open` run an array of jobs and return
//!   when every job is done (each job's `status` tells its outcome);
//! * queued: `wlansec_burst_submit` copies jobs into the queue, which runs them on the
//!   engine whenever a whole batch (`TASK_CHUNK` frames) is waiting; `wlansec_burst_flush`
//!   runs the rest; `wlansec_burst_poll` hands the finished jobs back in submission order.

use core::ffi::{c_int, c_void};
use std::collections::VecDeque;

use wlansec_core::engine::batch::TASK_CHUNK;
use wlansec_core::engine::{Engine, Job};

use crate::key::{wlansec_key, Cipher, WLANSEC_CCMP_NONCE_LEN};
use crate::status::wlansec_status::{self, *};
use crate::{bytes, bytes_mut, guard, put};

/// The operations of `wlansec_burst_submit`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum wlansec_op {
    /// Encrypt `data` in place and write the MIC to `mic`.
    WLANSEC_OP_SEAL = 0,
    /// Verify `mic` and decrypt `data` in place (left as ciphertext if the MIC fails).
    WLANSEC_OP_OPEN = 1,
}

/// One frame of a burst: CCM with the key's suite (CCMP-128 or Enhanced CCMP-N) over
/// `data`, with the nonce and AAD the caller built. The caller fills every field but
/// `status`, which the library sets (a `wlansec_status`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wlansec_job {
    /// A CCMP-128 or Enhanced CCMP-N key (other suites: `WLANSEC_ERR_UNSUPPORTED`).
    pub key: *const wlansec_key,
    /// The 13-octet CCM nonce (CCMP: flags, A2, PN5..PN0).
    pub nonce: [u8; WLANSEC_CCMP_NONCE_LEN],
    /// The AAD, 15 to 30 octets (CCMP's is 22 to 30).
    pub aad: *const u8,
    pub aad_len: usize,
    /// The data, encrypted or decrypted in place, at most 65535 octets.
    pub data: *mut u8,
    pub data_len: usize,
    /// 8 octets: written when sealing, read when opening.
    pub mic: *mut u8,
    /// Not read by the library: handed back with the job by `wlansec_burst_poll`.
    pub user_data: *mut c_void,
    /// Set by the library: `WLANSEC_OK` or why this job failed (`WLANSEC_ERR_MIC_FAILURE`
    /// for a frame that did not verify).
    pub status: c_int,
}

/// One thread's engine context for bursts (opaque). Made by `wlansec_burst_new`, freed by
/// `wlansec_burst_free`.
pub struct wlansec_burst {
    engine: Engine,
    capacity: usize,
    /// Submitted jobs in submission order, and each one's operation; the first
    /// `completed` are done.
    queue: VecDeque<wlansec_job>,
    ops: VecDeque<wlansec_op>,
    completed: usize,
    /// The engine's job list between calls: always empty, kept for its allocation.
    spare: Vec<Job<'static>>,
}

/// An empty job list in `spare`'s allocation (a `Job` borrows one call's frames; the
/// allocation outlives them). Collecting a vector's `into_iter` through `map` reuses its
/// allocation when the element layouts match, as they do here.
fn take_list<'a>(spare: &mut Vec<Job<'static>>) -> Vec<Job<'a>> {
    core::mem::take(spare).into_iter().map(|_| unreachable!("the spare job list is empty")).collect()
}

/// Give `list`'s allocation back to `spare`, emptied.
fn keep_list(spare: &mut Vec<Job<'static>>, mut list: Vec<Job<'_>>) {
    list.clear();
    *spare = list.into_iter().map(|_| unreachable!("the job list was cleared")).collect();
}

/// The engine's job for `job`, checked; its MIC is `job`'s (what opening checks).
///
/// # Safety
/// `job`'s pointers as `wlansec_job` requires, its `data` and `mic` used by nothing else for `'a`.
unsafe fn engine_job<'a>(job: &wlansec_job) -> Result<Job<'a>, wlansec_status> {
    // SAFETY: NULL or a live key handle (caller's contract).
    let key = unsafe { job.key.as_ref() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
    let Cipher::Engine(suite) = key.cipher() else {
        return Err(WLANSEC_ERR_UNSUPPORTED);
    };
    if job.mic.is_null() {
        return Err(WLANSEC_ERR_NULL_POINTER);
    }
    // SAFETY: the job's buffers are valid for their lengths, `mic` for 8 octets (caller's contract).
    let (aad, data, mic) = unsafe {
        (bytes(job.aad, job.aad_len)?, bytes_mut(job.data, job.data_len)?, job.mic.cast::<[u8; 8]>().read_unaligned())
    };
    let mut engine_job = Job::new(suite.sealer().key(), job.nonce, aad, data);
    engine_job.mic = mic;
    Ok(engine_job)
}

/// Run `jobs` (all `open` or all sealing) on `engine` through the empty job list `list`
/// and set each one's status.
///
/// # Safety
/// Every job's pointers as `wlansec_job` requires; no two jobs' writable buffers overlap.
unsafe fn run_jobs<'a>(engine: Engine, list: &mut Vec<Job<'a>>, open: bool, jobs: &mut [wlansec_job]) {
    for job in jobs.iter_mut() {
        // SAFETY: the caller's contract.
        job.status = match unsafe { engine_job(job) } {
            Ok(engine_job) => {
                list.push(engine_job);
                WLANSEC_OK as c_int
            }
            Err(status) => status as c_int,
        };
    }
    let ran = match open {
        true => engine.open_batch(list),
        false => engine.seal_batch(list),
    };
    let accepted = jobs.iter_mut().filter(|job| job.status == WLANSEC_OK as c_int);
    for (job, done) in accepted.zip(list.iter_mut()) {
        let status = match (ran.is_ok(), open) {
            (true, false) => {
                // SAFETY: `mic` is 8 writable octets (checked non-null in `engine_job`; caller's contract).
                unsafe { job.mic.cast::<[u8; 8]>().write_unaligned(done.mic) };
                WLANSEC_OK
            }
            (true, true) if done.verified => WLANSEC_OK,
            (true, true) => WLANSEC_ERR_MIC_FAILURE,
            // The engine refused the batch before touching any job: some job's AAD or
            // data length is out of its range. Each job alone tells which.
            (false, false) => match engine.seal(done.key, &job.nonce, done.aad, done.data) {
                Ok(mic) => {
                    // SAFETY: as above.
                    unsafe { job.mic.cast::<[u8; 8]>().write_unaligned(mic) };
                    WLANSEC_OK
                }
                Err(error) => error.into(),
            },
            (false, true) => match engine.open(done.key, &job.nonce, done.aad, done.data, &done.mic) {
                Ok(()) => WLANSEC_OK,
                Err(error) => error.into(),
            },
        };
        job.status = status as c_int;
    }
}

impl wlansec_burst {
    /// Run every submitted job not yet done, in runs of one operation.
    fn flush(&mut self) {
        let ops = &self.ops.make_contiguous()[self.completed..];
        let mut start = self.completed;
        for run in ops.chunk_by(|a, b| a == b) {
            let end = start + run.len();
            let jobs = &mut self.queue.make_contiguous()[start..end];
            let mut list = take_list(&mut self.spare);
            // SAFETY: the jobs were submitted under `wlansec_burst_submit`'s contract, which
            // keeps their buffers valid and unshared until they are polled.
            unsafe { run_jobs(self.engine, &mut list, run[0] == wlansec_op::WLANSEC_OP_OPEN, jobs) };
            keep_list(&mut self.spare, list);
            start = end;
        }
        self.completed = self.queue.len();
    }
}

/// Make a burst context whose queue holds up to `capacity` (at least 1) submitted jobs not
/// yet polled, and store it in `*out` (NULL on failure). It runs on the fastest engine
/// backend of this CPU (`wlansec_backend_name`).
///
/// # Safety
/// `out` is valid for a write of a pointer.
#[no_mangle]
pub unsafe extern "C" fn wlansec_burst_new(capacity: usize, out: *mut *mut wlansec_burst) -> wlansec_status {
    guard(|| {
        if out.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { out.write(core::ptr::null_mut()) };
        if capacity == 0 {
            return Err(WLANSEC_ERR_INVALID_ARGUMENT);
        }
        let burst = wlansec_burst {
            engine: Engine::new(),
            capacity,
            queue: VecDeque::with_capacity(capacity.min(1 << 16)),
            ops: VecDeque::with_capacity(capacity.min(1 << 16)),
            completed: 0,
            spare: Vec::with_capacity(TASK_CHUNK),
        };
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { put(out, Box::into_raw(Box::new(burst))) };
        Ok(())
    })
}

/// Free a burst context. Jobs still queued are dropped: those not yet run are left
/// untouched, those run but not polled are done. NULL is ignored.
///
/// # Safety
/// `burst` is NULL or a context from `wlansec_burst_new` not freed before and not in use.
#[no_mangle]
pub unsafe extern "C" fn wlansec_burst_free(burst: *mut wlansec_burst) {
    if !burst.is_null() {
        // SAFETY: made by `Box::into_raw` in `wlansec_burst_new`, not freed before (caller's
        // contract). It holds no key material.
        drop(unsafe { Box::from_raw(burst) });
    }
}

/// The shared body of `wlansec_burst_seal` and `wlansec_burst_open`.
///
/// # Safety
/// As `wlansec_burst_seal`.
unsafe fn at_once(burst: *mut wlansec_burst, open: bool, jobs: *mut wlansec_job, n: usize) -> wlansec_status {
    guard(|| {
        // SAFETY: NULL or a live context used by no other thread now (caller's contract).
        let burst = unsafe { burst.as_mut() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        if n == 0 {
            return Ok(());
        }
        if jobs.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `n` jobs at `jobs`, exclusive for the call (caller's contract); `n` jobs
        // exist in memory, so their size fits in isize.
        let jobs = unsafe { core::slice::from_raw_parts_mut(jobs, n) };
        let mut list = take_list(&mut burst.spare);
        // SAFETY: the jobs' pointers as `wlansec_job` requires (caller's contract).
        unsafe { run_jobs(burst.engine, &mut list, open, jobs) };
        keep_list(&mut burst.spare, list);
        Ok(())
    })
}

/// Seal `n` jobs on the engine, interleaved across its lanes; returns when all are done,
/// each job's `status` telling its outcome (the call itself fails only for a NULL `burst`,
/// or a NULL `jobs` with `n` > 0). The queue is not involved.
///
/// # Safety
/// `burst` is a live context no other thread uses during the call; `jobs` points to `n`
/// writable jobs whose pointers are valid as `wlansec_job` describes; no two jobs' `data`
/// or `mic` overlap each other or any other buffer of the call.
#[no_mangle]
pub unsafe extern "C" fn wlansec_burst_seal(
    burst: *mut wlansec_burst,
    jobs: *mut wlansec_job,
    n: usize,
) -> wlansec_status {
    // SAFETY: the caller's contract is `at_once`'s.
    unsafe { at_once(burst, false, jobs, n) }
}

/// Open `n` jobs (as `wlansec_burst_seal`): a job whose MIC fails gets
/// `WLANSEC_ERR_MIC_FAILURE` and keeps its ciphertext.
///
/// # Safety
/// As `wlansec_burst_seal`.
#[no_mangle]
pub unsafe extern "C" fn wlansec_burst_open(
    burst: *mut wlansec_burst,
    jobs: *mut wlansec_job,
    n: usize,
) -> wlansec_status {
    // SAFETY: the caller's contract is `at_once`'s.
    unsafe { at_once(burst, true, jobs, n) }
}

/// Queue `n` jobs for operation `op` (a `wlansec_op`), copying the job descriptors (not
/// their buffers). Whenever a whole engine batch (64 jobs) is waiting, the queue runs what
/// it holds before returning. `*accepted` (if not NULL) is how many jobs were queued: all
/// of them, or as many as the capacity left room for, and then the call returns
/// `WLANSEC_ERR_QUEUE_FULL`.
///
/// # Safety
/// `burst` is a live context no other thread uses during the call; `jobs` points to `n`
/// readable jobs; every queued job's key and buffers stay valid, and are neither read nor
/// written by the caller, until `wlansec_burst_poll` hands the job back (or the context is
/// freed); no two queued jobs' `data` or `mic` overlap.
#[no_mangle]
pub unsafe extern "C" fn wlansec_burst_submit(
    burst: *mut wlansec_burst,
    op: u32,
    jobs: *const wlansec_job,
    n: usize,
    accepted: *mut usize,
) -> wlansec_status {
    // SAFETY: NULL or valid for a write (caller's contract).
    unsafe { put(accepted, 0) };
    guard(|| {
        // SAFETY: NULL or a live context used by no other thread now (caller's contract).
        let burst = unsafe { burst.as_mut() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        let op = match op {
            0 => wlansec_op::WLANSEC_OP_SEAL,
            1 => wlansec_op::WLANSEC_OP_OPEN,
            _ => return Err(WLANSEC_ERR_INVALID_ARGUMENT),
        };
        if n == 0 {
            return Ok(());
        }
        if jobs.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `n` readable jobs at `jobs` (caller's contract).
        let jobs = unsafe { core::slice::from_raw_parts(jobs, n) };
        let room = burst.capacity - burst.queue.len();
        let taken = &jobs[..n.min(room)];
        burst.queue.extend(taken);
        burst.ops.extend(taken.iter().map(|_| op));
        if burst.queue.len() - burst.completed >= TASK_CHUNK {
            burst.flush();
        }
        // SAFETY: NULL or valid for a write (caller's contract).
        unsafe { put(accepted, taken.len()) };
        match taken.len() == n {
            true => Ok(()),
            false => Err(WLANSEC_ERR_QUEUE_FULL),
        }
    })
}

/// Run every queued job not yet run (fewer than a whole batch), so that `wlansec_burst_poll`
/// can hand back everything submitted.
///
/// # Safety
/// `burst` is a live context no other thread uses during the call.
#[no_mangle]
pub unsafe extern "C" fn wlansec_burst_flush(burst: *mut wlansec_burst) -> wlansec_status {
    guard(|| {
        // SAFETY: NULL or a live context used by no other thread now (caller's contract).
        let burst = unsafe { burst.as_mut() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        burst.flush();
        Ok(())
    })
}

/// Copy up to `max` finished jobs, oldest first, to `out` (each with its `status` and
/// `user_data`) and drop them from the queue; returns how many. Their buffers are the
/// caller's again. 0 for a NULL `burst` or `out`.
///
/// # Safety
/// `burst` is NULL or a live context no other thread uses during the call; `out` is NULL
/// or points to `max` writable jobs.
#[no_mangle]
pub unsafe extern "C" fn wlansec_burst_poll(burst: *mut wlansec_burst, out: *mut wlansec_job, max: usize) -> usize {
    let mut polled = 0;
    let status = guard(|| {
        // SAFETY: NULL or a live context used by no other thread now (caller's contract).
        let Some(burst) = (unsafe { burst.as_mut() }) else {
            return Ok(());
        };
        if out.is_null() {
            return Ok(());
        }
        let count = max.min(burst.completed);
        burst.ops.drain(..count);
        for (at, job) in burst.queue.drain(..count).enumerate() {
            // SAFETY: `at` < `max`, and `out` has `max` writable jobs (caller's contract).
            unsafe { out.add(at).write(job) };
        }
        burst.completed -= count;
        polled = count;
        Ok(())
    });
    match status {
        WLANSEC_OK => polled,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_list_keeps_its_allocation_from_call_to_call() {
        let mut spare: Vec<Job<'static>> = Vec::with_capacity(TASK_CHUNK);
        let pointer = spare.as_ptr();
        let list = take_list(&mut spare);
        assert_eq!((list.capacity(), list.as_ptr()), (TASK_CHUNK, pointer));
        keep_list(&mut spare, list);
        assert_eq!((spare.capacity(), spare.as_ptr()), (TASK_CHUNK, pointer));
    }
}
