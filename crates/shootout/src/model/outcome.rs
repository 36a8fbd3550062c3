//! How a run ended: measured (with its label), or not run at all.

use super::{Label, Verdict};
use engine::LoadResult;

/// A run either measured something, or says why not.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// The load ran: its result, and what the result says of the server (`ok`,
    /// `generator-bound`, `interrupted`, or `server-failed` when the server died during it).
    Measured {
        label: Label,
        reason: String,
        result: Box<LoadResult>,
        /// From both sides' CPU; None for runs stored before verdicts existed.
        verdict: Option<Verdict>,
    },
    /// No load result: skipped, failed to start or verify, refused, interrupted before.
    NotRun { label: Label, reason: String },
}

impl Outcome {
    pub fn label(&self) -> Label {
        match self {
            Outcome::Measured { label, .. } | Outcome::NotRun { label, .. } => *label,
        }
    }

    pub fn reason(&self) -> &str {
        match self {
            Outcome::Measured { reason, .. } | Outcome::NotRun { reason, .. } => reason,
        }
    }

    pub fn verdict(&self) -> Option<&Verdict> {
        match self {
            Outcome::Measured { verdict, .. } => verdict.as_ref(),
            Outcome::NotRun { .. } => None,
        }
    }

    pub fn result(&self) -> Option<&LoadResult> {
        match self {
            Outcome::Measured { result, .. } => Some(result),
            Outcome::NotRun { .. } => None,
        }
    }
}
