//! The 2017 article's layout, wrk's numbers per server: average and standard deviation
//! of latency and of each thread's requests/s, requests/s, transfer/s, and a rank.

use crate::model::RunRecord;
use crate::report::experiment::ceiling::{self, NotePlace};
use crate::report::experiment::marks::RPS_SPREAD;
use crate::report::experiment::row::Row;
use crate::report::table::columns::Column;
use crate::report::table::Table;
use crate::units;
use engine::LoadResult;

/// One table per cell of `runs`.
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    ceiling::ranked_tables(runs, columns, NotePlace::First)
}

/// A column of the median run's numbers (marked `†` when it is a marked run's), blank
/// without a run to show.
fn of_median_run<'c, 'a>(header: &str, show: fn(&LoadResult) -> String) -> Column<'c, Row<'a>> {
    Column::number(header, move |r: &Row| {
        let mark = if r.is_marked() { " †" } else { "" };
        r.median_run()
            .map_or(String::new(), |(_, m)| format!("{}{mark}", show(m)))
    })
}

/// The columns before the ceiling's and the notes.
fn columns<'c, 'a>() -> Vec<Column<'c, Row<'a>>> {
    vec![
        Column::name("server", |r: &Row| r.contestant.into()),
        of_median_run("avg latency", |m| units::micros(m.latency_us.mean))
            .meaning("latency and thread columns: the median run"),
        of_median_run("stdev latency", |m| units::micros(m.latency_us.stdev)),
        of_median_run("avg req/s (thread)", |m| units::metric(m.thread_rps.mean)),
        of_median_run("stdev req/s", |m| units::metric(m.thread_rps.stdev)),
        Column::number("req/s", Row::rps_or_bound_text).meaning(format!("req/s: {RPS_SPREAD}")),
        of_median_run("transfer/s", |m| {
            format!("{}/s", units::bytes(m.transfer_per_s))
        }),
        Column::number("rank", Row::rank_text).meaning("a shared rank is a tie"),
        Column::number("CPU-s/1k req", Row::cpu_or_bound_text),
        Column::number("RSS MiB", |r: &Row| match r.is_measured() {
            true => r.rss_text(),
            false => String::new(),
        }),
    ]
}
