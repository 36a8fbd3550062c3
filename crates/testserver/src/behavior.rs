//! What the server does with each request, and how to name it on a command line.

use crate::database::Database;
use crate::workloads::Workloads;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// How the server answers each request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behavior {
    /// 200 "Hello World" with Content-Length and Date; HTTP/1.1 keep-alive rules.
    Hello,
    /// Like `Hello`, but answers after this delay.
    Delay(Duration),
    /// Like `Hello`, but with this status code (no body for 1xx, 204 and 304).
    Status(u16),
    /// A garbage status line: `HTTX/1.1 abc`.
    MalformedStatusLine,
    /// Announces Content-Length: 100, sends 11 bytes, then closes.
    LongContentLength,
    /// Announces Content-Length: 5, sends 11 bytes, keeps the connection open.
    ShortContentLength,
    /// Sends the head and part of the body, then resets the connection (RST).
    ResetMidResponse,
    /// A chunked body whose first chunk size is `zz`.
    InvalidChunkSize,
    /// A valid chunked body in several writes, with chunk extensions and a trailer.
    Chunked,
    /// `Chunked`, its chunk lines ending in a bare LF (RFC 9112 §2.2 lets a client accept it).
    ChunkedBareLf,
    /// A chunked body whose chunk-size line has trailing whitespace, `5 \r\n`, which RFC
    /// 9112 §7.1 forbids (whitespace may only come before `;`).
    ChunkSizeTrailingSpace,
    /// A response head of about this many bytes (X-Pad headers), then a valid body.
    HugeHeaders(usize),
    /// Reads requests and never answers; keeps connections open until stopped.
    NeverAnswer,
    /// Like `Hello`, but answers a request as soon as its head is in, then reads its
    /// body and drops it: as nginx's `return` does, or a server refusing a body early.
    AnswerBeforeBody,
    /// Answers this many requests per connection, then closes without warning.
    CloseAfterResponses(u32),
    /// Keep-alive, but closes a connection idle for longer than this.
    CloseIdle(Duration),
    /// Sends `100 Continue` and `103 Early Hints` before the 200.
    Interim,
    /// Every response carries `Connection: close`, and the server closes after it.
    ConnectionClose,
    /// `HTTP/1.0 200 OK` without Content-Length: the body ends at close.
    Http10CloseDelimited,
    /// Answers this many requests in total (all connections), then stops answering.
    StallAfter(u64),
    /// Answers `after` requests normally (all connections), then holds every answer until
    /// `pause` has passed since that moment, then answers normally again: a stall.
    PauseAfter { after: u64, pause: Duration },
    /// Like `Hello`, but each request holds one of `workers` workers, shared by all
    /// connections, for `service` before it is answered, waiting for one while all are
    /// busy: at most `workers / service` answers a second, a capacity known in closed form.
    Workers { workers: u32, service: Duration },
    /// Answers the sum of every number in the request's query and body (`/sum?a=13&b=42`
    /// → `55`), as text, and keeps what each request was ([`crate::TestServer::seen`]).
    Sum,
    /// As `Sum`, but answers every request with the first request's sum: a server that
    /// caches its answer, which a check of each answer catches.
    SumCached,
    /// TechEmpower's database endpoints (`/db`, `/queries`, `/fortunes`, `/updates`)
    /// against the PostgreSQL `DATABASE_URL` names, honestly or with a cheat.
    Database(Database),
    /// The workload endpoints from a folder of their data, honestly or with a cheat
    /// (`workloads:DIR`, `workloads-cached:DIR`, ...: [`Workloads`]).
    Workloads(Workloads),
}

/// Why a text names no behavior; each message quotes the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BehaviorError {
    #[error("unknown behavior `{0}`")]
    Unknown(String),
    #[error("behavior `{0}` needs an argument: `{0}:VALUE`")]
    NoArgument(String),
    #[error("`{0}` is not a valid number")]
    NotANumber(String),
    #[error("`{0}` needs a unit: us, ms or s")]
    NoUnit(String),
    #[error("pause-after needs `N,DURATION`, e.g. pause-after:100,1s")]
    PauseAfter,
    #[error("workers needs `W,DURATION`, e.g. workers:4,10ms")]
    Workers,
    #[error("workers needs at least one worker: `{0}` has none")]
    NoWorkers(String),
    #[error("`{0}` is no HTTP/2 behavior: those are named h2:NAME, e.g. h2:hello")]
    NotH2(String),
    #[error("rst-every needs `K,CODE` with CODE refused or internal, e.g. h2:rst-every:3,refused")]
    RstEvery,
}

impl FromStr for Behavior {
    type Err = BehaviorError;

    /// Parses `name` or `name:arg`, e.g. `hello`, `delay:20ms`, `status:503`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, arg) = match s.split_once(':') {
            Some((name, arg)) => (name, Some(arg)),
            None => (s, None),
        };
        let arg = || arg.ok_or_else(|| BehaviorError::NoArgument(name.to_string()));
        let behavior = match name {
            "hello" => Behavior::Hello,
            "delay" => Behavior::Delay(parse_duration(arg()?)?),
            "status" => Behavior::Status(parse_num(arg()?)?),
            "malformed-status-line" => Behavior::MalformedStatusLine,
            "long-content-length" => Behavior::LongContentLength,
            "short-content-length" => Behavior::ShortContentLength,
            "reset-mid-response" => Behavior::ResetMidResponse,
            "invalid-chunk-size" => Behavior::InvalidChunkSize,
            "chunked" => Behavior::Chunked,
            "chunked-bare-lf" => Behavior::ChunkedBareLf,
            "chunk-size-trailing-space" => Behavior::ChunkSizeTrailingSpace,
            "huge-headers" => Behavior::HugeHeaders(parse_num(arg()?)?),
            "never-answer" => Behavior::NeverAnswer,
            "answer-before-body" => Behavior::AnswerBeforeBody,
            "close-after" => Behavior::CloseAfterResponses(parse_num(arg()?)?),
            "close-idle" => Behavior::CloseIdle(parse_duration(arg()?)?),
            "interim" => Behavior::Interim,
            "connection-close" => Behavior::ConnectionClose,
            "http10-close-delimited" => Behavior::Http10CloseDelimited,
            "stall-after" => Behavior::StallAfter(parse_num(arg()?)?),
            "pause-after" => {
                let (after, pause) = arg()?.split_once(',').ok_or(BehaviorError::PauseAfter)?;
                Behavior::PauseAfter {
                    after: parse_num(after)?,
                    pause: parse_duration(pause)?,
                }
            }
            "workers" => {
                let arg = arg()?;
                let (workers, service) = arg.split_once(',').ok_or(BehaviorError::Workers)?;
                match parse_num(workers)? {
                    0 => return Err(BehaviorError::NoWorkers(arg.to_string())),
                    workers => Behavior::Workers {
                        workers,
                        service: parse_duration(service)?,
                    },
                }
            }
            "sum" => Behavior::Sum,
            "sum-cached" => Behavior::SumCached,
            "database" => Behavior::Database(match arg() {
                Ok(served) => served.parse()?,
                Err(_) => Database::Honest,
            }),
            _ if name.starts_with("workloads") => Behavior::Workloads(
                Workloads::parse(name, arg()?)
                    .ok_or_else(|| BehaviorError::Unknown(name.to_string()))?,
            ),
            _ => return Err(BehaviorError::Unknown(name.to_string())),
        };
        Ok(behavior)
    }
}

impl fmt::Display for Behavior {
    /// The name `from_str` reads back, so that a table row or a process's arguments can
    /// say which behavior they mean.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Behavior::Hello => f.write_str("hello"),
            Behavior::Delay(d) => write!(f, "delay:{}", Shown(*d)),
            Behavior::Status(code) => write!(f, "status:{code}"),
            Behavior::MalformedStatusLine => f.write_str("malformed-status-line"),
            Behavior::LongContentLength => f.write_str("long-content-length"),
            Behavior::ShortContentLength => f.write_str("short-content-length"),
            Behavior::ResetMidResponse => f.write_str("reset-mid-response"),
            Behavior::InvalidChunkSize => f.write_str("invalid-chunk-size"),
            Behavior::Chunked => f.write_str("chunked"),
            Behavior::ChunkedBareLf => f.write_str("chunked-bare-lf"),
            Behavior::ChunkSizeTrailingSpace => f.write_str("chunk-size-trailing-space"),
            Behavior::HugeHeaders(size) => write!(f, "huge-headers:{size}"),
            Behavior::NeverAnswer => f.write_str("never-answer"),
            Behavior::AnswerBeforeBody => f.write_str("answer-before-body"),
            Behavior::CloseAfterResponses(n) => write!(f, "close-after:{n}"),
            Behavior::CloseIdle(d) => write!(f, "close-idle:{}", Shown(*d)),
            Behavior::Interim => f.write_str("interim"),
            Behavior::ConnectionClose => f.write_str("connection-close"),
            Behavior::Http10CloseDelimited => f.write_str("http10-close-delimited"),
            Behavior::StallAfter(n) => write!(f, "stall-after:{n}"),
            Behavior::PauseAfter { after, pause } => {
                write!(f, "pause-after:{after},{}", Shown(*pause))
            }
            Behavior::Workers { workers, service } => {
                write!(f, "workers:{workers},{}", Shown(*service))
            }
            Behavior::Sum => f.write_str("sum"),
            Behavior::SumCached => f.write_str("sum-cached"),
            Behavior::Database(Database::Honest) => f.write_str("database"),
            Behavior::Database(served) => write!(f, "database:{served}"),
            Behavior::Workloads(w) => write!(f, "{w}"),
        }
    }
}

/// A duration in the largest of `s`, `ms`, `us` that says it exactly (as `parse_duration`
/// reads it; below a microsecond is not kept).
pub(crate) struct Shown(pub(crate) Duration);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0.as_micros();
        if us.is_multiple_of(1_000_000) {
            write!(f, "{}s", us / 1_000_000)
        } else if us.is_multiple_of(1000) {
            write!(f, "{}ms", us / 1000)
        } else {
            write!(f, "{us}us")
        }
    }
}

/// Parses a number argument, naming it in the error.
pub(crate) fn parse_num<T: FromStr>(s: &str) -> Result<T, BehaviorError> {
    s.parse()
        .map_err(|_| BehaviorError::NotANumber(s.to_string()))
}

/// Parses `250us`, `20ms` or `2s`.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, BehaviorError> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u64 = parse_num(digits)?;
    match unit {
        "us" => Ok(Duration::from_micros(n)),
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        _ => Err(BehaviorError::NoUnit(s.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_name() {
        let cases = [
            ("hello", Behavior::Hello),
            ("delay:20ms", Behavior::Delay(Duration::from_millis(20))),
            ("delay:2s", Behavior::Delay(Duration::from_secs(2))),
            ("delay:250us", Behavior::Delay(Duration::from_micros(250))),
            ("status:503", Behavior::Status(503)),
            ("malformed-status-line", Behavior::MalformedStatusLine),
            ("long-content-length", Behavior::LongContentLength),
            ("short-content-length", Behavior::ShortContentLength),
            ("reset-mid-response", Behavior::ResetMidResponse),
            ("invalid-chunk-size", Behavior::InvalidChunkSize),
            ("chunked", Behavior::Chunked),
            ("chunked-bare-lf", Behavior::ChunkedBareLf),
            (
                "chunk-size-trailing-space",
                Behavior::ChunkSizeTrailingSpace,
            ),
            ("huge-headers:40000", Behavior::HugeHeaders(40000)),
            ("never-answer", Behavior::NeverAnswer),
            ("answer-before-body", Behavior::AnswerBeforeBody),
            ("close-after:3", Behavior::CloseAfterResponses(3)),
            (
                "close-idle:50ms",
                Behavior::CloseIdle(Duration::from_millis(50)),
            ),
            ("interim", Behavior::Interim),
            ("connection-close", Behavior::ConnectionClose),
            ("http10-close-delimited", Behavior::Http10CloseDelimited),
            ("stall-after:100", Behavior::StallAfter(100)),
            (
                "pause-after:5,1s",
                Behavior::PauseAfter {
                    after: 5,
                    pause: Duration::from_secs(1),
                },
            ),
            (
                "workers:4,10ms",
                Behavior::Workers {
                    workers: 4,
                    service: Duration::from_millis(10),
                },
            ),
            ("sum", Behavior::Sum),
            ("sum-cached", Behavior::SumCached),
            ("database", Behavior::Database(Database::Honest)),
            ("database:cached-db", Behavior::Database(Database::CachedDb)),
            (
                "workloads:/tmp/w",
                Behavior::Workloads(Workloads {
                    dir: "/tmp/w".into(),
                    cheat: None,
                }),
            ),
            (
                "workloads-echo-length:/tmp/w",
                Behavior::Workloads(Workloads {
                    dir: "/tmp/w".into(),
                    cheat: Some(crate::Cheat::EchoLength),
                }),
            ),
        ];
        for (text, want) in cases {
            // Each name is the one Display gives back, so rows and processes can use it.
            assert_eq!(want.to_string(), text);
            assert_eq!(text.parse::<Behavior>(), Ok(want), "{text}");
        }
    }

    #[test]
    fn rejects_bad_input() {
        for text in [
            "",
            "nope",
            "delay",
            "delay:20",
            "delay:xms",
            "status:abc",
            "status:70000",
            "workers",
            "workers:4",
            "workers:0,10ms",
            "workers:x,10ms",
            "workers:4,10",
            "database:cached",
            "workloads",
            "workloads-lying:/tmp/w",
        ] {
            assert!(text.parse::<Behavior>().is_err(), "{text}");
        }
        let e = "delay:20".parse::<Behavior>().unwrap_err();
        assert_eq!(e, BehaviorError::NoUnit("20".into()));
        assert_eq!(e.to_string(), "`20` needs a unit: us, ms or s");
        assert_eq!(
            "delay".parse::<Behavior>().unwrap_err().to_string(),
            "behavior `delay` needs an argument: `delay:VALUE`"
        );
    }

    #[test]
    fn workers_says_what_its_argument_lacks() {
        let error = |text: &str| text.parse::<Behavior>().unwrap_err();
        assert_eq!(error("workers:4"), BehaviorError::Workers);
        assert_eq!(
            error("workers:4").to_string(),
            "workers needs `W,DURATION`, e.g. workers:4,10ms"
        );
        assert_eq!(
            error("workers:0,10ms"),
            BehaviorError::NoWorkers("0,10ms".into())
        );
        assert_eq!(
            error("workers:0,10ms").to_string(),
            "workers needs at least one worker: `0,10ms` has none"
        );
        assert_eq!(
            error("workers:-1,10ms"),
            BehaviorError::NotANumber("-1".into())
        );
        assert_eq!(error("workers:4,10"), BehaviorError::NoUnit("10".into()));
        assert_eq!(
            error("workers").to_string(),
            "behavior `workers` needs an argument: `workers:VALUE`"
        );
    }
}
