//! One stream as the server sees it, from its HEADERS to its response's last frame.

use std::time::Instant;

/// A stream the server has taken on and not yet finished answering.
#[derive(Debug)]
pub(crate) struct Stream {
    /// Its place among the streams the connection took on, from 1.
    pub nth: u64,
    /// Octets of DATA the client lets the server send on it (negative after the client
    /// shrinks SETTINGS_INITIAL_WINDOW_SIZE, RFC 9113 §6.9.2).
    pub window: i64,
    /// A HEAD request: the response has no body.
    pub head: bool,
    pub state: State,
    /// The request as it came, its body included (kept under `Sum` only).
    pub seen: crate::Seen,
}

/// Where a stream is.
#[derive(Debug)]
pub(crate) enum State {
    /// The request's body (or trailers) still to come.
    Receiving,
    /// The request is complete; its answer is due at this time.
    Due(Instant),
    /// HEADERS sent; the body goes out as the windows allow.
    Sending(Body),
}

/// A response body being sent.
#[derive(Debug)]
pub(crate) struct Body {
    pub octets: Vec<u8>,
    /// Octets sent so far.
    pub sent: usize,
    /// Send it as one DATA frame, whatever the client's MAX_FRAME_SIZE (to break it).
    pub one_frame: bool,
}

impl Stream {
    /// A stream just opened, the `nth` of its connection, with the client's initial window.
    pub(crate) fn new(nth: u64, window: u32, head: bool, seen: crate::Seen) -> Stream {
        Stream {
            nth,
            window: i64::from(window),
            head,
            state: State::Receiving,
            seen,
        }
    }
}
