//! The table of each cell of the matrix (endpoint, layout, load, level): a row per
//! contestant, ranked, with spread, latency, errors and efficiency. `shootout run` prints
//! it at the end; `shootout report` shows it beside the articles' layouts.

use crate::harness::run::Run;
use crate::report::summary::{self, median, Row};
use crate::report::table::Table;
use crate::report::units;

/// One table per cell of `runs`.
pub fn tables(runs: &[Run]) -> Vec<Table> {
    summary::cells(runs)
        .into_iter()
        .map(|(key, rows)| {
            let mut t = Table::new(
                key.title(),
                &[
                    "rank",
                    "contestant",
                    "req/s",
                    "min",
                    "max",
                    "p99 ms",
                    "errors",
                    "CPU-s/1k req",
                    "RSS MiB",
                    "notes",
                ],
                2,
            );
            t.rows = rows.iter().map(row).collect();
            t.notes.push(LEGEND.into());
            t
        })
        .collect()
}

/// What the columns mean, under every table.
pub const LEGEND: &str =
    "req/s: median over ok runs ±half its 95% interval; a shared rank is a tie \
(overlapping intervals); CPU-s/1k req: server CPU seconds per 1,000 responses; RSS: peak";

fn row(r: &Row) -> Vec<String> {
    let rps = r.rps();
    if rps.is_empty() {
        return vec![
            "-".into(),
            r.contestant.into(),
            "-".into(),
            "".into(),
            "".into(),
            "".into(),
            "".into(),
            "".into(),
            "".into(),
            r.notes(),
        ];
    }
    vec![
        r.rank.map_or("-".into(), |k| k.to_string()),
        r.contestant.into(),
        r.rps_text(),
        units::grouped(rps.iter().cloned().fold(f64::INFINITY, f64::min)),
        units::grouped(rps.iter().cloned().fold(0.0, f64::max)),
        format!("{:.2}", median(&r.values(|_, x| x.latency_us.p99 / 1000.0))),
        format!(
            "{:.0}",
            median(&r.values(|_, x| x.requests.errors() as f64))
        ),
        format!("{:.4}", r.cpu_per_1k()),
        format!("{:.1}", r.rss_mib()),
        r.notes(),
    ]
}

/// Prints every cell's table (what `shootout run` ends with).
pub fn print_tables(runs: &[Run]) {
    for t in tables(runs) {
        println!("\n{}", t.text());
    }
}
