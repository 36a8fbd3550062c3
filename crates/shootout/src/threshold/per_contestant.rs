//! The `[thresholds]` of an experiment: `all = [...]` for every contestant, `NAME = [...]`
//! for one. Each contestant's thresholds are judged in every cell of the matrix on the
//! report's medians over the cell's valid (`ok`) runs; a cell without one cannot be
//! judged and counts as crossed.

use super::expression::{Threshold, ThresholdError};
use std::collections::BTreeMap;

/// The key of the thresholds every contestant must meet.
pub const ALL: &str = "all";

/// An experiment's thresholds, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thresholds {
    /// For every contestant.
    pub all: Vec<Threshold>,
    /// For one contestant each, on top of `all`.
    pub named: BTreeMap<String, Vec<Threshold>>,
}

/// A mistake in a `[thresholds]` table, naming its entry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ThresholdsError {
    #[error("thresholds.{key}: {text:?}: {why}")]
    Threshold {
        key: String,
        text: String,
        why: ThresholdError,
    },
    #[error(
        "thresholds.{key}: unknown contestant {key:?} (the experiment's: {known}; \
         `all` is for every one)"
    )]
    UnknownContestant { key: String, known: String },
}

impl Thresholds {
    /// The `[thresholds]` table as written: every expression parsed.
    pub fn parse(table: &BTreeMap<String, Vec<String>>) -> Result<Thresholds, ThresholdsError> {
        let mut thresholds = Thresholds::default();
        for (key, texts) in table {
            let parsed = texts
                .iter()
                .map(|text| {
                    text.parse().map_err(|why| ThresholdsError::Threshold {
                        key: key.clone(),
                        text: text.clone(),
                        why,
                    })
                })
                .collect::<Result<Vec<Threshold>, _>>()?;
            match key.as_str() {
                ALL => thresholds.all = parsed,
                _ => {
                    thresholds.named.insert(key.clone(), parsed);
                }
            }
        }
        Ok(thresholds)
    }

    /// Every contestant named is one of `contestants` (the experiment's, in any profile).
    pub fn check_names(&self, contestants: &[&str]) -> Result<(), ThresholdsError> {
        match self
            .named
            .keys()
            .find(|k| !contestants.contains(&k.as_str()))
        {
            None => Ok(()),
            Some(key) => Err(ThresholdsError::UnknownContestant {
                key: key.clone(),
                known: contestants.join(", "),
            }),
        }
    }

    /// No threshold at all: nothing to judge.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.named.values().all(Vec::is_empty)
    }

    /// The thresholds `contestant` must meet: every contestant's, then its own.
    pub fn of<'g>(&'g self, contestant: &str) -> impl Iterator<Item = &'g Threshold> + 'g {
        let own = self.named.get(contestant).into_iter().flatten();
        self.all.iter().chain(own)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn all_applies_to_everyone_and_a_name_to_one() {
        let g = Thresholds::parse(&table(&[("all", &["p99<5ms"]), ("a", &["rps>10"])])).unwrap();
        let texts = |name: &str| g.of(name).map(|t| t.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts("a"), ["p99<5ms", "rps>10"]);
        assert_eq!(texts("b"), ["p99<5ms"]);
        assert!(g.check_names(&["a", "b"]).is_ok());
        assert_eq!(
            g.check_names(&["b"]).unwrap_err().to_string(),
            "thresholds.a: unknown contestant \"a\" (the experiment's: b; `all` is for every one)"
        );
        assert!(Thresholds::default().is_empty() && !g.is_empty());
    }

    #[test]
    fn a_bad_expression_names_its_entry() {
        let e = Thresholds::parse(&table(&[("web", &["p99<5ms", "p99<5"])])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "thresholds.web: \"p99<5\": \"5\" needs a unit (us, ms or s)"
        );
    }
}
