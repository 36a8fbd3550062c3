//! The cells of an experiment's matrix: endpoint × layout × load × level (× streams ×
//! rate).

use super::{Experiment, Load, LoadPace};
use crate::experiment::layout::Layout;
use crate::experiment::verdict::Policy;
use crate::model::endpoint::Endpoint;
use crate::model::LoadKind;
use engine::{Pace, RateSchedule};
use std::time::Duration;

/// One endpoint × layout × load × connections (× streams × rate) combination, ready to
/// run.
#[derive(Debug, Clone)]
pub struct MatrixCell {
    pub endpoint: Endpoint,
    pub layout: Layout,
    pub load: Load,
    pub connections: usize,
    /// HTTP/2 streams in flight per connection; None over HTTP/1.x.
    pub streams: Option<usize>,
    /// How its load sends (a capacity search's: its first step's).
    pub pace: Pace,
    /// What the run record says of the load.
    pub kind: LoadKind,
    /// Warm-up and measured time of its load (a capacity search's: of each step, the
    /// least measured).
    pub warmup: Duration,
    pub measured: Duration,
    /// Where the verdict on its runs draws its lines.
    pub verdict_policy: Policy,
}

impl Experiment {
    /// Every cell, in the order of the file: endpoints, layouts, loads, levels, streams,
    /// rates.
    pub fn cells(&self) -> Vec<MatrixCell> {
        let mut out = Vec::new();
        for endpoint in &self.endpoints {
            for layout in &self.layouts {
                for load in self.loads.iter().filter(|l| l.runs_on(&endpoint.name)) {
                    for connections in &load.levels {
                        for streams in stream_levels(load) {
                            for (pace, kind) in paces(load) {
                                let (warmup, measured) = self.times(load, &pace);
                                out.push(MatrixCell {
                                    endpoint: endpoint.clone(),
                                    layout: layout.clone(),
                                    load: load.clone(),
                                    connections: *connections,
                                    streams,
                                    pace,
                                    kind,
                                    warmup,
                                    measured,
                                    verdict_policy: self.verdict_policy,
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Warm-up and measured time of one run: a staged schedule or a device ramp is
    /// measured whole (no warm-up); anything else gets the load's or the experiment's.
    fn times(&self, load: &Load, pace: &Pace) -> (Duration, Duration) {
        let staged = pace.staged();
        if staged.is_zero() {
            (self.warmup, load.duration.unwrap_or(self.duration))
        } else {
            (Duration::ZERO, staged)
        }
    }
}

/// The stream counts `load` runs at: each of its own over HTTP/2, one None over HTTP/1.x.
fn stream_levels(load: &Load) -> Vec<Option<usize>> {
    match &load.http2 {
        Some(h2) => h2.streams.iter().copied().map(Some).collect(),
        None => vec![None],
    }
}

/// The engine's pace of each run of `load`, with the kind the record keeps.
fn paces(load: &Load) -> Vec<(Pace, LoadKind)> {
    match &load.pace {
        LoadPace::Closed => vec![(Pace::Closed, LoadKind::Closed)],
        LoadPace::Rates(rates) => rates
            .iter()
            .map(|r| {
                let schedule: RateSchedule = r.schedule.clone();
                let kind = LoadKind::Rate {
                    schedule: r.text.clone(),
                };
                (Pace::Open(schedule), kind)
            })
            .collect(),
        LoadPace::Devices { stages, script } => {
            let kind = LoadKind::Devices {
                stages: stages.clone(),
            };
            vec![(Pace::Devices(script.clone()), kind)]
        }
        // The search's first step; the harness runs each step at the rate it chooses.
        LoadPace::Capacity(search) => {
            let kind = LoadKind::Capacity {
                objectives: search.objectives.to_string(),
            };
            let first = RateSchedule::constant(search.plan.start);
            vec![(Pace::Open(first), kind)]
        }
    }
}
