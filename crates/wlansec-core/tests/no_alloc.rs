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
