use super::*;
use crate::model::capacity::Answer;
use crate::report::experiment::leaders;
use crate::report::fixture::{capacity_document, disturb};

/// The table of load `load` of the made-up capacity experiment.
fn table_of(runs: &[RunRecord], load: &str) -> Table {
    let all = tables(runs);
    assert_eq!(all.len(), 2, "two capacity loads");
    (all.into_iter())
        .find(|t| t.title.contains(&format!(", {load}, ")))
        .unwrap()
}

/// The row of `contestant`, by column header.
fn row<'t>(t: &'t Table, contestant: &str) -> Vec<(&'t str, &'t str)> {
    let cells = t.rows.iter().find(|r| r[1] == contestant).unwrap();
    (t.headers.iter().map(String::as_str))
        .zip(cells.iter().map(String::as_str))
        .collect()
}

fn runs() -> Vec<RunRecord> {
    capacity_document().runs
}

#[test]
fn contestants_rank_by_the_lower_end_bounds_are_marked_and_one_without_a_search_stays() {
    let t = table_of(&runs(), "keep-alive");
    assert_eq!(
        t.title,
        "Capacity at objective — /hello, layout split, keep-alive, 50 connections: \
         p99<10ms, errors<0.1%"
    );
    let order: Vec<(&str, &str)> = (t.rows.iter())
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    assert_eq!(
        order,
        [
            ("1", "c-epoll"),
            ("2", "nginx-static"),
            ("3", "go-nethttp"),
            ("-", "py-slow")
        ]
    );
    let bound = row(&t, "c-epoll");
    assert_eq!(
        bound[2..4],
        [
            ("capacity/s", "≥ 64,000"),
            ("interval/s", "at least 64,000")
        ]
    );
    assert_eq!(
        bound[7].1,
        "≥: at 128,000/s the generator sent 21.9% of the requests late (its CPU 99% busy) \
         while the step missed p99 219.05ms, answered 78% of the rate"
    );
    assert_eq!(
        row(&t, "nginx-static")[2..5],
        [
            ("capacity/s", "47,300"),
            ("interval/s", "47,300 - 49,400"),
            ("steps", "13")
        ]
    );
    let failed = row(&t, "py-slow");
    assert_eq!(failed[2], ("capacity/s", "-"));
    assert_eq!(
        failed[7].1,
        "1 server-failed: exited during start (status 1): No module named 'sanic'"
    );
    assert!(
        t.notes[0].ends_with(shown::AT_LEAST_MEANING),
        "{}",
        t.notes[0]
    );
    let clean = table_of(&runs(), "new connection");
    assert!(!clean.notes[0].contains("≥"), "no bound, no word of one");
}

#[test]
fn the_cost_curve_s_ends_are_the_lowest_step_and_the_step_at_capacity() {
    let t = table_of(&runs(), "keep-alive");
    // The made-up nginx pays 7 µs per response and 33 µs per wake-up at 1,000/s.
    assert_eq!(
        row(&t, "nginx-static")[5..7],
        [
            ("CPU µs/resp at lowest step", "15.2 at 4,000/s"),
            ("… at capacity", "7.7")
        ]
    );
    let said = (t.notes.iter())
        .find(|n| n.starts_with("nginx-static"))
        .unwrap();
    assert_eq!(
        said,
        "nginx-static meets p99<10ms, errors<0.1% up to 47,300/s [47,300 - 49,400]; a \
         response costs its server 15.2 µs of CPU at 4,000/s, 7.7 µs at capacity (2.0× less)"
    );
}

/// `r`'s search answering `answer`, as repeat `repeat`.
fn repeated(r: &RunRecord, repeat: usize, answer: Answer) -> RunRecord {
    let mut r = r.clone();
    r.coordinates.repeat = repeat;
    if let Some(search) = r.capacity.as_mut() {
        search.answer = answer;
    }
    r
}

#[test]
fn repeats_are_one_answer_the_median_between_the_lowest_low_and_the_highest_high() {
    let mut runs = runs();
    let at = (runs.iter())
        .position(|r| {
            r.coordinates.contestant == "go-nethttp" && r.coordinates.load == "keep-alive"
        })
        .unwrap();
    let first = runs[at].clone();
    let interval = |estimate, low, high| Answer::Interval {
        estimate,
        low,
        high,
    };
    runs.push(repeated(&first, 1, interval(30_000.0, 29_000.0, 31_000.0)));
    runs.push(repeated(&first, 2, interval(28_000.0, 27_500.0, 29_300.0)));
    let t = table_of(&runs, "keep-alive");
    let go = row(&t, "go-nethttp");
    assert_eq!(
        go[2..6],
        [
            ("capacity/s", "28,100"),
            ("interval/s", "27,500 - 32,000"),
            ("searches", "3"),
            ("steps", "15")
        ]
    );
    assert_eq!(row(&t, "nginx-static")[4], ("searches", "1"));
}

#[test]
fn a_contestant_whose_every_search_was_disturbed_is_marked() {
    let mut runs = runs();
    for r in runs
        .iter_mut()
        .filter(|r| r.coordinates.contestant == "go-nethttp")
    {
        disturb(r, 0.2);
    }
    let t = table_of(&runs, "keep-alive");
    let go = row(&t, "go-nethttp");
    assert_eq!(
        go[0..3],
        [
            ("rank", "3†"),
            ("contestant", "go-nethttp"),
            ("capacity/s", "28,100 †")
        ]
    );
    assert!(go[7].1.starts_with("1 disturbed: steal 20%"), "{}", go[7].1);
    assert!(t.notes[0].contains("† no valid search"), "{}", t.notes[0]);
    let line = crate::report::experiment::summary::Summary::of(&runs).line();
    assert!(line.contains("2 marked (steal)"), "{line}");
}

#[test]
fn capacity_cells_have_their_own_table_and_finding_and_no_other() {
    let d = capacity_document();
    let titles: Vec<String> = d.tables().into_iter().map(|t| t.title).collect();
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert!(titles
        .iter()
        .all(|t| t.starts_with("Capacity at objective")));
    assert!((crate::report::fixture::document().tables().iter())
        .all(|t| !t.title.starts_with("Capacity at objective")));
    let found: Vec<String> = leaders::all(&d.runs).iter().map(|f| f.line()).collect();
    assert_eq!(
        found,
        [
            "Capacity at objective (/hello, split, keep-alive, 50 connections; p99<10ms, \
             errors<0.1%): c-epoll at least 64,000/s; 2nd nginx-static 47,300/s [47,300 - \
             49,400]",
            "Capacity at objective (/hello, split, new connection, 50 connections; \
             p99<20ms, errors<0.1%): c-epoll 24,700/s [24,700 - 25,800]; 2nd nginx-static \
             16,000/s [16,000 - 16,700]"
        ]
    );
}

#[test]
fn a_search_that_found_nothing_is_not_ranked_and_says_why() {
    let mut runs = runs();
    for r in runs
        .iter_mut()
        .filter(|r| r.coordinates.contestant == "go-nethttp" && r.coordinates.load == "keep-alive")
    {
        if let Some(search) = r.capacity.as_mut() {
            search.answer = Answer::AtLeast {
                rate: 0.0,
                reason: "at 4,000/s, before any step met, the generator sent 30.0% of the \
                         requests late: start lower"
                    .into(),
            };
        }
    }
    let t = table_of(&runs, "keep-alive");
    let go = row(&t, "go-nethttp");
    assert_eq!(
        go[0..4],
        [
            ("rank", "-"),
            ("contestant", "go-nethttp"),
            ("capacity/s", "-"),
            ("interval/s", "none found")
        ]
    );
    assert!(
        go[7]
            .1
            .starts_with("none found: at 4,000/s, before any step met"),
        "{}",
        go[7].1
    );
    assert_eq!(t.rows[2][1], "go-nethttp", "after the ranked rows");
    assert_eq!(row(&t, "nginx-static")[0], ("rank", "2"));
}
