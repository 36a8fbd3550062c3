//! Every kind of server misbehaviour ends up in the right error class, the counts add up,
//! and nothing panics, on both event-loop kinds. Loads go to 127.0.0.1 only, and every
//! load is bounded by a request count (each request ends, at worst by its timeout) or a
//! short duration.
//!
//! The misbehaviours are a table: each row names a server behaviour, how its load differs
//! from the usual one (clear text or TLS among it), and the accounting its result must
//! show. One loop runs every row on both backends and names the row and backend of each
//! mismatch. TLS rows use certificates made for the test (testserver's TestPki).

use engine::{IoChoice, LoadConfig, LoadResult, Resume, RunError, Stop, Target, TlsClient};
use rustls::AlertDescription;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use testserver::{Behavior, Leaf, Oversized, TestPki, TestServer, Tls, TlsFault};

const BACKENDS: [IoChoice; 2] = [IoChoice::Epoll, IoChoice::Uring];

/// Requests of a load unless a row says otherwise: a count, not a time, so that what a
/// row expects of them does not depend on how many a busy machine gets through.
const REQUESTS: u64 = 40;

/// A request body larger than loopback's socket buffers take at once (8 MB).
const BIG_BODY: usize = 8 << 20;

/// How a row's load differs from the usual one (4 connections, 1 thread, 40 requests).
struct Load {
    requests: u64,
    connections: usize,
    method: &'static str,
    /// Bytes of the request's body (none: 0).
    body: usize,
    pipeline: usize,
    keepalive: bool,
    http10: bool,
    warmup: Duration,
    timeout: Duration,
    wire: Wire,
    /// Checked as `engine::check` does, with its pre-flight handshake (else without).
    preflight: bool,
}

/// How the server's bytes travel.
#[derive(Debug, Clone)]
enum Wire {
    Clear,
    /// TLS, misbehaving as the fault says, if one is given.
    Tls(Option<TlsFault>),
}

const LOAD: Load = Load {
    requests: REQUESTS,
    connections: 4,
    method: "GET",
    body: 0,
    pipeline: 1,
    keepalive: true,
    http10: false,
    warmup: Duration::ZERO,
    timeout: Duration::from_secs(2),
    wire: Wire::Clear,
    preflight: false,
};

/// What a count must be.
#[derive(Debug, Clone, Copy)]
enum Want {
    Any,
    Is(u64),
    Over(u64),
}

use Want::{Any, Is, Over};

impl Want {
    fn holds(self, got: u64) -> bool {
        match self {
            Any => true,
            Is(n) => got == n,
            Over(n) => got > n,
        }
    }
}

/// An error class of the result's requests.
#[derive(Debug, Clone, Copy)]
enum Class {
    Timeout,
    Read,
    Write,
    Tls,
}

/// The accounting a row's result must show, on each backend.
struct Expect {
    ok: Want,
    status: Want,
    timeout: Want,
    read: Want,
    parse: Want,
    tls: Want,
    /// All error classes together.
    errors: Want,
    /// Every error is of one of these classes.
    errors_only: Option<&'static [Class]>,
    /// Requests started (the load's count: warm-up requests are not counted).
    total: Want,
    opened: Want,
    closed_by_server: Want,
    /// The status codes seen, exactly (code, count).
    codes: Option<&'static [(&'static str, Want)]>,
    /// A warning that must be among the result's.
    warning: Option<&'static str>,
    /// The TLS failure reasons seen, exactly (reason, count).
    tls_failures: Option<&'static [(&'static str, Want)]>,
    /// Latency was measured: p50 above zero, max at least p99.
    latency: bool,
    /// Requests the server read (warm-up included).
    server_requests: Want,
    /// Connections the server accepted (the load's, and the check that it answers).
    server_connections: Want,
    /// Every response the server wrote was counted ok: none was lost with its connection.
    answers_ok: bool,
}

const ANY: Expect = Expect {
    ok: Any,
    status: Any,
    timeout: Any,
    read: Any,
    parse: Any,
    tls: Any,
    errors: Any,
    errors_only: None,
    total: Any,
    opened: Any,
    closed_by_server: Any,
    codes: None,
    warning: None,
    tls_failures: None,
    latency: false,
    server_requests: Any,
    server_connections: Any,
    answers_ok: false,
};

/// One misbehaviour (or a load shape over a well-behaved server) and its accounting.
struct Row {
    name: &'static str,
    behavior: Behavior,
    load: Load,
    expect: Expect,
}

/// The table: every row today's server misbehaviours and load shapes call for.
fn rows() -> Vec<Row> {
    let never_answer_timeout = Duration::from_millis(100);
    vec![
        Row {
            name: "a well-behaved server: every request counted once",
            behavior: Behavior::Hello,
            load: Load {
                requests: 2000,
                ..LOAD
            },
            expect: Expect {
                ok: Is(2000),
                total: Is(2000),
                server_requests: Is(2000),
                codes: Some(&[("200", Is(2000))]),
                opened: Is(4),
                latency: true,
                ..ANY
            },
        },
        Row {
            name: "pipelined requests are answered in order",
            behavior: Behavior::Hello,
            load: Load {
                pipeline: 8,
                requests: 1000,
                ..LOAD
            },
            expect: Expect {
                ok: Is(1000),
                server_requests: Is(1000),
                ..ANY
            },
        },
        Row {
            name: "no keep-alive opens a connection per request",
            behavior: Behavior::Hello,
            load: Load {
                keepalive: false,
                requests: 300,
                ..LOAD
            },
            expect: Expect {
                ok: Is(300),
                opened: Is(300),
                // One each: these loads run without the pre-flight connect (check_settings).
                server_connections: Is(300),
                ..ANY
            },
        },
        Row {
            name: "HTTP/1.0 close-delimited bodies end at close",
            behavior: Behavior::Http10CloseDelimited,
            load: Load {
                http10: true,
                ..LOAD
            },
            expect: Expect {
                ok: Is(REQUESTS),
                errors: Is(0),
                ..ANY
            },
        },
        Row {
            name: "warm-up requests are not counted",
            behavior: Behavior::Hello,
            load: Load {
                warmup: Duration::from_millis(200),
                requests: 500,
                ..LOAD
            },
            expect: Expect {
                total: Is(500),
                server_requests: Over(500),
                ..ANY
            },
        },
        Row {
            name: "error statuses are counted as status",
            behavior: Behavior::Status(503),
            load: LOAD,
            expect: Expect {
                ok: Is(0),
                status: Is(REQUESTS),
                errors: Is(0),
                codes: Some(&[("503", Is(REQUESTS))]),
                ..ANY
            },
        },
        Row {
            name: "a malformed status line is a parse error",
            behavior: Behavior::MalformedStatusLine,
            load: LOAD,
            expect: Expect {
                ok: Is(0),
                parse: Over(0),
                ..ANY
            },
        },
        Row {
            name: "a body shorter than Content-Length, then close, is a read error",
            behavior: Behavior::LongContentLength,
            load: LOAD,
            expect: Expect {
                ok: Is(0),
                read: Over(0),
                parse: Is(0),
                ..ANY
            },
        },
        Row {
            name: "a body longer than Content-Length is a parse error",
            behavior: Behavior::ShortContentLength,
            load: LOAD,
            expect: Expect {
                parse: Over(0),
                warning: Some("beyond a response"),
                ..ANY
            },
        },
        Row {
            name: "a reset in the middle of a response is a read error",
            behavior: Behavior::ResetMidResponse,
            load: LOAD,
            expect: Expect {
                ok: Is(0),
                read: Over(0),
                ..ANY
            },
        },
        Row {
            name: "an invalid chunk size is a parse error",
            behavior: Behavior::InvalidChunkSize,
            load: LOAD,
            expect: Expect {
                ok: Is(0),
                parse: Over(0),
                ..ANY
            },
        },
        Row {
            // `5 \r\n`: RFC 9112 §7.1 lets whitespace come only before `;`. Counted once
            // each, under parse (the classes add up for every row).
            name: "a chunk-size line with trailing whitespace is a parse error",
            behavior: Behavior::ChunkSizeTrailingSpace,
            load: LOAD,
            expect: Expect {
                ok: Is(0),
                status: Is(0),
                parse: Over(0),
                ..ANY
            },
        },
        Row {
            // RFC 9112 §2.2 lets a recipient accept a bare LF as a line end.
            name: "chunked bodies with bare-LF line ends are framed",
            behavior: Behavior::ChunkedBareLf,
            load: LOAD,
            expect: Expect {
                ok: Over(10),
                errors: Is(0),
                ..ANY
            },
        },
        Row {
            name: "chunked bodies with trailers are framed",
            behavior: Behavior::Chunked,
            load: LOAD,
            expect: Expect {
                ok: Is(REQUESTS),
                errors: Is(0),
                ..ANY
            },
        },
        Row {
            name: "headers larger than a receive buffer are reassembled",
            behavior: Behavior::HugeHeaders(40 * 1024),
            load: LOAD,
            expect: Expect {
                ok: Is(REQUESTS),
                errors: Is(0),
                ..ANY
            },
        },
        Row {
            name: "headers beyond the head limit are a parse error",
            behavior: Behavior::HugeHeaders(200 * 1024),
            load: LOAD,
            expect: Expect {
                ok: Is(0),
                parse: Over(0),
                ..ANY
            },
        },
        Row {
            name: "a server that never answers times out",
            behavior: Behavior::NeverAnswer,
            load: Load {
                timeout: never_answer_timeout,
                requests: 8,
                ..LOAD
            },
            expect: Expect {
                ok: Is(0),
                timeout: Is(8),
                errors_only: Some(&[Class::Timeout]),
                ..ANY
            },
        },
        Row {
            name: "a stalled server times out after answering",
            behavior: Behavior::StallAfter(50),
            load: Load {
                timeout: never_answer_timeout,
                requests: 200,
                ..LOAD
            },
            expect: Expect {
                ok: Is(50),
                timeout: Is(150),
                ..ANY
            },
        },
        Row {
            // Each connection answers 3; at most the one request after them fails.
            name: "connections closed without warning are reopened",
            behavior: Behavior::CloseAfterResponses(3),
            load: LOAD,
            expect: Expect {
                ok: Over(REQUESTS / 2),
                errors_only: Some(&[Class::Read, Class::Write]),
                opened: Over(4),
                closed_by_server: Over(0),
                ..ANY
            },
        },
        Row {
            // How many connections the server closes under a request depends on how soon
            // the loop reuses each (1 ms idle is enough): the loop goes on, and every
            // request ends ok or as the closed connection's error.
            name: "idle connections closed by the server are reopened",
            behavior: Behavior::CloseIdle(Duration::from_millis(1)),
            load: LOAD,
            expect: Expect {
                ok: Over(0),
                errors_only: Some(&[Class::Read, Class::Write]),
                ..ANY
            },
        },
        Row {
            name: "interim responses are skipped",
            behavior: Behavior::Interim,
            load: LOAD,
            expect: Expect {
                ok: Is(REQUESTS),
                errors: Is(0),
                codes: Some(&[("200", Any)]),
                ..ANY
            },
        },
        Row {
            name: "Connection: close on every response is not an error",
            behavior: Behavior::ConnectionClose,
            load: Load {
                requests: 200,
                ..LOAD
            },
            expect: Expect {
                ok: Is(200),
                opened: Is(200),
                closed_by_server: Is(200),
                ..ANY
            },
        },
        Row {
            name: "HEAD requests expect no body",
            behavior: Behavior::Hello,
            load: Load {
                method: "HEAD",
                requests: 100,
                ..LOAD
            },
            expect: Expect { ok: Is(100), ..ANY },
        },
        Row {
            name: "over TLS, every request counted once",
            behavior: Behavior::Hello,
            load: Load {
                requests: 500,
                wire: Wire::Tls(None),
                ..LOAD
            },
            expect: Expect {
                ok: Is(500),
                total: Is(500),
                server_requests: Is(500),
                opened: Is(4),
                tls_failures: Some(&[]),
                latency: true,
                ..ANY
            },
        },
        Row {
            // More than a loopback socket's buffers: each answer comes while its body is
            // still being written, and the next request waits for the rest of it.
            name: "a server that answers before it reads the body: every request counted once",
            behavior: Behavior::AnswerBeforeBody,
            load: Load {
                method: "POST",
                body: BIG_BODY,
                requests: 12,
                ..LOAD
            },
            expect: Expect {
                ok: Is(12),
                errors: Is(0),
                server_requests: Is(12),
                answers_ok: true,
                ..ANY
            },
        },
        Row {
            name: "over TLS, a server that answers before it reads the body",
            behavior: Behavior::AnswerBeforeBody,
            load: Load {
                method: "POST",
                body: BIG_BODY,
                requests: 12,
                wire: Wire::Tls(None),
                ..LOAD
            },
            expect: Expect {
                ok: Is(12),
                errors: Is(0),
                server_requests: Is(12),
                answers_ok: true,
                tls_failures: Some(&[]),
                ..ANY
            },
        },
        Row {
            name: "over TLS, close-delimited bodies end at close_notify",
            behavior: Behavior::Http10CloseDelimited,
            load: Load {
                http10: true,
                wire: Wire::Tls(None),
                ..LOAD
            },
            expect: Expect {
                ok: Is(REQUESTS),
                errors: Is(0),
                tls_failures: Some(&[]),
                ..ANY
            },
        },
        Row {
            name: "garbage instead of a ServerHello fails every handshake as tls",
            behavior: Behavior::Hello,
            load: Load {
                wire: Wire::Tls(Some(TlsFault::GarbageHello)),
                ..LOAD
            },
            expect: Expect {
                ok: Is(0),
                tls: Is(REQUESTS),
                errors_only: Some(&[Class::Tls]),
                total: Is(REQUESTS),
                server_requests: Is(0),
                tls_failures: Some(&[("bad_record", Is(REQUESTS))]),
                ..ANY
            },
        },
        Row {
            name: "a close without close_notify cuts a close-delimited body: tls (truncated)",
            behavior: Behavior::Http10CloseDelimited,
            load: Load {
                http10: true,
                wire: Wire::Tls(Some(TlsFault::NoCloseNotify)),
                ..LOAD
            },
            expect: Expect {
                ok: Is(0),
                tls: Is(REQUESTS),
                errors_only: Some(&[Class::Tls]),
                server_requests: Is(REQUESTS),
                tls_failures: Some(&[("truncated", Is(REQUESTS))]),
                ..ANY
            },
        },
        Row {
            // As a server that never answers: the load's timeout ends the request, whatever
            // layer it waits on; the reason says it was the handshake.
            name: "a handshake that stalls times out: timeout (handshake_timeout)",
            behavior: Behavior::Hello,
            load: Load {
                timeout: never_answer_timeout,
                requests: 8,
                wire: Wire::Tls(Some(TlsFault::StallHandshake)),
                ..LOAD
            },
            expect: Expect {
                ok: Is(0),
                timeout: Is(8),
                errors_only: Some(&[Class::Timeout]),
                total: Is(8),
                opened: Is(8),
                server_requests: Is(0),
                server_connections: Is(8),
                tls_failures: Some(&[("handshake_timeout", Is(8))]),
                ..ANY
            },
        },
        certificate_switch(
            "an expired certificate served mid-load: tls (certificate:expired)",
            Leaf::Expired,
            &[("certificate:expired", Is(REQUESTS - GOOD_HANDSHAKES))],
        ),
        certificate_switch(
            "a wrong-name certificate served mid-load: tls (certificate:not_valid_for_name)",
            Leaf::WrongName,
            &[(
                "certificate:not_valid_for_name",
                Is(REQUESTS - GOOD_HANDSHAKES),
            )],
        ),
        Row {
            // One connection, one request at a time: each connection answers 3, and its
            // 4th request is the one in flight when the alert comes.
            name: "an alert in place of a response fails the request in flight: tls (alert)",
            behavior: Behavior::Hello,
            load: Load {
                connections: 1,
                wire: Wire::Tls(Some(TlsFault::AlertAfter {
                    after: 3,
                    alert: AlertDescription::InternalError,
                })),
                ..LOAD
            },
            expect: broken_every_fourth(&[("alert:internal_error", Is(REQUESTS / 4))]),
        },
        Row {
            // Pipelined: how many requests are in flight when the alert comes depends on
            // how the responses before it were read; each is tls, and nothing answered is.
            name: "an alert in place of a response fails every pipelined request in flight",
            behavior: Behavior::Hello,
            load: Load {
                pipeline: 4,
                wire: Wire::Tls(Some(TlsFault::AlertAfter {
                    after: 3,
                    alert: AlertDescription::InternalError,
                })),
                ..LOAD
            },
            expect: Expect {
                ok: Over(0),
                tls: Over(0),
                errors_only: Some(&[Class::Tls]),
                total: Is(REQUESTS),
                answers_ok: true,
                tls_failures: Some(&[("alert:internal_error", Over(0))]),
                ..ANY
            },
        },
        Row {
            name: "a sealed record longer than TLS allows: tls (record_overflow)",
            behavior: Behavior::Hello,
            load: Load {
                connections: 1,
                wire: Wire::Tls(Some(TlsFault::OversizedRecordAfter {
                    after: 3,
                    record: Oversized::Sealed,
                })),
                ..LOAD
            },
            expect: broken_every_fourth(&[("record_overflow", Is(REQUESTS / 4))]),
        },
        Row {
            name: "a record header announcing more than TLS allows: tls (record_overflow)",
            behavior: Behavior::Hello,
            load: Load {
                connections: 1,
                wire: Wire::Tls(Some(TlsFault::OversizedRecordAfter {
                    after: 3,
                    record: Oversized::Announced,
                })),
                ..LOAD
            },
            expect: broken_every_fourth(&[("record_overflow", Is(REQUESTS / 4))]),
        },
    ]
}

/// Good handshakes of a certificate-switch row's load before the server switches.
const GOOD_HANDSHAKES: u64 = 10;

/// Row `name`: its server shows the good certificate to the pre-flight and the load's
/// first connections, then `leaf`, which the client refuses for the one reason
/// `reasons` names. A connection per request (each handshake sees the certificate), so
/// every later request fails.
fn certificate_switch(
    name: &'static str,
    leaf: Leaf,
    reasons: &'static [(&'static str, Want)],
) -> Row {
    let then = pki().server_config_for(leaf).expect("a server config");
    let failing = REQUESTS - GOOD_HANDSHAKES;
    Row {
        name,
        behavior: Behavior::Hello,
        load: Load {
            keepalive: false,
            preflight: true,
            wire: Wire::Tls(Some(TlsFault::SwitchCertificate {
                after: 1 + GOOD_HANDSHAKES,
                then,
            })),
            ..LOAD
        },
        expect: Expect {
            ok: Is(GOOD_HANDSHAKES),
            tls: Is(failing),
            errors_only: Some(&[Class::Tls]),
            total: Is(REQUESTS),
            opened: Is(REQUESTS),
            server_requests: Is(GOOD_HANDSHAKES),
            // The pre-flight's connection, then one per request.
            server_connections: Is(1 + REQUESTS),
            tls_failures: Some(reasons),
            ..ANY
        },
    }
}

/// What one connection loading a server that breaks each connection after 3 answers
/// (in place of the 4th) counts: 10 connections, 3 ok and 1 failed each, for the one
/// reason `reasons` names.
fn broken_every_fourth(reasons: &'static [(&'static str, Want)]) -> Expect {
    let broken = REQUESTS / 4;
    Expect {
        ok: Is(REQUESTS - broken),
        tls: Is(broken),
        errors_only: Some(&[Class::Tls]),
        total: Is(REQUESTS),
        opened: Is(broken),
        server_requests: Is(REQUESTS),
        server_connections: Is(broken),
        answers_ok: true,
        tls_failures: Some(reasons),
        ..ANY
    }
}

#[test]
fn every_misbehaviour_is_counted_where_it_belongs() {
    let mut failures = Vec::new();
    for row in rows() {
        for io in BACKENDS {
            failures.extend(mismatches(&row, io));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Runs one row on one backend: what its result got wrong, each line naming the row.
fn mismatches(row: &Row, io: IoChoice) -> Vec<String> {
    let behavior = row.behavior.clone();
    let server = match &row.load.wire {
        Wire::Clear => TestServer::start(behavior),
        Wire::Tls(fault) => {
            let config = pki().server_config().expect("a server config");
            let fault = fault.clone();
            TestServer::start_tls(behavior, Tls { config, fault })
        }
    };
    let server = server.expect("the test server starts");
    let c = config(&server, io, &row.load);
    // Without the pre-flight unless the row asks for it: a server that garbles its
    // handshake on purpose would be refused before the load, and the loops' count of it
    // is what the row checks.
    let checked = match row.load.preflight {
        true => engine::check(&c),
        false => engine::check_settings(&c),
    };
    let r = checked.and_then(|checked| engine::run_checked(&checked, &AtomicBool::new(false)));
    let r = r.unwrap_or_else(|e| {
        panic!(
            "{} ({io:?}, {}): the load fails: {e}",
            row.name, row.behavior
        )
    });
    let mut found = Vec::new();
    accounting(&r, &mut found);
    counts(&row.expect, &r, &server, &mut found);
    details(&row.expect, &r, &mut found);
    found
        .into_iter()
        .map(|m| {
            format!(
                "{} ({io:?}, {}): {m}\n  requests {:?}\n  connections {:?}, warnings {:?}",
                row.name, row.behavior, r.requests, r.connections, r.warnings
            )
        })
        .collect()
}

/// The certificates of every TLS row.
fn pki() -> &'static TestPki {
    static PKI: OnceLock<TestPki> = OnceLock::new();
    PKI.get_or_init(|| TestPki::new().expect("test certificates"))
}

/// The load of a row against `server` on backend `io`.
fn config(server: &TestServer, io: IoChoice, load: &Load) -> LoadConfig {
    let addr = server.addr();
    let mut c = LoadConfig::new(Target::parse(&format!("http://{addr}/hello")).unwrap());
    if let Wire::Tls(_) = load.wire {
        c.tls = Some(TlsClient {
            config: pki().client_config().expect("a client config"),
            server_name: TestPki::server_name(),
            resume: Resume::Tickets,
            http2: false,
        });
    }
    c.connections = load.connections;
    c.threads = 1;
    c.io = io;
    c.stop = Stop::Requests(load.requests);
    c.method = engine::parse_method(load.method).unwrap();
    c.body = vec![b'x'; load.body];
    c.pipeline = load.pipeline;
    c.keepalive = load.keepalive;
    c.http10 = load.http10;
    c.warmup = load.warmup;
    c.timeout = load.timeout;
    c
}

/// Exact accounting, whatever the row: every request started ended as exactly one class.
fn accounting(r: &LoadResult, found: &mut Vec<String>) {
    let q = &r.requests;
    let classes =
        q.ok + q.status + q.timeout + q.connect + q.read + q.write + q.parse + q.tls + q.in_flight;
    if q.total() != classes {
        found.push(format!("{} started, {classes} in the classes", q.total()));
    }
    if q.total() == 0 {
        found.push("no request started".into());
    }
}

/// The row's bounds on the result's and the server's counts.
fn counts(e: &Expect, r: &LoadResult, server: &TestServer, found: &mut Vec<String>) {
    let q = &r.requests;
    let c = &r.connections;
    for (what, want, got) in [
        ("ok", e.ok, q.ok),
        ("status", e.status, q.status),
        ("timeout", e.timeout, q.timeout),
        ("read", e.read, q.read),
        ("parse", e.parse, q.parse),
        ("tls", e.tls, q.tls),
        ("errors", e.errors, q.errors()),
        ("total", e.total, q.total()),
        ("connections opened", e.opened, c.opened),
        (
            "connections closed by the server",
            e.closed_by_server,
            c.closed_by_server,
        ),
        (
            "the server's requests",
            e.server_requests,
            server.requests(),
        ),
        (
            "the server's connections",
            e.server_connections,
            server.connections(),
        ),
    ] {
        if !want.holds(got) {
            found.push(format!("{what} is {got}, want {want:?}"));
        }
    }
    if e.answers_ok {
        // The server counts a response once its write returns, which on a busy machine
        // can be after the client has read it and the load has ended.
        let wrote = super::polling::at_least(|| server.responses(), q.ok);
        if q.ok != wrote {
            found.push(format!("{} ok, the server wrote {wrote}", q.ok));
        }
    }
}

/// The row's error classes, status codes, warning and latency.
fn details(e: &Expect, r: &LoadResult, found: &mut Vec<String>) {
    let q = &r.requests;
    if let Some(classes) = e.errors_only {
        let of = |class: &Class| match class {
            Class::Timeout => q.timeout,
            Class::Read => q.read,
            Class::Write => q.write,
            Class::Tls => q.tls,
        };
        let theirs: u64 = classes.iter().map(of).sum();
        if q.errors() != theirs {
            found.push(format!(
                "{} errors, {theirs} of them {classes:?}",
                q.errors()
            ));
        }
    }
    if let Some(codes) = e.codes {
        codes_match(codes, &r.status_codes, found);
    }
    if let Some(reasons) = e.tls_failures {
        match &r.tls {
            Some(tls) => named_counts_match("TLS failure", reasons, &tls.failures, found),
            None => found.push("no TLS summary".into()),
        }
    }
    if let Some(warning) = e.warning {
        if !r.warnings.iter().any(|w| w.contains(warning)) {
            found.push(format!("no warning says {warning:?}"));
        }
    }
    let l = &r.latency_us;
    if e.latency && !(l.p50 > 0.0 && l.max >= l.p99) {
        found.push(format!("latency not measured: {l:?}"));
    }
}

/// The status codes seen are exactly `want`'s, each as often as it says.
fn codes_match(want: &[(&str, Want)], got: &BTreeMap<String, u64>, found: &mut Vec<String>) {
    named_counts_match("status code", want, got, found);
}

/// The `what`s seen (status codes, TLS failure reasons) are exactly `want`'s, each as
/// often as it says.
fn named_counts_match(
    what: &str,
    want: &[(&str, Want)],
    got: &BTreeMap<String, u64>,
    found: &mut Vec<String>,
) {
    let named: Vec<&str> = want.iter().map(|(name, _)| *name).collect();
    let seen: Vec<&str> = got.keys().map(String::as_str).collect();
    if named != seen {
        found.push(format!("{what}s seen {seen:?}, want {named:?}"));
    }
    for (name, n) in want {
        let count = got.get(*name).copied().unwrap_or(0);
        if !n.holds(count) {
            found.push(format!("{what} {name} seen {count} times, want {n:?}"));
        }
    }
}

#[test]
fn refused_connection_is_an_error_before_any_load() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let c = LoadConfig::new(Target::parse(&format!("http://{addr}/")).unwrap());
    let e = engine::run(&c, &AtomicBool::new(false)).unwrap_err();
    assert!(matches!(e, RunError::Unreachable { .. }), "{e}");
    assert!(e.to_string().contains(&addr.to_string()), "{e}");
}

#[test]
fn too_many_connections_are_refused_with_the_number_that_fits() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let mut c = config(&server, IoChoice::Epoll, &LOAD);
    c.connections = 10_000_000;
    let e = engine::run(&c, &AtomicBool::new(false)).unwrap_err();
    match e {
        RunError::TooManyConnections { fits, limit, .. } => assert!(fits > 0 && fits < limit),
        other => panic!("unexpected {other}"),
    }
}

/// Polls `done` until it holds, for at most a minute (a busy machine is slow, not
/// stuck); fails naming `what`.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < until, "waited a minute for {what}");
        // Between polls only.
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn interrupt_stops_the_load_and_keeps_the_counts() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let mut c = config(&server, IoChoice::Auto, &LOAD);
    c.stop = Stop::After(Duration::from_secs(120));
    let load = engine::check(&c).expect("load checks");
    let (stop, live) = (AtomicBool::new(false), engine::Live::new());
    let r = std::thread::scope(|s| {
        let h = s.spawn(|| engine::run_watched(&load, &stop, &live));
        // Interrupted once it has counted a response (no warm-up: it is measured).
        wait_until("the load to count a response", || live.responses() > 0);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        h.join().unwrap().unwrap()
    });
    assert!(r.interrupted);
    assert!(r.duration_s < 120.0, "ran to its end: {}", r.duration_s);
    assert!(r.requests.ok > 0);
}

#[test]
fn live_count_sees_every_response_warm_up_included() {
    for io in BACKENDS {
        let server = TestServer::start(Behavior::Hello).unwrap();
        let mut c = config(&server, io, &LOAD);
        // Long enough that a busy machine answers something in it (the warm-up is a time).
        c.warmup = Duration::from_secs(1);
        let live = engine::Live::new();
        let load = engine::check(&c).expect("load checks");
        let r = engine::run_watched(&load, &AtomicBool::new(false), &live).expect("load runs");
        let measured = r.requests.ok + r.requests.status;
        assert!(live.responses() > measured, "{:?}: warm-up not seen", io);
        // The server also counts the requests still in flight when the load stopped.
        let unanswered = server.requests() - live.responses();
        assert!(
            unanswered <= r.requests.in_flight,
            "{io:?}: {unanswered} unanswered"
        );
    }
}

#[test]
fn live_counts_match_the_result_errors_included() {
    for (io, behavior) in [
        (IoChoice::Epoll, Behavior::Hello),
        (IoChoice::Uring, Behavior::Status(503)),
        (IoChoice::Epoll, Behavior::MalformedStatusLine),
    ] {
        let server = TestServer::start(behavior.clone()).unwrap();
        let mut c = config(&server, io, &LOAD);
        c.warmup = Duration::from_millis(100);
        let live = engine::Live::new();
        let load = engine::check(&c).expect("load checks");
        let r = engine::run_watched(&load, &AtomicBool::new(false), &live).expect("load runs");
        // The last publication comes after the last request ended: the counts are exact.
        let q = &r.requests;
        assert_eq!(live.finished(), q.finished(), "{io:?} {behavior:?}");
        assert_eq!(live.failed(), q.finished() - q.ok, "{io:?} {behavior:?}");
        assert!(live.finished() > 0, "{io:?} {behavior:?}");
    }
}
