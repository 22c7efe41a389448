//! The per-core engine's workers allocate nothing per frame, and dropping the engine frees
//! the packets it still holds. A counting global allocator watches every thread, the
//! engine's workers included, so this binary holds this one test: nothing else of its own
//! runs beside it (the harness's main thread only waits for it).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::time::Duration;

use wlansec_core::engine::percore::{Direction, Packet, PerCoreEngine};
use wlansec_core::engine::sharded::{FrameBatch, ShardedEngine};
use wlansec_core::engine::{Engine, Mode};
use wlansec_core::gen::{self, ChaCha8Rng, SeedableRng, Shapes};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call goes on to the system allocator with the same arguments, so `Counting`
// keeps `System`'s contract; counting touches only atomics, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's `layout` contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above, that is from `System.alloc` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::Relaxed)
}

fn frames(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut f = Vec::new();
            gen::random_mpdu(&mut rng, Shapes { management: false }, 1500, &mut f);
            f
        })
        .collect()
}

#[test]
fn per_core_engine_allocates_nothing_per_frame_and_frees_frames_in_flight_on_drop() {
    sharded_calls_allocate_nothing_in_steady_state(ShardedEngine::new(2, Engine::new()));
    sharded_calls_allocate_nothing_in_steady_state(ShardedEngine::inline(Engine::new()));
    dropping_the_engine_frees_the_packets_in_flight();
}

/// The workers (two threads, or the caller's thread inline) keep their scratch (job lists,
/// chunk) and the batch keeps its packets and their buffers across calls; the rings are
/// allocated once: after a first call has sized everything, a call allocates nothing on
/// any thread.
fn sharded_calls_allocate_nothing_in_steady_state(mut engine: ShardedEngine) {
    let frames = frames(6, 512);
    let add_stations = |engine: &mut ShardedEngine| {
        for station in 0..8 {
            engine.add_station(station, &[station as u8; 16], Mode::CCMP128).unwrap();
        }
    };
    add_stations(&mut engine);
    let mut batch = FrameBatch::new();
    let fill = |batch: &mut FrameBatch, frames: &[Vec<u8>]| {
        batch.clear();
        for (i, frame) in frames.iter().enumerate() {
            batch.push(i as u32 % 8, frame);
        }
    };
    // The first calls size the batch's buffers and the workers' lists.
    fill(&mut batch, &frames);
    engine.protect(&mut batch).unwrap();
    let protected: Vec<Vec<u8>> = batch.iter().map(|(_, r)| r.unwrap().to_vec()).collect();
    fill(&mut batch, &protected);
    engine.unprotect(&mut batch).unwrap();

    fill(&mut batch, &frames);
    let before = allocations();
    engine.protect(&mut batch).unwrap();
    assert_eq!(allocations() - before, 0, "protect");
    // Re-installed keys restart the replay counters, so the same frames open again.
    add_stations(&mut engine);
    fill(&mut batch, &protected);
    let before = allocations();
    engine.unprotect(&mut batch).unwrap();
    assert_eq!(allocations() - before, 0, "unprotect");
    assert!(batch.iter().all(|(_, r)| r.is_ok()));
}

/// An engine dropped while its workers hold submitted packets (some worked, waiting in the
/// completion rings, some not yet taken) returns promptly and frees them all: the heap is
/// as it was before the engine was made. A first round warms up what the runtime sets up
/// once (thread bookkeeping).
fn dropping_the_engine_frees_the_packets_in_flight() {
    let frames = frames(7, 256);
    for round in 0..2 {
        let live = LIVE_BYTES.load(Ordering::Relaxed);
        let mut engine = PerCoreEngine::with_ring_capacity(2, Engine::new(), 64);
        for station in 0..4 {
            engine.add_station(station, &[station as u8; 16], Mode::CCMP128).unwrap();
        }
        let mut packets: Vec<Box<Packet>> = frames
            .iter()
            .enumerate()
            .map(|(i, frame)| {
                let mut packet = Box::new(Packet::new());
                packet.set(i as u32 % 4, i as u64, frame);
                packet
            })
            .collect();
        let taken = engine.submit(Direction::Protect, &mut packets).unwrap();
        assert_eq!(taken, 128, "two rings of 64");
        // Some completions are ready, the rest are in the rings: drop it all.
        assert!(engine.wait(Duration::from_secs(10)));
        drop(engine);
        drop(packets);
        if round == 1 {
            assert_eq!(LIVE_BYTES.load(Ordering::Relaxed), live, "bytes still allocated after the drop");
        }
    }
}
