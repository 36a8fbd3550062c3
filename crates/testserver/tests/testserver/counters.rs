//! The server's counters as the HTTP/2 tests read them: a counter lags the bytes slightly
//! (an answer counts once its write returns), so it is polled for the value wanted.

use std::thread;
use std::time::{Duration, Instant};

/// Waits for a counter to reach a value: for a minute at most, which only a stuck server
/// needs.
pub fn wait_for(what: &str, want: u64, get: impl Fn() -> u64) {
    let end = Instant::now() + Duration::from_secs(60);
    while get() != want && Instant::now() < end {
        // Between polls only.
        thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(get(), want, "{what}");
}
