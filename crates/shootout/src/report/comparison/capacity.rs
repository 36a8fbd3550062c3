//! A capacity cell before and after: each side's searches, their answer taken together
//! (as the capacity table takes them), the change of its rate, and whether the change is
//! significant. With three searches a side or more, by Mann-Whitney U on the searches'
//! rates, as the other measures are judged; with fewer, when the two sides' intervals
//! (a bound reaching up without end) do not overlap: one search carries its own interval
//! from the boundary's repeats, which is what it can say of itself.

use super::ALPHA;
use crate::model::capacity::Answer;
use crate::report::experiment::capacity::combined;
use crate::stats::significance::mann_whitney;

/// The fewest searches a side that Mann-Whitney is asked about; below, the intervals.
pub const SEARCHES_FOR_RANKS: usize = 3;

/// One capacity cell, before and after: each search's answer.
#[derive(Debug, Clone)]
pub struct CapacityChange {
    pub before: Vec<Answer>,
    pub after: Vec<Answer>,
}

/// How a capacity change was judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Test {
    /// Mann-Whitney U on the searches' rates (a search below every rate counts 0).
    MannWhitney { p: f64 },
    /// The two sides' intervals, and whether they overlap.
    Intervals { overlap: bool },
    /// A side without a search: nothing to judge.
    Nothing,
}

impl Test {
    pub fn significant(self) -> bool {
        match self {
            Test::MannWhitney { p } => p < ALPHA,
            Test::Intervals { overlap } => !overlap,
            Test::Nothing => false,
        }
    }

    /// `mann-whitney`, `intervals`, or `none`, as the JSON says it.
    pub fn word(self) -> &'static str {
        match self {
            Test::MannWhitney { .. } => "mann-whitney",
            Test::Intervals { .. } => "intervals",
            Test::Nothing => "none",
        }
    }

    /// `p=0.029 *`, `intervals apart *`, `intervals overlap`, `-`.
    pub fn text(self) -> String {
        let mark = if self.significant() { " *" } else { "" };
        match self {
            Test::MannWhitney { p } => format!("p={p:.3}{mark}"),
            Test::Intervals { overlap: true } => "intervals overlap".into(),
            Test::Intervals { overlap: false } => format!("intervals apart{mark}"),
            Test::Nothing => "-".into(),
        }
    }
}

impl CapacityChange {
    /// Each side's searches taken together; None for a side without one.
    pub fn sides(&self) -> [Option<Answer>; 2] {
        let one = |xs: &[Answer]| combined(&xs.iter().collect::<Vec<&Answer>>());
        [one(&self.before), one(&self.after)]
    }

    /// Each side's rate (the median over its searches; 0 below every rate tried).
    pub fn rates(&self) -> [Option<f64>; 2] {
        self.sides().map(|a| a.map(|a| a.rate().unwrap_or(0.0)))
    }

    /// The change of the rate, in percent of the rate before; None without both.
    pub fn percent(&self) -> Option<f64> {
        let [Some(a), Some(b)] = self.rates() else {
            return None;
        };
        Some(if a == 0.0 { 0.0 } else { 100.0 * (b - a) / a })
    }

    /// How it is judged: by ranks with enough searches a side, else by the intervals.
    pub fn test(&self) -> Test {
        let [Some(before), Some(after)] = self.sides() else {
            return Test::Nothing;
        };
        if self.before.len().min(self.after.len()) >= SEARCHES_FOR_RANKS {
            let rates = |xs: &[Answer]| -> Vec<f64> {
                xs.iter().map(|a| a.rate().unwrap_or(0.0)).collect()
            };
            let p = mann_whitney(&rates(&self.before), &rates(&self.after));
            return Test::MannWhitney { p };
        }
        let span = |a: &Answer| (a.low(), a.high().unwrap_or(f64::INFINITY));
        let ((lo1, hi1), (lo2, hi2)) = (span(&before), span(&after));
        Test::Intervals {
            overlap: lo1 <= hi2 && lo2 <= hi1,
        }
    }

    /// Significantly lower by more than `pct` percent.
    pub fn regressed(&self, pct: f64) -> bool {
        self.percent().is_some_and(|p| -p > pct) && self.test().significant()
    }

    /// `47,300/s [47,300 - 49,400]`, `at least 64,000/s`, `-` for a side.
    pub fn side_text(answer: &Option<Answer>) -> String {
        answer.as_ref().map_or("-".into(), Answer::short)
    }

    /// `+4.2%`, `-` without both sides.
    pub fn percent_text(&self) -> String {
        self.percent().map_or("-".into(), |p| format!("{p:+.1}%"))
    }

    /// `1→1`: how many searches a side.
    pub fn counts(&self) -> String {
        format!("{}→{}", self.before.len(), self.after.len())
    }
}

/// What the capacity comparison's marks and tests mean, under its table.
pub fn legend() -> String {
    format!(
        "capacity: the highest rate that met every objective, the median over a side's \
         searches, with its interval (the lowest low to the highest high); * significant: \
         with {SEARCHES_FOR_RANKS} searches a side or more, Mann-Whitney U on their rates at \
         5%; with fewer, intervals that do not overlap (a bound reaches up without end)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunRecord;
    use crate::report::comparison::{self, document::CellChange, Compared};
    use crate::report::fixture::capacity_document;
    use crate::report::side::Single;

    /// The made-up capacity runs, nginx-static's keep-alive capacity lower by 15%.
    fn lower() -> Vec<RunRecord> {
        let mut runs = capacity_document().runs;
        for r in runs.iter_mut().filter(|r| {
            r.coordinates.contestant == "nginx-static" && r.coordinates.load == "keep-alive"
        }) {
            if let Some(search) = r.capacity.as_mut() {
                search.answer = interval(40_000.0, 39_000.0, 41_000.0);
            }
        }
        runs
    }

    fn row<'r>(rows: &'r [Compared], contestant: &str, load: &str) -> &'r Compared {
        let found = rows
            .iter()
            .find(|c| c.contestant == contestant && c.cell.contains(&format!(", {load}, ")));
        found.unwrap()
    }

    #[test]
    fn capacity_cells_compare_their_searches_in_a_table_of_their_own() {
        let rows = comparison::compare(&capacity_document().runs, &lower());
        assert_eq!(rows.len(), 8, "four contestants, two loads");
        let nginx = row(&rows, "nginx-static", "keep-alive");
        assert_eq!(
            nginx.cell,
            "/hello, layout split, keep-alive, 50 connections: p99<10ms, errors<0.1%"
        );
        assert!(nginx.regressed(10.0) && !nginx.regressed(20.0));
        assert!(
            !nginx.rps.is_known(),
            "a search's step is no load to compare"
        );
        assert!(!row(&rows, "go-nethttp", "keep-alive").regressed(0.0));
        let tables = comparison::tables(&rows);
        assert_eq!(tables.len(), 1, "no cell of loads, no table of them");
        let t = &tables[0];
        assert_eq!(t.title, "Capacity at objective, before → after");
        let cells = |c: &str, load: &str| {
            let r = (t.rows.iter())
                .find(|r| r[0] == c && r[1].contains(&format!(", {load}, ")))
                .unwrap();
            r[2..].to_vec()
        };
        assert_eq!(
            cells("nginx-static", "keep-alive"),
            [
                "1→1",
                "47,300/s [47,300 - 49,400]",
                "40,000/s [39,000 - 41,000]",
                "-15.4%",
                "intervals apart *"
            ]
        );
        assert_eq!(
            cells("go-nethttp", "keep-alive")[3..],
            ["+0.0%", "intervals overlap"]
        );
        assert_eq!(cells("py-slow", "keep-alive")[1..], ["-", "-", "-", "-"]);
        assert!(t.notes[0].contains("with 3 searches a side or more, Mann-Whitney U"));
        let json = serde_json::to_value(CellChange::of(nginx)).unwrap();
        let capacity = &json["capacity"];
        assert_eq!(capacity["test"], "intervals");
        assert_eq!(capacity["significant"], true);
        assert_eq!(capacity["capacity_after"], 40_000.0);
        assert_eq!(capacity["after"][0]["kind"], "interval");
    }

    #[test]
    fn two_single_searches_compare_as_one_capacity_cell() {
        let single = |runs: &[RunRecord]| {
            let r = (runs.iter())
                .find(|r| {
                    r.coordinates.contestant == "nginx-static" && r.coordinates.load == "keep-alive"
                })
                .unwrap();
            Single {
                name: "nginx".into(),
                title: "a search".into(),
                result: r.result().unwrap().clone(),
                cpu_ms_per_response: None,
                capacity: r.capacity.clone(),
            }
        };
        let c = comparison::singles(&single(&capacity_document().runs), &single(&lower()));
        assert!(c.cell.ends_with(": p99<10ms, errors<0.1%"), "{}", c.cell);
        assert!(c.regressed(10.0));
        let t = comparison::single_table(&c);
        assert_eq!(t.title, "Capacity at objective, before → after");
        assert_eq!(t.rows[0][6], "intervals apart *");
        let json = serde_json::to_value(CellChange::of(&c)).unwrap();
        assert_eq!(json["capacity"]["test"], "intervals");
        let loads = comparison::compare(
            &crate::report::fixture::runs(),
            &crate::report::fixture::runs(),
        );
        let json = serde_json::to_value(CellChange::of(&loads[0])).unwrap();
        assert!(
            json.get("capacity").is_none(),
            "a cell of loads says nothing of one"
        );
    }

    fn interval(estimate: f64, low: f64, high: f64) -> Answer {
        Answer::Interval {
            estimate,
            low,
            high,
        }
    }

    #[test]
    fn one_search_a_side_is_judged_by_its_interval() {
        let apart = CapacityChange {
            before: vec![interval(47_300.0, 47_300.0, 49_400.0)],
            after: vec![interval(40_000.0, 39_000.0, 41_000.0)],
        };
        assert_eq!(apart.test(), Test::Intervals { overlap: false });
        assert_eq!(apart.percent_text(), "-15.4%");
        assert!(apart.regressed(10.0) && !apart.regressed(20.0));
        let near = CapacityChange {
            after: vec![interval(48_000.0, 46_000.0, 50_000.0)],
            ..apart.clone()
        };
        assert_eq!(near.test().text(), "intervals overlap");
        assert!(!near.regressed(0.0));
        let bound = CapacityChange {
            before: vec![Answer::AtLeast {
                rate: 64_000.0,
                reason: "the generator".into(),
            }],
            ..apart.clone()
        };
        assert!(
            bound.test().significant(),
            "a bound above the whole interval"
        );
        let nothing = CapacityChange {
            after: Vec::new(),
            ..apart
        };
        assert_eq!((nothing.test(), nothing.percent()), (Test::Nothing, None));
    }

    #[test]
    fn three_searches_a_side_or_more_are_judged_by_their_ranks() {
        let searches = |rates: &[f64]| -> Vec<Answer> {
            rates
                .iter()
                .map(|r| interval(*r, r - 500.0, r + 500.0))
                .collect()
        };
        let c = CapacityChange {
            before: searches(&[48_000.0, 47_500.0, 48_200.0, 47_900.0, 48_100.0]),
            after: searches(&[40_000.0, 40_500.0, 39_800.0, 40_200.0, 40_100.0]),
        };
        let Test::MannWhitney { p } = c.test() else {
            panic!("{:?}", c.test())
        };
        assert!(p < ALPHA, "{p}");
        assert_eq!(c.test().word(), "mann-whitney");
        let three = CapacityChange {
            before: searches(&[48_000.0, 47_500.0, 48_200.0]),
            after: searches(&[40_000.0, 40_500.0, 39_800.0]),
        };
        // Three against three cannot reach 5% (p = 0.1 at best), even with every
        // interval apart.
        assert!(!three.test().significant());
        assert_eq!(three.test().text(), "p=0.100");
    }
}
