//! Runs grouped into cells of the matrix, one row per contestant, summarised over repeats:
//! medians, 95% intervals of the median, ranks where overlapping intervals tie. Only `ok`
//! runs are ranked; the others are counted by label.

use crate::record::{Bottleneck, Label, RunRecord};
use crate::report::stats::measures::{self, Measure};
use crate::report::stats::{self, median};
use crate::report::units;
use engine::LoadResult;

/// What `25,809 ±1.2%` means, said under every table that shows it.
pub const RPS_SPREAD: &str = "median over ok runs ±half its 95% interval (order statistics, \
     distribution-free); under 6 runs ±half their range, and (88%) how sure that is";

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
    /// 1 = best; shared when the medians' intervals overlap; None when no run was `ok`.
    pub rank: Option<usize>,
}

impl<'a> Row<'a> {
    fn labelled(&self, label: Label) -> impl Iterator<Item = &'a RunRecord> + '_ {
        self.runs
            .iter()
            .copied()
            .filter(move |r| r.label() == label)
    }

    /// True when the generator was saturated too in every ok run that was judged: the
    /// rows's requests/s is a lower bound of the server's capacity.
    pub fn lower_bound(&self) -> bool {
        let mut judged = self
            .labelled(Label::Ok)
            .filter_map(RunRecord::verdict)
            .peekable();
        judged.peek().is_some() && judged.all(|v| v.bottleneck == Bottleneck::Both)
    }

    /// The ok runs: the valid ones, that measured the server (what every median is over).
    pub fn ok_runs(&self) -> impl Iterator<Item = &'a RunRecord> + '_ {
        self.labelled(Label::Ok)
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

    /// The runs a row without valid runs shows, marked `†`: measured, but disturbed
    /// (foreign CPU or steal past its limit). Generator-bound runs have their own mark.
    pub fn marked_runs(&self) -> impl Iterator<Item = &'a RunRecord> + '_ {
        self.labelled(Label::Disturbed)
            .filter(|r| r.result().is_some())
    }

    /// `m` of every marked run.
    pub fn marked_values(&self, m: Measure) -> Vec<f64> {
        self.marked_runs().filter_map(m).collect()
    }

    /// True when the row's figure rests on marked runs: no ok run, no generator-bound
    /// one, but disturbed ones that measured.
    pub fn is_marked(&self) -> bool {
        !self.is_measured()
            && self.bound_values(measures::rps).is_empty()
            && !self.marked_values(measures::rps).is_empty()
    }

    /// The requests/s the row is ranked by: its ok runs', or its marked runs' when it
    /// rests on them; empty for a row that is not ranked.
    fn ranked_rps(&self) -> Vec<f64> {
        match self.is_marked() {
            true => self.marked_values(measures::rps),
            false => self.rps(),
        }
    }

    /// The rank as tables show it: `2`, `2†` for a row that rests on marked runs, `-`
    /// for one that is not ranked.
    pub fn rank_text(&self) -> String {
        let mark = if self.is_marked() { MARKED } else { "" };
        self.rank.map_or("-".into(), |k| format!("{k}{mark}"))
    }

    /// Requests/s of the ok runs.
    pub fn rps(&self) -> Vec<f64> {
        self.values(measures::rps)
    }

    /// True when some run measured the server (the row is ranked).
    pub fn is_measured(&self) -> bool {
        !self.rps().is_empty()
    }

    /// The ok run whose requests/s is the median (the lower one of an even count); for a
    /// row that rests on marked runs, the median of those.
    pub fn median_run(&self) -> Option<(&'a RunRecord, &'a LoadResult)> {
        let runs: Vec<&RunRecord> = match self.is_marked() {
            true => self.marked_runs().collect(),
            false => self.labelled(Label::Ok).collect(),
        };
        let mut ok: Vec<(&RunRecord, &LoadResult)> = runs
            .into_iter()
            .filter_map(|r| Some((r, r.result()?)))
            .collect();
        ok.sort_by(|a, b| a.1.rps.total_cmp(&b.1.rps));
        let n = ok.len();
        (n > 0).then(|| ok[(n - 1) / 2])
    }

    /// Median requests/s with its spread, `25,809 ±1.2%` (the half-width of the median's
    /// 95% interval over the median), `25,809 ±3.4% (88%)` for fewer than 6 runs (their
    /// range, and how likely it holds the median), none for a single run; `-` without
    /// ok runs.
    pub fn rps_text(&self) -> String {
        let rps = self.rps();
        if rps.is_empty() {
            return "-".into();
        }
        stats::with_spread(units::grouped(median(&rps)), &rps)
    }

    /// The ok runs' requests/s with spread, or else the generator-bound runs' median
    /// marked `*` (the generator was saturated: not ranked), or else `-`.
    /// A lower bound (both sides saturated in its ok runs) reads `≥`: it ranks above a
    /// measured value only where its median exceeds it.
    pub fn rps_or_bound_text(&self) -> String {
        if self.is_measured() {
            let at_least = if self.lower_bound() { "≥ " } else { "" };
            return format!("{at_least}{}", self.rps_text());
        }
        let bound = self.bound_values(measures::rps);
        if !bound.is_empty() {
            return format!("{}*", units::grouped(median(&bound)));
        }
        let marked = self.marked_values(measures::rps);
        match marked.is_empty() {
            true => "-".into(),
            false => format!("{} {MARKED}", units::grouped(median(&marked))),
        }
    }

    /// Server CPU-seconds per 1,000 responses, median over ok runs.
    pub fn cpu_per_1k(&self) -> f64 {
        median(&self.values(measures::cpu_ms_per_response))
    }

    /// The ok runs' CPU per 1,000 responses, or else the generator-bound runs' median
    /// marked `*` (the server's CPU per request is its own whatever saturated the
    /// generator), or else blank; `unknown` when the runs' server CPU was not its own (a
    /// running server without its process).
    pub fn cpu_or_bound_text(&self) -> String {
        let cpu = measures::cpu_ms_per_response;
        if self.is_measured() && !self.values(cpu).is_empty() {
            return format!("{:.4}", self.cpu_per_1k());
        }
        let bound = self.bound_values(cpu);
        if !bound.is_empty() && !self.is_measured() {
            return format!("{:.4}*", median(&bound));
        }
        let marked = self.marked_values(cpu);
        if self.is_marked() && !marked.is_empty() {
            return format!("{:.4} {MARKED}", median(&marked));
        }
        match self.unattributed().is_some() {
            true => "unknown".into(),
            false => String::new(),
        }
    }

    /// Peak resident memory over the ok runs, MiB.
    pub fn rss_mib(&self) -> f64 {
        self.labelled(Label::Ok)
            .filter(|r| r.result().is_some())
            .map(measures::peak_rss_mib)
            .fold(0.0, f64::max)
    }

    /// [`Row::rss_mib`] as the tables show it: `unknown` when no ok run's memory was the
    /// server's own.
    pub fn rss_text(&self) -> String {
        let mut ok = self.labelled(Label::Ok).filter(|r| r.result().is_some());
        match ok.any(measures::server_known) {
            true => format!("{:.1}", self.rss_mib()),
            false => "unknown".into(),
        }
    }

    /// Why the server's CPU of some measured run was not its own, if one was not.
    pub fn unattributed(&self) -> Option<&'a str> {
        self.runs
            .iter()
            .filter_map(|r| r.verdict()?.unattributed.as_deref())
            .next()
    }

    /// The runs that are not ok, counted by label, with the first reason of each.
    pub fn notes(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for label in not_ok() {
            let these: Vec<&RunRecord> = self.labelled(label).collect();
            if let Some(first) = these.first() {
                let why: String = first.reason().chars().take(70).collect();
                out.push(match label {
                    Label::GeneratorBound => {
                        format!("{} {} (not ranked)", these.len(), label.word())
                    }
                    Label::Disturbed => disturbed_note(&these),
                    _ => format!("{} {}: {why}", these.len(), label.word()),
                });
            }
        }
        if let Some(why) = self.unattributed() {
            out.push(format!("server CPU unknown: {why}"));
        }
        out.join("; ")
    }

    /// The worst label among the runs, for a cell with no ok run.
    pub fn failure(&self) -> Option<Label> {
        not_ok().find(|l| self.labelled(*l).next().is_some())
    }
}

/// What marks a figure that rests on runs that were not valid (disturbed).
pub const MARKED: &str = "†";

/// What `†` means, under a table that has such a row.
pub const MARKED_MEANING: &str = "† no valid run: the median of its disturbed runs, ranked \
     with the mark (its notes give the disturbance: steal and foreign CPU, medians over \
     those runs)";

/// `3 disturbed: steal 18%, foreign CPU 1% (medians)`: how much was taken from the runs,
/// as their verdicts measured it.
pub fn disturbed_note(runs: &[&RunRecord]) -> String {
    let share = |f: fn(&crate::record::Verdict) -> f64| {
        let v: Vec<f64> = runs.iter().filter_map(|r| r.verdict()).map(f).collect();
        format!("{:.0}%", 100.0 * median(&v))
    };
    let median_of = if runs.len() == 1 { "" } else { " (medians)" };
    format!(
        "{} disturbed: steal {}, foreign CPU {}{median_of}",
        runs.len(),
        share(|v| v.steal),
        share(|v| v.foreign)
    )
}

/// Labels other than ok, in the order notes list them.
fn not_ok() -> impl Iterator<Item = Label> {
    Label::ALL.into_iter().filter(|l| *l != Label::Ok)
}

/// The cells of `runs` in the order they first appear, each with its rows ranked: best
/// first, then contestants without an ok run, by name.
pub fn cells(runs: &[RunRecord]) -> Vec<RankedCell<'_>> {
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

/// A cell of the matrix with its ranked rows.
pub type RankedCell<'a> = (CellKey, Vec<Row<'a>>);

/// `cells` grouped by `key` (say endpoint and load), in the order groups first appear.
pub fn group_by<'c, 'a, K: PartialEq>(
    cells: &'c [RankedCell<'a>],
    key: impl Fn(&CellKey) -> K,
) -> Vec<(K, Vec<&'c RankedCell<'a>>)> {
    let mut groups: Vec<(K, Vec<&RankedCell>)> = Vec::new();
    for cell in cells {
        let k = key(&cell.0);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, these)) => these.push(cell),
            None => groups.push((k, vec![cell])),
        }
    }
    groups
}

/// The concurrency levels of `cells`, lowest first.
pub fn levels(cells: &[&RankedCell]) -> Vec<usize> {
    let mut levels: Vec<usize> = cells.iter().map(|(k, _)| k.connections).collect();
    levels.sort_unstable();
    levels.dedup();
    levels
}

/// The row of `contestant` in the first of `cells` that is `at` the place asked.
pub fn find_row<'c, 'a>(
    cells: &[&'c RankedCell<'a>],
    at: impl Fn(&CellKey) -> bool,
    contestant: &str,
) -> Option<&'c Row<'a>> {
    cells
        .iter()
        .filter(|(k, _)| at(k))
        .flat_map(|(_, rows)| rows.iter())
        .find(|r| r.contestant == contestant)
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

/// Ranks the rows with ok runs, and those that rest on marked runs, by the intervals of
/// their median requests/s (overlaps tie), then sorts: by rank, then by median requests/s, the unranked last (the sort is
/// stable: by name).
fn rank(rows: &mut [Row]) {
    let ranked: Vec<usize> = (0..rows.len())
        .filter(|&i| !rows[i].ranked_rps().is_empty())
        .collect();
    let intervals: Vec<(f64, f64)> = ranked
        .iter()
        .map(|&i| stats::interval(&rows[i].ranked_rps()))
        .collect();
    for (i, rank) in ranked.iter().zip(stats::ranks(&intervals)) {
        rows[*i].rank = Some(rank);
    }
    rows.sort_by(|a, b| {
        let key = |r: &Row| (r.rank.unwrap_or(usize::MAX), -median(&r.ranked_rps()));
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{hello_run, run};

    fn ok(name: &str, rps: &[f64]) -> Vec<RunRecord> {
        rps.iter()
            .map(|v| hello_run(name, Label::Ok, *v, 1.0))
            .collect()
    }

    fn ranked(runs: &[RunRecord]) -> Vec<(&str, Option<usize>)> {
        let (_, rows) = &cells(runs)[0];
        rows.iter().map(|r| (r.contestant, r.rank)).collect()
    }

    #[test]
    fn rows_are_ranked_best_first_and_overlapping_intervals_tie() {
        let runs = [
            ok("a", &[1000.0, 1010.0, 1020.0]),
            ok("b", &[1005.0, 1015.0, 1025.0]),
            ok("c", &[500.0, 505.0, 510.0]),
        ]
        .concat();
        // a and b overlap: a shared rank 1, b first by its higher median; two rows are
        // wholly above c, so c is third, not second.
        assert_eq!(
            ranked(&runs),
            [("b", Some(1)), ("a", Some(1)), ("c", Some(3))]
        );
    }

    /// Gives every ok run of `runs` a verdict with `bottleneck`.
    fn judged(mut runs: Vec<RunRecord>, bottleneck: Bottleneck) -> Vec<RunRecord> {
        for r in &mut runs {
            if let crate::record::Outcome::Measured { verdict, .. } = &mut r.outcome {
                *verdict = Some(crate::record::Verdict {
                    bottleneck,
                    valid: true,
                    disturbed: None,
                    server_busy: 0.99,
                    generator_busy: 0.5,
                    foreign: 0.0,
                    steal: 0.0,
                    unattributed: None,
                });
            }
        }
        runs
    }

    #[test]
    fn a_lower_bound_reads_at_least_and_ranks_by_its_value() {
        let runs = [
            judged(ok("bound", &[900.0, 910.0, 920.0]), Bottleneck::Both),
            judged(
                ok("measured", &[1000.0, 1010.0, 1020.0]),
                Bottleneck::Server,
            ),
            ok("unjudged", &[100.0, 101.0, 102.0]),
        ]
        .concat();
        let (_, rows) = &cells(&runs)[0];
        let row = |name: &str| rows.iter().find(|r| r.contestant == name).unwrap();
        assert!(row("bound").lower_bound());
        assert!(!row("measured").lower_bound() && !row("unjudged").lower_bound());
        assert!(row("bound").rps_or_bound_text().starts_with("≥ 910"));
        assert!(row("measured").rps_or_bound_text().starts_with("1,010"));
        // Below a measured value, a lower bound does not rank above it.
        assert_eq!(
            ranked(&runs),
            [
                ("measured", Some(1)),
                ("bound", Some(2)),
                ("unjudged", Some(3))
            ]
        );
        let table = crate::report::experiment::cells::tables(&runs).remove(0);
        assert!(table.notes[0].contains(crate::report::experiment::ceiling::LOWER_BOUND_MARK));
    }

    #[test]
    fn single_runs_tie_only_when_equal() {
        let runs = [ok("a", &[100.0]), ok("b", &[200.0]), ok("c", &[200.0])].concat();
        assert_eq!(
            ranked(&runs),
            [("b", Some(1)), ("c", Some(1)), ("a", Some(3))]
        );
    }

    #[test]
    fn only_ok_runs_are_ranked_the_others_come_last_by_name() {
        let runs = vec![
            run(
                "z-failed",
                crate::report::fixture::hello(50),
                0,
                Label::ServerFailed,
                None,
            ),
            hello_run("m-bound", Label::GeneratorBound, 9000.0, 2.0),
            hello_run("m-bound", Label::GeneratorBound, 9500.0, 2.0),
            hello_run("b-ok", Label::Ok, 100.0, 1.0),
        ];
        assert_eq!(
            ranked(&runs),
            [("b-ok", Some(1)), ("m-bound", None), ("z-failed", None)]
        );
        let cells = cells(&runs);
        let bound = &cells[0].1[1];
        // Generator-bound medians are shown, marked, never ranked.
        assert_eq!(bound.rps_or_bound_text(), "9,250*");
        assert_eq!(bound.cpu_or_bound_text(), "0.0541*");
        assert_eq!(bound.notes(), "2 generator-bound (not ranked)");
        assert_eq!(bound.failure(), Some(Label::GeneratorBound));
        let failed = &cells[0].1[2];
        assert_eq!(failed.rps_or_bound_text(), "-");
        assert_eq!(failed.cpu_or_bound_text(), "");
        assert_eq!(failed.failure(), Some(Label::ServerFailed));
        assert!(failed
            .notes()
            .starts_with("1 server-failed: server-failed because"));
    }

    #[test]
    fn requests_per_second_with_spread_and_efficiency() {
        let runs = ok("a", &[1000.0, 1100.0, 1200.0]);
        let cells = cells(&runs);
        let a = &cells[0].1[0];
        // Three runs: their range, ±100 over the median 1100, which holds the median
        // with 1 - 2/8 = 75%.
        assert_eq!(a.rps_text(), "1,100 ±9.1% (75%)");
        assert_eq!(a.rps_or_bound_text(), a.rps_text());
        // 1 CPU-s over 4,400 responses: 0.2273 CPU-s per 1,000.
        assert_eq!(a.cpu_or_bound_text(), "0.2273");
        let single = ok("b", &[9000.0]);
        assert_eq!(super::cells(&single)[0].1[0].rps_text(), "9,000");
    }

    #[test]
    fn cells_keep_the_order_their_runs_first_appear() {
        let fixture = crate::report::fixture::runs();
        let titles: Vec<String> = cells(&fixture).iter().map(|(k, _)| k.title()).collect();
        assert_eq!(
            titles[0],
            "/hello, layout split, keep-alive, 50 connections"
        );
        assert_eq!(
            titles[1],
            "/hello, layout split, keep-alive, 200 connections"
        );
        assert_eq!(titles.len(), 5);
    }
}
