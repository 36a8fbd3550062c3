//! What an HTTP/2 server does with each connection and stream, and how to name it on a
//! command line (`h2:NAME` or `h2:NAME:ARG`, beside the HTTP/1.1 names).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::behavior::{parse_duration, parse_num, Shown};
use crate::BehaviorError;

/// How an HTTP/2 server answers. "After N" counts responses on each connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum H2Behavior {
    /// `:status 200`, content-length, date and "Hello World" on every stream.
    Hello,
    /// Like `Hello`, each stream answered this long after its request completed.
    Delay(Duration),
    /// Like `Hello`, with this status (no body for 1xx, 204 and 304).
    Status(u16),
    /// Like `Hello`, with a body of this many octets: past 65 535 it needs the client's
    /// WINDOW_UPDATEs.
    Body(usize),
    /// Answers the client's preface with an HTTP/1.1 400 (no SETTINGS frame), then closes.
    BadPreface,
    /// Answers N streams per connection, then one whose DATA frame is one octet longer
    /// than the client's SETTINGS_MAX_FRAME_SIZE (unless that is already the largest a
    /// frame header can say, 2^24 - 1).
    OversizedFrameAfter(u32),
    /// SETTINGS_INITIAL_WINDOW_SIZE 0 and never a WINDOW_UPDATE: no request body can be
    /// sent (requests without one are answered).
    ZeroWindow,
    /// Grants the connection's window back for the first N octets of request bodies on
    /// each connection, then never again (streams' windows go on being granted).
    WindowStopsAfter(u64),
    /// On each connection, when the N-th stream opens: GOAWAY(NO_ERROR, last-stream-id =
    /// that stream); answers the streams up to it, ignores later ones, then closes.
    GoawayAfter(u32),
    /// Every `every`-th stream of a connection gets RST_STREAM with `code` in place of its
    /// response.
    RstEvery { every: u32, code: RstCode },
    /// Answers N streams per connection, then sends a HEADERS frame whose block is no
    /// valid HPACK (an index past both tables).
    HpackGarbageAfter(u32),
    /// SETTINGS_MAX_CONCURRENT_STREAMS of N; a stream beyond it gets RST_STREAM
    /// REFUSED_STREAM (RFC 9113 §5.1.2), counted in [`crate::TestServer::refused`].
    MaxConcurrentStreams(u32),
    /// Like `Hello`, and K PINGs after every response; acks counted.
    PingFlood(u32),
    /// Answers N streams per connection, then GOAWAY(PROTOCOL_ERROR) and closes: a
    /// connection error.
    ProtocolErrorAfter(u32),
    /// Every response's HEADERS lacks `:status` (malformed, RFC 9113 §8.3.2).
    NoStatus,
    /// Answers N streams per connection, then closes without a GOAWAY, streams still open.
    CloseAfter(u32),
    /// As the HTTP/1.1 [`crate::Behavior::Sum`]: the sum of every number in the
    /// request's :path query and body, each request kept ([`crate::TestServer::seen`]).
    Sum,
}

/// The error code of [`H2Behavior::RstEvery`]'s RST_STREAM frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RstCode {
    /// REFUSED_STREAM: the stream was not processed, a client may retry it.
    Refused,
    /// INTERNAL_ERROR: the stream failed.
    Internal,
}

/// The prefix that names an HTTP/2 behavior on a command line.
const PREFIX: &str = "h2:";

impl FromStr for H2Behavior {
    type Err = BehaviorError;

    /// Parses `h2:name` or `h2:name:arg`, e.g. `h2:hello`, `h2:goaway-after:100`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rest = s
            .strip_prefix(PREFIX)
            .ok_or_else(|| BehaviorError::NotH2(s.to_string()))?;
        let (name, arg) = match rest.split_once(':') {
            Some((name, arg)) => (name, Some(arg)),
            None => (rest, None),
        };
        let arg = || arg.ok_or_else(|| BehaviorError::NoArgument(format!("{PREFIX}{name}")));
        let behavior = match name {
            "hello" => H2Behavior::Hello,
            "sum" => H2Behavior::Sum,
            "delay" => H2Behavior::Delay(parse_duration(arg()?)?),
            "status" => H2Behavior::Status(parse_num(arg()?)?),
            "body" => H2Behavior::Body(parse_num(arg()?)?),
            "bad-preface" => H2Behavior::BadPreface,
            "oversized-frame-after" => H2Behavior::OversizedFrameAfter(parse_num(arg()?)?),
            "zero-window" => H2Behavior::ZeroWindow,
            "window-stops-after" => H2Behavior::WindowStopsAfter(parse_num(arg()?)?),
            "goaway-after" => H2Behavior::GoawayAfter(parse_num(arg()?)?),
            "rst-every" => parse_rst_every(arg()?)?,
            "hpack-garbage-after" => H2Behavior::HpackGarbageAfter(parse_num(arg()?)?),
            "max-concurrent" => H2Behavior::MaxConcurrentStreams(parse_num(arg()?)?),
            "ping-flood" => H2Behavior::PingFlood(parse_num(arg()?)?),
            "protocol-error-after" => H2Behavior::ProtocolErrorAfter(parse_num(arg()?)?),
            "no-status" => H2Behavior::NoStatus,
            "close-after" => H2Behavior::CloseAfter(parse_num(arg()?)?),
            _ => return Err(BehaviorError::Unknown(s.to_string())),
        };
        Ok(behavior)
    }
}

/// Reads `K,refused` or `K,internal`; K of 0 would reset nothing and divide by zero.
fn parse_rst_every(arg: &str) -> Result<H2Behavior, BehaviorError> {
    let (every, code) = arg.split_once(',').ok_or(BehaviorError::RstEvery)?;
    let code = match code {
        "refused" => RstCode::Refused,
        "internal" => RstCode::Internal,
        _ => return Err(BehaviorError::RstEvery),
    };
    match parse_num(every)? {
        0 => Err(BehaviorError::RstEvery),
        every => Ok(H2Behavior::RstEvery { every, code }),
    }
}

impl fmt::Display for H2Behavior {
    /// The name `from_str` reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(PREFIX)?;
        match self {
            H2Behavior::Hello => f.write_str("hello"),
            H2Behavior::Sum => f.write_str("sum"),
            H2Behavior::Delay(d) => write!(f, "delay:{}", Shown(*d)),
            H2Behavior::Status(code) => write!(f, "status:{code}"),
            H2Behavior::Body(len) => write!(f, "body:{len}"),
            H2Behavior::BadPreface => f.write_str("bad-preface"),
            H2Behavior::OversizedFrameAfter(n) => write!(f, "oversized-frame-after:{n}"),
            H2Behavior::ZeroWindow => f.write_str("zero-window"),
            H2Behavior::WindowStopsAfter(n) => write!(f, "window-stops-after:{n}"),
            H2Behavior::GoawayAfter(n) => write!(f, "goaway-after:{n}"),
            H2Behavior::RstEvery { every, code } => {
                let code = match code {
                    RstCode::Refused => "refused",
                    RstCode::Internal => "internal",
                };
                write!(f, "rst-every:{every},{code}")
            }
            H2Behavior::HpackGarbageAfter(n) => write!(f, "hpack-garbage-after:{n}"),
            H2Behavior::MaxConcurrentStreams(n) => write!(f, "max-concurrent:{n}"),
            H2Behavior::PingFlood(k) => write!(f, "ping-flood:{k}"),
            H2Behavior::ProtocolErrorAfter(n) => write!(f, "protocol-error-after:{n}"),
            H2Behavior::NoStatus => f.write_str("no-status"),
            H2Behavior::CloseAfter(n) => write!(f, "close-after:{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_name() {
        let cases = [
            ("h2:hello", H2Behavior::Hello),
            ("h2:sum", H2Behavior::Sum),
            (
                "h2:delay:20ms",
                H2Behavior::Delay(Duration::from_millis(20)),
            ),
            ("h2:status:503", H2Behavior::Status(503)),
            ("h2:body:100000", H2Behavior::Body(100_000)),
            ("h2:bad-preface", H2Behavior::BadPreface),
            (
                "h2:oversized-frame-after:2",
                H2Behavior::OversizedFrameAfter(2),
            ),
            ("h2:zero-window", H2Behavior::ZeroWindow),
            (
                "h2:window-stops-after:1000",
                H2Behavior::WindowStopsAfter(1000),
            ),
            ("h2:goaway-after:100", H2Behavior::GoawayAfter(100)),
            (
                "h2:rst-every:3,refused",
                H2Behavior::RstEvery {
                    every: 3,
                    code: RstCode::Refused,
                },
            ),
            (
                "h2:rst-every:5,internal",
                H2Behavior::RstEvery {
                    every: 5,
                    code: RstCode::Internal,
                },
            ),
            ("h2:hpack-garbage-after:4", H2Behavior::HpackGarbageAfter(4)),
            ("h2:max-concurrent:1", H2Behavior::MaxConcurrentStreams(1)),
            ("h2:ping-flood:3", H2Behavior::PingFlood(3)),
            (
                "h2:protocol-error-after:7",
                H2Behavior::ProtocolErrorAfter(7),
            ),
            ("h2:no-status", H2Behavior::NoStatus),
            ("h2:close-after:9", H2Behavior::CloseAfter(9)),
        ];
        for (text, want) in cases {
            assert_eq!(want.to_string(), text);
            assert_eq!(text.parse::<H2Behavior>(), Ok(want), "{text}");
        }
    }

    #[test]
    fn rejects_bad_input_naming_it() {
        for text in [
            "hello",
            "h2:",
            "h2:nope",
            "h2:delay:20",
            "h2:goaway-after",
            "h2:rst-every:3",
            "h2:rst-every:0,refused",
            "h2:rst-every:3,cancel",
        ] {
            assert!(text.parse::<H2Behavior>().is_err(), "{text}");
        }
        let e = |text: &str| text.parse::<H2Behavior>().unwrap_err().to_string();
        assert_eq!(
            e("hello"),
            "`hello` is no HTTP/2 behavior: those are named h2:NAME, e.g. h2:hello"
        );
        assert_eq!(e("h2:nope"), "unknown behavior `h2:nope`");
        assert_eq!(
            e("h2:goaway-after"),
            "behavior `h2:goaway-after` needs an argument: `h2:goaway-after:VALUE`"
        );
    }
}
