//! The default summary, laid out as wrk prints it, plus what wrk does not say.

use crate::units::{self, bytes, grouped, metric, micros};
use engine::{
    format_duration, CheckedLoad, H2Summary, IoChoice, LoadResult, LoadSpec, Pace, RateSummary,
    Shard, Stop, TlsSummary, WebSocketSpec, WsSummary,
};
use std::collections::BTreeMap;

/// The lines printed before the load starts.
pub fn print_header(load: &CheckedLoad) {
    let c = load.config();
    println!("Running {} @ {}", what(&c.stop), c.target.url);
    let streams = c.http2.then_some(c.streams);
    let ws = c.websocket.as_ref();
    let mode = mode(c.keepalive, c.pipeline, streams, ws, &c.pace, c.shard);
    println!(
        "  {} threads and {} connections at most ({mode}, {})",
        c.threads,
        c.connections,
        load.io().name()
    );
}

/// A load's settings as [`print_header`] says them, from its spec (a saved load's): what
/// ends it and its URL, then the method, connections, schedule, warm-up and timeout, and
/// headers and body when it has them. Threads and I/O only when the spec chose them: else
/// they were decided where it ran. An `https://` load's TLS settings on a line of their own.
pub fn spec_header(spec: &LoadSpec) -> String {
    let run = spec.ends().map_or("a load".into(), |stop| what(&stop));
    let streams = spec.http2.then_some(spec.streams);
    let ws = spec.is_websocket().then_some(&spec.websocket);
    let mode = mode(
        spec.keepalive,
        spec.pipeline,
        streams,
        ws,
        &spec.pace,
        spec.shard,
    );
    let first = format!(
        "{}, {} connections at most ({mode})",
        spec.method, spec.connections
    );
    let settings = [vec![first], settings(spec)].concat().join(", ");
    let tls = match spec.over_tls() {
        true => format!("\n  {}", super::tls_settings::line(&spec.tls)),
        false => String::new(),
    };
    format!("Running {run} @ {}\n  {settings}{tls}", spec.url)
}

/// The settings of `spec` after its connections, in the words of `shootout load`'s flags.
fn settings(spec: &LoadSpec) -> Vec<String> {
    let mut out = Vec::new();
    match &spec.pace {
        Pace::Closed => {}
        Pace::Open(schedule) => out.push(format!("rate {schedule}")),
        Pace::Devices(d) => out.push(format!("stages {}", d.count)),
    }
    if let Some(threads) = spec.threads {
        out.push(format!("{threads} threads"));
    }
    if spec.io != IoChoice::Auto {
        out.push(format!("io {:?}", spec.io).to_lowercase());
    }
    if spec.http10 {
        out.push("HTTP/1.0".into());
    }
    out.push(format!("warm-up {}", format_duration(spec.warmup)));
    out.push(format!("timeout {}", format_duration(spec.timeout)));
    out.extend(spec.headers.iter().map(|h| format!("-H '{h}'")));
    if !spec.body.is_empty() {
        out.push(format!("body {} bytes", spec.body.len()));
    }
    out
}

/// `10.00s test` or `300 requests`: what ends the measured load.
fn what(stop: &Stop) -> String {
    match stop {
        Stop::After(d) => format!("{} test", units::micros(d.as_secs_f64() * 1e6)),
        Stop::Requests(n) => format!("{n} requests"),
    }
}

/// How connections send: `keep-alive, open loop`, HTTP/2 streams, WebSocket messages, a
/// device script, and the shard.
fn mode(
    keepalive: bool,
    pipeline: usize,
    http2_streams: Option<usize>,
    websocket: Option<&WebSocketSpec>,
    pace: &Pace,
    shard: Shard,
) -> String {
    let mut mode = match (keepalive, pipeline, http2_streams) {
        _ if websocket.is_some() => websocket.map(messages).unwrap_or_default(),
        (_, _, Some(1)) => "HTTP/2, 1 stream each".to_string(),
        (_, _, Some(m)) => format!("HTTP/2, {m} streams each"),
        (false, _, None) => "a new connection per request".to_string(),
        (true, 1, None) => "keep-alive".to_string(),
        (true, p, None) => format!("keep-alive, pipeline {p}"),
    };
    if pace.schedule().is_some() {
        mode.push_str(", open loop");
    }
    if let Some(d) = pace.devices() {
        let unit = if websocket.is_some() {
            "WebSocket messages"
        } else {
            "requests"
        };
        mode = format!(
            "devices: {} {unit} each, think {:?} ±{:.0}%",
            d.requests,
            d.think,
            d.jitter * 100.0
        );
    }
    if shard.count > 1 {
        mode.push_str(&format!(", shard {}/{}", shard.index + 1, shard.count));
    }
    mode
}

/// `WebSocket, 4 text messages of 32 B in flight each`, and `, a new connection every
/// 100` when connections churn.
fn messages(ws: &WebSocketSpec) -> String {
    let kind = if ws.binary { "binary" } else { "text" };
    let size = bytes(ws.message_size as f64);
    let mut text = match ws.in_flight {
        1 => format!("WebSocket, 1 {kind} message of {size} in flight each"),
        n => format!("WebSocket, {n} {kind} messages of {size} in flight each"),
    };
    if let Some(k) = ws.messages_per_connection {
        text.push_str(&format!(", a new connection every {k}"));
    }
    text
}

/// What a load counted, in its words: requests, or WebSocket messages.
struct Unit {
    one: &'static str,
    per_thread: &'static str,
    plural: &'static str,
    per_second: &'static str,
}

const REQUESTS: Unit = Unit {
    one: "request",
    per_thread: "Req/Sec",
    plural: "requests",
    per_second: "Requests/sec:",
};

const MESSAGES: Unit = Unit {
    one: "message",
    per_thread: "Msg/Sec",
    plural: "messages",
    per_second: "Messages/sec:",
};

/// The summary after the load.
pub fn print(r: &LoadResult) {
    let unit = match r.ws.is_some() {
        true => MESSAGES,
        false => REQUESTS,
    };
    let l = &r.latency_us;
    let t = &r.thread_rps;
    if let Some(tls) = &r.tls {
        println!("  {}", tls_header(tls));
    }
    println!("  Thread Stats   Avg      Stdev     Max   +/- Stdev");
    println!(
        "    Latency {:>9} {:>9} {:>9} {:>8.2}%",
        micros(l.mean),
        micros(l.stdev),
        micros(l.max),
        within_one_stdev(r)
    );
    println!(
        "    {} {:>9} {:>9} {:>9}",
        unit.per_thread,
        metric(t.mean),
        metric(t.stdev),
        metric(t.max)
    );
    println!("  Latency Distribution");
    for (p, v) in [
        ("50%", l.p50),
        ("75%", l.p75),
        ("90%", l.p90),
        ("99%", l.p99),
        ("99.9%", l.p999),
    ] {
        println!("  {p:>6} {:>9}", micros(v));
    }
    if let Some(tls) = &r.tls {
        print_handshakes(tls);
    }
    if let Some(h2) = &r.h2 {
        print_h2(h2);
    }
    if let Some(ws) = &r.ws {
        print_ws(ws);
    }
    let done = r.requests.ok + r.requests.status;
    println!(
        "  {done} {} in {:.2}s, {} read",
        unit.plural,
        r.duration_s,
        bytes(r.bytes.read as f64)
    );
    print_errors(r);
    print_rate(r);
    print_devices(r);
    println!("{:<13} {:>10.2}", unit.per_second, r.rps);
    println!("Transfer/sec: {:>10}", bytes(r.transfer_per_s));
    print_generator(r, &unit);
    print_shards(r);
}

/// `TLS 1.3 TLS13_AES_128_GCM_SHA256 X25519, ALPN http/1.1; 1,234 handshakes (1,200
/// resumed)`: what the handshakes settled on, and how many there were.
fn tls_header(tls: &TlsSummary) -> String {
    let negotiated = match &tls.negotiated {
        Some(n) => n.to_string(),
        None => "TLS, no handshake finished".to_string(),
    };
    format!(
        "{negotiated}; {} handshakes ({} resumed)",
        grouped(tls.handshakes() as f64),
        grouped(tls.resumed as f64)
    )
}

/// The handshake's own latency (from the TCP connect's end), and why TLS failed, if it did.
fn print_handshakes(tls: &TlsSummary) {
    let h = &tls.handshake_us;
    println!(
        "  Handshake: p50 {}, p90 {}, p99 {}, max {} (after the TCP connect)",
        micros(h.p50),
        micros(h.p90),
        micros(h.p99),
        micros(h.max)
    );
    if !tls.failures.is_empty() {
        let reasons: Vec<String> = (tls.failures.iter())
            .map(|(reason, n)| format!("{reason} {n}"))
            .collect();
        println!("  TLS failures: {}", reasons.join(", "));
    }
}

/// A merged load: each shard's own line, so a shard that fell behind or saturated its
/// generator shows.
fn print_shards(r: &LoadResult) {
    for s in &r.shards {
        let place = s.place.as_deref().unwrap_or("-");
        println!(
            "Shard {} on {place}: {} requests, {:.2} req/s, generator {:.0}% busy{}",
            s.shard,
            s.requests.total(),
            s.rps,
            s.busy * 100.0,
            if s.generator.bound { " (bound)" } else { "" }
        );
    }
}

/// Open loop: the schedule against what ran, and the latency from the actual send.
fn print_rate(r: &LoadResult) {
    let Some(rate) = &r.rate else {
        return;
    };
    println!("  {}", rate_line(rate, r.requests.dropped));
    let raw = &r.latency_raw_us;
    println!(
        "  Latency from the actual send (raw): p50 {}, p90 {}, p99 {}, max {}",
        micros(raw.p50),
        micros(raw.p90),
        micros(raw.p99),
        micros(raw.max)
    );
}

/// `Rate: target 200.0/s, achieved 150.0/s (300 of 400 scheduled started, 95 dropped, 5
/// still due, 2 late, 40 waited for a free connection)`: the schedule against what ran,
/// every scheduled request in exactly one of started, dropped and still due.
fn rate_line(rate: &RateSummary, dropped: u64) -> String {
    let unsent = match (dropped, rate.still_due) {
        (0, 0) => String::new(),
        (d, 0) => format!(", {d} dropped"),
        (d, s) => format!(", {d} dropped, {s} still due"),
    };
    format!(
        "Rate: target {:.1}/s, achieved {:.1}/s ({} of {} scheduled started{unsent}, {} late, \
         {} waited for a free connection)",
        rate.target_rps, rate.achieved_rps, rate.started, rate.scheduled, rate.late, rate.waited
    )
}

/// Device loads: the per-second series the 2019 graphs are drawn from.
fn print_devices(r: &LoadResult) {
    if r.per_second.iter().all(|s| s.devices == 0) {
        return;
    }
    println!("  Second  Devices  Connects  Sent/s  Responses/s  Timeouts/s  Errors/s     p90");
    for s in &r.per_second {
        println!(
            "  {:>6}  {:>7}  {:>8}  {:>6}  {:>11}  {:>10}  {:>8}  {:>9}",
            s.second,
            s.devices,
            s.connects,
            s.sent,
            s.requests,
            s.timeouts,
            s.errors,
            micros(s.p90_us)
        );
    }
}

fn print_errors(r: &LoadResult) {
    let q = &r.requests;
    if q.status > 0 {
        println!("  Non-2xx or 3xx responses: {}", q.status);
    }
    if q.wrong > 0 {
        // Answered, and framed well: not socket errors, but errors (`errors<…`).
        println!("  Wrong answers (not the expected body): {}", q.wrong);
    }
    if q.failed_sent() > q.wrong {
        // An HTTP/1.1 clear-text load's line stays as it was: tls, reset and h2 only
        // where there are some.
        let more: String = [
            ("tls", q.tls),
            ("reset", q.reset),
            ("h2", q.h2),
            ("ws", q.ws),
        ]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!(", {name} {n}"))
        .collect();
        println!(
            "  Socket errors: connect {}, read {}, write {}, timeout {}, parse {}{more}",
            q.connect, q.read, q.write, q.timeout, q.parse
        );
    }
    if q.dropped > 0 {
        // Not socket errors: they never had a socket. Errors all the same (`errors<…`).
        println!(
            "  Dropped (due, no connection within the timeout, never sent): {}",
            q.dropped
        );
    }
    if q.in_flight > 0 {
        println!("  In flight at the stop: {}", q.in_flight);
    }
}

/// `WebSocket: 10 upgrades, p50 80us, ...`, the client's close handshakes (at the end, and
/// of churned connections and devices that left), then what went wrong, when something
/// did: refused upgrades, protocol errors and the server's closes.
fn print_ws(ws: &WsSummary) {
    let u = &ws.upgrade_us;
    println!(
        "  WebSocket: {} upgrades (p50 {}, p90 {}, p99 {}, max {}); the client's closes: {} of {} answered",
        grouped(ws.upgrades as f64),
        micros(u.p50),
        micros(u.p90),
        micros(u.p99),
        micros(u.max),
        ws.closes_answered,
        ws.closes_sent
    );
    for (what, counts) in [
        ("Upgrades refused", &ws.refused),
        ("Protocol errors (the client closed)", &ws.errors),
        ("Closes from the server, by code", &ws.closes),
    ] {
        if !counts.is_empty() {
            println!("  {what}: {}", by_name(counts));
        }
    }
    if ws.pings > 0 {
        println!("  Pings answered: {}", ws.pings);
    }
    if ws.unsolicited > 0 {
        println!("  Messages not awaited: {}", ws.unsolicited);
    }
}

/// `name n, name n`.
fn by_name(counts: &BTreeMap<String, u64>) -> String {
    let parts: Vec<String> = counts.iter().map(|(c, n)| format!("{c} {n}")).collect();
    parts.join(", ")
}

/// `HTTP/2: server allows 128 streams, window 65,536, frames 16,777,215`, then what went
/// wrong, when something did: retries, resets, GOAWAYs and errors by code.
fn print_h2(h2: &H2Summary) {
    if let Some(s) = &h2.settings {
        let streams = match s.max_concurrent_streams {
            Some(n) => format!("{} streams", grouped(n as f64)),
            None => "unlimited streams".to_string(),
        };
        println!(
            "  HTTP/2: the server allows {streams}, window {}, frames up to {}",
            grouped(s.initial_window_size as f64),
            grouped(s.max_frame_size as f64)
        );
    }
    if h2.retried > 0 {
        println!("  Retried after GOAWAY: {}", h2.retried);
    }
    for (what, counts) in [
        ("Streams reset by the server", &h2.resets),
        ("GOAWAY from the server", &h2.goaways),
        ("HTTP/2 errors (client's GOAWAY)", &h2.errors),
    ] {
        if !counts.is_empty() {
            println!("  {what}: {}", by_name(counts));
        }
    }
    if let Some(first) = &h2.first_error {
        println!("  First HTTP/2 error: {first}");
    }
    if h2.pings > 0 {
        println!("  PINGs answered: {}", h2.pings);
    }
}

fn print_generator(r: &LoadResult, unit: &Unit) {
    let g = &r.generator;
    println!(
        "Generator: {} x{}, {:.2}s CPU ({:.0}% of one core), {:.2} us CPU per {}",
        g.io,
        g.threads,
        g.cpu_seconds,
        g.cpu_percent,
        cpu_us_per_request(r),
        unit.one
    );
    if r.interrupted {
        println!("Interrupted: the numbers cover the load until Ctrl-C.");
    }
    for w in &r.warnings {
        println!("WARNING: {w}");
    }
}

/// Generator CPU microseconds per finished request (a dropped one cost next to nothing).
pub fn cpu_us_per_request(r: &LoadResult) -> f64 {
    let finished = (r.requests.finished() - r.requests.dropped).max(1);
    r.generator.cpu_seconds * 1e6 / finished as f64
}

/// Percent of latencies within one standard deviation of the mean (wrk's "+/- Stdev").
fn within_one_stdev(r: &LoadResult) -> f64 {
    let h = &r.histograms.latency;
    if h.is_empty() {
        return 0.0;
    }
    let (mean, stdev) = (h.mean(), h.stdev());
    let lo = (mean - stdev).max(0.0) as u64;
    let hi = (mean + stdev) as u64;
    let inside: u64 = h
        .iter_recorded()
        .filter(|v| (lo..=hi).contains(&v.value_iterated_to()))
        .map(|v| v.count_at_value())
        .sum();
    100.0 * inside as f64 / h.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> LoadSpec {
        serde_json::from_str(json).expect("the test's spec reads")
    }

    #[test]
    fn a_spec_reads_as_the_header_with_what_it_sets() {
        let plain = spec(r#"{"url": "http://127.0.0.1:8080/hello"}"#);
        assert_eq!(
            spec_header(&plain),
            "Running 10.00s test @ http://127.0.0.1:8080/hello\n  \
             GET, 10 connections at most (keep-alive), warm-up 0s, timeout 5s"
        );
        let set = spec(
            r#"{"url": "http://h:1/p", "method": "POST", "headers": ["x-a: b"], "body": "AAEC",
                "connections": 3, "threads": 2, "stop": {"requests": 500}, "warmup": "1500ms",
                "pipeline": 4, "pace": {"rate": "0,500:2s"}, "io": "epoll"}"#,
        );
        assert_eq!(
            spec_header(&set),
            "Running 500 requests @ http://h:1/p\n  POST, 3 connections at most (keep-alive, \
             pipeline 4, open loop), rate 0,500:2s, 2 threads, io epoll, warm-up 1500ms, \
             timeout 5s, -H 'x-a: b', body 3 bytes"
        );
        let https = spec(r#"{"url": "https://h:1/", "tls": {"version": "1.3"}}"#);
        assert_eq!(
            spec_header(&https),
            "Running 10.00s test @ https://h:1/\n  \
             GET, 10 connections at most (keep-alive), warm-up 0s, timeout 5s\n  \
             TLS 1.3, ALPN http/1.1, trusting the system's CAs, groups X25519,secp256r1, \
             resume tickets"
        );
    }

    #[test]
    fn the_rate_line_accounts_for_every_scheduled_request() {
        let rate = RateSummary {
            target_rps: 200.0,
            achieved_rps: 150.0,
            scheduled: 400,
            started: 300,
            still_due: 5,
            late: 2,
            waited: 40,
        };
        assert_eq!(
            rate_line(&rate, 95),
            "Rate: target 200.0/s, achieved 150.0/s (300 of 400 scheduled started, 95 dropped, \
             5 still due, 2 late, 40 waited for a free connection)"
        );
        let kept = RateSummary {
            started: 400,
            still_due: 0,
            ..rate
        };
        assert_eq!(
            rate_line(&kept, 0),
            "Rate: target 200.0/s, achieved 150.0/s (400 of 400 scheduled started, 2 late, \
             40 waited for a free connection)"
        );
    }

    #[test]
    fn the_tls_header_says_what_was_negotiated_and_how_many_handshakes() {
        let tls = TlsSummary {
            negotiated: Some(engine::Negotiated {
                version: "TLS 1.3".into(),
                suite: "TLS13_AES_128_GCM_SHA256".into(),
                group: Some("X25519".into()),
                alpn: Some("http/1.1".into()),
            }),
            full: 34,
            resumed: 1_200,
            ..TlsSummary::default()
        };
        assert_eq!(
            tls_header(&tls),
            "TLS 1.3 TLS13_AES_128_GCM_SHA256 X25519, ALPN http/1.1; 1,234 handshakes (1,200 resumed)"
        );
        let none = TlsSummary::default();
        assert_eq!(
            tls_header(&none),
            "TLS, no handshake finished; 0 handshakes (0 resumed)"
        );
    }
}
