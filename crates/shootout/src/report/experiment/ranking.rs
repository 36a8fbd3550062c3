//! Runs grouped into cells of the matrix, one row per contestant, summarised over repeats:
//! medians, 95% intervals, ranks where overlapping intervals tie. Only `ok` runs are
//! ranked; the others are counted by label.

use crate::record::{Label, RunRecord};
use crate::report::stats as spread;
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
    /// The runs that measured the server, with their results.
    pub fn ok(&self) -> Vec<(&'a RunRecord, &'a LoadResult)> {
        self.runs
            .iter()
            .filter(|r| r.label() == Label::Ok)
            .filter_map(|r| r.result().map(|x| (*r, x)))
            .collect()
    }

    /// `f` of every generator-bound run.
    pub fn bound_values(&self, f: impl Fn(&RunRecord, &LoadResult) -> f64) -> Vec<f64> {
        self.runs
            .iter()
            .filter(|r| r.label() == Label::GeneratorBound)
            .filter_map(|r| r.result().map(|x| f(r, x)))
            .collect()
    }

    /// Median req/s and server CPU-s per 1,000 responses of the generator-bound runs,
    /// marked `*` (the server's CPU per request is its own whatever saturated the
    /// generator); `-` and blank without such runs.
    pub fn bound_texts(&self) -> (String, String) {
        let rps = self.bound_values(|_, x| x.rps);
        if rps.is_empty() {
            return ("-".into(), String::new());
        }
        let cpu = self.bound_values(|r, x| {
            r.server_cpu_s * 1000.0 / (x.requests.ok + x.requests.status).max(1) as f64
        });
        (
            format!("{}*", units::grouped(median(&rps))),
            format!("{:.4}*", median(&cpu)),
        )
    }

    /// `f` of every ok run.
    pub fn values(&self, f: impl Fn(&RunRecord, &LoadResult) -> f64) -> Vec<f64> {
        self.ok().into_iter().map(|(r, x)| f(r, x)).collect()
    }

    /// Requests/s of the ok runs.
    pub fn rps(&self) -> Vec<f64> {
        self.values(|_, x| x.rps)
    }

    /// The ok run whose requests/s is the median (the lower one of an even count).
    pub fn median_run(&self) -> Option<(&'a RunRecord, &'a LoadResult)> {
        let mut ok = self.ok();
        ok.sort_by(|a, b| a.1.rps.total_cmp(&b.1.rps));
        let n = ok.len();
        (n > 0).then(|| ok[(n - 1) / 2])
    }

    /// Median requests/s with its spread, `25,809 ±1.2%` (the 95% interval's half-width
    /// over the median; none for a single run).
    pub fn rps_text(&self) -> String {
        let rps = self.rps();
        if rps.is_empty() {
            return "-".into();
        }
        let m = median(&rps);
        if rps.len() < 2 || m <= 0.0 {
            return units::grouped(m);
        }
        let (lo, hi) = spread::interval95(&rps);
        format!("{} ±{:.1}%", units::grouped(m), 50.0 * (hi - lo) / m)
    }

    /// Server CPU-seconds per 1,000 responses, median over ok runs.
    pub fn cpu_per_1k(&self) -> f64 {
        median(&self.values(|r, x| {
            r.server_cpu_s * 1000.0 / (x.requests.ok + x.requests.status).max(1) as f64
        }))
    }

    /// Peak resident memory over the ok runs, MiB.
    pub fn rss_mib(&self) -> f64 {
        let ok = self.ok();
        ok.iter().map(|(r, _)| r.peak_rss_kb).max().unwrap_or(0) as f64 / 1024.0
    }

    /// The runs that are not ok, counted by label, with the first reason of each.
    pub fn notes(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for label in NOT_OK {
            let these: Vec<&&RunRecord> = self.runs.iter().filter(|r| r.label() == label).collect();
            if let Some(first) = these.first() {
                let why: String = first.reason().chars().take(70).collect();
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
            .find(|l| self.runs.iter().any(|r| r.label() == *l))
    }
}

/// The reference server whose row every table measures the others against (issue 7):
/// the best this machine allows.
pub const CEILING: &str = "c-epoll";

/// The ceiling's row in a cell, when it measured there (ok or generator-bound).
pub fn ceiling<'r, 'a>(rows: &'r [Row<'a>]) -> Option<&'r Row<'a>> {
    rows.iter()
        .find(|r| r.contestant == CEILING && !r.measured(|_, x| x.rps).is_empty())
}

impl Row<'_> {
    /// `f` of every run that measured something: ok and generator-bound. For the ceiling
    /// a generator-bound run still bounds what it can do from below.
    fn measured(&self, f: impl Fn(&RunRecord, &LoadResult) -> f64 + Copy) -> Vec<f64> {
        [self.values(f), self.bound_values(f)].concat()
    }

    /// Requests/s as a percentage of the ceiling's, and server CPU per request as a
    /// multiple of the ceiling's (medians; the ceiling's over its ok and generator-bound
    /// runs); empty without ok runs.
    pub fn against(&self, ceiling: &Row) -> [String; 2] {
        if self.contestant == ceiling.contestant {
            return ["100%".into(), "×1.00".into()];
        }
        let top = median(&ceiling.measured(|_, x| x.rps));
        if self.rps().is_empty() || top <= 0.0 {
            return [String::new(), String::new()];
        }
        let per_1k = |r: &RunRecord, x: &LoadResult| {
            r.server_cpu_s * 1000.0 / (x.requests.ok + x.requests.status).max(1) as f64
        };
        let top_cpu = median(&ceiling.measured(per_1k));
        let cpu_text = if top_cpu > 0.0 {
            format!("×{:.2}", self.cpu_per_1k() / top_cpu)
        } else {
            "-".into()
        };
        [
            format!("{:.0}%", 100.0 * median(&self.rps()) / top),
            cpu_text,
        ]
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
    let ranked: Vec<usize> = (0..rows.len())
        .filter(|&i| !rows[i].rps().is_empty())
        .collect();
    let intervals: Vec<(f64, f64)> = ranked
        .iter()
        .map(|&i| spread::interval95(&rows[i].rps()))
        .collect();
    for (i, rank) in ranked.iter().zip(spread::ranks(&intervals)) {
        rows[*i].rank = Some(rank);
    }
    rows.sort_by(|a, b| {
        let key = |r: &Row| (r.rank.unwrap_or(usize::MAX), -median(&r.rps()));
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    rows
}

/// The median; 0 for no values.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
