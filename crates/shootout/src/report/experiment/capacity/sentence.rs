//! A capacity line said in words, under the table: how far the server meets the
//! objectives, and how its cost per response changes between the search's lowest rate
//! and capacity.

use super::combined::found_nothing;
use super::ranked::Line;
use super::shown::micros;
use crate::model::capacity::Answer;
use crate::units::grouped;

/// `nginx-static meets p99<10ms, errors<0.1% up to 48,400/s [47,300 - 49,400]; a response
/// costs its server 15.3 µs of CPU at 4,000/s, 7.7 µs at capacity (2.0× less)`; None
/// without a search.
pub fn sentence(l: &Line, objectives: &str) -> Option<String> {
    let name = l.searches.contestant;
    let answer = l.answer.as_ref()?;
    if found_nothing(answer) {
        let why = answer.reason().unwrap_or_default();
        return Some(format!("{name}: no capacity found ({why})"));
    }
    let reach = match answer {
        a @ Answer::Interval { .. } => format!("up to {}", a.short()),
        Answer::AtLeast { rate, reason } => format!(
            "at least up to {}/s, where the search stopped: {reason}",
            grouped(*rate)
        ),
        Answer::Below { rate } => {
            format!("at no rate it was offered, down to {}/s", grouped(*rate))
        }
    };
    Some(format!("{name} meets {objectives} {reach}{}", cost(l)))
}

/// `; a response costs its server 15.3 µs of CPU at 4,000/s, 7.7 µs at capacity (2.0×
/// less)`, or what of it is known.
fn cost(l: &Line) -> String {
    let Some((rate, low)) = l.searches.lowest_cost() else {
        return String::new();
    };
    let at_low = format!(
        "; a response costs its server {} µs of CPU at {}/s",
        micros(low),
        grouped(rate)
    );
    match l.searches.cost_at_capacity() {
        Some(top) if top > 0.0 && low / top >= 1.05 => format!(
            "{at_low}, {} µs at capacity ({:.1}× less)",
            micros(top),
            low / top
        ),
        Some(top) => format!("{at_low}, {} µs at capacity", micros(top)),
        None => at_low,
    }
}
