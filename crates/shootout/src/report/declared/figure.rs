//! One contestant's figure in one column, as the table and its sentence show it, with the
//! mark of what it rests on; and a figure set against its baseline.

use super::column::{Against, Column, Digits, Measure, Side};
use super::resumption;
use crate::report::experiment::efficiency::Cost;
use crate::report::experiment::marks::{LOWER_BOUND_MARK, MARKED};
use crate::report::experiment::row::Row;
use crate::stats::{measures, median};
use crate::units;

/// What a figure rests on, when it is not simply the runs that count; in the order of
/// how little it says of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    Counted,
    /// Both sides were saturated: a lower bound of the server's capacity (`≥`).
    LowerBound,
    /// Generator-bound runs only: the generator's figure (`*`).
    GeneratorBound,
    /// No run counts: disturbed, or off the schedule by the generator's doing (`†`).
    Disturbed,
}

impl Mark {
    /// What the mark means, for the legend of a table whose figures may carry it.
    pub fn meaning(self) -> &'static str {
        match self {
            Mark::Counted => "",
            Mark::LowerBound => LOWER_BOUND_MARK,
            Mark::GeneratorBound => {
                "* generator-bound runs only: the generator's figure, not the server's"
            }
            Mark::Disturbed => {
                "† no run counts: the median of runs disturbed or off the schedule by the \
                 generator's doing (the load's own table says how)"
            }
        }
    }

    /// `text` with the mark: `≥ 73,071`, `73,071*`, `22.1†`.
    pub fn on(self, text: String) -> String {
        match self {
            Mark::Counted => text,
            Mark::LowerBound => format!("≥ {text}"),
            Mark::GeneratorBound => format!("{text}*"),
            Mark::Disturbed => format!("{text}{MARKED}"),
        }
    }
}

/// A figure of a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Figure {
    Value {
        value: f64,
        mark: Mark,
    },
    /// Measured, but not what the column means (`none resumed`): withheld, with the
    /// words shown instead.
    Withheld(&'static str),
    /// Nothing measured it.
    Nothing,
}

impl Figure {
    /// The figure of `row` (None: the contestant had no run in the cell) in `column`.
    pub fn of(column: &Column, row: Option<&Row>) -> Figure {
        let Some(row) = row else {
            return Figure::Nothing;
        };
        if column.resumption && resumption::share(row) == Some(0.0) {
            return Figure::Withheld("none resumed");
        }
        match column.measure {
            Measure::Rps => median_of(row, measures::rps),
            Measure::P99Ms => median_of(row, measures::p99_ms),
            Measure::RssKib => median_of(row, measures::peak_rss_kib),
            Measure::CpuUs => cpu_us(row, measures::cpu_us_per_response),
            Measure::CpuUsPerMb => cpu_us(row, measures::cpu_us_per_mb),
            Measure::SideCpuUs(side) => cpu_us(row, side_us(side)),
        }
    }

    /// The value, when there is one.
    pub fn value(self) -> Option<f64> {
        match self {
            Figure::Value { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The mark of a value (a figure without one counts for nothing to mark).
    pub fn mark(self) -> Mark {
        match self {
            Figure::Value { mark, .. } => mark,
            _ => Mark::Counted,
        }
    }

    /// True unless the figure is missing or rests on runs that do not count (a lower
    /// bound counts: the server was saturated too).
    pub fn counts(self) -> bool {
        match self {
            Figure::Value { mark, .. } => mark <= Mark::LowerBound,
            Figure::Withheld(_) => true,
            Figure::Nothing => false,
        }
    }

    /// The value alone: `310`, `22.1`.
    pub fn number(value: f64, digits: Digits) -> String {
        match digits {
            Digits::Whole => units::grouped(value),
            Digits::Tenths => format!("{value:.1}"),
            Digits::Hundredths => format!("{value:.2}"),
        }
    }

    /// As a cell: `73,071`, `≥ 73,071`, `22.1†`, `none resumed`, `-`.
    pub fn cell(self, digits: Digits) -> String {
        match self {
            Figure::Value { value, mark } => mark.on(Figure::number(value, digits)),
            Figure::Withheld(words) => words.into(),
            Figure::Nothing => "-".into(),
        }
    }

    /// The figure set against `baseline`: `130%` of it, `+4.0` over it; None without
    /// both (or against a baseline of nothing per cent).
    pub fn against(self, baseline: Figure, how: Against) -> Option<String> {
        let (value, base) = (self.value()?, baseline.value()?);
        match how {
            Against::Percent if base > 0.0 => {
                Some(format!("{}%", units::grouped(100.0 * value / base)))
            }
            Against::Ratio if base > 0.0 => Some(times(value / base)),
            Against::Percent | Against::Ratio => None,
            Against::Difference => Some(format!("{:+.1}", value - base)),
            Against::PerConnection { added: 0 } => None,
            Against::PerConnection { added } => {
                let bytes = (value - base) * 1024.0 / added as f64;
                Some(format!("{} B per connection", units::grouped(bytes)))
            }
        }
    }

    /// [`Figure::against`] with the mark of the less certain of the two.
    pub fn marked_against(self, baseline: Figure, how: Against) -> Option<String> {
        let change = self.against(baseline, how)?;
        Some(self.mark().max(baseline.mark()).on(change))
    }
}

/// `m` (requests/s, latency): the ok runs' median (`≥` where both sides saturated), else
/// the generator-bound runs', else the disturbed ones'.
fn median_of(row: &Row, m: measures::Measure) -> Figure {
    let counted = match row.lower_bound() {
        true => Mark::LowerBound,
        false => Mark::Counted,
    };
    let candidates = [
        (row.values(m), counted),
        (row.bound_values(m), Mark::GeneratorBound),
        (row.marked_values(m), Mark::Disturbed),
    ];
    (candidates.into_iter())
        .find(|(values, _)| !values.is_empty())
        .map_or(Figure::Nothing, |(values, mark)| Figure::Value {
            value: median(&values),
            mark,
        })
}

/// `2.1×`, `0.45×`, `12×`: two figures where they differ in the first, one above 10.
fn times(ratio: f64) -> String {
    match ratio {
        r if r >= 10.0 => format!("{r:.0}×"),
        r if r >= 1.0 => format!("{r:.1}×"),
        r => format!("{r:.2}×"),
    }
}

/// The measure of one side's CPU per response.
fn side_us(side: Side) -> measures::Measure {
    match side {
        Side::Server => measures::split_server_cpu_us_per_response,
        Side::Database => measures::database_cpu_us_per_response,
        Side::Generator => measures::generator_cpu_us_per_response,
    }
}

/// CPU per response at the rate (`us` of each run), as the efficiency tables figure it.
fn cpu_us(row: &Row, us: measures::Measure) -> Figure {
    let cost = Cost::of_measure(row, us);
    match cost.us.is_empty() {
        true => Figure::Nothing,
        false => Figure::Value {
            value: median(&cost.us),
            mark: match cost.marked {
                true => Mark::Disturbed,
                false => Mark::Counted,
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(value: f64, mark: Mark) -> Figure {
        Figure::Value { value, mark }
    }

    #[test]
    fn a_figure_reads_against_its_baseline() {
        let h1 = value(73_071.0, Mark::Counted);
        let h2 = value(95_000.0, Mark::LowerBound);
        assert_eq!(h2.against(h1, Against::Percent).as_deref(), Some("130%"));
        assert_eq!(h2.cell(Digits::Whole), "≥ 95,000");
        assert_eq!(h2.against(Figure::Nothing, Against::Percent), None);
        let cpu = value(26.1, Mark::Disturbed);
        let base = value(22.1, Mark::Counted);
        assert_eq!(cpu.cell(Digits::Tenths), "26.1†");
        assert_eq!(
            cpu.marked_against(base, Against::Difference).as_deref(),
            Some("+4.0†")
        );
        assert_eq!(
            base.marked_against(cpu, Against::Difference).as_deref(),
            Some("-4.0†"),
            "a change is as uncertain as the less certain figure"
        );
        assert_eq!(value(1.0, Mark::GeneratorBound).cell(Digits::Whole), "1*");
        let huge = value(3_000_000.0, Mark::Counted);
        assert_eq!(
            huge.against(h1, Against::Percent).as_deref(),
            Some("4,106%")
        );
        assert!(Figure::Withheld("none resumed").counts());
        assert!(!cpu.counts() && h2.counts());
    }

    #[test]
    fn memory_reads_per_connection_added() {
        // 27,348 KiB holding 10,000, 10,980 holding 50: 1,685 bytes per connection more.
        let held = value(27_348.0, Mark::Counted);
        let few = value(10_980.0, Mark::Counted);
        let per = Against::PerConnection { added: 9_950 };
        assert_eq!(
            held.against(few, per).as_deref(),
            Some("1,685 B per connection")
        );
        assert_eq!(held.against(few, Against::PerConnection { added: 0 }), None);
    }
}
