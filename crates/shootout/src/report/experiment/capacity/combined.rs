//! Several searches of one contestant in one cell as one answer (an experiment repeats a
//! capacity cell as separate searches): the median of their rates, between the lowest
//! low and the highest high; a bound when any search was one.

use crate::model::capacity::Answer;
use crate::stats::median;

/// The answer of `searches` taken together; None without a search.
pub fn combined(searches: &[&Answer]) -> Option<Answer> {
    match searches {
        [] => None,
        [one] => Some((*one).clone()),
        several => Some(of_several(several)),
    }
}

/// Two searches or more: every search below its floor stays below the highest floor;
/// one that stopped short makes the whole a bound at the median rate (a search below
/// every rate counts 0); else an interval over all of them.
fn of_several(searches: &[&Answer]) -> Answer {
    let rates: Vec<f64> = searches.iter().map(|a| a.rate().unwrap_or(0.0)).collect();
    let estimate = median(&rates);
    let highs = searches.iter().filter_map(|a| a.high());
    if searches.iter().all(|a| matches!(a, Answer::Below { .. })) {
        return Answer::Below {
            rate: highs.fold(0.0, f64::max),
        };
    }
    let bounds: Vec<String> = searches.iter().filter_map(|a| bound_reason(a)).collect();
    if let Some(first) = bounds.first() {
        return Answer::AtLeast {
            rate: estimate,
            reason: format!(
                "{} of {} searches stopped short: {first}",
                bounds.len(),
                searches.len()
            ),
        };
    }
    Answer::Interval {
        estimate,
        low: searches
            .iter()
            .map(|a| a.low())
            .fold(f64::INFINITY, f64::min),
        high: highs.fold(0.0, f64::max),
    }
}

/// Whether `a` found nothing: a bound at 0, the generator missing before any step met.
/// It is no lower end to rank by, and overlaps every interval.
pub fn found_nothing(a: &Answer) -> bool {
    matches!(a, Answer::AtLeast { rate, .. } if *rate == 0.0)
}

/// Why a search is only a lower bound; None for an interval or a search below every rate.
fn bound_reason(a: &Answer) -> Option<String> {
    match a {
        Answer::AtLeast { reason, .. } => Some(reason.clone()),
        Answer::Interval { .. } | Answer::Below { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(estimate: f64, low: f64, high: f64) -> Answer {
        Answer::Interval {
            estimate,
            low,
            high,
        }
    }

    #[test]
    fn several_intervals_give_the_median_between_the_lowest_low_and_the_highest_high() {
        let (a, b, c) = (
            interval(40_000.0, 39_000.0, 42_000.0),
            interval(41_000.0, 40_000.0, 43_000.0),
            interval(38_000.0, 36_000.0, 40_000.0),
        );
        let all = combined(&[&a, &b, &c]).unwrap();
        assert_eq!(all, interval(40_000.0, 36_000.0, 43_000.0));
        assert_eq!(combined(&[&a]).unwrap(), a, "one search is its own answer");
        assert_eq!(combined(&[]), None);
    }

    #[test]
    fn a_search_that_stopped_short_makes_the_whole_a_bound_and_says_why() {
        let a = interval(40_000.0, 39_000.0, 42_000.0);
        let b = Answer::AtLeast {
            rate: 64_000.0,
            reason: "at 128,000/s the generator sent 5.0% of the requests late".into(),
        };
        let c = interval(41_000.0, 40_000.0, 43_000.0);
        let all = combined(&[&a, &b, &c]).unwrap();
        assert_eq!(all.short(), "at least 41,000/s");
        assert_eq!(
            all.reason().unwrap(),
            "1 of 3 searches stopped short: at 128,000/s the generator sent 5.0% of the \
             requests late"
        );
        let below = [
            Answer::Below { rate: 250.0 },
            Answer::Below { rate: 1000.0 },
        ];
        let all = combined(&[&below[0], &below[1]]).unwrap();
        assert_eq!(all.short(), "below 1,000/s");
    }
}
