//! A declared table's column: which cell of the experiment it takes (load, connections,
//! HTTP/2 streams, rate; endpoint and layout from the table's place unless it names
//! them), what it measures there, how its figure reads, and the baseline it is set
//! against.

use crate::report::experiment::cell_key::CellKey;
use crate::store::{Plan, PlannedLoad};

/// One column of figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub header: String,
    /// What its figures are, for the legend (`header: what, where (load "x")`).
    pub meaning: String,
    pub take: Take,
    pub measure: Measure,
    pub digits: Digits,
    pub baseline: Option<Baseline>,
    /// The client was asked to resume TLS sessions: a figure where none resumed is
    /// withheld (it would be a full handshake's under the wrong name), and one where only
    /// some did says how many (the `resumption` extension).
    pub resumption: bool,
}

/// Which cell a column takes: a load at one of its levels, streams and schedules; the
/// endpoint and layout of the table's place unless the column names its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Take {
    pub endpoint: Option<String>,
    pub layout: Option<String>,
    pub load: String,
    pub connections: usize,
    pub streams: Option<usize>,
    /// The schedule of a load at a fixed rate.
    pub rate: Option<String>,
}

impl Take {
    /// The first cell of `load`: its first level, its first schedule at a fixed rate, at
    /// `streams` over HTTP/2.
    pub fn first_of(load: &PlannedLoad, streams: Option<usize>) -> Take {
        Take {
            endpoint: None,
            layout: None,
            load: load.name.clone(),
            connections: load.levels.first().copied().unwrap_or_default(),
            streams,
            rate: match load.kind.as_str() {
                "rate" => load.schedules.first().cloned(),
                _ => None,
            },
        }
    }

    /// A load the plan does not have: a cell no run is in.
    pub fn named(load: &str) -> Take {
        Take {
            endpoint: None,
            layout: None,
            load: load.to_string(),
            connections: 0,
            streams: None,
            rate: None,
        }
    }

    /// The cell at `(endpoint, layout)`, the table's place.
    pub fn key(&self, (endpoint, layout): (&str, &str)) -> CellKey {
        CellKey {
            endpoint: self.endpoint.as_deref().unwrap_or(endpoint).to_string(),
            layout: self.layout.as_deref().unwrap_or(layout).to_string(),
            load: self.load.clone(),
            connections: self.connections,
            streams: self.streams,
            rate: self.rate.clone(),
        }
    }

    /// Where it was measured: `at 5000/s`, `50 connections`.
    pub fn at(&self) -> String {
        match &self.rate {
            Some(rate) => format!("at {rate}/s"),
            None => format!("{} connections", self.connections),
        }
    }

    /// A column's meaning: `header: what, where (load "name")`, then `then`.
    pub fn meaning(&self, header: &str, what: &str, then: &str) -> String {
        format!(
            "{header}: {what}, {} (load {:?}){then}",
            self.at(),
            self.load
        )
    }
}

/// What a column's figure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Requests/s as the other tables rank them: the ok runs' median (`≥` where both
    /// sides saturated), else the generator-bound runs' (`*`), else the disturbed ones'
    /// (`†`).
    Rps,
    /// The server's CPU µs per response at a fixed rate, as the efficiency tables count
    /// it (`†` when it rests on runs that do not count).
    CpuUs,
    /// The same per MB a response moved, its request's bytes and its answer's: what a
    /// byte costs the server, for uploads and downloads.
    CpuUsPerMb,
    /// One side's CPU µs per response at a fixed rate, from the verdict's three-sided
    /// split of a run with the database the harness owns (marked as `CpuUs` is).
    SideCpuUs(Side),
    /// 99% of requests within, ms: the ok runs' median (marked as `Rps` is).
    P99Ms,
    /// The server's peak resident memory, KiB: the ok runs' median (marked as `Rps` is).
    RssKib,
}

/// A side of a run with a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Server,
    Database,
    Generator,
}

/// How a figure is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// Whole, grouped: `73,071`.
    Whole,
    /// Tenths: `22.1`.
    Tenths,
    /// Hundredths: `0.42`.
    Hundredths,
}

/// What a column's figure is set against, how, and where the comparison is shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    pub of: Reference,
    pub against: Against,
    pub shown: Shown,
}

/// Whose figure a baseline is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// The same contestant's figure in another column (its place among the columns).
    Column(usize),
    /// The ceiling's figure in the same column: the best this machine allows. Set
    /// against in percent as every table's `% of ceiling` is (`ceiling::percent_of`), and
    /// shown only where the ceiling measured.
    Ceiling,
}

/// How a figure is set against its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// In percent of the baseline: `130%`.
    Percent,
    /// The figure minus the baseline: `+4.0`.
    Difference,
    /// The figure as a multiple of the baseline: `2.1×`.
    Ratio,
    /// Memory in KiB: the figure minus the baseline, in bytes per connection of the
    /// `added` the column holds beyond the baseline's: `1,676 B per connection`.
    PerConnection { added: usize },
}

/// Where a comparison is shown.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// In the figure's cell after it: `95,000 (130%)`.
    InCell,
    /// In a column of its own, after both columns it compares.
    Column { header: String, meaning: String },
}

/// A load of a plan, at one of its stream counts, whose runs give a declared column its
/// figure `F`.
#[derive(Debug, Clone, Copy)]
pub struct Planned<'p, F> {
    pub figure: F,
    pub load: &'p PlannedLoad,
    pub streams: Option<usize>,
}

impl<'p, F> Planned<'p, F> {
    /// Each load of `plan` at each of its stream counts whose runs give a figure (`of`),
    /// in the plan's order.
    pub fn every(
        plan: &'p Plan,
        of: impl Fn(&PlannedLoad, Option<usize>) -> Option<F>,
    ) -> Vec<Self> {
        (cells(plan))
            .filter_map(|(load, streams)| {
                let figure = of(load, streams)?;
                Some(Planned {
                    figure,
                    load,
                    streams,
                })
            })
            .collect()
    }

    /// The cell it gives its figure in.
    pub fn take(&self) -> Take {
        Take::first_of(self.load, self.streams)
    }
}

/// Each load of `plan` at each of its stream counts (None over HTTP/1.x), in its order.
pub fn cells(plan: &Plan) -> impl Iterator<Item = (&PlannedLoad, Option<usize>)> {
    plan.loads.iter().flat_map(|load| {
        let streams: Vec<Option<usize>> = match &load.http2 {
            Some(h2) => h2.streams.iter().copied().map(Some).collect(),
            None => vec![None],
        };
        streams.into_iter().map(move |s| (load, s))
    })
}
