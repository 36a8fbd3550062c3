//! A counting global allocator: every alloc, alloc_zeroed and realloc counts one.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

pub struct Counting;
pub static ALLOCS: AtomicU64 = AtomicU64::new(0);
pub static BYTES: AtomicU64 = AtomicU64::new(0);
/// Off unless a run asks (`--count-allocs`): then the CPU runs pay one load per allocation.
pub static ON: AtomicBool = AtomicBool::new(false);

#[inline]
fn count(n: usize) {
    if ON.load(Relaxed) {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(n as u64, Relaxed);
        maybe_trace(n);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size());
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count(l.size());
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count(n);
        unsafe { System.realloc(p, l, n) }
    }
}

pub fn allocs() -> u64 {
    ALLOCS.load(Relaxed)
}

/// While > 0, each counted allocation also records a backtrace (this many more).
pub static TRACE: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static IN_TRACE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    pub static TRACES: std::cell::RefCell<Vec<(usize, std::backtrace::Backtrace)>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[inline]
fn maybe_trace(size: usize) {
    if TRACE.load(Relaxed) == 0 || IN_TRACE.with(|f| f.replace(true)) {
        return;
    }
    TRACE.fetch_sub(1, Relaxed);
    let bt = std::backtrace::Backtrace::force_capture();
    TRACES.with(|t| t.borrow_mut().push((size, bt)));
    IN_TRACE.with(|f| f.set(false));
}
