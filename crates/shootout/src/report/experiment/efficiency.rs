//! Efficiency at a fixed rate (issue 12): at an open-loop rate both sides can sustain, the
//! server's CPU per response, which ranks servers that are faster than one generator
//! core (on loopback the sender's core does the receiver's TCP work, so on a small
//! machine the generator saturates first). A run counts when the generator kept the
//! schedule and the server answered at the rate; a server that could not keep up shows
//! what it did instead, unranked.

use crate::model::standing::{off_rate, OffRate, Standing, KEPT_RATE, LATE_LIMIT};
use crate::model::RunRecord;
use crate::report::experiment::cell_key::CellKey;
use crate::report::experiment::marks::MARKED;
use crate::report::experiment::ranking;
use crate::report::experiment::row::Row;
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
use crate::stats::{self, measures, median};
use crate::units;

impl std::fmt::Display for OffRate {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            OffRate::GeneratorLate(share) => {
                write!(f, "the generator started {:.1}% late", share * 100.0)
            }
            OffRate::ServerBehind(share) => write!(
                f,
                "the server fell behind: {:.1}% of requests waited for a free connection",
                share * 100.0
            ),
            OffRate::BelowRate { did, asked } => write!(
                f,
                "below the rate: {} of {} req/s",
                units::grouped(*did),
                units::grouped(*asked)
            ),
        }
    }
}

/// A valid run at its rate: its server CPU µs per response.
fn efficient_us(r: &RunRecord) -> Option<f64> {
    let counts = Standing::of(r) == Standing::Counts;
    counts.then(|| measures::cpu_us_per_response(r))?
}

/// A run that does not count for a reason of the moment (disturbed, the generator
/// saturated or late) but measured the server: its CPU µs per response, what a row
/// without counting runs shows, marked.
fn retried_us(r: &RunRecord) -> Option<f64> {
    let retry = Standing::of(r) == Standing::Retry;
    retry.then(|| measures::cpu_us_per_response(r))?
}

/// One table per open-loop cell of `runs`, rows ranked by CPU per response (lowest first;
/// overlapping intervals tie).
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    let rated: Vec<RunRecord> = runs
        .iter()
        .filter(|r| r.rate().is_some())
        .cloned()
        .collect();
    ranking::cells(&rated)
        .iter()
        .map(|(key, rows)| table(key, rows))
        .collect()
}

/// A contestant's server CPU µs per response in a cell: over its runs that count, or,
/// when none did, over those that may count another time (`marked`); empty when neither
/// measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    pub contestant: String,
    pub us: Vec<f64>,
    pub marked: bool,
}

impl Cost {
    /// The cost of `row`, a row of an open-loop cell.
    pub fn of(row: &Row) -> Cost {
        Cost::of_measure(row, measures::cpu_us_per_response)
    }

    /// The cost of `row` as `us` counts it of each run (one side's of a run with a
    /// database), over the runs the server's cost rests on.
    pub fn of_measure(row: &Row, us: measures::Measure) -> Cost {
        let (runs, marked) = costed_runs(row);
        let us: Vec<f64> = runs.iter().filter_map(|r| us(r)).collect();
        Cost {
            contestant: row.contestant.to_string(),
            marked: marked && !us.is_empty(),
            us,
        }
    }
}

/// The runs a row's cost rests on: those that count, or, when none does, those that may
/// count another time; true in the second case (the figure is marked).
pub fn costed_runs<'a>(row: &Row<'a>) -> (Vec<&'a RunRecord>, bool) {
    let counted: Vec<&RunRecord> = (row.runs.iter().copied())
        .filter(|r| efficient_us(r).is_some())
        .collect();
    match counted.is_empty() {
        false => (counted, false),
        true => (
            (row.runs.iter().copied())
                .filter(|r| retried_us(r).is_some())
                .collect(),
            true,
        ),
    }
}

/// Each open-loop cell of `runs` with every contestant's cost: what the tables rank, for
/// the charts.
pub fn costs(runs: &[RunRecord]) -> Vec<(CellKey, Vec<Cost>)> {
    let rated: Vec<RunRecord> = (runs.iter().filter(|r| r.rate().is_some()))
        .cloned()
        .collect();
    ranking::cells(&rated)
        .into_iter()
        .map(|(key, rows)| (key, rows.iter().map(Cost::of).collect()))
        .collect()
}

/// A row's numbers at the rate, ranked.
pub struct Efficiency<'r, 'a> {
    pub row: &'r Row<'a>,
    pub cost: Cost,
    /// 1 = cheapest; shared when intervals overlap; None when nothing measured the row.
    pub rank: Option<usize>,
}

/// The rows of one open-loop cell with their costs, ranked, in the table's order: what the
/// table draws and what the report's first screen names as leaders.
pub fn ranked<'r, 'a>(rows: &'r [Row<'a>]) -> Vec<Efficiency<'r, 'a>> {
    let mut ranked: Vec<Efficiency> = rows
        .iter()
        .map(|row| Efficiency {
            row,
            cost: Cost::of(row),
            rank: None,
        })
        .collect();
    rank(&mut ranked);
    ranked
}

impl Efficiency<'_, '_> {
    /// `m` over the runs the row's figures rest on: its ok runs, or, for a marked row,
    /// the runs its cost was taken from.
    fn shown(&self, m: measures::Measure) -> Vec<f64> {
        match self.cost.marked {
            false => self.row.values(m),
            true => (self.row.runs.iter())
                .filter(|r| retried_us(r).is_some())
                .filter_map(|r| m(r))
                .collect(),
        }
    }

    /// `†` for a row whose figure rests on runs that do not count.
    fn mark(&self) -> &'static str {
        if self.cost.marked {
            MARKED
        } else {
            ""
        }
    }
}

/// What `†` means under an efficiency table that has such a row.
const MARKED_MEANING: &str = "† no run counts: the median of runs disturbed (steal or \
     foreign CPU past the limit) or off the schedule by the generator's doing, after the \
     make-up runs the budget allowed; the notes say how much";

fn table(key: &CellKey, rows: &[Row]) -> Table {
    let ranked = ranked(rows);
    let mut marks = vec![format!(
        "a run counts when it is valid, at most {:.0}% of requests started late (the \
         generator's lateness, or waiting for a free connection) and the server answered \
         at {:.0}% of the rate or more",
        LATE_LIMIT * 100.0,
        KEPT_RATE * 100.0
    )];
    if ranked.iter().any(|e| e.cost.marked) {
        marks.push(MARKED_MEANING.into());
    }
    let design = Design {
        title: format!("Efficiency at a fixed rate — {}", key.title()),
        columns: columns(),
        marks,
    };
    design.draw(&ranked)
}

/// Lowest CPU per response first: ranks of the negated intervals, rows in rank order.
/// Rows that rest on marked runs are ranked among the others, with their mark.
fn rank(rows: &mut [Efficiency]) {
    rows.sort_by(|a, b| match (a.cost.us.is_empty(), b.cost.us.is_empty()) {
        (false, false) => median(&a.cost.us).total_cmp(&median(&b.cost.us)),
        (x, y) => x.cmp(&y).then(a.row.contestant.cmp(b.row.contestant)),
    });
    let measured: Vec<(f64, f64)> = rows
        .iter()
        .filter(|e| !e.cost.us.is_empty())
        .map(|e| {
            let (lo, hi) = stats::interval(&e.cost.us);
            (-hi, -lo)
        })
        .collect();
    for (e, k) in rows.iter_mut().zip(stats::ranks(&measured)) {
        e.rank = Some(k);
    }
    // Rank first, then the median: a wide interval can tie a row with the best while a
    // cheaper, narrower one ranks lower, and a table reads top to bottom.
    rows.sort_by_key(|e| e.rank.unwrap_or(usize::MAX));
}

fn columns<'c>() -> Vec<Column<'c, Efficiency<'c, 'c>>> {
    vec![
        Column::name("rank", |e: &Efficiency| {
            e.rank.map_or("-".into(), |k| format!("{k}{}", e.mark()))
        }),
        Column::name("contestant", |e: &Efficiency| e.row.contestant.into()),
        Column::number("CPU µs/response", cpu_text)
            .meaning("CPU µs/response: the server's CPU per response, median ±half its interval"),
        Column::number("projected req/s per core", |e: &Efficiency| {
            if e.cost.us.is_empty() {
                String::new()
            } else {
                format!("{}{}", units::grouped(1e6 / median(&e.cost.us)), e.mark())
            }
        })
        .meaning("projected: one core's second over that CPU, not measured"),
        Column::number("responses/s", |e: &Efficiency| {
            let rps = e.shown(measures::rps);
            match rps.is_empty() {
                true => String::new(),
                false => units::grouped(median(&rps)),
            }
        }),
        Column::number("p50 ms", |e: &Efficiency| latency(e, measures::p50_ms)),
        Column::number("p99 ms", |e: &Efficiency| latency(e, measures::p99_ms))
            .meaning("p50, p99: from the intended send time"),
        Column::name("notes", notes),
    ]
}

/// `27.50 ±3.1%`, `31.20 ±8.0% †` for a marked row; `unknown` when the server's CPU was
/// not its own, `-` when nothing measured it.
fn cpu_text(e: &Efficiency) -> String {
    match (e.cost.us.is_empty(), e.row.unattributed()) {
        (true, Some(_)) => "unknown".into(),
        (true, None) => "-".into(),
        (false, _) => {
            let text = stats::with_spread(format!("{:.2}", median(&e.cost.us)), &e.cost.us);
            format!("{text} {}", e.mark()).trim_end().to_string()
        }
    }
}

/// The median of a latency percentile, in ms, over the runs the row shows.
fn latency(e: &Efficiency, m: measures::Measure) -> String {
    let ms = e.shown(m);
    match ms.is_empty() {
        true => String::new(),
        false => format!("{:.2}", median(&ms)),
    }
}

fn notes(e: &Efficiency) -> String {
    why_not_counted(e.row)
}

/// Runs of `row` that did not count, and why: valid runs off the rate, counted per kind of
/// reason with the first of each, then the runs that were not valid (their labels).
pub fn why_not_counted(row: &Row) -> String {
    let off: Vec<OffRate> = row.ok_runs().filter_map(off_rate).collect();
    let mut out = Vec::new();
    for kind in 0..3 {
        let mut these = off.iter().filter(|o| o.kind() == kind);
        if let Some(first) = these.next() {
            out.push(format!("{} off the rate: {first}", 1 + these.count()));
        }
    }
    let labels = row.notes();
    if !labels.is_empty() {
        out.push(labels);
    }
    out.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{disturb, result_mut, runs};
    use engine::RateSummary;

    fn open_runs() -> Vec<RunRecord> {
        runs().into_iter().filter(|r| r.rate().is_some()).collect()
    }

    fn summary(scheduled: u64, late: u64) -> RateSummary {
        RateSummary {
            target_rps: 5000.0,
            achieved_rps: 5000.0,
            scheduled,
            started: scheduled,
            still_due: 0,
            late,
            waited: 0,
        }
    }

    #[test]
    fn the_cheapest_server_per_response_ranks_first() {
        let t = &tables(&open_runs())[0];
        let order: Vec<(&str, &str)> = t
            .rows
            .iter()
            .map(|r| (r[0].as_str(), r[1].as_str()))
            .collect();
        assert_eq!(order, [("1", "c-epoll"), ("2", "go-nethttp")]);
        // 1 s of one core over 27.5 µs per response.
        assert_eq!(t.rows[0][3], "36,360");
    }

    #[test]
    fn requests_held_back_by_busy_connections_are_the_servers_doing() {
        let mut run = open_runs().remove(0);
        let mut held_back = summary(5000, 0);
        held_back.waited = 600;
        result_mut(&mut run).unwrap().rate = Some(held_back);
        let off = off_rate(&run).map(|o| o.to_string());
        assert_eq!(
            off.as_deref(),
            Some("the server fell behind: 12.0% of requests waited for a free connection")
        );
    }

    #[test]
    fn runs_off_the_rate_do_not_count_and_say_why() {
        let mut runs = open_runs();
        for r in runs
            .iter_mut()
            .filter(|r| r.coordinates.contestant == "c-epoll")
        {
            let x = result_mut(r).unwrap();
            x.requests.ok = 1000;
            x.rate = Some(summary(5000, 10));
        }
        let go = runs
            .iter_mut()
            .find(|r| r.coordinates.contestant == "go-nethttp")
            .unwrap();
        result_mut(go).unwrap().rate = Some(summary(5000, 400));
        let off: Vec<Option<String>> = runs
            .iter()
            .map(|r| Some(off_rate(r)?.to_string()))
            .collect();
        assert!(off.iter().any(|w| w
            .as_deref()
            .is_some_and(|w| w.starts_with("below the rate"))));
        assert!(off.contains(&Some("the generator started 8.0% late".into())));

        let t = &tables(&runs)[0];
        // go-nethttp keeps one run at the rate; c-epoll none: unranked, with the reason.
        assert_eq!(
            (t.rows[0][0].as_str(), t.rows[0][1].as_str()),
            ("1", "go-nethttp")
        );
        assert_eq!(
            (t.rows[1][0].as_str(), t.rows[1][1].as_str()),
            ("-", "c-epoll")
        );
        assert!(
            t.rows[1][7].starts_with("2 off the rate: below the rate"),
            "{:?}",
            t.rows[1]
        );
    }

    #[test]
    fn a_row_without_a_run_that_counts_shows_its_best_figure_marked() {
        let mut runs = open_runs();
        for r in runs
            .iter_mut()
            .filter(|r| r.coordinates.contestant == "c-epoll")
        {
            disturb(r, 0.2);
        }
        let t = &tables(&runs)[0];
        let epoll = t.rows.iter().find(|r| r[1] == "c-epoll").unwrap();
        assert_eq!(epoll[0], "1†", "still ranked, with its mark: {epoll:?}");
        assert!(epoll[2].ends_with(" †"), "{epoll:?}");
        assert_eq!(epoll[3], "36,360†");
        assert!(epoll[7].contains("disturbed: steal 20%"), "{epoll:?}");
        assert!(
            t.notes.iter().any(|n| n.contains("† no run counts")),
            "{:?}",
            t.notes
        );
        let costs = costs(&runs);
        let marked: Vec<bool> = costs[0].1.iter().map(|c| c.marked).collect();
        assert!(marked.contains(&true) && marked.contains(&false));
    }
}
