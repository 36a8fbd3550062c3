//! The ids the store gives experiments and runs, as types: an experiment's id cannot be
//! passed where a run's is meant, and `run:ID` has one parser.

use std::fmt;
use std::str::FromStr;

/// A stored experiment's id (`shootout results` lists them).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct ExperimentId(pub i64);

/// A stored run's id; written `run:ID` on the command line.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct RunId(pub i64);

/// `run:` without a number after it, or a word that is not `run:ID`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?}: expected run:ID with a number (see shootout results)")]
pub struct RunIdError(pub String);

impl RunId {
    /// The prefix that names a run.
    pub const PREFIX: &'static str = "run:";

    /// Whether `text` is meant as a run (it starts with `run:`), right or wrong.
    pub fn is_meant(text: &str) -> bool {
        text.starts_with(Self::PREFIX)
    }
}

impl FromStr for RunId {
    type Err = RunIdError;

    /// `run:12` → run 12.
    fn from_str(text: &str) -> Result<RunId, RunIdError> {
        let number = text.strip_prefix(Self::PREFIX);
        match number.map(str::parse::<i64>) {
            Some(Ok(id)) => Ok(RunId(id)),
            _ => Err(RunIdError(text.to_string())),
        }
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}{}", Self::PREFIX, self.0)
    }
}

impl fmt::Display for ExperimentId {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_read_and_write_as_run_colon_number() {
        assert_eq!("run:12".parse(), Ok(RunId(12)));
        assert_eq!(RunId(12).to_string(), "run:12");
        assert_eq!(
            "run:x".parse::<RunId>().unwrap_err().to_string(),
            "\"run:x\": expected run:ID with a number (see shootout results)"
        );
        assert!("12".parse::<RunId>().is_err());
        assert!(RunId::is_meant("run:") && !RunId::is_meant("load:1"));
        assert_eq!(ExperimentId(7).to_string(), "7");
    }
}
