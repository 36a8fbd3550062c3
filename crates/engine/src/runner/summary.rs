//! What the loops measured, merged into one [`LoadResult`]: its figures, its echo of the
//! load, the generator's own load, and the warnings.

use super::Io;
use crate::config::{LoadConfig, Stop};
use crate::cpu;
use crate::result::{
    self, Bytes, ConfigEcho, Connections, Generator, H2Summary, Histograms, LoadResult,
    Percentiles, RateSummary, TlsSummary, WsSummary,
};
use crate::stats::LoopStats;
use std::sync::atomic::AtomicBool;

pub(super) fn summarise(
    config: &LoadConfig,
    io: Io,
    loops: &[LoopStats],
    measure_start: u64,
    started_unix_ms: u64,
    interrupt: &AtomicBool,
) -> LoadResult {
    let mut all = LoopStats::default();
    for l in loops {
        all.merge(l);
    }
    let duration_s = (all.ended_ns.saturating_sub(measure_start) as f64 / 1e9).max(1e-9);
    let completed = all.counts.ok + all.counts.status;
    let generator = generator(&all, config.threads, io, duration_s);
    let rate = rate_summary(config, &all, duration_s);
    let mut warnings = warnings(&all, &generator, config);
    let tls = all.tls.take();
    let h2 = all.h2.take();
    let ws = all.ws.take();
    if let Some(r) = rate
        .as_ref()
        .filter(|r| r.achieved_rps < 0.99 * r.target_rps)
    {
        warnings.push(format!(
            "achieved {:.1} requests/s of the {:.1} scheduled ({:.1}%): the connections \
             (-c x --pipeline) or the server could not keep up; latency counts the wait",
            r.achieved_rps,
            r.target_rps,
            100.0 * r.achieved_rps / r.target_rps.max(f64::MIN_POSITIVE)
        ));
    }
    LoadResult {
        url: config.target.url.clone(),
        started_unix_ms,
        config: echo(config),
        duration_s,
        requests: all.counts,
        rps: completed as f64 / duration_s,
        bytes: Bytes {
            read: all.bytes_read,
            written: all.bytes_written,
        },
        transfer_per_s: all.bytes_read as f64 / duration_s,
        latency_us: Percentiles::of(&all.latency),
        latency_raw_us: Percentiles::of(&all.latency_raw),
        rate,
        connect_us: Percentiles::of(&all.connect),
        tls: tls.as_deref().map(TlsSummary::of),
        h2: h2.as_deref().map(H2Summary::of),
        ws: ws.as_deref().map(WsSummary::of),
        thread_rps: result::thread_rps(loops, duration_s),
        status_codes: result::status_codes(&all),
        connections: Connections {
            opened: all.connections_opened,
            closed_by_server: all.closed_by_server,
        },
        per_second: result::per_second(&all),
        warnings,
        generator,
        interrupted: interrupt.load(std::sync::atomic::Ordering::Relaxed),
        shards: Vec::new(),
        histograms: Histograms {
            latency: all.latency,
            latency_raw: all.latency_raw,
            connect: all.connect,
            handshake: tls.map_or_else(crate::stats::latency_histogram, |t| t.handshake),
            upgrade: ws.map_or_else(crate::stats::latency_histogram, |w| w.upgrade),
        },
    }
}

/// Open loop: what the schedule asked of this shard in the measured window, and what ran.
/// The loops count it exactly: every request of their share that came due after the
/// warm-up and before the stop (within `-n`) was sent, dropped, or is still due.
fn rate_summary(config: &LoadConfig, all: &LoopStats, duration_s: f64) -> Option<RateSummary> {
    config.pace.schedule()?;
    let scheduled = all.counts.total() + all.still_due;
    let started = all.counts.sent();
    Some(RateSummary {
        target_rps: scheduled as f64 / duration_s,
        achieved_rps: started as f64 / duration_s,
        scheduled,
        started,
        still_due: all.still_due,
        late: all.late,
        waited: all.waited,
    })
}

fn echo(config: &LoadConfig) -> ConfigEcho {
    ConfigEcho {
        method: config.method.to_string(),
        connections: config.connections,
        threads: config.threads,
        duration_s: match config.stop {
            Stop::After(d) => Some(d.as_secs_f64()),
            Stop::Requests(_) => None,
        },
        requests: match config.stop {
            Stop::Requests(n) => Some(n),
            Stop::After(_) => None,
        },
        warmup_s: config.warmup.as_secs_f64(),
        timeout_s: config.timeout.as_secs_f64(),
        pipeline: config.pipeline,
        keepalive: config.keepalive,
        http_version: match (config.http2, config.http10) {
            (true, _) => "2",
            (false, true) => "1.0",
            (false, false) => "1.1",
        }
        .to_string(),
        streams: config.http2.then_some(config.streams),
        websocket: config.websocket.clone(),
        shard: if config.shard.count > 1 {
            format!("{}/{}", config.shard.index + 1, config.shard.count)
        } else {
            String::new()
        },
        start_at: config.start_at,
        vary_seed: config.vary.as_ref().map(|v| v.seed),
    }
}

fn generator(all: &LoopStats, threads: usize, io: Io, duration_s: f64) -> Generator {
    let cpu_seconds = all.user_seconds + all.sys_seconds;
    let cores = threads.min(cpu::allowed_cpus()).max(1) as f64;
    Generator {
        cpu_seconds,
        user_seconds: all.user_seconds,
        sys_seconds: all.sys_seconds,
        cpu_percent: 100.0 * cpu_seconds / duration_s,
        bound: cpu_seconds / (duration_s * cores) > 0.9,
        io: io.name().to_string(),
        threads,
    }
}

fn warnings(all: &LoopStats, generator: &Generator, config: &LoadConfig) -> Vec<String> {
    let mut w = Vec::new();
    if generator.bound {
        w.push(format!(
            "the generator was busy {:.0}% of the run on {} thread(s): these numbers describe the generator, not the server",
            generator.cpu_percent / generator.threads.min(cpu::allowed_cpus()).max(1) as f64,
            generator.threads
        ));
    }
    if all.port_exhaustion > 0 {
        let spread = if config.target.addr.is_ipv4() && config.target.is_loopback() {
            "even spread over 127.0.0.1-127.0.0.64"
        } else {
            "(source spreading only works for 127.x targets)"
        };
        w.push(format!(
            "{} connects failed for lack of a free local port {spread}; they are counted as connect errors",
            all.port_exhaustion
        ));
    }
    if all.counts.dropped > 0 {
        w.push(format!(
            "{} requests were dropped: they came due and no connection was free or open \
             to take them within the timeout ({}), so they were never sent; they count as \
             errors (more connections, -c, or a server that answers, would send them)",
            all.counts.dropped,
            crate::format_duration(config.timeout)
        ));
    }
    if all.unsolicited > 0 {
        w.push(format!(
            "{} time(s) the server sent bytes beyond a response's framing (counted as parse errors where a request owned them)",
            all.unsolicited
        ));
    }
    w
}
