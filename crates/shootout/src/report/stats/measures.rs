//! What the report reads of one run: its label and reason, its result, and the numbers
//! drawn from it. The rest of the report reads a run's outcome through these, so the
//! run record's shape is known here (and in `ranking::CellKey::of`) only.

use crate::record::{Label, RunRecord};
use engine::LoadResult;

/// One number of a run that measured something, None for a run without a result.
pub type Measure = fn(&RunRecord) -> Option<f64>;

/// What the run says about the server.
pub fn label(r: &RunRecord) -> Label {
    r.label()
}

/// Why, for every label but ok.
pub fn reason(r: &RunRecord) -> &str {
    r.reason()
}

/// What the load measured, when it ran.
pub fn result(r: &RunRecord) -> Option<&LoadResult> {
    r.result()
}

/// The generator's warnings about the load (none without a result).
pub fn warnings(r: &RunRecord) -> &[String] {
    result(r).map_or(&[], |x| &x.warnings)
}

/// True for a run whose load was a device ramp (the 2019 shape).
pub fn is_device_ramp(r: &RunRecord) -> bool {
    r.is_ramp()
}

/// Responses per second.
pub fn rps(r: &RunRecord) -> Option<f64> {
    result(r).map(|x| x.rps)
}

/// 99% of requests within, milliseconds.
pub fn p99_ms(r: &RunRecord) -> Option<f64> {
    result(r).map(|x| x.latency_us.p99 / 1000.0)
}

/// Requests that failed (connect, read, write, parse, timeout).
pub fn errors(r: &RunRecord) -> Option<f64> {
    result(r).map(|x| x.requests.errors() as f64)
}

/// Server CPU milliseconds per response (ok or other status), which is the same number
/// as CPU seconds per 1,000 responses (the tables' `CPU-s/1k req`). The one formula of
/// the server's efficiency: every table, note and comparison uses it.
pub fn cpu_ms_per_response(r: &RunRecord) -> Option<f64> {
    let x = result(r)?;
    let served = (x.requests.ok + x.requests.status).max(1) as f64;
    Some(r.server_cpu_s * 1000.0 / served)
}

/// Peak resident memory of the server, MiB.
pub fn peak_rss_mib(r: &RunRecord) -> f64 {
    r.peak_rss_kb as f64 / 1024.0
}

/// Harness overhead: the run's wall time minus its time under load (start, ready,
/// verify, stop), seconds; None for a run that measured nothing.
pub fn overhead_s(r: &RunRecord) -> Option<f64> {
    result(r).map(|_| (r.wall_s - r.load_s).max(0.0))
}

/// The versions the contestant ran with, when its manifest says how to ask.
pub fn toolchain(r: &RunRecord) -> Option<&str> {
    (!r.toolchain.is_empty()).then_some(r.toolchain.as_str())
}

/// The server and generator CPU samples over the run.
pub fn series(r: &RunRecord) -> &[crate::record::Point] {
    &r.series
}
