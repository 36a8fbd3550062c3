//! Runs grouped into cells of the matrix, one row per contestant, summarised over repeats:
//! medians, 95% intervals of the median, ranks where overlapping intervals tie. Only `ok`
//! runs are ranked; the others are counted by label.

use super::cell_key::CellKey;
use super::row::Row;
use crate::model::RunRecord;
use crate::stats::{self, median};

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
    let mut names: Vec<&str> = runs
        .iter()
        .map(|r| r.coordinates.contestant.as_str())
        .collect();
    names.sort();
    names.dedup();
    let mut rows: Vec<Row> = names
        .into_iter()
        .map(|name| Row {
            contestant: name,
            runs: runs
                .iter()
                .filter(|r| r.coordinates.contestant == name && CellKey::of(r) == *key)
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
    use crate::model::{Bottleneck, Label};
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
            if let crate::model::Outcome::Measured { verdict, .. } = &mut r.outcome {
                *verdict = Some(crate::model::Verdict {
                    bottleneck,
                    valid: true,
                    disturbed: None,
                    server_busy: 0.99,
                    generator_busy: 0.5,
                    foreign: 0.0,
                    steal: 0.0,
                    unattributed: None,
                    database_busy: None,
                    split: None,
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
        assert!(table.notes[0].contains(crate::report::experiment::marks::LOWER_BOUND_MARK));
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
