//! The 2019 article's question for device ramps: how many responses/s a server reached
//! as devices grew, at what latency, and when requests began to time out.

use crate::model::RunRecord;
use crate::report::experiment::cell_key::CellKey;
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
use crate::stats::measures;
use crate::units;
use engine::LoadResult;
use engine::SecondSummary;

/// One table per device-ramp cell of `runs`: a row per run.
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    (cells(runs).iter())
        .map(|(key, these)| design(key).draw(these))
        .collect()
}

/// Each device-ramp cell of `runs` with its runs, the busiest peak first; runs without a
/// result (a blocked contestant) last, to keep their row.
pub fn cells(runs: &[RunRecord]) -> Vec<(CellKey, Vec<&RunRecord>)> {
    let mut out: Vec<(CellKey, Vec<&RunRecord>)> = Vec::new();
    for r in runs.iter().filter(|r| r.is_ramp()) {
        let key = CellKey::of(r);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, these)) => these.push(r),
            None => out.push((key, vec![r])),
        }
    }
    for (_, these) in &mut out {
        these.sort_by_key(|r| std::cmp::Reverse(peak(r).map(|s| s.requests)));
    }
    out
}

fn design<'c>(k: &CellKey) -> Design<'c, &'c RunRecord> {
    let at_peak = |header: &str, show: fn(&SecondSummary) -> String| {
        of_result(header, move |r, _| peak(r).map_or("-".into(), show))
    };
    Design {
        title: format!("Device ramp — {}", k.title()),
        columns: vec![
            Column::name("server", |r: &&RunRecord| r.coordinates.contestant.clone()),
            at_peak("peak resp/s", |s| units::grouped(s.requests as f64))
                .meaning("per second of the ramp: the busiest second, its device count and p90"),
            at_peak("devices then", |s| units::grouped(s.devices as f64)),
            at_peak("p90 ms then", |s| ms(s.p90_us)),
            of_result("p90 ms last", |_, x| {
                let last = x.per_second.iter().rev().find(|s| s.requests > 0);
                last.map_or("-".into(), |s| ms(s.p90_us))
            }),
            of_result("timeouts", |_, x| units::grouped(x.requests.timeout as f64)),
            of_result("first timeout at", |_, x| {
                let first = x.per_second.iter().find(|s| s.timeouts > 0);
                first.map_or("none".into(), |s| {
                    format!("{} devices", units::grouped(s.devices as f64))
                })
            })
            .meaning("first timeout at: the device count in the first second with a timeout"),
            of_result("errors", |_, x| units::grouped(x.requests.errors() as f64)),
            of_result("CPU-s/1k req", |r, _| match measures::server_known(r) {
                true => measures::cpu_ms_per_response(r).map_or("-".into(), |v| format!("{v:.4}")),
                false => "unknown".into(),
            }),
            of_result("RSS MiB", |r, _| match measures::server_known(r) {
                true => format!("{:.1}", measures::peak_rss_mib(r)),
                false => "unknown".into(),
            }),
            Column::name("notes", |r: &&RunRecord| match r.result() {
                Some(_) => r.label().word().to_string(),
                None => format!(
                    "{}: {}",
                    r.label().word(),
                    r.reason().chars().take(60).collect::<String>()
                ),
            }),
        ],
        marks: Vec::new(),
    }
}

/// A column drawn from a run's result, `-` for a run without one.
fn of_result<'c>(
    header: &str,
    show: impl Fn(&RunRecord, &LoadResult) -> String + 'c,
) -> Column<'c, &'c RunRecord> {
    Column::number(header, move |r: &&RunRecord| {
        r.result().map_or("-".into(), |x| show(r, x))
    })
}

/// Whole milliseconds from microseconds.
fn ms(us: f64) -> String {
    format!("{:.0}", us / 1000.0)
}

/// The run's busiest second.
pub fn peak(r: &RunRecord) -> Option<&SecondSummary> {
    r.result()?.per_second.iter().max_by_key(|s| s.requests)
}
