//! The per-core engine (wlansec-core's `engine::percore`): one worker thread per core,
//! pinned, each holding its stations' keys, transmit PN counters and receive replay
//! counters, fed through a submission ring and answering through a completion ring. Frames
//! travel as packets: whole MPDUs in buffers the library allocates, handed to the engine by
//! `wlansec_engine_submit` and back by `wlansec_engine_poll`.

use core::ffi::c_int;
use core::time::Duration;

use wlansec_core::engine::percore::{Direction, Packet, PerCoreEngine, DEFAULT_RING_CAPACITY};
use wlansec_core::engine::{Engine, Mode, Ways};

use crate::status::wlansec_status::{self, *};
use crate::{bytes, guard, put};

/// The most workers `wlansec_engine_new` starts.
pub const WLANSEC_MAX_CORES: usize = 1024;
/// The most packets `wlansec_engine_new` lets a worker hold in flight.
pub const WLANSEC_MAX_RING_CAPACITY: usize = 1 << 20;
/// The longest MPDU a packet takes: more than any the engine protects (CCMP's length field
/// counts at most 65535 data octets, a MAC header at most 36).
pub const WLANSEC_MAX_MPDU_LEN: usize = 1 << 17;

/// What `wlansec_engine_submit` does to its packets.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum wlansec_direction {
    /// Protect each plaintext MPDU with its station's key and next PN (transmit).
    WLANSEC_PROTECT = 0,
    /// Verify, replay-check and decrypt each protected MPDU from its station (receive).
    WLANSEC_UNPROTECT = 1,
}

/// The per-core engine (opaque). Made by `wlansec_engine_new`, freed by `wlansec_engine_free`.
pub struct wlansec_engine {
    engine: PerCoreEngine,
    /// The packets of one `submit` or `poll` call as the Rust engine takes them (boxes: a
    /// handle is a box's pointer); empty between calls, kept for its allocation.
    #[allow(clippy::vec_box, reason = "the engine takes and gives packets as boxes")]
    scratch: Vec<Box<Packet>>,
}

/// One frame for the per-core engine (opaque): an MPDU in a buffer with room for the
/// protection overhead, its station and the caller's tag. Made by `wlansec_packet_new`,
/// freed by `wlansec_packet_free`; reused by filling it again.
#[repr(transparent)]
pub struct wlansec_packet(Packet);

/// The packet behind a handle: a `wlansec_packet` is a `Packet` (`repr(transparent)`), so a
/// handle is the pointer of the packet's `Box`.
fn into_handle(packet: Box<Packet>) -> *mut wlansec_packet {
    Box::into_raw(packet).cast()
}

/// Make a per-core engine of `cores` workers (0: one per core this process may run on; at
/// most `WLANSEC_MAX_CORES`), each holding at most `ring_capacity` packets in flight (0: 1024;
/// at most `WLANSEC_MAX_RING_CAPACITY`), and store it in `*out` (NULL on failure). The workers start at once and are pinned to a core each where the OS allows.
///
/// # Safety
/// `out` is valid for a write of a pointer.
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_new(
    cores: usize,
    ring_capacity: usize,
    out: *mut *mut wlansec_engine,
) -> wlansec_status {
    guard(|| {
        if out.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { out.write(core::ptr::null_mut()) };
        let cores = match cores {
            0 => PerCoreEngine::available_cores(),
            n => n,
        };
        let capacity = match ring_capacity {
            0 => DEFAULT_RING_CAPACITY,
            n => n,
        };
        if cores > WLANSEC_MAX_CORES || capacity > WLANSEC_MAX_RING_CAPACITY {
            return Err(WLANSEC_ERR_INVALID_ARGUMENT);
        }
        let engine = PerCoreEngine::with_ring_capacity(cores, Engine::new(), capacity);
        let handle = wlansec_engine { scratch: Vec::with_capacity(capacity), engine };
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { put(out, Box::into_raw(Box::new(handle))) };
        Ok(())
    })
}

/// Stop the engine's workers and free it, with every packet still in flight (submitted and
/// not polled). NULL is ignored.
///
/// # Safety
/// `engine` is NULL or an engine from `wlansec_engine_new` not freed before and not in use.
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_free(engine: *mut wlansec_engine) {
    if !engine.is_null() {
        // SAFETY: made by `Box::into_raw` in `wlansec_engine_new`, not freed before (caller's
        // contract). Dropping joins the workers and zeroizes the stations' keys.
        let engine = unsafe { Box::from_raw(engine) };
        // A panic while the workers stop must not unwind into C; the engine is gone either way.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(engine)));
    }
}

/// The number of workers. 0 for NULL.
///
/// # Safety
/// `engine` is NULL or a live engine no other thread uses during the call.
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_cores(engine: *const wlansec_engine) -> usize {
    // SAFETY: NULL or a live engine (caller's contract).
    unsafe { engine.as_ref() }.map_or(0, |e| e.engine.cores())
}

/// Install (or replace) the pairwise key of `station` for the packets submitted after this
/// call: the 16-octet TK for CCMP-128 (`ways` = 1) or Enhanced CCMP-N (`ways` = N = 2, 4,
/// 8). Its transmit PN restarts at 1 and its replay counters at 0. The engine's frames
/// carry Key ID 0.
///
/// # Safety
/// `engine` is a live engine no other thread uses during the call; `tk` points to `tk_len`
/// readable octets (copied).
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_add_station(
    engine: *mut wlansec_engine,
    station: u32,
    ways: u32,
    tk: *const u8,
    tk_len: usize,
) -> wlansec_status {
    guard(|| {
        // SAFETY: NULL or a live engine used by no other thread now (caller's contract).
        let engine = unsafe { engine.as_mut() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        // SAFETY: `tk_len` readable octets (caller's contract).
        let tk = unsafe { bytes(tk, tk_len) }?;
        let ways = Ways::new(ways as usize).map_err(|_| WLANSEC_ERR_INVALID_ARGUMENT)?;
        Ok(engine.engine.add_station(station, tk, Mode::enhanced(ways))?)
    })
}

/// Hand packets from the front of `packets[0..n)` to the engine for `direction` (a
/// `wlansec_direction`), in order, until one finds its worker's ring full. `*accepted` is how
/// many the engine took: it owns them now, and their entries in `packets` are set to NULL;
/// the rest stay the caller's, unchanged. `WLANSEC_ERR_QUEUE_FULL` when the first packet's
/// worker was full (nothing taken). A packet for a station without a key is taken and
/// completes with `WLANSEC_ERR_NO_KEY`.
///
/// # Safety
/// `engine` is a live engine no other thread uses during the call; `packets` points to `n`
/// writable entries, each a live packet handle the caller owns (none twice).
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_submit(
    engine: *mut wlansec_engine,
    direction: u32,
    packets: *mut *mut wlansec_packet,
    n: usize,
    accepted: *mut usize,
) -> wlansec_status {
    // SAFETY: NULL or valid for a write (caller's contract).
    unsafe { put(accepted, 0) };
    // SAFETY: NULL or a live engine used by no other thread now (caller's contract).
    let Some(engine) = (unsafe { engine.as_mut() }) else {
        return WLANSEC_ERR_NULL_POINTER;
    };
    let status = guard(|| {
        let direction = match direction {
            0 => Direction::Protect,
            1 => Direction::Unprotect,
            _ => return Err(WLANSEC_ERR_INVALID_ARGUMENT),
        };
        if n == 0 {
            return Ok(());
        }
        if packets.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `n` writable entries (caller's contract).
        let handles = unsafe { core::slice::from_raw_parts_mut(packets, n) };
        if handles.iter().any(|handle| handle.is_null()) {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: each entry is a live packet the caller owns, made by `Box::into_raw` of a
        // `Box<Packet>` (`into_handle`); the entries not taken go back below.
        engine.scratch.extend(handles.iter().map(|&handle| unsafe { Box::from_raw(handle.cast::<Packet>()) }));
        let taken = engine.engine.submit(direction, &mut engine.scratch);
        let taken = taken.map_err(|_| WLANSEC_ERR_QUEUE_FULL)?;
        for handle in &mut handles[..taken] {
            *handle = core::ptr::null_mut();
        }
        // SAFETY: NULL or valid for a write (caller's contract).
        unsafe { put(accepted, taken) };
        Ok(())
    });
    // The packets not taken are the caller's again, at their old addresses (also after a panic).
    for packet in engine.scratch.drain(..) {
        into_handle(packet);
    }
    status
}

/// Move up to `max` completed packets to `out[0..)`; returns how many. The caller owns them
/// again (any thread may use them); `wlansec_packet_result` tells each one's outcome. A
/// station's packets come back in the order they were submitted. 0 for a NULL `engine` or
/// `out`.
///
/// # Safety
/// `engine` is NULL or a live engine no other thread uses during the call; `out` is NULL or
/// points to `max` writable entries.
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_poll(
    engine: *mut wlansec_engine,
    out: *mut *mut wlansec_packet,
    max: usize,
) -> usize {
    // SAFETY: NULL or a live engine used by no other thread now (caller's contract).
    let Some(engine) = (unsafe { engine.as_mut() }) else {
        return 0;
    };
    if out.is_null() {
        return 0;
    }
    let mut moved = 0;
    let _ = guard(|| {
        engine.engine.poll(&mut engine.scratch, max);
        Ok(())
    });
    for (at, packet) in engine.scratch.drain(..).enumerate() {
        // SAFETY: `poll` moved at most `max` packets, and `out` has `max` writable entries.
        unsafe { out.add(at).write(into_handle(packet)) };
        moved += 1;
    }
    moved
}

/// Wait until `count` completions (or all those in flight, if fewer) are ready to poll: 1,
/// or 0 when `timeout_us` microseconds passed first. Waiting for many at a time keeps the
/// caller off the workers' cores: they wake it once, when enough are ready. Packets held by
/// a worker that stopped never complete: see `wlansec_engine_stopped`.
///
/// # Safety
/// `engine` is NULL or a live engine no other thread uses during the call.
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_wait(engine: *mut wlansec_engine, count: usize, timeout_us: u64) -> c_int {
    // SAFETY: NULL or a live engine used by no other thread now (caller's contract).
    let Some(engine) = (unsafe { engine.as_mut() }) else {
        return 0;
    };
    let mut ready = false;
    let _ = guard(|| {
        ready = engine.engine.wait_for(count, Duration::from_micros(timeout_us));
        Ok(())
    });
    c_int::from(ready)
}

/// 1 if a worker thread has ended while the engine lives (a panic inside the engine), else 0
/// (also for NULL). The packets that worker held never complete: a caller waiting for them
/// should stop and free the engine.
///
/// # Safety
/// `engine` is NULL or a live engine no other thread uses during the call.
#[no_mangle]
pub unsafe extern "C" fn wlansec_engine_stopped(engine: *const wlansec_engine) -> c_int {
    // SAFETY: NULL or a live engine (caller's contract).
    c_int::from(unsafe { engine.as_ref() }.is_some_and(|e| e.engine.worker_stopped()))
}

/// Make an empty packet whose buffer holds an MPDU of `mpdu_capacity` octets (at most
/// `WLANSEC_MAX_MPDU_LEN`), protected, without growing (it grows for longer ones), and store
/// it in `*out` (NULL on failure).
///
/// # Safety
/// `out` is valid for a write of a pointer.
#[no_mangle]
pub unsafe extern "C" fn wlansec_packet_new(mpdu_capacity: usize, out: *mut *mut wlansec_packet) -> wlansec_status {
    guard(|| {
        if out.is_null() {
            return Err(WLANSEC_ERR_NULL_POINTER);
        }
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { out.write(core::ptr::null_mut()) };
        if mpdu_capacity > WLANSEC_MAX_MPDU_LEN {
            return Err(WLANSEC_ERR_INVALID_ARGUMENT);
        }
        let packet = into_handle(Box::new(Packet::with_capacity(mpdu_capacity)));
        // SAFETY: `out` is valid for a write (caller's contract).
        unsafe { put(out, packet) };
        Ok(())
    })
}

/// Free a packet the caller owns. NULL is ignored.
///
/// # Safety
/// `packet` is NULL or a live packet the caller owns (not in flight), not freed before.
#[no_mangle]
pub unsafe extern "C" fn wlansec_packet_free(packet: *mut wlansec_packet) {
    if !packet.is_null() {
        // SAFETY: made by `into_handle` and owned by the caller (caller's contract).
        drop(unsafe { Box::from_raw(packet.cast::<Packet>()) });
    }
}

/// Fill a packet with a copy of the MPDU `mpdu[0..len)` (at most `WLANSEC_MAX_MPDU_LEN`
/// octets) for (or from) `station`, tagged `tag` (returned by `wlansec_packet_tag`, not read
/// by the library).
///
/// # Safety
/// `packet` is a live packet the caller owns; `mpdu` points to `len` readable octets.
#[no_mangle]
pub unsafe extern "C" fn wlansec_packet_set(
    packet: *mut wlansec_packet,
    station: u32,
    tag: u64,
    mpdu: *const u8,
    len: usize,
) -> wlansec_status {
    guard(|| {
        // SAFETY: NULL or a live packet the caller owns (caller's contract).
        let packet = unsafe { packet.as_mut() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        // SAFETY: `len` readable octets (caller's contract).
        let mpdu = unsafe { bytes(mpdu, len) }?;
        if len > WLANSEC_MAX_MPDU_LEN {
            return Err(WLANSEC_ERR_INVALID_ARGUMENT);
        }
        packet.0.set(station, tag, mpdu);
        Ok(())
    })
}

/// The packet's outcome: `WLANSEC_OK` with its MPDU (before submission: as filled; after
/// completion: protected or opened) in `*mpdu`, `*len`, or why the engine refused it. The
/// MPDU pointer is valid until the packet is filled, submitted or freed.
///
/// # Safety
/// `packet` is a live packet the caller owns; `mpdu` and `len` are NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn wlansec_packet_result(
    packet: *const wlansec_packet,
    mpdu: *mut *const u8,
    len: *mut usize,
) -> wlansec_status {
    guard(|| {
        // SAFETY: NULL or a live packet the caller owns (caller's contract).
        let packet = unsafe { packet.as_ref() }.ok_or(WLANSEC_ERR_NULL_POINTER)?;
        let result = packet.0.result().map_err(|error| wlansec_status::from(error.clone()))?;
        // SAFETY: each NULL or valid for a write (caller's contract).
        unsafe {
            put(mpdu, result.as_ptr());
            put(len, result.len());
        }
        Ok(())
    })
}

/// The caller's tag of the packet (0 for NULL).
///
/// # Safety
/// `packet` is NULL or a live packet the caller owns.
#[no_mangle]
pub unsafe extern "C" fn wlansec_packet_tag(packet: *const wlansec_packet) -> u64 {
    // SAFETY: NULL or a live packet (caller's contract).
    unsafe { packet.as_ref() }.map_or(0, |p| p.0.tag())
}

/// The packet's station (0 for NULL).
///
/// # Safety
/// `packet` is NULL or a live packet the caller owns.
#[no_mangle]
pub unsafe extern "C" fn wlansec_packet_station(packet: *const wlansec_packet) -> u32 {
    // SAFETY: NULL or a live packet (caller's contract).
    unsafe { packet.as_ref() }.map_or(0, |p| p.0.station())
}
