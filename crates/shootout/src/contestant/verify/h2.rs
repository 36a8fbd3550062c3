//! HTTP/2 verification: does the server speak HTTP/2, in clear text with prior knowledge
//! (its `[h2c]` command) or over TLS by ALPN (its `[tls]` offering h2)? Each endpoint is
//! sent as a short HTTP/2 load by the engine itself, the client every load uses, so that
//! verify and a load cannot judge one server differently: its preface must be SETTINGS,
//! every frame and header block legal, every stream answered with the endpoint's status.
//! What it lacks is named from how the streams ended (the engine's `h2` and `reset`
//! classes, the first protocol error in words).

use super::{Check, Plan};
use crate::model::endpoint::Endpoint;
use crate::model::VerifyLevel;
use engine::{H2Settings, LoadResult, LoadSpec, Stop, TlsSpec};
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Streams of each endpoint's load: two connections of ten streams each, so that streams
/// run side by side on one connection.
const STREAMS: usize = 10;
const CONNECTIONS: usize = 2;
const REQUESTS: u64 = 20;

/// Runs the HTTP/2 checks of `plan` against the server at `addr`, named `host` (`host` or
/// `host:port`) in its requests: over TLS by ALPN with the client settings `tls` (whom
/// they trust, the name they ask for), else h2c. One check of the server's SETTINGS, then
/// one per endpoint.
pub fn run_h2(addr: SocketAddr, host: &str, plan: &Plan, tls: Option<&TlsSpec>) -> Vec<Check> {
    if plan.level == VerifyLevel::None {
        return Vec::new();
    }
    let word = if tls.is_some() { "h2" } else { "h2c" };
    let mut checks = Vec::new();
    let mut settings = None;
    for endpoint in plan.endpoints {
        let check = match answered(addr, host, endpoint, tls) {
            Ok(r) => {
                settings = settings.or(r.h2.as_ref().and_then(|h| h.settings));
                judge(endpoint, &r)
            }
            Err(e) => Err(e),
        };
        checks.push(Check {
            name: format!("{word} {}", endpoint.name),
            passed: check.is_ok(),
            flagged: false,
            detail: check.unwrap_or_else(|e| e),
        });
    }
    let said = match settings {
        Some(s) => Ok(settings_line(&s)),
        None => Err("no SETTINGS came from the server".to_string()),
    };
    let first = Check {
        name: format!("{word} settings"),
        passed: said.is_ok(),
        flagged: false,
        detail: said.unwrap_or_else(|e| e),
    };
    std::iter::once(first).chain(checks).collect()
}

/// `endpoint`'s request as a short HTTP/2 load against `addr`; an error in words.
fn answered(
    addr: SocketAddr,
    host: &str,
    endpoint: &Endpoint,
    tls: Option<&TlsSpec>,
) -> Result<LoadResult, String> {
    let spec = load(host, endpoint, tls).map_err(|e| e.to_string())?;
    let config = spec.resolve_at(addr).map_err(|e| e.to_string())?;
    let checked = engine::check(&config).map_err(|e| e.to_string())?;
    engine::run_checked(&checked, &AtomicBool::new(false)).map_err(|e| e.to_string())
}

fn load(
    host: &str,
    endpoint: &Endpoint,
    tls: Option<&TlsSpec>,
) -> Result<LoadSpec, engine::SpecError> {
    let mut spec = match tls {
        Some(client) => LoadSpec {
            tls: client.clone(),
            ..endpoint.load_spec_over_tls(host)?
        },
        None => endpoint.load_spec(host)?,
    };
    spec.http2 = true;
    spec.streams = STREAMS;
    spec.connections = CONNECTIONS;
    spec.threads = Some(1);
    spec.stop = Some(Stop::Requests(REQUESTS));
    spec.timeout = Duration::from_secs(3);
    Ok(spec)
}

/// Every stream answered with the endpoint's status, or what went wrong.
fn judge(endpoint: &Endpoint, r: &LoadResult) -> Result<String, String> {
    let q = &r.requests;
    let want = endpoint.expect.status;
    let right = r.status_codes.get(&want.to_string()).copied().unwrap_or(0);
    if right == REQUESTS {
        return Ok(format!(
            "{right} of {REQUESTS} streams answered {want}, {STREAMS} at a time on each of \
             {CONNECTIONS} connections"
        ));
    }
    let mut how = vec![format!("{right} of {REQUESTS} streams answered {want}")];
    let others: Vec<String> = (r.status_codes.iter())
        .filter(|(code, _)| **code != want.to_string())
        .map(|(code, n)| format!("{n} answered {code}"))
        .collect();
    how.extend(others);
    for (class, n) in [
        ("broke HTTP/2 (h2)", q.h2),
        ("were reset", q.reset),
        ("were malformed", q.parse),
        ("timed out", q.timeout),
        ("lost their connection", q.read),
        ("failed TLS", q.tls),
        ("could not connect", q.connect),
    ] {
        if n > 0 {
            how.push(format!("{n} {class}"));
        }
    }
    if let Some(first) = r.h2.as_ref().and_then(|h| h.first_error.as_deref()) {
        how.push(format!("first: {first}"));
    }
    Err(how.join(", "))
}

/// `128 streams at once, window 65,536, frames up to 16,384, header table 4,096`.
fn settings_line(s: &H2Settings) -> String {
    let streams = match s.max_concurrent_streams {
        Some(n) => format!("{n} streams at once"),
        None => "no limit on streams".to_string(),
    };
    format!(
        "{streams}, window {}, frames up to {}, header table {}",
        s.initial_window_size, s.max_frame_size, s.header_table_size
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use testserver::{H2Behavior, TestServer};

    fn checks(behavior: H2Behavior) -> Vec<Check> {
        let server = TestServer::start_h2(behavior).unwrap();
        let endpoints = [Endpoint::hello()];
        let plan = Plan {
            level: VerifyLevel::Strict,
            endpoints: &endpoints,
            parses_http: true,
            database: None,
        };
        run_h2(server.addr(), &server.addr().to_string(), &plan, None)
    }

    #[test]
    fn a_server_that_speaks_h2c_passes_and_its_settings_are_said() {
        let c = checks(H2Behavior::Hello);
        let named: Vec<(&str, bool)> = c.iter().map(|c| (c.name.as_str(), c.passed)).collect();
        assert_eq!(named, [("h2c settings", true), ("h2c hello", true)]);
        assert!(
            c[0].detail.starts_with("100 streams at once"),
            "{}",
            c[0].detail
        );
    }

    #[test]
    fn what_a_server_lacks_is_named() {
        let bad_preface = checks(H2Behavior::BadPreface);
        assert!(!bad_preface[0].passed, "no SETTINGS came");
        let hello = &bad_preface[1].detail;
        assert!(hello.contains("20 broke HTTP/2 (h2)"), "{hello}");
        assert!(hello.contains("answered in HTTP/1.x"), "{hello}");
        let no_status = checks(H2Behavior::NoStatus);
        assert!(no_status[0].passed, "it sent SETTINGS");
        assert!(
            no_status[1].detail.contains("20 were malformed"),
            "{}",
            no_status[1].detail
        );
        let status = checks(H2Behavior::Status(503));
        assert!(
            status[1].detail.contains("20 answered 503"),
            "{}",
            status[1].detail
        );
    }
}
