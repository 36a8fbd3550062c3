//! A checked load split over share-nothing loops, each on its own thread: each loop's
//! share of the connections, requests, schedule and devices, the start, and the join.

use super::summary::summarise;
use super::{CheckedLoad, Io, RunError};
use crate::config::{LoadConfig, Stop};
use crate::devices::Fleet;
use crate::event_loop::LoopSpec;
use crate::ledger::Clock;
use crate::live::Live;
use crate::pace::Pace;
use crate::result::LoadResult;
use crate::schedule::Pacer;
use crate::stats::LoopStats;
use crate::{epoll, uring};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Runs a load that passed [`check`](super::check); see [`run`](super::run).
pub fn run_checked(load: &CheckedLoad, interrupt: &AtomicBool) -> Result<LoadResult, RunError> {
    run_watched(load, interrupt, &Live::new())
}

/// Runs a load that passed [`check`](super::check), publishing its response count to
/// `live` as it goes.
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
