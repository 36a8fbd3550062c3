//! The table `shootout run` prints at the end: one per cell of the matrix (endpoint,
//! layout, load, level), a row per contestant, ranked by overlapping 95% intervals.

use crate::harness::run::{Label, Run};
use crate::report::spread;

/// What identifies a cell: endpoint, layout, load, connections, rate.
type Key<'a> = (&'a str, &'a str, &'a str, usize, Option<&'a str>);

fn key(r: &Run) -> Key<'_> {
    (
        r.endpoint.as_str(),
        r.layout.as_str(),
        r.load.as_str(),
        r.connections,
        r.rate.as_deref(),
    )
}

/// One table per endpoint × layout × load × connections, a row per contestant, ranked.
pub fn print_tables(runs: &[Run]) {
    let mut keys: Vec<Key> = Vec::new();
    for r in runs {
        if !keys.contains(&key(r)) {
            keys.push(key(r));
        }
    }
    for k in keys {
        let (endpoint, layout, load, conns, rate) = k;
        let rate = rate.map(|r| format!(", rate {r}/s")).unwrap_or_default();
        println!("\n/{endpoint}, layout {layout}, {load}, {conns} connections{rate}");
        println!(
            "  {:>4}  {:<24} {:>10} {:>21} {:>10} {:>10} {:>9} {:>8} {:>14} {:>9}  notes",
            "rank",
            "contestant",
            "req/s",
            "95% CI",
            "min",
            "max",
            "p99 ms",
            "errors",
            "CPU-s/1k req",
            "RSS MiB"
        );
        let mut names: Vec<&str> = runs.iter().map(|r| r.contestant.as_str()).collect();
        names.sort();
        names.dedup();
        let cells: Vec<(&str, Vec<&Run>)> = names
            .into_iter()
            .map(|name| {
                let cell = runs
                    .iter()
                    .filter(|r| r.contestant == name && key(r) == k)
                    .collect();
                (name, cell)
            })
            .collect();
        print_cell(&cells);
    }
}

/// Requests/s of the runs that measured the server (ok), the only ones ranked.
fn ok_rps(cell: &[&Run]) -> Vec<f64> {
    cell.iter()
        .filter(|r| r.label == Label::Ok)
        .filter_map(|r| r.result.as_ref().map(|x| x.rps))
        .collect()
}

fn print_cell(cells: &[(&str, Vec<&Run>)]) {
    let ranked: Vec<(&str, &Vec<&Run>, (f64, f64))> = cells
        .iter()
        .filter(|(_, c)| !ok_rps(c).is_empty())
        .map(|(n, c)| (*n, c, spread::interval95(&ok_rps(c))))
        .collect();
    let ranks = spread::ranks(&ranked.iter().map(|r| r.2).collect::<Vec<_>>());
    let mut order: Vec<usize> = (0..ranked.len()).collect();
    order.sort_by(|&a, &b| {
        ranks[a]
            .cmp(&ranks[b])
            .then(median(&ok_rps(ranked[b].1)).total_cmp(&median(&ok_rps(ranked[a].1))))
    });
    for i in order {
        let (name, cell, ci) = ranked[i];
        print_row(ranks[i], name, cell, ci);
    }
    for (name, cell) in cells.iter().filter(|(_, c)| ok_rps(c).is_empty()) {
        println!("  {:>4}  {name:<24} {:>10}  {}", "-", "-", notes(cell));
    }
}

fn print_row(rank: usize, name: &str, cell: &[&Run], ci: (f64, f64)) {
    let ok: Vec<&Run> = cell
        .iter()
        .filter(|r| r.label == Label::Ok && r.result.is_some())
        .copied()
        .collect();
    let of = |f: &dyn Fn(&Run, &engine::LoadResult) -> f64| -> Vec<f64> {
        ok.iter()
            .filter_map(|r| r.result.as_ref().map(|x| f(r, x)))
            .collect()
    };
    let rps = of(&|_, x| x.rps);
    let p99 = of(&|_, x| x.latency_us.p99 / 1000.0);
    let errors = of(&|_, x| x.requests.errors() as f64);
    let cpu =
        of(&|r, x| r.server_cpu_s * 1000.0 / (x.requests.ok + x.requests.status).max(1) as f64);
    let rss = ok.iter().map(|r| r.peak_rss_kb).max().unwrap_or(0) as f64 / 1024.0;
    let interval = if rps.len() > 1 {
        format!("{:.0}..{:.0}", ci.0, ci.1)
    } else {
        "(1 run)".into()
    };
    println!(
        "  {rank:>4}  {name:<24} {:>10.0} {interval:>21} {:>10.0} {:>10.0} {:>9.2} {:>8.0} {:>14.4} {:>9.1}  {}",
        median(&rps),
        rps.iter().cloned().fold(f64::INFINITY, f64::min),
        rps.iter().cloned().fold(0.0, f64::max),
        median(&p99),
        median(&errors),
        median(&cpu),
        rss,
        notes(cell)
    );
}

/// The runs that are not ok, counted by label, with the first reason of each label.
fn notes(cell: &[&Run]) -> String {
    let mut out: Vec<String> = Vec::new();
    for label in [
        Label::GeneratorBound,
        Label::ServerFailed,
        Label::VerifyFailed,
        Label::Timeout,
        Label::Interrupted,
        Label::LoadRefused,
        Label::Skipped,
    ] {
        let these: Vec<&&Run> = cell.iter().filter(|r| r.label == label).collect();
        if let Some(first) = these.first() {
            let word = serde_json::to_value(&label)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            let why: String = first.reason.chars().take(70).collect();
            out.push(if label == Label::GeneratorBound {
                format!("{} {word} (not ranked)", these.len())
            } else {
                format!("{} {word}: {why}", these.len())
            });
        }
    }
    out.join("; ")
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
