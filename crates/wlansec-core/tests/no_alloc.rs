//! Encapsulation and decapsulation do no heap allocation per frame: a counting global
//! allocator watches a loop of protect/unprotect over every header shape. It counts per
//! thread: the test harness's own threads allocate whenever they like.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use wlansec_core::gen::{self, ChaCha8Rng, SeedableRng, Shapes};
use wlansec_core::suite::{Ccmp128, Receiver, Transmitter};

struct Counting;

thread_local! {
    // A const-initialised Cell: reaching it never allocates (no lazy initialisation).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every call goes on to the system allocator with the same arguments, so `Counting`
// keeps `System`'s contract; counting touches only a thread-local `Cell`, which never
// allocates (`try_with`: nothing is counted while the thread's locals are torn down).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's `layout` contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, that is from `System.alloc` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn protect_and_unprotect_allocate_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let frames: Vec<Vec<u8>> = (0..200)
        .map(|i| {
            let mut f = Vec::new();
            gen::random_mpdu(&mut rng, Shapes::default(), i * 11, &mut f);
            f
        })
        .collect();
    let mut buf = vec![0u8; 4096];
    let mut tx = Transmitter::new(Ccmp128::new(&[7u8; 16]).unwrap(), 0);
    let mut rx = Receiver::new(Ccmp128::new(&[7u8; 16]).unwrap());

    let before = allocations();
    for frame in &frames {
        buf[..frame.len()].copy_from_slice(frame);
        let len = tx.protect(&mut buf, frame.len()).unwrap();
        let done = rx.unprotect(&mut buf[..len]).unwrap();
        assert_eq!(done.mpdu_len, frame.len());
    }
    assert_eq!(allocations() - before, 0);
}

/// The sharded engine on one thread (the caller's, so the count sees all of its work) keeps
/// its frame buffers and its own scratch (layouts, job lists) across calls, and the
/// multi-buffer engine keeps its tasks on the stack: once the first call has sized
/// everything, a call allocates nothing.
#[test]
fn the_sharded_engine_allocates_nothing_in_steady_state() {
    use wlansec_core::engine::sharded::{FrameBatch, ShardedEngine};
    use wlansec_core::engine::{Engine, Mode};
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let frames: Vec<Vec<u8>> = (0..512)
        .map(|_| {
            let mut f = Vec::new();
            gen::random_mpdu(&mut rng, Shapes { management: false }, 1500, &mut f);
            f
        })
        .collect();
    let mut engine = ShardedEngine::new(1, Engine::new());
    for station in 0..8 {
        engine.add_station(station, &[station as u8; 16], Mode::CCMP128).unwrap();
    }
    let mut batch = FrameBatch::new();
    let fill = |batch: &mut FrameBatch, frames: &[Vec<u8>]| {
        batch.clear();
        for (i, frame) in frames.iter().enumerate() {
            batch.push(i as u32 % 8, frame);
        }
    };
    // The first call sizes the batch's buffers and the engine's queues.
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
    for station in 0..8 {
        engine.add_station(station, &[station as u8; 16], Mode::CCMP128).unwrap();
    }
    fill(&mut batch, &protected);
    let before = allocations();
    engine.unprotect(&mut batch).unwrap();
    assert_eq!(allocations() - before, 0, "unprotect");
    assert!(batch.iter().all(|(_, r)| r.is_ok()));
}
