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
/// to the last) and its peak memory. Only growth counts: a sample is the sum over the
/// server's live threads, so a thread that ends (a thread-per-connection server's, when
/// the load closes its connections) takes its whole CPU time out of the next one, which
/// is not work undone.
pub(super) fn server_usage(series: &[Point], warmup: Duration) -> (f64, u64) {
    let after_warmup = series
        .iter()
        .position(|p| p.t_ms as u128 >= warmup.as_millis());
    let measured = after_warmup.map_or(&[][..], |first| &series[first..]);
    let grown = measured
        .windows(2)
        .map(|w| (w[1].cpu_s - w[0].cpu_s).max(0.0));
    let cpu_s = grown.sum();
    (cpu_s, series.iter().map(|p| p.rss_kb).max().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t_ms: u64, cpu_s: f64, rss_kb: u64) -> Point {
        Point {
            t_ms,
            cpu_s,
            rss_kb,
            ..Point::default()
        }
    }

    #[test]
    fn server_cpu_is_what_grew_after_the_warmup_and_a_thread_that_ends_takes_nothing_back() {
        let series = [
            at(0, 1.0, 10),
            at(100, 1.5, 30),
            at(200, 1.7, 20),
            // Connections closed: their threads' time left the sum.
            at(300, 0.4, 20),
            at(400, 0.5, 20),
        ];
        let (cpu_s, peak) = server_usage(&series, Duration::from_millis(100));
        assert!((cpu_s - 0.3).abs() < 1e-9, "{cpu_s}");
        assert_eq!(peak, 30);
        assert_eq!(
            server_usage(&series[..1], Duration::from_secs(1)),
            (0.0, 10)
        );
    }
}
