//! The 2017 article's layout, wrk's numbers per server: average and standard deviation
//! of latency and of each thread's requests/s, requests/s, transfer/s, and a rank.

use crate::record::RunRecord;
use crate::report::experiment::cells;
use crate::report::experiment::ranking::{self, Row};
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
                    "server",
                    "avg latency",
                    "stdev latency",
                    "avg req/s (thread)",
                    "stdev req/s",
                    "req/s",
                    "transfer/s",
                    "rank",
                    "CPU-s/1k req",
                    "RSS MiB",
                    "notes",
                ],
                1,
            );
            t.rows = rows.iter().map(row).collect();
            cells::with_ceiling(&mut t, &rows);
            t.notes.push(
                "latency and thread columns: the median run; req/s: median ±half its 95% \
                 interval; a shared rank is a tie; * generator-bound runs only: not ranked"
                    .into(),
            );
            t
        })
        .collect()
}

fn row(r: &Row) -> Vec<String> {
    let Some((_, m)) = r.median_run() else {
        let (rps, cpu) = r.bound_texts();
        let mut line = vec![r.contestant.to_string()];
        line.extend(std::iter::repeat_n(String::new(), 4));
        line.extend([
            rps,
            String::new(),
            "-".into(),
            cpu,
            String::new(),
            r.notes(),
        ]);
        return line;
    };
    vec![
        r.contestant.to_string(),
        units::micros(m.latency_us.mean),
        units::micros(m.latency_us.stdev),
        units::metric(m.thread_rps.mean),
        units::metric(m.thread_rps.stdev),
        r.rps_text(),
        format!("{}/s", units::bytes(m.transfer_per_s)),
        r.rank.map_or("-".into(), |k| k.to_string()),
        format!("{:.4}", r.cpu_per_1k()),
        format!("{:.1}", r.rss_mib()),
        r.notes(),
    ]
}
