//! One contestant's figure in one column, as the table and its sentence show it: the
//! median requests/s of its runs (as the other tables rank them: ok runs, else the
//! generator-bound or disturbed ones, marked), or the median CPU per request of the runs
//! that count at the rate (as the efficiency tables compute it); and an HTTP/2 figure set
//! against HTTP/1.1's.

use super::figure::{Figure, Measure};
use crate::report::experiment::efficiency::Cost;
use crate::report::experiment::marks::MARKED;
use crate::report::experiment::row::Row;
use crate::stats::{measures, median};
use crate::units;

/// What a figure rests on, when it is not simply the runs that count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Counted,
    /// Both sides were saturated: a lower bound of the server's capacity (`≥`).
    LowerBound,
    /// Generator-bound runs only: the generator's figure (`*`).
    GeneratorBound,
    /// No run counts: disturbed, or off the schedule by the generator's doing (`†`).
    Disturbed,
}

/// A figure of a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shown {
    Value {
        value: f64,
        mark: Mark,
    },
    /// Nothing measured it.
    Nothing,
}

impl Shown {
    /// The figure of `row` (None: the contestant had no run in the cell) in `figure`'s
    /// column.
    pub fn of(figure: Figure, row: Option<&Row>) -> Shown {
        let Some(row) = row else {
            return Shown::Nothing;
        };
        match figure.measure {
            Measure::Capacity => capacity(row),
            Measure::Request => request(row),
        }
    }

    /// True when the figure rests on runs that count (a lower bound counts: the server
    /// was saturated too).
    pub fn counts(self) -> bool {
        matches!(
            self,
            Shown::Value {
                mark: Mark::Counted | Mark::LowerBound,
                ..
            }
        )
    }

    /// The value, when there is one.
    pub fn value(self) -> Option<f64> {
        match self {
            Shown::Value { value, .. } => Some(value),
            Shown::Nothing => None,
        }
    }

    /// As a cell: `73,071`, `≥ 73,071`, `73,071*`, `22.1†`, `-`.
    pub fn cell(self, figure: Figure) -> String {
        match self {
            Shown::Value { value, mark } => marked(figure.format(value), mark),
            Shown::Nothing => "-".into(),
        }
    }

    /// An HTTP/2 figure with HTTP/1.1's `against` it: `95,000 (130%)`, `26.1 (+4.0)`, or
    /// the figure alone when HTTP/1.1's is missing.
    pub fn cell_against(self, figure: Figure, against: Shown) -> String {
        match compared(figure, self, against) {
            Some(change) => format!("{} ({change})", self.cell(figure)),
            None => self.cell(figure),
        }
    }
}

/// The change from HTTP/1.1's figure `http11` to `http2`: `130%` of its requests/s, `+4.0`
/// µs per request; None without both.
pub fn compared(figure: Figure, http2: Shown, http11: Shown) -> Option<String> {
    let (h2, h1) = (http2.value()?, http11.value()?);
    match figure.measure {
        Measure::Capacity if h1 > 0.0 => Some(format!("{}%", units::grouped(100.0 * h2 / h1))),
        Measure::Capacity => None,
        Measure::Request => Some(format!("{:+.1}", h2 - h1)),
    }
}

/// Requests/s: the ok runs' median (`≥` where both sides saturated), else the
/// generator-bound runs', else the disturbed ones'.
fn capacity(row: &Row) -> Shown {
    let candidates = [
        (row.rps(), lower_bound_or_counted(row)),
        (row.bound_values(measures::rps), Mark::GeneratorBound),
        (row.marked_values(measures::rps), Mark::Disturbed),
    ];
    (candidates.into_iter())
        .find(|(values, _)| !values.is_empty())
        .map_or(Shown::Nothing, |(values, mark)| Shown::Value {
            value: median(&values),
            mark,
        })
}

fn lower_bound_or_counted(row: &Row) -> Mark {
    match row.lower_bound() {
        true => Mark::LowerBound,
        false => Mark::Counted,
    }
}

/// CPU per request at the rate, as the efficiency tables figure it.
fn request(row: &Row) -> Shown {
    let cost = Cost::of(row);
    match cost.us.is_empty() {
        true => Shown::Nothing,
        false => Shown::Value {
            value: median(&cost.us),
            mark: match cost.marked {
                true => Mark::Disturbed,
                false => Mark::Counted,
            },
        },
    }
}

/// `text` (a figure, or its change from HTTP/1.1's) with the mark of what `shown` rests on.
pub fn marked_text(text: String, shown: Shown) -> String {
    match shown {
        Shown::Value { mark, .. } => marked(text, mark),
        Shown::Nothing => text,
    }
}

fn marked(text: String, mark: Mark) -> String {
    match mark {
        Mark::Counted => text,
        Mark::LowerBound => format!("≥ {text}"),
        Mark::GeneratorBound => format!("{text}*"),
        Mark::Disturbed => format!("{text}{MARKED}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPACITY: Figure = Figure {
        measure: Measure::Capacity,
        tls: false,
        streams: Some(10),
    };
    const REQUEST: Figure = Figure {
        measure: Measure::Request,
        ..CAPACITY
    };

    fn value(value: f64, mark: Mark) -> Shown {
        Shown::Value { value, mark }
    }

    #[test]
    fn an_http2_figure_reads_against_http11s() {
        let h1 = value(73_071.0, Mark::Counted);
        let h2 = value(95_000.0, Mark::LowerBound);
        assert_eq!(h2.cell_against(CAPACITY, h1), "≥ 95,000 (130%)");
        assert_eq!(h2.cell_against(CAPACITY, Shown::Nothing), "≥ 95,000");
        let cpu = value(26.1, Mark::Disturbed);
        assert_eq!(
            cpu.cell_against(REQUEST, value(22.1, Mark::Counted)),
            "26.1† (+4.0)"
        );
        assert_eq!(
            value(9.0, Mark::Counted).cell_against(REQUEST, value(10.5, Mark::Counted)),
            "9.0 (-1.5)"
        );
        assert_eq!(Shown::Nothing.cell_against(CAPACITY, h1), "-");
        assert_eq!(value(1.0, Mark::GeneratorBound).cell(CAPACITY), "1*");
        let h2o = value(3_000_000.0, Mark::Counted);
        assert_eq!(h2o.cell_against(CAPACITY, h1), "3,000,000 (4,106%)");
    }
}
