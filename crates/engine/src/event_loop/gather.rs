//! How long a loop lets completions gather before it handles them. A loop that wakes for
//! every single completion answers each response with a write of its own: one TCP segment
//! per request each way, and a sleep and a wake-up per pass, which on a VM cost more than
//! the request. Waiting a moment for more completions, when many connections await answers,
//! makes each pass (and each write) carry several, and the server's reads with them. A
//! completion is a connection's (an epoll event, a receive), however many answers it
//! brings, so the count waited for is of connections (Ledger::gather).
//!
//! The wait delays the moment a response is seen, so it is bounded by the latency the
//! loop measures: at most 1/50 of its recent response time (so latency reads at most 2%
//! high), never over 50 µs, and none when few connections await answers (a wait for more
//! completions than can come would only add the bound to every response).

/// Most a loop waits for more completions, in microseconds.
const MAX_WAIT_US: u64 = 50;

/// The wait is at most this fraction of the recent response time.
const LATENCY_SHARE: u64 = 50;

/// A loop waits for this fraction of its connections awaiting answers to complete.
const AWAITING_SHARE: u64 = 8;

/// How many completions to wait for, and for how long at most before taking fewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gather {
    pub completions: usize,
    pub min_wait_us: u32,
}

impl Gather {
    /// Wake for the first completion.
    pub const NONE: Gather = Gather {
        completions: 1,
        min_wait_us: 0,
    };

    /// The gather for `awaiting` connections whose responses recently took `latency_ns`.
    pub fn of(awaiting: u64, latency_ns: u64) -> Gather {
        let completions = awaiting / AWAITING_SHARE;
        let wait_us = (latency_ns / LATENCY_SHARE / 1_000).min(MAX_WAIT_US);
        if completions < 2 || wait_us == 0 {
            return Gather::NONE;
        }
        Gather {
            completions: completions as usize,
            min_wait_us: wait_us as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_bounded_by_the_latency_and_needs_requests_in_flight() {
        assert_eq!(
            Gather::of(500, 5_000_000).min_wait_us,
            50,
            "capped at 50 µs"
        );
        assert_eq!(Gather::of(500, 5_000_000).completions, 62);
        assert_eq!(Gather::of(500, 500_000).min_wait_us, 10, "2% of 500 µs");
        assert_eq!(Gather::of(500, 40_000), Gather::NONE, "under 1 µs: no wait");
        assert_eq!(Gather::of(10, 5_000_000), Gather::NONE, "too few in flight");
        assert_eq!(Gather::of(0, 0), Gather::NONE);
    }
}
