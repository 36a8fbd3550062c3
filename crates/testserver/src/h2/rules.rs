//! What each [`H2Behavior`] changes in a connection's work, one question at a time.

use std::time::Duration;

use super::error_code::ErrorCode;
use super::frame::LARGEST_FRAME;
use super::response::Block;
use super::settings::{INITIAL_WINDOW_SIZE, MAX_CONCURRENT_STREAMS};
use super::{H2Behavior, RstCode};
use crate::reply::BODY;

/// Streams a connection takes on at once unless the behavior says otherwise.
const DEFAULT_MAX_CONCURRENT: u32 = 100;
/// The pattern of a body longer than "Hello World".
const FILL: u8 = b'x';

/// A response about to be sent.
pub(crate) struct Plan {
    pub block: Block,
    pub body: Vec<u8>,
    /// Send the body as one DATA frame, past the client's MAX_FRAME_SIZE.
    pub one_frame: bool,
}

/// How a connection ends on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// GOAWAY with this error code, then close.
    GoAway(ErrorCode),
    /// Close (FIN) with no GOAWAY.
    Close,
}

impl H2Behavior {
    /// The SETTINGS the server sends first.
    pub(crate) fn settings(&self) -> Vec<(u16, u32)> {
        let mut pairs = vec![(MAX_CONCURRENT_STREAMS, self.max_concurrent())];
        if *self == H2Behavior::ZeroWindow {
            pairs.push((INITIAL_WINDOW_SIZE, 0));
        }
        pairs
    }

    /// Streams a connection takes on at once; one more is refused.
    pub(crate) fn max_concurrent(&self) -> u32 {
        match self {
            H2Behavior::MaxConcurrentStreams(n) => *n,
            _ => DEFAULT_MAX_CONCURRENT,
        }
    }

    /// How long after its request completes a stream is answered.
    pub(crate) fn delay(&self) -> Duration {
        match self {
            H2Behavior::Delay(delay) => *delay,
            _ => Duration::ZERO,
        }
    }

    /// The RST_STREAM the connection's `nth` stream (from 1) gets instead of a response.
    pub(crate) fn reset(&self, nth: u64) -> Option<ErrorCode> {
        match self {
            H2Behavior::RstEvery { every, code } if nth.is_multiple_of(u64::from(*every)) => {
                Some(match code {
                    RstCode::Refused => ErrorCode::Refused,
                    RstCode::Internal => ErrorCode::Internal,
                })
            }
            _ => None,
        }
    }

    /// The stream (its place on the connection, from 1) whose opening sends GOAWAY.
    pub(crate) fn goaway_at(&self) -> Option<u64> {
        match self {
            H2Behavior::GoawayAfter(n) => Some(u64::from(*n)),
            _ => None,
        }
    }

    /// Whether a stream's window is granted back as its request body arrives.
    pub(crate) fn grants_stream_window(&self) -> bool {
        *self != H2Behavior::ZeroWindow
    }

    /// Whether the connection's window is granted back for body octets arriving when
    /// `received` octets of bodies came before them on the connection.
    pub(crate) fn grants_connection_window(&self, received: u64) -> bool {
        match self {
            H2Behavior::ZeroWindow => false,
            H2Behavior::WindowStopsAfter(n) => received < *n,
            _ => true,
        }
    }

    /// The response a connection sends after beginning `begun` others; `max_frame` is the
    /// client's SETTINGS_MAX_FRAME_SIZE.
    pub(crate) fn plan(&self, begun: u64, head: bool, max_frame: u32) -> Plan {
        let after = |n: &u32| begun >= u64::from(*n);
        let (status, octets, one_frame) = match self {
            H2Behavior::Status(code) => (*code, BODY.to_vec(), false),
            H2Behavior::Body(len) => (200, vec![FILL; *len], false),
            // A client that allows the largest frame a header can announce gets that.
            H2Behavior::OversizedFrameAfter(n) if after(n) => {
                let len = max_frame.saturating_add(1).min(LARGEST_FRAME);
                (200, vec![FILL; len as usize], true)
            }
            _ => (200, BODY.to_vec(), false),
        };
        // These statuses never have a body (RFC 9110 §6.4.1), so no content-length either.
        let bodyless = status < 200 || status == 204 || status == 304;
        let content_length = (!bodyless).then_some(octets.len());
        let block = match self {
            H2Behavior::HpackGarbageAfter(n) if after(n) => Block::Garbage,
            H2Behavior::NoStatus => Block::NoStatus {
                content_length: octets.len(),
            },
            _ => Block::Valid {
                status,
                content_length,
            },
        };
        let body = if head || bodyless { Vec::new() } else { octets };
        Plan {
            block,
            body,
            one_frame,
        }
    }

    /// PINGs sent after each response.
    pub(crate) fn pings_per_response(&self) -> u32 {
        match self {
            H2Behavior::PingFlood(k) => *k,
            _ => 0,
        }
    }

    /// How a connection that has completed `answered` responses ends now, if it does.
    pub(crate) fn ending(&self, answered: u64) -> Option<Ending> {
        let after = |n: &u32| answered >= u64::from(*n);
        match self {
            H2Behavior::ProtocolErrorAfter(n) if after(n) => {
                Some(Ending::GoAway(ErrorCode::Protocol))
            }
            H2Behavior::CloseAfter(n) if after(n) => Some(Ending::Close),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kth_stream_is_reset_with_the_code_asked() {
        let b = H2Behavior::RstEvery {
            every: 3,
            code: RstCode::Refused,
        };
        let reset: Vec<_> = (1..=7).map(|nth| b.reset(nth)).collect();
        let r = Some(ErrorCode::Refused);
        assert_eq!(reset, [None, None, r, None, None, r, None]);
    }

    #[test]
    fn the_broken_response_comes_after_n_good_ones() {
        let b = H2Behavior::OversizedFrameAfter(2);
        let sizes: Vec<_> = (0..3)
            .map(|n| b.plan(n, false, 16_384).body.len())
            .collect();
        assert_eq!(sizes, [11, 11, 16_385]);
        let g = H2Behavior::HpackGarbageAfter(1);
        assert_ne!(g.plan(0, false, 16_384).block, Block::Garbage);
        assert_eq!(g.plan(1, false, 16_384).block, Block::Garbage);
    }

    #[test]
    fn a_head_request_or_a_204_gets_no_body() {
        assert!(H2Behavior::Hello.plan(0, true, 16_384).body.is_empty());
        let no_content = H2Behavior::Status(204).plan(0, false, 16_384);
        assert!(no_content.body.is_empty());
        let no_length = Block::Valid {
            status: 204,
            content_length: None,
        };
        assert_eq!(no_content.block, no_length);
    }
}
