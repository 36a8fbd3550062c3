//! How a capacity line's figures read in the table: the capacity with its mark, the
//! interval or what bounds it, the steps, the two ends of the cost curve, and the notes.

use super::combined::found_nothing;
use super::ranked::Line;
use crate::model::capacity::Answer;
use crate::report::experiment::marks::MARKED;
use crate::units::grouped;

/// What `≥` means, under a table that has such a row.
pub const AT_LEAST_MEANING: &str = "≥ a lower bound: the search stopped before a rate \
     missed (notes say why; most often the generator could not keep the schedule), so the \
     server may take more; it ranks above another only where the bound exceeds the other's \
     whole interval";

/// What `<` means, under a table that has such a row.
pub const BELOW_MEANING: &str = "< every step missed, down to the search's lowest rate";

/// `48,400`, `≥ 64,000`, `< 250`, `-` without a search; `†` after a figure of disturbed
/// runs.
pub fn capacity(l: &Line) -> String {
    let mark = if l.searches.marked {
        format!(" {MARKED}")
    } else {
        String::new()
    };
    let figure = match &l.answer {
        None => return "-".into(),
        Some(a) if found_nothing(a) => return "-".into(),
        Some(Answer::Interval { estimate, .. }) => grouped(*estimate),
        Some(Answer::AtLeast { rate, .. }) => format!("≥ {}", grouped(*rate)),
        Some(Answer::Below { rate }) => format!("< {}", grouped(*rate)),
    };
    format!("{figure}{mark}")
}

/// `47,300 - 49,400`, `at least 64,000`, `below 250`; blank without a search.
pub fn interval(l: &Line) -> String {
    match &l.answer {
        None => String::new(),
        Some(a) if found_nothing(a) => "none found".into(),
        Some(Answer::Interval { low, high, .. }) => {
            format!("{} - {}", grouped(*low), grouped(*high))
        }
        Some(Answer::AtLeast { rate, .. }) => format!("at least {}", grouped(*rate)),
        Some(Answer::Below { rate }) => format!("below {}", grouped(*rate)),
    }
}

/// `15`, or over several searches `13-16`; blank without a search.
pub fn steps(l: &Line) -> String {
    let steps = l.searches.steps();
    let (Some(least), Some(most)) = (steps.iter().min(), steps.iter().max()) else {
        return String::new();
    };
    match least == most {
        true => least.to_string(),
        false => format!("{least}-{most}"),
    }
}

/// `15.3 at 4,000/s`; blank when the server's CPU was not watched.
pub fn lowest_cost(l: &Line) -> String {
    (l.searches.lowest_cost()).map_or(String::new(), |(rate, us)| {
        format!("{} at {}/s", micros(us), grouped(rate))
    })
}

/// `7.7`; blank when the server's CPU was not watched.
pub fn cost_at_capacity(l: &Line) -> String {
    l.searches.cost_at_capacity().map_or(String::new(), micros)
}

/// µs per response: `7.7`, `152`.
pub fn micros(us: f64) -> String {
    match us < 100.0 {
        true => format!("{us:.1}"),
        false => format!("{us:.0}"),
    }
}

/// Why a bound is a bound (`≥: at 128,000/s the generator ...`), then the runs that are
/// not ok, as the other tables say them.
pub fn notes(l: &Line) -> String {
    let why = l.answer.as_ref().and_then(|a| {
        let mark = match a {
            a if found_nothing(a) => "none found",
            Answer::AtLeast { .. } => "≥",
            Answer::Below { .. } => "<",
            Answer::Interval { .. } => return None,
        };
        Some(format!("{mark}: {}", a.reason()?))
    });
    let runs = Some(l.searches.notes()).filter(|n| !n.is_empty());
    why.into_iter()
        .chain(runs)
        .collect::<Vec<String>>()
        .join("; ")
}
