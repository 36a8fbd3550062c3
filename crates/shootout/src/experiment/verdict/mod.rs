//! Judging a run from both sides' CPU (three with the database the harness owns), sampled
//! every 100 ms over its measured part: which side's cores were saturated, and whether
//! foreign work or the hypervisor disturbed it. A side that shares its cores with the
//! database (`+db:server`, `+db:generator`) is bound only when its own work there is at
//! least the database's; the database is, when its own is at least theirs and at least
//! half the saturation line of its cores' time.
//! The thresholds and the measurements behind them are in docs/verdicts.md.

mod sides;

use crate::experiment::layout::Layout;
use crate::model::{Bottleneck, LoadKind, Point, Verdict};
use sides::Sides;
use std::time::Duration;

/// Where the verdict draws its lines, as shares (0..1). The defaults come from
/// measurements on the 2-core machine of record (docs/verdicts.md); an experiment may set
/// its own in a `[verdict]` table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// A side whose cores were busy at least this share of the measured time is saturated.
    pub saturated: f64,
    /// What disturbs a run whose figures are requests/s and latency: a closed loop or a
    /// device ramp. They lose what the server's cores lose, and more (docs/verdicts.md:
    /// 5% of the cores taken from the server's cut its requests/s by 4-15%; steal of
    /// 1-2% cut it by 12%).
    pub capacity: Tolerance,
    /// What disturbs a run at a fixed rate, whose figure is the server's CPU per
    /// response: time taken from the server's core does not raise it, so it tolerates
    /// more foreign CPU; the hypervisor's steal beyond 3% raises it by 10% and more.
    pub efficiency: Tolerance,
    /// How long a round waits for the machine to be quieter than the strictest foreign
    /// line before it runs anyway (and its verdicts judge what the noise did).
    pub wait: Duration,
}

/// The disturbance a kind of figure tolerates, as shares of all cores' time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Core time that neither side's processes explain.
    pub foreign: f64,
    /// Time stolen by the hypervisor.
    pub steal: f64,
}

/// The lines one run is judged by: its side's saturation and its kind's tolerance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub saturated: f64,
    pub foreign: f64,
    pub steal: f64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            saturated: 0.90,
            capacity: Tolerance {
                foreign: 0.05,
                steal: 0.01,
            },
            efficiency: Tolerance {
                foreign: 0.10,
                steal: 0.03,
            },
            wait: Duration::from_secs(30),
        }
    }
}

impl Policy {
    /// The lines a run of this kind of load is judged by.
    pub fn limits(&self, kind: &LoadKind) -> Limits {
        let Tolerance { foreign, steal } = self.tolerance(kind);
        Limits {
            saturated: self.saturated,
            foreign,
            steal,
        }
    }

    /// What disturbs a run of this kind of load.
    pub fn tolerance(&self, kind: &LoadKind) -> Tolerance {
        match kind {
            LoadKind::Rate { .. } => self.efficiency,
            LoadKind::Closed | LoadKind::Devices { .. } | LoadKind::Capacity { .. } => {
                self.capacity
            }
        }
    }

    /// The least of both kinds' tolerances: what a round waits for before it runs, and
    /// what the warning before the first run compares the idle host with.
    pub fn strictest(&self) -> Tolerance {
        Tolerance {
            foreign: self.capacity.foreign.min(self.efficiency.foreign),
            steal: self.capacity.steal.min(self.efficiency.steal),
        }
    }
}

/// The verdict on a run whose load was measured from `warmup` on, on `layout`;
/// `engine_bound` is the generator's own account of its loops (busy over 90%); `limits`,
/// what saturates a side and what disturbs a run of this kind (`Policy::limits`).
/// `unattributed` says why the server's CPU could not be told apart, when it could not:
/// it then counts among the other processes', so foreign CPU is not judged (steal is).
pub fn judge(
    series: &[Point],
    warmup: Duration,
    layout: &Layout,
    engine_bound: bool,
    limits: &Limits,
    unattributed: Option<String>,
) -> Verdict {
    let window = measured(series, warmup);
    let cores = window.first().map_or(0, |p| p.cores.len());
    let all: Vec<usize> = (0..cores).collect();
    let sides = Sides::of(window, layout, &all);
    let server_busy = busy(window, sides.server);
    let generator_busy = busy(window, sides.generator);
    let database_busy = sides.database.map(|d| busy(window, d));
    let steal = mean(
        window
            .iter()
            .skip(1)
            .map(|p| mean(p.steal.iter().map(|&s| s as f64))),
    );
    let foreign = foreign(window, cores);
    let split = sides.split(window);
    let saturated = |busy: f64| busy >= limits.saturated;
    let server_saturated = saturated(server_busy) && sides.server_outworks_database(&split);
    let generator_saturated =
        engine_bound || (saturated(generator_busy) && sides.generator_outworks_database(&split));
    // Its own work must be a real part of its cores' time too: on cores that foreign work
    // keeps busy, a database at 5% is not what bound the run.
    let database_saturated = database_busy.is_some_and(saturated)
        && sides.database_outworks_others(&split)
        && split.is_some_and(|s| s.database_share() >= limits.saturated / 2.0);
    let bottleneck = match (server_saturated, generator_saturated, database_saturated) {
        (true, true, _) => Bottleneck::Both,
        (true, false, _) => Bottleneck::Server,
        (false, true, _) => Bottleneck::Generator,
        (false, false, true) => Bottleneck::Database,
        (false, false, false) => Bottleneck::Neither,
    };
    let disturbed = if foreign > limits.foreign && unattributed.is_none() {
        Some(over("foreign CPU", foreign, limits.foreign))
    } else if steal > limits.steal {
        Some(over("steal", steal, limits.steal))
    } else {
        None
    };
    Verdict {
        bottleneck,
        valid: bottleneck != Bottleneck::Generator && disturbed.is_none(),
        disturbed,
        server_busy,
        generator_busy,
        foreign,
        steal,
        unattributed,
        database_busy,
        split,
    }
}

/// `steal 12% of the cores (over 5%)`.
fn over(what: &str, share: f64, limit: f64) -> String {
    let (share, limit) = (share * 100.0, limit * 100.0);
    format!("{what} {share:.0}% of the cores (over {limit:.0}%)")
}

/// The samples of the measured part: from the last sample at or before the end of the
/// warm-up (each sample's shares cover the interval before it) to the end.
fn measured(series: &[Point], warmup: Duration) -> &[Point] {
    let start = series
        .iter()
        .rposition(|p| u128::from(p.t_ms) <= warmup.as_millis())
        .unwrap_or(0);
    &series[start..]
}

/// Mean busy share of `cores` over the window's intervals.
fn busy(window: &[Point], cores: &[usize]) -> f64 {
    let per_sample = window.iter().skip(1).map(|p| {
        mean(
            cores
                .iter()
                .filter_map(|&c| p.cores.get(c))
                .map(|&b| b as f64),
        )
    });
    mean(per_sample)
}

/// The CPU time of other user processes over the window, as a share of the cores'
/// time. Each interval counts only growth, and no more than the cores had time for: the
/// monitor's count never falls within one load, but a capacity search's series joins
/// one count per step, and series stored by earlier versions summed the processes alive
/// at each point (a process that exited took its whole CPU time out of the sum; one
/// missed by a walk brought it back, which read as "foreign CPU 102% of the cores").
fn foreign(window: &[Point], cores: usize) -> f64 {
    let (Some(first), Some(last)) = (window.first(), window.last()) else {
        return 0.0;
    };
    let wall_s = (last.t_ms.saturating_sub(first.t_ms)) as f64 / 1000.0;
    if wall_s <= 0.0 || cores == 0 {
        return 0.0;
    }
    let grown: f64 = window
        .windows(2)
        .map(|w| {
            let room = (w[1].t_ms.saturating_sub(w[0].t_ms)) as f64 / 1000.0 * cores as f64;
            (w[1].others_cpu_s - w[0].others_cpu_s).clamp(0.0, room)
        })
        .sum();
    grown / (wall_s * cores as f64)
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

#[cfg(test)]
mod tests;
