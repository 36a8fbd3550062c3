//! The table of each cell of the matrix (endpoint, layout, load, level): a row per
//! contestant, ranked, with spread, latency, errors and efficiency. `shootout run` prints
//! it at the end; `shootout report` shows it beside the articles' layouts.

use crate::model::RunRecord;
use crate::report::experiment::capacity;
use crate::report::experiment::ceiling::{self, NotePlace};
use crate::report::experiment::efficiency;
use crate::report::experiment::kinds::Kinds;
use crate::report::experiment::marks::RPS_SPREAD;
use crate::report::experiment::row::Row;
use crate::report::table::columns::Column;
use crate::report::table::Table;
use crate::stats::{measures, median};
use crate::units;

/// One table per cell of `runs`.
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    ceiling::ranked_tables(runs, columns, NotePlace::Last)
}

/// The columns before the ceiling's and the notes.
fn columns<'c, 'a>() -> Vec<Column<'c, Row<'a>>> {
    // A value of the ok runs, blank without them.
    let of_ok = |show: fn(&Row) -> String| {
        move |r: &Row| match r.is_measured() {
            true => show(r),
            false => String::new(),
        }
    };
    vec![
        Column::name("rank", Row::rank_text),
        Column::name("contestant", |r: &Row| r.contestant.into()),
        Column::number("req/s", Row::rps_or_bound_text).meaning(format!(
            "req/s: {RPS_SPREAD}; a shared rank is a tie (overlapping intervals)"
        )),
        Column::number(
            "min",
            of_ok(|r| units::grouped(r.rps().into_iter().fold(f64::INFINITY, f64::min))),
        ),
        Column::number(
            "max",
            of_ok(|r| units::grouped(r.rps().into_iter().fold(0.0, f64::max))),
        ),
        Column::number(
            "p99 ms",
            of_ok(|r| format!("{:.2}", median(&r.values(measures::p99_ms)))),
        ),
        Column::number(
            "errors",
            of_ok(|r| format!("{:.0}", median(&r.values(measures::errors)))),
        ),
        Column::number("CPU-s/1k req", Row::cpu_or_bound_text)
            .meaning("CPU-s/1k req: server CPU seconds per 1,000 responses"),
        Column::number("RSS MiB", of_ok(|r| r.rss_text())).meaning("RSS: peak"),
    ]
}

/// Prints every cell's table (what `shootout run` ends with).
/// At a fixed rate every server does the rate: those cells rank by efficiency instead;
/// a capacity search's cells by capacity at objective.
pub fn print_tables(runs: &[RunRecord]) {
    let kinds = Kinds::of(runs);
    let closed = [kinds.closed, kinds.ramps].concat();
    for t in tables(&closed)
        .into_iter()
        .chain(efficiency::tables(&kinds.rated))
        .chain(capacity::tables(&kinds.capacity))
    {
        println!("\n{}", t.text());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;
    use crate::report::experiment::marks::BOUND_MARK;
    use crate::report::experiment::servers;
    use crate::report::fixture::{disturb, hello_run};

    fn runs(with_ceiling: bool) -> Vec<RunRecord> {
        let mut runs = vec![hello_run("other", Label::Ok, 10_000.0, 1.0)];
        if with_ceiling {
            runs.push(hello_run(
                crate::contestant::catalog::CEILING,
                Label::Ok,
                20_000.0,
                1.0,
            ));
        }
        runs
    }

    #[test]
    fn the_ceiling_columns_come_before_the_notes_when_it_ran() {
        let t = &tables(&runs(true))[0];
        let n = t.headers.len();
        assert_eq!(
            t.headers[n - 3..],
            ["% of ceiling", "CPU/req vs ceiling", "notes"]
        );
        assert_eq!(t.rows[1][n - 3..], ["50%", "×2.00", ""]);
        assert_eq!(t.notes.len(), 2);
        assert!(t.notes[0].starts_with("req/s: median over ok runs"));
        assert!(t.notes[1].starts_with("ceiling: c-epoll"));
        let s = &servers::tables(&runs(true))[0];
        assert!(s.notes[0].starts_with("ceiling: c-epoll"), "{:?}", s.notes);
        assert_eq!(s.headers[s.headers.len() - 3], "% of ceiling");
    }

    #[test]
    fn without_the_ceiling_there_are_no_ceiling_columns() {
        let t = &tables(&runs(false))[0];
        assert_eq!(t.headers.len(), 10);
        assert_eq!(t.headers[9], "notes");
        assert_eq!(
            t.notes,
            [format!(
                "req/s: {RPS_SPREAD}; a shared rank is a tie (overlapping intervals); \
                 CPU-s/1k req: server CPU seconds per 1,000 responses; RSS: peak; {BOUND_MARK}"
            )]
        );
    }

    #[test]
    fn a_ceiling_disturbed_in_every_run_shows_its_figure_marked() {
        let mut runs = runs(false);
        for (rps, steal) in [(20_000.0, 0.18), (21_000.0, 0.25), (19_000.0, 0.12)] {
            let mut r = hello_run(crate::contestant::catalog::CEILING, Label::Ok, rps, 1.0);
            disturb(&mut r, steal);
            runs.push(r);
        }
        let t = &tables(&runs)[0];
        let top = &t.rows[0];
        assert_eq!((top[0].as_str(), top[1].as_str()), ("1†", "c-epoll"));
        assert_eq!(top[2], "20,000 †");
        let n = t.headers.len();
        assert_eq!(
            top[n - 1],
            "3 disturbed: steal 18%, foreign CPU 1% (medians)"
        );
        assert_eq!(t.rows[1][n - 3..n - 1], ["50%†", "×2.00†"]);
        assert!(
            t.notes.iter().any(|n| n.contains("† no valid run")),
            "{:?}",
            t.notes
        );
    }
}
