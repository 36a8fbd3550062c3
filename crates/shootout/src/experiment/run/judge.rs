//! After a load: what its result and both sides' CPU say of the server.

use super::failure::RunFailure;
use crate::experiment::verdict;
use crate::experiment::MatrixCell;
use crate::model::Point;
use crate::model::{Bottleneck, Label, Outcome, Verdict};
use engine::LoadResult;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What the harness knows of the server after a load.
pub(super) struct ServerSide {
    /// False when a server shootout started exited during the load.
    pub alive: bool,
    /// Why its CPU could not be attributed to it (a running server), or None.
    pub unattributed: Option<String>,
}

/// What the load's result and both sides' CPU say of the server.
pub(super) fn judge(
    result: Result<LoadResult, RunFailure>,
    series: &[Point],
    cell: &MatrixCell,
    server: ServerSide,
    interrupt: &AtomicBool,
) -> Outcome {
    let res = match result {
        Ok(res) => res,
        Err(failure) => {
            return Outcome::NotRun {
                label: failure.label(),
                reason: failure.to_string(),
            }
        }
    };
    let bound = res.generator.bound;
    let (warmup, layout) = (cell.warmup, &cell.layout);
    let limits = cell.verdict_policy.limits(&cell.kind);
    let v = verdict::judge(series, warmup, layout, bound, &limits, server.unattributed);
    let (label, reason) = if !server.alive {
        (
            Label::ServerFailed,
            "the server exited during the load".into(),
        )
    } else if res.interrupted || interrupt.load(Ordering::Relaxed) {
        (Label::Interrupted, "stopped by Ctrl-C".into())
    } else if let Some(why) = &v.disturbed {
        (Label::Disturbed, why.clone())
    } else if v.bottleneck == Bottleneck::Generator {
        (Label::GeneratorBound, generator_bound_reason(&res, &v))
    } else {
        (Label::Ok, String::new())
    };
    Outcome::Measured {
        label,
        reason,
        result: Box::new(res),
        verdict: Some(v),
    }
}

/// The generator's own warnings, or its cores' busy share when it gave none.
fn generator_bound_reason(res: &LoadResult, v: &Verdict) -> String {
    if res.warnings.is_empty() {
        format!(
            "the generator's cores were {:.0}% busy, the server's {:.0}%",
            v.generator_busy * 100.0,
            v.server_busy * 100.0
        )
    } else {
        res.warnings.join("; ")
    }
}

/// Server CPU seconds over the measured part (from the first sample after the warm-up
/// to the last) and its peak memory.
pub(super) fn server_usage(series: &[Point], warmup: Duration) -> (f64, u64) {
    let after_warmup = series.iter().find(|p| p.t_ms as u128 >= warmup.as_millis());
    let cpu_s = match (after_warmup, series.last()) {
        (Some(first), Some(last)) => last.cpu_s - first.cpu_s,
        _ => 0.0,
    };
    (cpu_s, series.iter().map(|p| p.rss_kb).max().unwrap_or(0))
}
