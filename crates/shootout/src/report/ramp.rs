//! The 2019 article's question for device ramps: how many responses/s a server reached
//! as devices grew, at what latency, and when requests began to time out.

use crate::harness::run::Run;
use crate::report::summary::CellKey;
use crate::report::table::Table;
use crate::report::units;
use engine::SecondSummary;

/// True for a run whose load was a device ramp (its seconds count devices).
pub fn is_ramp(r: &Run) -> bool {
    r.result
        .as_ref()
        .is_some_and(|x| x.per_second.iter().any(|s| s.devices > 0))
}

/// One table per device-ramp cell of `runs`: a row per run.
pub fn tables(runs: &[Run]) -> Vec<Table> {
    let mut keys: Vec<CellKey> = Vec::new();
    for r in runs.iter().filter(|r| is_ramp(r)) {
        if !keys.contains(&CellKey::of(r)) {
            keys.push(CellKey::of(r));
        }
    }
    keys.into_iter()
        .map(|k| {
            let mut t = Table::new(
                format!("Device ramp — {}", k.title()),
                &[
                    "server",
                    "peak resp/s",
                    "devices then",
                    "p90 ms then",
                    "p90 ms last",
                    "timeouts",
                    "first timeout at",
                    "errors",
                    "CPU-s/1k req",
                    "RSS MiB",
                    "notes",
                ],
                1,
            );
            // Runs without a result (a blocked contestant) keep their row.
            let mut these: Vec<&Run> = runs.iter().filter(|r| CellKey::of(r) == k).collect();
            these.sort_by(|a, b| {
                peak(b)
                    .map(|s| s.requests)
                    .cmp(&peak(a).map(|s| s.requests))
            });
            t.rows = these.into_iter().map(row).collect();
            t.notes.push(
                "per second of the ramp: the busiest second, its device count and p90; \
                 first timeout at: the device count in the first second with a timeout"
                    .into(),
            );
            t
        })
        .collect()
}

fn peak(r: &Run) -> Option<&SecondSummary> {
    r.result
        .as_ref()?
        .per_second
        .iter()
        .max_by_key(|s| s.requests)
}

fn row(r: &Run) -> Vec<String> {
    let Some(x) = &r.result else {
        let mut line = vec![r.contestant.clone()];
        line.extend(std::iter::repeat_n("-".to_string(), 9));
        line.push(format!(
            "{}: {}",
            r.label.word(),
            r.reason.chars().take(60).collect::<String>()
        ));
        return line;
    };
    let seconds = &x.per_second;
    let top = peak(r);
    let first_timeout = seconds.iter().find(|s| s.timeouts > 0);
    let ms = |us: f64| format!("{:.0}", us / 1000.0);
    let served = (x.requests.ok + x.requests.status).max(1) as f64;
    vec![
        r.contestant.clone(),
        top.map_or("-".into(), |s| units::grouped(s.requests as f64)),
        top.map_or("-".into(), |s| units::grouped(s.devices as f64)),
        top.map_or("-".into(), |s| ms(s.p90_us)),
        seconds
            .iter()
            .rev()
            .find(|s| s.requests > 0)
            .map_or("-".into(), |s| ms(s.p90_us)),
        units::grouped(x.requests.timeout as f64),
        first_timeout.map_or("none".into(), |s| {
            format!("{} devices", units::grouped(s.devices as f64))
        }),
        units::grouped(x.requests.errors() as f64),
        format!("{:.4}", r.server_cpu_s * 1000.0 / served),
        format!("{:.1}", r.peak_rss_kb as f64 / 1024.0),
        r.label.word().to_string(),
    ]
}
