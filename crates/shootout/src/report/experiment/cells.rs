//! The table of each cell of the matrix (endpoint, layout, load, level): a row per
//! contestant, ranked, with spread, latency, errors and efficiency. `shootout run` prints
//! it at the end; `shootout report` shows it beside the articles' layouts.

use crate::record::RunRecord;
use crate::report::experiment::ranking::{self, median, Row};
use crate::report::table::Table;
use crate::report::units;

/// One table per cell of `runs`.
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    ranking::cells(runs)
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
            with_ceiling(&mut t, &rows);
            t
        })
        .collect()
}

/// What the columns mean, under every table.
const LEGEND: &str = "req/s: median over ok runs ±half its 95% interval; a shared rank is a tie \
(overlapping intervals); CPU-s/1k req: server CPU seconds per 1,000 responses; RSS: peak; \
* generator-bound runs only: not ranked";

fn row(r: &Row) -> Vec<String> {
    let rps = r.rps();
    if rps.is_empty() {
        return unranked(r);
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

/// Adds "of ceiling" columns (req/s as % of c-epoll's, CPU per request as a multiple of
/// its) before the notes, when the ceiling ran in the cell.
pub fn with_ceiling(t: &mut Table, rows: &[Row]) {
    let Some(top) = ranking::ceiling(rows) else {
        return;
    };
    let at = t.headers.len() - 1;
    t.headers.insert(at, "CPU/req vs ceiling".into());
    t.headers.insert(at, "% of ceiling".into());
    for (line, r) in t.rows.iter_mut().zip(rows) {
        let [pct, cpu] = r.against(top);
        line.insert(at, cpu);
        line.insert(at, pct);
    }
    t.notes.push(format!(
        "ceiling: {} (contestants/{0}), the best this machine allows; its req/s counts \
         its generator-bound runs too (a lower bound of what it can do)",
        ranking::CEILING
    ));
}

/// A row without ok runs: its generator-bound medians marked `*`, else blanks.
fn unranked(r: &Row) -> Vec<String> {
    let (rps, cpu) = r.bound_texts();
    let mut line = vec!["-".into(), r.contestant.into(), rps];
    line.extend(std::iter::repeat_n(String::new(), 4));
    line.extend([cpu, String::new(), r.notes()]);
    line
}

/// Prints every cell's table (what `shootout run` ends with).
pub fn print_tables(runs: &[RunRecord]) {
    for t in tables(runs) {
        println!("\n{}", t.text());
    }
}
