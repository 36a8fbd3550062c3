//! The live status line of `shootout load`: one line on stderr, redrawn in place while
//! the load runs, and only when stderr is a terminal, so that piped or redirected output
//! stays exactly what it was.

use super::interrupt;
use clap::Args;
use engine::{CheckedLoad, LoadResult, RunError, Stop};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How often the line is redrawn; its req/s are those of the last such interval.
const REDRAW: Duration = Duration::from_millis(500);

/// The flag that silences the status line.
#[derive(Debug, Clone, Args)]
pub struct ProgressArgs {
    /// No live status line (elapsed, time or requests left, req/s, errors), which is
    /// otherwise drawn on stderr while it is a terminal
    #[arg(short = 'q', long)]
    quiet: bool,
}

/// Runs a checked load, showing its status line on stderr unless told not to or stderr
/// is no terminal; the line is gone before this returns.
pub fn run_shown(load: &CheckedLoad, args: &ProgressArgs) -> Result<LoadResult, RunError> {
    let bar = match args.quiet || !std::io::stderr().is_terminal() {
        true => None,
        // indicatif also hides itself on a terminal that cannot move the cursor (TERM=dumb).
        false => Some(status_bar()).filter(|bar| !bar.is_hidden()),
    };
    let Some(bar) = bar else {
        return engine::run_checked(load, &interrupt::INTERRUPTED);
    };
    let live = engine::Live::new();
    let plan = Plan::of(load);
    let result = std::thread::scope(|scope| {
        // Dropping the sender ends the drawing thread at once, not at its next redraw.
        let (done, ended) = mpsc::channel::<()>();
        scope.spawn(|| draw(&bar, &plan, &live, ended));
        let result = engine::run_watched(load, &interrupt::INTERRUPTED, &live);
        drop(done);
        result
    });
    bar.finish_and_clear();
    result
}

/// A bar that is only its message, drawn on stderr.
fn status_bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
    if let Ok(style) = ProgressStyle::with_template("{wide_msg}") {
        bar.set_style(style);
    }
    bar
}

/// Redraws the line every [`REDRAW`] until the load's end drops the other side of `ended`.
fn draw(bar: &ProgressBar, plan: &Plan, live: &engine::Live, ended: mpsc::Receiver<()>) {
    let (mut t0, mut n0) = (Instant::now(), live.responses());
    // Bounded: the load ends (duration, request count, or Ctrl-C), and with it the wait.
    while let Err(RecvTimeoutError::Timeout) = ended.recv_timeout(REDRAW) {
        let (t, n) = (Instant::now(), live.responses());
        let moment = Moment {
            phase: plan.phase(t),
            rate: (n - n0) as f64 / (t - t0).as_secs_f64().max(1e-3),
            finished: live.finished(),
            failed: live.failed(),
        };
        bar.set_message(moment.line(plan));
        (t0, n0) = (t, n);
    }
}

/// What the line counts towards: the load's measuring time or its request count.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Goal {
    Time(Duration),
    Requests(u64),
}

/// When the load starts and what it does: enough to say where it stands.
#[derive(Debug, Clone, Copy)]
struct Plan {
    start: Instant,
    warmup: Duration,
    goal: Goal,
}

impl Plan {
    /// The plan of `load`, starting now, or at its `--start-at` time.
    fn of(load: &CheckedLoad) -> Plan {
        let c = load.config();
        let now = Instant::now();
        let wait = c.start_at.map_or(Duration::ZERO, |at| {
            let unix_now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            Duration::from_millis(at).saturating_sub(unix_now)
        });
        Plan {
            start: now + wait,
            warmup: c.warmup,
            goal: match c.stop {
                Stop::After(d) => Goal::Time(d),
                Stop::Requests(n) => Goal::Requests(n),
            },
        }
    }

    /// Where the load stands at `t`.
    fn phase(&self, t: Instant) -> Phase {
        let Some(since_start) = t.checked_duration_since(self.start) else {
            return Phase::Waiting(self.start - t);
        };
        match since_start.checked_sub(self.warmup) {
            None => Phase::WarmingUp(since_start),
            Some(measured) => Phase::Measuring(measured),
        }
    }
}

/// The part of the load under way.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Waiting this long still for the `--start-at` time.
    Waiting(Duration),
    /// Warming up for this long so far.
    WarmingUp(Duration),
    /// Measuring for this long so far.
    Measuring(Duration),
}

/// What the line shows at one redraw.
#[derive(Debug, Clone, Copy)]
struct Moment {
    phase: Phase,
    /// Responses/s since the last redraw, warm-up included.
    rate: f64,
    /// Measured requests that ended so far.
    finished: u64,
    /// Measured requests that ended other than ok so far.
    failed: u64,
}

impl Moment {
    /// The status line, e.g. `3.0s of 10s, 7.0s left | 41203 req/s | 0 errors`.
    fn line(&self, plan: &Plan) -> String {
        let rate = format!("{:.0} req/s", self.rate);
        let errors = match self.failed {
            1 => "1 error".to_string(),
            n => format!("{n} errors"),
        };
        match self.phase {
            Phase::Waiting(left) => format!("starting in {}", secs(left)),
            Phase::WarmingUp(spent) => {
                format!("warm-up {} of {} | {rate}", secs(spent), secs(plan.warmup))
            }
            Phase::Measuring(spent) => {
                format!("{} | {rate} | {errors}", self.progress(spent, plan.goal))
            }
        }
    }

    /// Time spent and what is left of the goal.
    fn progress(&self, spent: Duration, goal: Goal) -> String {
        match goal {
            Goal::Time(total) => format!(
                "{} of {}, {} left",
                secs(spent.min(total)),
                secs(total),
                secs(total.saturating_sub(spent))
            ),
            Goal::Requests(total) => format!(
                "{}, {} of {total} requests left",
                secs(spent),
                total.saturating_sub(self.finished)
            ),
        }
    }
}

/// Seconds with one decimal, e.g. `7.5s`.
fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(warmup: u64, goal: Goal) -> Plan {
        Plan {
            start: Instant::now(),
            warmup: Duration::from_secs(warmup),
            goal,
        }
    }

    fn at(phase: Phase, finished: u64, failed: u64) -> Moment {
        Moment {
            phase,
            rate: 41203.4,
            finished,
            failed,
        }
    }

    #[test]
    fn the_line_says_time_or_requests_left_rate_and_errors() {
        let s = Duration::from_secs;
        let timed = plan(2, Goal::Time(s(10)));
        assert_eq!(
            at(Phase::Measuring(s(3)), 0, 0).line(&timed),
            "3.0s of 10.0s, 7.0s left | 41203 req/s | 0 errors"
        );
        assert_eq!(
            at(Phase::Measuring(s(11)), 0, 1).line(&timed),
            "10.0s of 10.0s, 0.0s left | 41203 req/s | 1 error"
        );
        assert_eq!(
            at(Phase::WarmingUp(s(1)), 0, 0).line(&timed),
            "warm-up 1.0s of 2.0s | 41203 req/s"
        );
        assert_eq!(
            at(Phase::Waiting(s(4)), 0, 0).line(&timed),
            "starting in 4.0s"
        );
        let counted = plan(0, Goal::Requests(50_000));
        assert_eq!(
            at(Phase::Measuring(s(3)), 12_000, 7).line(&counted),
            "3.0s, 38000 of 50000 requests left | 41203 req/s | 7 errors"
        );
    }

    #[test]
    fn the_phase_follows_the_start_and_the_warm_up() {
        let p = plan(2, Goal::Time(Duration::from_secs(10)));
        let later = |ms| p.start + Duration::from_millis(ms);
        assert_eq!(
            p.phase(later(500)),
            Phase::WarmingUp(Duration::from_millis(500))
        );
        assert_eq!(
            p.phase(later(2500)),
            Phase::Measuring(Duration::from_millis(500))
        );
    }
}
