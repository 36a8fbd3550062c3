//! Runs grouped into cells of the matrix, one row per contestant, summarised over repeats:
//! medians, 95% intervals, ranks where overlapping intervals tie. Only `ok` runs are
//! ranked; the others are counted by label.

use crate::record::{Label, RunRecord};
use crate::report::stats::measures::{self, Measure};
use crate::report::stats::{self, median};
use crate::report::units;
use engine::LoadResult;

/// What identifies a cell: endpoint, layout, load, connections, rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellKey {
    pub endpoint: String,
    pub layout: String,
    pub load: String,
    pub connections: usize,
    pub rate: Option<String>,
}

impl CellKey {
    /// The cell `r` belongs to.
    pub fn of(r: &RunRecord) -> CellKey {
        CellKey {
            endpoint: r.cell.endpoint.clone(),
            layout: r.cell.layout.clone(),
            load: r.cell.load.clone(),
            connections: r.cell.connections,
            rate: r.rate().map(str::to_string),
        }
    }

    /// `/hello, layout split, keep-alive, 50 connections[, rate R/s]`.
    pub fn title(&self) -> String {
        let rate = self
            .rate
            .as_ref()
            .map(|r| format!(", rate {r}/s"))
            .unwrap_or_default();
        format!(
            "/{}, layout {}, {}, {} connections{rate}",
            self.endpoint, self.layout, self.load, self.connections
        )
    }
}

/// One contestant's runs in one cell.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    pub contestant: &'a str,
    pub runs: Vec<&'a RunRecord>,
    /// 1 = best; shared when 95% intervals overlap; None when no run was `ok`.
    pub rank: Option<usize>,
}

impl<'a> Row<'a> {
    fn labelled(&self, label: Label) -> impl Iterator<Item = &'a RunRecord> + '_ {
        self.runs
            .iter()
            .copied()
            .filter(move |r| measures::label(r) == label)
    }

    /// `m` of every ok run (the runs that measured the server).
    pub fn values(&self, m: Measure) -> Vec<f64> {
        self.labelled(Label::Ok).filter_map(m).collect()
    }

    /// `m` of every generator-bound run.
    pub fn bound_values(&self, m: Measure) -> Vec<f64> {
        self.labelled(Label::GeneratorBound).filter_map(m).collect()
    }

    /// `m` of every run that measured something: ok and generator-bound. For the ceiling
    /// a generator-bound run still bounds what it can do from below.
    pub fn measured_values(&self, m: Measure) -> Vec<f64> {
        [self.values(m), self.bound_values(m)].concat()
    }

    /// Requests/s of the ok runs.
    pub fn rps(&self) -> Vec<f64> {
        self.values(measures::rps)
    }

    /// True when some run measured the server (the row is ranked).
    pub fn is_measured(&self) -> bool {
        !self.rps().is_empty()
    }

    /// The ok run whose requests/s is the median (the lower one of an even count).
    pub fn median_run(&self) -> Option<(&'a RunRecord, &'a LoadResult)> {
        let mut ok: Vec<(&RunRecord, &LoadResult)> = self
            .labelled(Label::Ok)
            .filter_map(|r| Some((r, measures::result(r)?)))
            .collect();
        ok.sort_by(|a, b| a.1.rps.total_cmp(&b.1.rps));
        let n = ok.len();
        (n > 0).then(|| ok[(n - 1) / 2])
    }

    /// Median requests/s with its spread, `25,809 ±1.2%` (the 95% interval's half-width
    /// over the median; none for a single run); `-` without ok runs.
    pub fn rps_text(&self) -> String {
        let rps = self.rps();
        if rps.is_empty() {
            return "-".into();
        }
        let m = units::grouped(median(&rps));
        match stats::spread_percent(&rps) {
            Some(pct) => format!("{m} ±{pct:.1}%"),
            None => m,
        }
    }

    /// The ok runs' requests/s with spread, or else the generator-bound runs' median
    /// marked `*` (the generator was saturated: not ranked), or else `-`.
    pub fn rps_or_bound_text(&self) -> String {
        if self.is_measured() {
            return self.rps_text();
        }
        let bound = self.bound_values(measures::rps);
        match bound.is_empty() {
            true => "-".into(),
            false => format!("{}*", units::grouped(median(&bound))),
        }
    }

    /// Server CPU-seconds per 1,000 responses, median over ok runs.
    pub fn cpu_per_1k(&self) -> f64 {
        median(&self.values(measures::cpu_ms_per_response))
    }

    /// The ok runs' CPU per 1,000 responses, or else the generator-bound runs' median
    /// marked `*` (the server's CPU per request is its own whatever saturated the
    /// generator), or else blank.
    pub fn cpu_or_bound_text(&self) -> String {
        if self.is_measured() {
            return format!("{:.4}", self.cpu_per_1k());
        }
        let bound = self.bound_values(measures::cpu_ms_per_response);
        match bound.is_empty() {
            true => String::new(),
            false => format!("{:.4}*", median(&bound)),
        }
    }

    /// Peak resident memory over the ok runs, MiB.
    pub fn rss_mib(&self) -> f64 {
        self.labelled(Label::Ok)
            .filter(|r| measures::result(r).is_some())
            .map(measures::peak_rss_mib)
            .fold(0.0, f64::max)
    }

    /// The runs that are not ok, counted by label, with the first reason of each.
    pub fn notes(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for label in NOT_OK {
            let these: Vec<&RunRecord> = self.labelled(label).collect();
            if let Some(first) = these.first() {
                let why: String = measures::reason(first).chars().take(70).collect();
                out.push(match label {
                    Label::GeneratorBound => {
                        format!("{} {} (not ranked)", these.len(), label.word())
                    }
                    _ => format!("{} {}: {why}", these.len(), label.word()),
                });
            }
        }
        out.join("; ")
    }

    /// The worst label among the runs, for a cell with no ok run.
    pub fn failure(&self) -> Option<Label> {
        NOT_OK
            .into_iter()
            .find(|l| self.labelled(*l).next().is_some())
    }
}

/// Labels other than ok, in the order notes list them.
const NOT_OK: [Label; 7] = [
    Label::GeneratorBound,
    Label::ServerFailed,
    Label::VerifyFailed,
    Label::Timeout,
    Label::Interrupted,
    Label::LoadRefused,
    Label::Skipped,
];

/// The cells of `runs` in the order they first appear, each with its rows ranked: best
/// first, then contestants without an ok run, by name.
pub fn cells(runs: &[RunRecord]) -> Vec<(CellKey, Vec<Row<'_>>)> {
    let mut keys: Vec<CellKey> = Vec::new();
    for r in runs {
        let k = CellKey::of(r);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|k| {
            let rows = rows(runs, &k);
            (k, rows)
        })
        .collect()
}

fn rows<'a>(runs: &'a [RunRecord], key: &CellKey) -> Vec<Row<'a>> {
    let mut names: Vec<&str> = runs.iter().map(|r| r.cell.contestant.as_str()).collect();
    names.sort();
    names.dedup();
    let mut rows: Vec<Row> = names
        .into_iter()
        .map(|name| Row {
            contestant: name,
            runs: runs
                .iter()
                .filter(|r| r.cell.contestant == name && CellKey::of(r) == *key)
                .collect(),
            rank: None,
        })
        .filter(|row| !row.runs.is_empty())
        .collect();
    rank(&mut rows);
    rows
}

/// Ranks the rows with ok runs by their requests/s intervals (overlaps tie), then sorts:
/// by rank, then by median requests/s, the unranked last (the sort is stable: by name).
fn rank(rows: &mut [Row]) {
    let ranked: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].is_measured()).collect();
    let intervals: Vec<(f64, f64)> = ranked
        .iter()
        .map(|&i| stats::interval95(&rows[i].rps()))
        .collect();
    for (i, rank) in ranked.iter().zip(stats::ranks(&intervals)) {
        rows[*i].rank = Some(rank);
    }
    rows.sort_by(|a, b| {
        let key = |r: &Row| (r.rank.unwrap_or(usize::MAX), -median(&r.rps()));
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
}
