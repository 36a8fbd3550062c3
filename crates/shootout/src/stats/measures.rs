//! The numbers the report draws from one run (the record's own accessors give its
//! label, reason, result and load kind). Each is written once here, so that every table,
//! chart and comparison computes it the same way: above all the server's CPU per
//! response, in one unit.

use crate::model::{CpuSplit, RunRecord};

/// One number of a run that measured something, None for a run without a result.
pub type Measure = fn(&RunRecord) -> Option<f64>;

/// The generator's warnings about the load (none without a result).
pub fn warnings(r: &RunRecord) -> &[String] {
    r.result().map_or(&[], |x| &x.warnings)
}

/// Responses per second.
pub fn rps(r: &RunRecord) -> Option<f64> {
    r.result().map(|x| x.rps)
}

/// Half of the requests within, milliseconds.
pub fn p50_ms(r: &RunRecord) -> Option<f64> {
    r.result().map(|x| x.latency_us.p50 / 1000.0)
}

/// 99% of requests within, milliseconds.
pub fn p99_ms(r: &RunRecord) -> Option<f64> {
    r.result().map(|x| x.latency_us.p99 / 1000.0)
}

/// Requests that failed (connect, read, write, parse, timeout).
pub fn errors(r: &RunRecord) -> Option<f64> {
    r.result().map(|x| x.requests.errors() as f64)
}

/// Server CPU milliseconds per response (ok or other status), which is the same number
/// as CPU seconds per 1,000 responses (the tables' `CPU-s/1k req`). The one formula of
/// the server's efficiency: every table, note and comparison uses it.
pub fn cpu_ms_per_response(r: &RunRecord) -> Option<f64> {
    let x = r.result().filter(|_| server_known(r))?;
    let served = (x.requests.ok + x.requests.status).max(1) as f64;
    Some(r.server_cpu_s * 1000.0 / served)
}

/// The same, in microseconds (efficiency tables and thresholds).
pub fn cpu_us_per_response(r: &RunRecord) -> Option<f64> {
    cpu_ms_per_response(r).map(|ms| ms * 1000.0)
}

/// The MB a response moved, its request's bytes and its own (the generator's count of
/// both ways, per response); None for a run that measured no response.
pub fn mb_per_response(r: &RunRecord) -> Option<f64> {
    let x = r.result()?;
    let responses = x.requests.ok + x.requests.status;
    (responses > 0).then(|| (x.bytes.read + x.bytes.written) as f64 / 1e6 / responses as f64)
}

/// The server's CPU µs per MB a response moved (see [`mb_per_response`]).
pub fn cpu_us_per_mb(r: &RunRecord) -> Option<f64> {
    Some(cpu_us_per_response(r)? / mb_per_response(r).filter(|mb| *mb > 0.0)?)
}

/// The server's CPU µs per response as the verdict's split of the measured window counts
/// it (a run with a database): beside the database's and the generator's below, counted
/// over the same samples.
pub fn split_server_cpu_us_per_response(r: &RunRecord) -> Option<f64> {
    side_us_per_response(r, |s| s.server_s).filter(|_| server_known(r))
}

/// The database's CPU µs per response, from the verdict's split of the measured window's
/// CPU (a run with the database the harness owns; None without one).
pub fn database_cpu_us_per_response(r: &RunRecord) -> Option<f64> {
    side_us_per_response(r, |s| s.database_s)
}

/// The generator's CPU µs per response: its event loops' own CPU time (the engine's
/// per-thread count), not the harness process the verdict's split counts, whose monitor
/// walks /proc every 100 ms (90-150 µs per response at 500/s, more than the loops').
pub fn generator_cpu_us_per_response(r: &RunRecord) -> Option<f64> {
    let x = r.result()?;
    let served = x.requests.ok + x.requests.status;
    (served > 0).then(|| x.generator.cpu_seconds * 1e6 / served as f64)
}

/// One side's CPU seconds of the verdict's split, per response the window saw: the
/// responses of the measured load, spread over the window at the load's rate.
fn side_us_per_response(r: &RunRecord, side: fn(&CpuSplit) -> f64) -> Option<f64> {
    let x = r.result()?;
    let split = r.verdict()?.split?;
    let responses = (x.rps * split.wall_s).max(1.0);
    Some(side(&split) * 1e6 / responses)
}

/// Whether the server's CPU and memory are its own: not a running server whose process
/// was not known (its verdict says why), whose CPU columns read `unknown`.
pub fn server_known(r: &RunRecord) -> bool {
    r.verdict().is_none_or(|v| v.unattributed.is_none())
}

/// Peak resident memory of the server, KiB; None when it is not the server's own (a
/// running server whose process was not known) or nothing was measured.
pub fn peak_rss_kib(r: &RunRecord) -> Option<f64> {
    (server_known(r) && r.peak_rss_kb > 0).then_some(r.peak_rss_kb as f64)
}

/// Peak resident memory of the server, MiB.
pub fn peak_rss_mib(r: &RunRecord) -> f64 {
    r.peak_rss_kb as f64 / 1024.0
}

/// Harness overhead: the run's wall time minus its time under load (start, ready,
/// verify, stop), seconds; None for a run that measured nothing.
pub fn overhead_s(r: &RunRecord) -> Option<f64> {
    r.result().map(|_| (r.wall_s - r.load_s).max(0.0))
}

/// The versions the contestant ran with, when its manifest says how to ask.
pub fn toolchain(r: &RunRecord) -> Option<&str> {
    (!r.toolchain.is_empty()).then_some(r.toolchain.as_str())
}
