//! What a request costs the client over TLS, next to clear text: one loop loads a server
//! and prints its CPU per request (the loop thread's user + system time while measuring).
//! It loads `/hello` (scripts/nginx-bench serves it); bench/tls-client-cost compares
//! whole generators, docs/tls.md says how this was run.
//!
//! `cargo run --release --example tls_cost -- ADDR MODE [CA.pem] [REQUESTS] [CONNECTIONS]
//! [epoll|uring]`, MODE one of `clear` (no TLS), `clear-close` (no TLS, a new connection per
//! request), `keepalive`, `full` (a new connection per request, no resumption), `resumed`
//! (a new connection per request, tickets), `full-nochain` (`full` without checking the
//! certificate chain, as wrk and h2load do: the handshake's signature is still checked),
//! `hold` / `hold-clear` (CONNECTIONS kept open for 3 s at 100 requests/s, over TLS or not;
//! the peak resident memory printed: their difference over CONNECTIONS is what holding a
//! TLS connection costs).

use engine::{Certificates, IoChoice, LoadSpec, Pace, RateSchedule, Resume, Stop};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let (Some(addr), Some(mode)) = (arg(0), arg(1)) else {
        return Err(
            "usage: tls_cost ADDR MODE [CA.pem] [REQUESTS] [CONNECTIONS] [epoll|uring]".into(),
        );
    };
    let requests: u64 = arg(3).unwrap_or("20000").parse()?;
    let connections: usize = arg(4).unwrap_or("10").parse()?;
    let resume = match mode {
        "clear" | "clear-close" | "hold-clear" => None,
        "keepalive" | "resumed" | "hold" => Some(Resume::Tickets),
        "full" | "full-nochain" | "hold-off" => Some(Resume::Off),
        other => return Err(format!("unknown mode {other}").into()),
    };
    let scheme = if resume.is_some() { "https" } else { "http" };
    // The spec builds the TLS client as `shootout load` does: X25519 then P-256 (as wrk
    // and h2load offer), the CA given, or no chain checked (`--insecure`, `full-nochain`).
    let mut spec = LoadSpec::new(engine::parse_url(&format!("{scheme}://{addr}/hello"))?);
    if let Some(resume) = resume {
        let ca = arg(2).ok_or("a TLS mode needs CA.pem")?;
        spec.tls.cacert = Some(Certificates::from_pem(&std::fs::read(ca)?, "CA.pem")?);
        spec.tls.sni = Some(engine::parse_sni("localhost")?);
        spec.tls.insecure = mode == "full-nochain";
        spec.tls.resume = resume;
    }
    let mut c = spec.resolve()?;
    c.connections = connections;
    c.threads = 1;
    c.stop = Stop::Requests(requests);
    // No warm-up: the process's CPU over all requests compares with wrk's and h2load's.
    c.warmup = Duration::ZERO;
    c.io = match arg(5) {
        Some("uring") => IoChoice::Uring,
        _ => IoChoice::Epoll,
    };
    c.keepalive = matches!(mode, "clear" | "keepalive") || mode.starts_with("hold");
    if mode.starts_with("hold") {
        c.pace = Pace::Open(RateSchedule::constant(100.0));
        c.stop = Stop::After(Duration::from_secs(3));
    }
    let r = engine::run(&c, &AtomicBool::new(false))?;
    let q = &r.requests;
    let (handshakes, resumed) = r
        .tls
        .as_ref()
        .map_or((0, 0), |t| (t.handshakes(), t.resumed));
    println!(
        "{mode} {}: {} ok of {}, {:.0} req/s, CPU {:.3} s = {:.2} us/request; {handshakes} handshakes ({resumed} resumed){}",
        r.generator.io,
        q.ok,
        q.total(),
        r.rps,
        r.generator.cpu_seconds,
        r.generator.cpu_seconds * 1e6 / q.finished().max(1) as f64,
        r.tls
            .as_ref()
            .and_then(|t| t.negotiated.as_ref())
            .map_or(String::new(), |n| format!(", {n}")),
    );
    if mode.starts_with("hold") {
        let status = std::fs::read_to_string("/proc/self/status")?;
        let peak = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .unwrap_or("VmHWM: ?");
        println!(
            "{} connections opened; peak resident memory {peak}",
            r.connections.opened
        );
    }
    Ok(())
}
