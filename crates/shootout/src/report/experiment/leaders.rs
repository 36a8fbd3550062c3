//! What a report says before any table: each table's leader with its figure, those tied
//! with it (or else the runner-up), and what a leader's figure rests on when it is marked
//! `†`, is a lower bound, or beats nothing but ranked rows that the generator held back.
//! A reader who stops there must not come away with more than the tables say.

use crate::contestant::catalog::CEILING;
use crate::model::{RunRecord, VerifyLevel};
use crate::report::experiment::capacity::{self as at_objective, Line};
use crate::report::experiment::cell_key::CellKey;
use crate::report::experiment::efficiency::{self, Efficiency};
use crate::report::experiment::kinds::Kinds;
use crate::report::experiment::marks::MARKED;
use crate::report::experiment::ramp;
use crate::report::experiment::ranking;
use crate::report::experiment::row::{disturbed_note, Row};
use crate::stats::{measures, median, with_spread};
use crate::units::grouped;

/// One table's answer: which table (`Capacity (/hello, split, keep-alive, 50
/// connections)`) and who leads it, with figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub what: String,
    pub leaders: String,
}

impl Finding {
    /// `what: leaders`.
    pub fn line(&self) -> String {
        format!("{}: {}", self.what, self.leaders)
    }
}

/// Every table's finding for an experiment's `runs`: the capacity at objective tables',
/// the capacity tables', the efficiency tables' (fixed rates), then the device ramps'.
pub fn all(runs: &[RunRecord]) -> Vec<Finding> {
    let kinds = Kinds::of(runs);
    let mut out = at_objective(&kinds.capacity);
    out.extend(capacity(&kinds.closed));
    out.extend(efficiency(&kinds.rated));
    out.extend(ramps(&kinds.ramps));
    out
}

/// Each capacity cell's leader: `Capacity at objective (/hello, split, keep-alive, 50
/// connections; p99<10ms): c-epoll at least 64,000/s; 2nd nginx-static 48,400/s [47,300 -
/// 49,400]`.
fn at_objective(runs: &[RunRecord]) -> Vec<Finding> {
    (at_objective::cells(runs).iter())
        .filter(|c| c.lines.iter().any(|l| l.rank.is_some()))
        .map(|c| Finding {
            what: format!(
                "Capacity at objective ({}; {})",
                place(&c.key),
                c.objectives
            ),
            leaders: at_objective_leaders(&c.lines),
        })
        .collect()
}

/// The first rank's lines (`tied: ...`), or the leader and the runner-up.
fn at_objective_leaders(lines: &[Line]) -> String {
    let said = |l: &Line| {
        let answer = l.answer.as_ref().map_or(String::new(), |a| a.short());
        let mark = if l.searches.marked { MARKED } else { "" };
        format!("{} {answer}{mark}", l.searches.contestant)
    };
    let ranked: Vec<&Line> = lines.iter().filter(|l| l.rank.is_some()).collect();
    let first: Vec<String> = (ranked.iter().copied())
        .filter(|l| l.rank == Some(1))
        .map(said)
        .collect();
    match (first.as_slice(), ranked.get(1)) {
        ([one], Some(next)) => {
            format!("{one}; {} {}", ordinal(next.rank.unwrap_or(2)), said(next))
        }
        ([one], None) => one.clone(),
        _ => format!("tied: {}", first.join(", ")),
    }
}

/// `/hello, split, keep-alive, 50 connections`: where a cell's runs ran.
fn place(key: &CellKey) -> String {
    format!(
        "/{}, {}, {}, {}",
        key.endpoint,
        key.layout,
        key.load,
        key.connections_text()
    )
}

/// `2nd`, `3rd`, `11th`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// How much a finding says of a row it names: a leader its figure with spread and what a
/// marked figure rests on; one tied with it the same without spread; the runner-up its
/// figure.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Said {
    Leader,
    Tied,
    Next,
}

impl Said {
    fn spread(self) -> bool {
        self == Said::Leader
    }

    fn why_marked(self) -> bool {
        self != Said::Next
    }
}

/// A row's name and what a reader must know of it before its figure: `c-epoll
/// (ceiling)`, `py-one (unverified)`.
fn name(row: &Row) -> String {
    let ceiling = (row.contestant == CEILING).then_some("ceiling");
    let unverified = (row.runs.iter())
        .any(|r| r.verify == VerifyLevel::None)
        .then_some("unverified");
    let tags: Vec<&str> = ceiling.into_iter().chain(unverified).collect();
    match tags.is_empty() {
        true => row.contestant.to_string(),
        false => format!("{} ({})", row.contestant, tags.join(", ")),
    }
}

/// ` (no valid run: 2 disturbed: ...)` after a marked figure, when said.
fn marked_because(why: Option<String>) -> String {
    why.map_or(String::new(), |why| format!(" ({why})"))
}

/// Each closed-load cell of `runs`: who serves the most requests/s.
pub fn capacity(runs: &[RunRecord]) -> Vec<Finding> {
    ranking::cells(runs)
        .iter()
        .map(|(key, rows)| Finding {
            what: format!("Capacity ({})", place(key)),
            leaders: capacity_leaders(rows),
        })
        .collect()
}

/// `c-epoll 30,000 req/s ±2.5% (ceiling); 2nd go-nethttp 25,809 req/s`.
fn capacity_leaders(rows: &[Row]) -> String {
    let ranked: Vec<&Row> = rows.iter().filter(|r| r.rank.is_some()).collect();
    let Some(mut parts) = first_ranks(&ranked, |r| r.rank, row_named) else {
        return unranked(rows);
    };
    parts.extend(held_back_above(rows, ranked_rps(ranked[0])));
    parts.join("; ")
}

/// The first of `ranked` (in rank order) named as the leader, then those that share its
/// rank (`tied: ...`), or else the runner-up (`2nd ...`); None when nothing is ranked.
fn first_ranks<T>(
    ranked: &[&T],
    rank: impl Fn(&T) -> Option<usize>,
    named: impl Fn(&T, Said) -> String,
) -> Option<Vec<String>> {
    let first = ranked.first()?;
    let mut parts = vec![named(first, Said::Leader)];
    let tied: Vec<String> = (ranked[1..].iter())
        .filter(|r| rank(r) == rank(first))
        .map(|r| named(r, Said::Tied))
        .collect();
    match (tied.is_empty(), ranked.get(1)) {
        (false, _) => parts.push(format!("tied: {}", tied.join(", "))),
        (true, Some(next)) => parts.push(format!(
            "{} {}",
            ordinal(rank(next).unwrap_or(2)),
            named(next, Said::Next)
        )),
        (true, None) => {}
    }
    Some(parts)
}

/// `c-epoll 30,000 req/s ±2.5% (75%) (ceiling)`.
fn row_named(r: &Row, said: Said) -> String {
    let why = (said.why_marked() && r.is_marked()).then(|| {
        let marked: Vec<&RunRecord> = r.marked_runs().collect();
        format!("no valid run: {}", disturbed_note(&marked))
    });
    let figure = rps_figure(r, said.spread());
    format!("{} {figure}{}", name(r), marked_because(why))
}

/// The requests/s a ranked row is ranked by: its valid runs', or its marked runs'.
fn ranked_rps(r: &Row) -> f64 {
    match r.is_marked() {
        true => median(&r.marked_values(measures::rps)),
        false => median(&r.rps()),
    }
}

/// `30,000 req/s ±2.5% (75%)` (with the spread when asked), `≥ 30,000 req/s` for a lower
/// bound, `20,000 req/s †` for a row that rests on disturbed runs.
fn rps_figure(r: &Row, spread: bool) -> String {
    let figure = format!("{} req/s", grouped(ranked_rps(r)));
    if r.is_marked() {
        return format!("{figure} {MARKED}");
    }
    let at_least = if r.lower_bound() { "≥ " } else { "" };
    match spread {
        true => format!("{at_least}{}", with_spread(figure, &r.rps())),
        false => format!("{at_least}{figure}"),
    }
}

/// Rows the generator held back (generator-bound runs only, not ranked) whose figure is
/// above the leader's: the leader is not the fastest server, only the fastest measured.
fn held_back_above(rows: &[Row], leader_rps: f64) -> Option<String> {
    let above: Vec<String> = (rows.iter())
        .filter(|r| r.rank.is_none())
        .filter_map(|r| {
            let bound = median(&r.bound_values(measures::rps));
            (bound > leader_rps).then(|| format!("{} {}*", r.contestant, grouped(bound)))
        })
        .collect();
    (!above.is_empty()).then(|| {
        format!(
            "above it, generator-bound (not ranked): {}",
            above.join(", ")
        )
    })
}

/// A cell where no row is ranked: the generator-bound figures, or why nothing measured.
fn unranked(rows: &[Row]) -> String {
    let why: Vec<String> = (rows.iter())
        .map(|r| {
            let bound = r.bound_values(measures::rps);
            match (bound.is_empty(), r.failure()) {
                (false, _) => format!("{} {}*", r.contestant, grouped(median(&bound))),
                (true, Some(label)) => format!("{} {}", r.contestant, label.word()),
                (true, None) => format!("{} -", r.contestant),
            }
        })
        .collect();
    format!("none ranked: {}", why.join(", "))
}

/// Each open-loop cell of `runs`: whose server spends the least CPU per response.
pub fn efficiency(runs: &[RunRecord]) -> Vec<Finding> {
    ranking::cells(runs)
        .iter()
        .map(|(key, rows)| Finding {
            what: format!(
                "Efficiency at {}/s ({})",
                key.rate.as_deref().unwrap_or("?"),
                place(key)
            ),
            leaders: efficiency_leaders(&efficiency::ranked(rows)),
        })
        .collect()
}

/// `c-epoll 27.50 µs CPU per response ±9.1%; 2nd go-nethttp 42.51 µs`.
fn efficiency_leaders(ranked: &[Efficiency]) -> String {
    let measured: Vec<&Efficiency> = ranked.iter().filter(|e| e.rank.is_some()).collect();
    match first_ranks(&measured, |e| e.rank, cost_named) {
        Some(parts) => parts.join("; "),
        None => {
            let names: Vec<&str> = ranked.iter().map(|e| e.row.contestant).collect();
            format!("none measured the server's CPU: {}", names.join(", "))
        }
    }
}

/// `c-epoll 27.50 µs CPU per response ±9.1% (50%)`; for a marked leader, what its runs
/// were kept from counting by.
fn cost_named(e: &Efficiency, said: Said) -> String {
    let us = median(&e.cost.us);
    // The runner-up's figure follows the leader's: its unit needs no repeating.
    let figure = match said {
        Said::Next => format!("{us:.2} µs"),
        _ => format!("{us:.2} µs CPU per response"),
    };
    let figure = match (said.spread(), e.cost.marked) {
        (_, true) => format!("{figure} {MARKED}"),
        (true, false) => with_spread(figure, &e.cost.us),
        (false, false) => figure,
    };
    let why = (said.why_marked() && e.cost.marked).then(|| {
        let notes = e.row.notes();
        let notes = match notes.is_empty() {
            true => "off the schedule by the generator's doing".to_string(),
            false => notes,
        };
        format!("no run counted: {notes}")
    });
    format!("{} {figure}{}", name(e.row), marked_because(why))
}

/// Each device-ramp cell of `runs`: whose busiest second served the most. Ramps are
/// drawn, not ranked: one run against another, no interval.
pub fn ramps(runs: &[RunRecord]) -> Vec<Finding> {
    (ramp::cells(runs).into_iter())
        .map(|(key, mut these)| {
            these.retain(|r| ramp::peak(r).is_some());
            Finding {
                what: format!("Device ramp ({})", place(&key)),
                leaders: ramp_leaders(&these),
            }
        })
        .collect()
}

/// `highest peak: go-nethttp 160 responses/s (80 devices, no timeouts); next node-http
/// ...`, over runs sorted by their peak.
fn ramp_leaders(runs: &[&RunRecord]) -> String {
    let Some(first) = runs.first() else {
        return "none measured".into();
    };
    let mut out = format!("highest peak: {}", peak_named(first));
    let next = runs
        .iter()
        .find(|r| r.coordinates.contestant != first.coordinates.contestant);
    if let Some(next) = next {
        out += &format!("; next {}", peak_named(next));
    }
    out + " (drawn, not ranked)"
}

/// `go-nethttp 160 responses/s (80 devices, timeouts from 60 devices)`.
fn peak_named(r: &RunRecord) -> String {
    let Some(peak) = ramp::peak(r) else {
        return format!("{} -", r.coordinates.contestant);
    };
    let per_second = r.result().map_or(&[][..], |x| &x.per_second[..]);
    let timeouts = match per_second.iter().find(|s| s.timeouts > 0) {
        Some(s) => format!("timeouts from {} devices", grouped(s.devices as f64)),
        None => "no timeouts".into(),
    };
    format!(
        "{} {} responses/s ({} devices, {timeouts})",
        r.coordinates.contestant,
        grouped(peak.requests as f64),
        grouped(peak.devices as f64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;
    use crate::report::fixture::{disturb, document, hello_run};

    #[test]
    fn the_fixture_names_each_tables_leader_and_the_runner_up() {
        let lines: Vec<String> = document().findings().iter().map(Finding::line).collect();
        assert_eq!(
            lines[0],
            "Capacity (/hello, split, keep-alive, 50 connections): c-epoll (ceiling) 30,000 \
             req/s ±2.5% (75%); 2nd go-nethttp 25,809 req/s"
        );
        assert!(
            lines[1].contains(": go-nethttp 24,250 req/s")
                && lines[1].ends_with("above it, generator-bound (not ranked): c-epoll 40,500*"),
            "{}",
            lines[1]
        );
        let efficiency = lines.iter().find(|l| l.starts_with("Efficiency")).unwrap();
        assert!(
            efficiency.ends_with(
                ": c-epoll (ceiling) 27.50 µs CPU per response ±9.1% (50%); 2nd go-nethttp 42.51 µs"
            ),
            "{efficiency}"
        );
        let ramp = lines.iter().find(|l| l.starts_with("Device ramp")).unwrap();
        assert!(
            ramp.ends_with(
                ": highest peak: go-nethttp 160 responses/s (80 devices, no timeouts); next \
                 node-http 120 responses/s (80 devices, timeouts from 60 devices) (drawn, not ranked)"
            ),
            "{ramp}"
        );
    }

    #[test]
    fn ties_are_named_and_a_marked_leader_says_what_its_figure_rests_on() {
        let mut runs = vec![
            hello_run("a", Label::Ok, 10_000.0, 1.0),
            hello_run("a", Label::Ok, 10_400.0, 1.0),
            hello_run("b", Label::Ok, 10_200.0, 1.0),
            hello_run("b", Label::Ok, 10_300.0, 1.0),
        ];
        runs[2].verify = VerifyLevel::None;
        let tied = capacity(&runs)[0].leaders.clone();
        assert_eq!(
            tied,
            "b (unverified) 10,250 req/s ±0.5% (50%); tied: a 10,200 req/s"
        );
        for steal in [0.2, 0.3] {
            let mut r = hello_run("c", Label::Ok, 20_000.0, 1.0);
            disturb(&mut r, steal);
            runs.push(r);
        }
        let marked = capacity(&runs)[0].leaders.clone();
        assert!(
            marked.starts_with(
                "c 20,000 req/s † (no valid run: 2 disturbed: steal 25%, foreign CPU 1% (medians))"
            ),
            "{marked}"
        );
    }

    #[test]
    fn ordinals() {
        let words: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal).to_vec();
        assert_eq!(
            words,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]
        );
    }
}
