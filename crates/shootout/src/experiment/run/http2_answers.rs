//! Before a contestant's first load over HTTP/2, whether it answers over HTTP/2 at all:
//! a few requests of each endpoint it serves, sent by the engine as the load will send
//! them (h2c with prior knowledge, or h2 by ALPN over TLS), each answered with the
//! endpoint's expected status on a connection that spoke HTTP/2. The server a run over
//! h2c starts serves nothing but HTTP/2, so `verify`'s HTTP/1.1 checks cannot reach it;
//! this stands in until `verify` checks HTTP/2 itself (its preface, SETTINGS and a legal
//! response), and then gives way to it.

use crate::contestant::verify::{Check, Plan};
use crate::model::endpoint::Endpoint;
use crate::model::VerifyLevel;
use engine::{LoadResult, LoadSpec, Pace, Stop, TlsSpec};
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Requests of each endpoint, on one connection, two streams at a time.
const ANSWERS: u64 = 4;
const STREAMS: usize = 2;

/// Longest a request of the check waits, as `verify`'s checks do.
const PATIENCE: Duration = Duration::from_secs(3);

/// A check per endpoint of `plan` over HTTP/2 to the server at `addr` (over TLS with
/// `tls`, the client's settings, naming it `host`); none at level `none`.
pub(super) fn checks(
    addr: SocketAddr,
    host: &str,
    tls: Option<&TlsSpec>,
    plan: &Plan,
) -> Vec<Check> {
    if plan.level == VerifyLevel::None {
        return Vec::new();
    }
    (plan.endpoints.iter())
        .map(|e| check(e, addr, host, tls))
        .collect()
}

/// Endpoint `e` asked [`ANSWERS`] times over HTTP/2; the check is named by how (`h2c
/// hello`, `h2 hello`).
fn check(e: &Endpoint, addr: SocketAddr, host: &str, tls: Option<&TlsSpec>) -> Check {
    let how = if tls.is_some() { "h2" } else { "h2c" };
    let answered = spec(e, host, tls)
        .and_then(|s| s.resolve_at(addr))
        .map_err(|error| error.to_string())
        .and_then(|config| {
            engine::run(&config, &AtomicBool::new(false)).map_err(|error| error.to_string())
        });
    let detail = match answered {
        Ok(result) => judge(&result, e.expect.status),
        Err(error) => Err(error),
    };
    Check {
        name: format!("{how} {}", e.name),
        passed: detail.is_ok(),
        flagged: false,
        detail: detail.unwrap_or_else(|why| format!("over HTTP/2: {why}")),
    }
}

/// The check's load: `e`'s request, [`ANSWERS`] of them on one connection.
fn spec(e: &Endpoint, host: &str, tls: Option<&TlsSpec>) -> Result<LoadSpec, engine::SpecError> {
    let mut spec = match tls {
        None => e.load_spec(host)?,
        Some(client) => LoadSpec {
            tls: client.clone(),
            ..e.load_spec_over_tls(host)?
        },
    };
    spec.http2 = true;
    spec.streams = STREAMS;
    spec.connections = 1;
    spec.threads = Some(1);
    spec.warmup = Duration::ZERO;
    spec.timeout = PATIENCE;
    spec.pace = Pace::Closed;
    spec.stop = Some(Stop::Requests(ANSWERS));
    Ok(spec)
}

/// Passed (what it answered) when every request got `status` over HTTP/2; else why not.
fn judge(result: &LoadResult, status: u16) -> Result<String, String> {
    if result.config.http_version != "2" {
        let spoke = &result.config.http_version;
        return Err(format!("the connection spoke HTTP/{spoke}"));
    }
    let expected = result.status_codes.get(&status.to_string()).copied();
    if expected == Some(ANSWERS) {
        return Ok(format!(
            "{ANSWERS} of {ANSWERS} answered {status} over HTTP/2"
        ));
    }
    let why = match result.h2.as_ref().and_then(|h2| h2.first_error.clone()) {
        Some(error) => error,
        None => format!("{:?}", result.status_codes),
    };
    Err(format!(
        "{} of {ANSWERS} answered {status} ({} errors: {why})",
        expected.unwrap_or(0),
        result.requests.errors()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{result, Measured};

    fn answered(codes: &[(&str, u64)], http_version: &str) -> LoadResult {
        let mut r = result(Measured {
            rps: 1.0,
            p99_ms: 1.0,
            server_cpu_s: 0.0,
            errors: 0,
        });
        r.config.http_version = http_version.into();
        r.status_codes = codes.iter().map(|(c, n)| (c.to_string(), *n)).collect();
        r
    }

    #[test]
    fn every_request_answered_with_the_status_over_http2_passes() {
        assert_eq!(
            judge(&answered(&[("200", 4)], "2"), 200),
            Ok("4 of 4 answered 200 over HTTP/2".into())
        );
        assert_eq!(
            judge(&answered(&[("200", 4)], "1.1"), 200),
            Err("the connection spoke HTTP/1.1".into())
        );
        assert_eq!(
            judge(&answered(&[("200", 1), ("404", 3)], "2"), 200),
            Err("1 of 4 answered 200 (0 errors: {\"200\": 1, \"404\": 3})".into())
        );
    }

    #[test]
    fn the_check_asks_each_endpoint_a_few_times_on_one_connection_over_http2() {
        let s = spec(&Endpoint::hello(), "127.0.0.1:8080", None).unwrap();
        assert!(s.http2);
        assert_eq!(s.url.as_str(), "http://127.0.0.1:8080/hello");
        assert_eq!((s.connections, s.streams), (1, STREAMS));
        assert_eq!(s.stop, Some(Stop::Requests(ANSWERS)));
        let tls = TlsSpec::default();
        let over = spec(&Endpoint::hello(), "localhost:8443", Some(&tls)).unwrap();
        assert_eq!(over.url.as_str(), "https://localhost:8443/hello");
    }
}
