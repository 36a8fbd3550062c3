//! Waiting for a count another thread keeps: a test server counts what it did after the
//! client has seen it, so a test reads the count once it catches up.

use std::time::{Duration, Instant};

/// `get()` once `done` holds for it, or its last value after a generous deadline (a busy
/// machine is slow, not stuck; the caller's assertion then names what fell short).
pub fn until(get: impl Fn() -> u64, done: impl Fn(u64) -> bool) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = get();
        if done(got) || Instant::now() > deadline {
            return got;
        }
        // Between polls only.
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `get()` once it reaches `want`, or its last value after the deadline.
pub fn at_least(get: impl Fn() -> u64, want: u64) -> u64 {
    until(get, |got| got >= want)
}
