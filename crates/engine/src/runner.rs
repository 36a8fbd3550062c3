//! Runs a load: checks it can start, splits it over share-nothing loops on their own
//! threads, and merges what they measured.

use crate::config::{ConfigError, IoChoice, LoadConfig, Stop};
use crate::cpu;
use crate::devices::Fleet;
use crate::event_loop::LoopSpec;
use crate::ledger::Clock;
use crate::limits;
use crate::live::Live;
use crate::pace::Pace;
use crate::result::{
    self, Bytes, ConfigEcho, Connections, Generator, Histograms, LoadResult, Percentiles,
    RateSummary,
};
use crate::schedule::Pacer;
use crate::stats::LoopStats;
use crate::{epoll, uring};
use std::net::TcpStream;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Why a load could not run. Nothing has been sent when one of these is returned.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(
        "{wanted} connections do not fit the open-file limit of {limit} (the hard limit); \
         at most {fits} fit with {threads} thread(s): lower -c or split the load over \
         {processes} processes (--generators local:{processes})"
    )]
    TooManyConnections {
        wanted: usize,
        limit: u64,
        fits: u64,
        threads: usize,
        /// Processes the load would need, each within the limit.
        processes: u64,
    },
    // `cause`, not `source`: the message says it once (a `source` would be printed again
    // by every error chain that shows it).
    #[error("cannot connect to {addr} ({url}): {cause}")]
    Unreachable {
        addr: std::net::SocketAddr,
        url: String,
        cause: std::io::Error,
    },
    #[error("io_uring is not available here ({0}); use --io epoll")]
    UringUnavailable(std::io::Error),
    #[error("event loop {index} failed to start: {cause}")]
    Loop { index: usize, cause: std::io::Error },
}

/// Time allowed for the connect that checks the target answers at all.
const PREFLIGHT_TIMEOUT: Duration = Duration::from_secs(5);

/// Checks the load can run, runs it, and returns what it measured.
///
/// `interrupt` may be set from another thread (a signal handler) to stop early; the
/// result then says `interrupted` and keeps everything measured so far.
pub fn run(config: &LoadConfig, interrupt: &AtomicBool) -> Result<LoadResult, RunError> {
    run_checked(&check(config)?, interrupt)
}

/// A load that passed [`check`]: valid, within the open-file limit, target answering.
#[derive(Debug, Clone)]
pub struct CheckedLoad {
    config: LoadConfig,
    io: Io,
}

impl CheckedLoad {
    /// The load as it will run (threads capped at the connection count).
    pub fn config(&self) -> &LoadConfig {
        &self.config
    }

    /// The I/O interface the loops will use.
    pub fn io(&self) -> Io {
        self.io
    }
}

/// Runs a load that passed [`check`]; see [`run`].
pub fn run_checked(load: &CheckedLoad, interrupt: &AtomicBool) -> Result<LoadResult, RunError> {
    run_watched(load, interrupt, &Live::new())
}

/// Runs a load that passed [`check`], publishing its response count to `live` as it goes.
pub fn run_watched(
    load: &CheckedLoad,
    interrupt: &AtomicBool,
    live: &Live,
) -> Result<LoadResult, RunError> {
    let (config, io) = (&load.config, load.io);
    if let Some(at) = config.start_at {
        wait_until(at, interrupt);
    }
    let base = Instant::now();
    let clock = Clock::new(base);
    let started_unix_ms = unix_ms_now() + config.warmup.as_millis() as u64;
    let measure_start = config.warmup.as_nanos() as u64;
    let end = match config.stop {
        Stop::After(d) => Some(measure_start + d.as_nanos() as u64),
        Stop::Requests(_) => None,
    };
    let specs: Vec<LoopSpec> = (0..config.threads)
        .map(|index| LoopSpec {
            config,
            index,
            connections: match &config.pace {
                Pace::Devices(script) => {
                    let (offset, stride) = device_share(config, index);
                    Fleet::slots_for(script, offset, stride)
                }
                _ => share(config.connections as u64, config.threads, index) as usize,
            },
            clock,
            measure_start,
            end,
            budget: match config.stop {
                Stop::Requests(n) => Some(share(n, config.threads, index)),
                Stop::After(_) => None,
            },
            interrupt,
            live,
            devices: config.pace.devices().map(|_| device_share(config, index)),
            pacer: config.pace.schedule().map(|schedule| {
                // Global request n belongs to shard n mod S, and within it to loop
                // (n div S) mod T: together the shards' loops send the whole schedule.
                let (shard, loops) = (config.shard, config.threads as u64);
                Pacer::new(
                    schedule,
                    shard.index + shard.count * index as u64,
                    shard.count * loops,
                )
            }),
        })
        .collect();
    let loops = run_loops(&specs, io)?;
    Ok(summarise(
        config,
        io,
        &loops,
        measure_start,
        started_unix_ms,
        interrupt,
    ))
}

/// Everything that can fail before the load starts: the configuration, the open-file
/// limit (raised to the hard limit here), the I/O interface, and one connect to the target.
pub fn check(config: &LoadConfig) -> Result<CheckedLoad, RunError> {
    config.validate()?;
    let mut config = config.clone();
    if let Pace::Devices(script) = &config.pace {
        // A device is a connection: the slots are the peak device count.
        config.connections = script.count.peak().floor().max(1.0) as usize;
    }
    config.connections = config.shard.share(config.connections as u64) as usize;
    if let Stop::Requests(n) = config.stop {
        config.stop = Stop::Requests(config.shard.share(n));
    }
    config.threads = config.threads.min(config.connections);
    let limit = limits::raise_nofile().unwrap_or(1024);
    let fits = limits::connections_that_fit(limit, config.threads);
    if config.connections as u64 > fits {
        return Err(RunError::TooManyConnections {
            wanted: config.connections,
            limit,
            fits,
            threads: config.threads,
            processes: (config.connections as u64 * config.shard.count).div_ceil(fits.max(1)),
        });
    }
    let addr = config.target.addr;
    TcpStream::connect_timeout(&addr, PREFLIGHT_TIMEOUT).map_err(|cause| {
        RunError::Unreachable {
            addr,
            url: config.target.url.clone(),
            cause,
        }
    })?;
    let io = choose_io(config.io)?;
    Ok(CheckedLoad { config, io })
}

/// The I/O interface the loops will use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Io {
    Uring,
    Epoll,
}

impl Io {
    /// The name used in output and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Io::Uring => "uring",
            Io::Epoll => "epoll",
        }
    }
}

fn choose_io(choice: IoChoice) -> Result<Io, RunError> {
    match choice {
        IoChoice::Epoll => Ok(Io::Epoll),
        IoChoice::Uring => uring::probe()
            .map(|_| Io::Uring)
            .map_err(RunError::UringUnavailable),
        IoChoice::Auto => Ok(if uring::probe().is_ok() {
            Io::Uring
        } else {
            Io::Epoll
        }),
    }
}

/// Device `g` belongs to shard `g mod S` and within it to loop `(g div S) mod T`.
fn device_share(config: &LoadConfig, index: usize) -> (u64, u64) {
    let (shard, loops) = (config.shard, config.threads as u64);
    (
        shard.index + shard.count * index as u64,
        shard.count * loops,
    )
}

fn unix_ms_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Sleeps until the wall clock reads `unix_ms` (or the user interrupts).
fn wait_until(unix_ms: u64, interrupt: &AtomicBool) {
    let target = std::time::UNIX_EPOCH + Duration::from_millis(unix_ms);
    while let Ok(left) = target.duration_since(std::time::SystemTime::now()) {
        if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// Request `index`'s share of `total` split over `parts` loops (the first ones get the rest).
fn share(total: u64, parts: usize, index: usize) -> u64 {
    let parts = parts as u64;
    total / parts + u64::from((index as u64) < total % parts)
}

fn run_loops(specs: &[LoopSpec], io: Io) -> Result<Vec<LoopStats>, RunError> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = specs
            .iter()
            .map(|spec| {
                scope.spawn(move || match io {
                    Io::Uring => uring::run(spec),
                    Io::Epoll => epoll::run(spec),
                })
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(index, h)| {
                let joined = h
                    .join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("the loop's thread panicked")));
                joined.map_err(|cause| RunError::Loop { index, cause })
            })
            .collect()
    })
}

fn summarise(
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
    let rate = rate_summary(config, &all, measure_start, duration_s);
    let mut warnings = warnings(&all, &generator, config);
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
        },
    }
}

/// Open loop: what the schedule asked of this shard in the measured window, and what ran.
fn rate_summary(
    config: &LoadConfig,
    all: &LoopStats,
    measure_start: u64,
    duration_s: f64,
) -> Option<RateSummary> {
    let schedule = config.pace.schedule()?;
    let whole = Pacer::new(schedule, 0, 1);
    let end = measure_start + (duration_s * 1e9) as u64;
    let scheduled = (whole.scheduled_before(end) - whole.scheduled_before(measure_start))
        / config.shard.count as f64;
    let scheduled = match config.stop {
        Stop::Requests(n) => scheduled.min(n as f64),
        Stop::After(_) => scheduled,
    };
    let started = all.counts.total();
    Some(RateSummary {
        target_rps: scheduled / duration_s,
        achieved_rps: started as f64 / duration_s,
        scheduled: scheduled.round() as u64,
        started,
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
        http_version: if config.http10 { "1.0" } else { "1.1" }.to_string(),
        shard: if config.shard.count > 1 {
            format!("{}/{}", config.shard.index + 1, config.shard.count)
        } else {
            String::new()
        },
        start_at: config.start_at,
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
    if all.unsolicited > 0 {
        w.push(format!(
            "{} time(s) the server sent bytes beyond a response's framing (counted as parse errors where a request owned them)",
            all.unsolicited
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up() {
        for (total, parts) in [(10, 3), (1, 4), (0, 2), (19000, 2)] {
            let sum: u64 = (0..parts).map(|i| share(total, parts, i)).sum();
            assert_eq!(sum, total);
        }
        assert_eq!(share(10, 3, 0), 4);
        assert_eq!(share(10, 3, 2), 3);
    }
}
