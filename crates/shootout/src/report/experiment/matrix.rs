//! The 2009 article's layout: a row per contestant and layout, a column per concurrency
//! level; one table of requests/s and one of "99% of requests within (ms)".

use crate::record::RunRecord;
use crate::report::experiment::ranking::{self, median, CellKey, Row};
use crate::report::table::Table;
use crate::report::units;

/// The two tables for each endpoint × load (× rate) of `runs`.
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    let cells = ranking::cells(runs);
    let mut groups: Vec<(&str, &str, Option<&str>)> = Vec::new();
    for (k, _) in &cells {
        let g = (k.endpoint.as_str(), k.load.as_str(), k.rate.as_deref());
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    let mut out = Vec::new();
    for g in groups {
        let these: Vec<&(CellKey, Vec<Row>)> = cells
            .iter()
            .filter(|(k, _)| (k.endpoint.as_str(), k.load.as_str(), k.rate.as_deref()) == g)
            .collect();
        let title = format!("/{}, {}", g.0, g.1);
        out.push(table(
            &format!("Requests per second — {title}"),
            &these,
            rps_cell,
        ));
        out.push(table(
            &format!("99% of requests within (ms) — {title}"),
            &these,
            p99_cell,
        ));
    }
    out
}

type CellText = fn(&Row) -> String;

fn table(title: &str, cells: &[&(CellKey, Vec<Row>)], text: CellText) -> Table {
    let mut levels: Vec<usize> = cells.iter().map(|(k, _)| k.connections).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut lines: Vec<(&str, &str)> = Vec::new();
    for (k, rows) in cells {
        for r in rows {
            if !lines.contains(&(r.contestant, k.layout.as_str())) {
                lines.push((r.contestant, k.layout.as_str()));
            }
        }
    }
    // The article's order: each server's rows together (1C, then multi-core).
    lines.sort();
    let layouts = {
        let mut l: Vec<&str> = lines.iter().map(|x| x.1).collect();
        l.sort_unstable();
        l.dedup();
        l.len()
    };
    let headers: Vec<String> = ["server".to_string()]
        .into_iter()
        .chain(levels.iter().map(|c| units::grouped(*c as f64)))
        .collect();
    let mut t = Table::new(
        title,
        &headers.iter().map(String::as_str).collect::<Vec<_>>(),
        1,
    );
    for (name, layout) in lines {
        let label = if layouts > 1 {
            format!("{name} ({layout})")
        } else {
            name.to_string()
        };
        let mut line = vec![label];
        for c in &levels {
            let row = cells
                .iter()
                .filter(|(k, _)| k.layout == layout && k.connections == *c)
                .flat_map(|(_, rows)| rows.iter())
                .find(|r| r.contestant == name);
            line.push(row.map_or(String::new(), text));
        }
        t.rows.push(line);
    }
    t.notes.push(
        "median over repeats ±half its 95% interval; * generator-bound: the generator was \
         saturated, the number describes it (not ranked)"
            .into(),
    );
    t
}

/// Requests/s of a cell: `25,809 ±1.2%`, or the generator-bound median marked `*`, or
/// why there is no number.
fn rps_cell(r: &Row) -> String {
    if !r.rps().is_empty() {
        return r.rps_text();
    }
    match bound_median(r, |x| x.rps) {
        Some(v) => format!("{}*", units::grouped(v)),
        None => r.failure().map_or(String::new(), |l| l.word().to_string()),
    }
}

fn p99_cell(r: &Row) -> String {
    let ms = |x: &engine::LoadResult| x.latency_us.p99 / 1000.0;
    let show = |v: f64| {
        if v >= 10.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    };
    let ok = r.values(|_, x| ms(x));
    if !ok.is_empty() {
        return show(median(&ok));
    }
    match bound_median(r, ms) {
        Some(v) => format!("{}*", show(v)),
        None => r.failure().map_or(String::new(), |l| l.word().to_string()),
    }
}

fn bound_median(r: &Row, f: impl Fn(&engine::LoadResult) -> f64) -> Option<f64> {
    let v = r.bound_values(|_, x| f(x));
    (!v.is_empty()).then(|| median(&v))
}
