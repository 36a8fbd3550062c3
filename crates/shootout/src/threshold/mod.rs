//! Thresholds: limits a result must meet, so that a load or an experiment can fail a CI
//! job (exit 99, k6's convention). Written `METRIC OP VALUE` (`p99<5ms`, `errors<0.1%`,
//! `rps >= 50k`), parsed once into a [`Threshold`] ([`expression`]); what each metric
//! reads from a result ([`metric`]); a threshold judged against a measured value
//! ([`judgement`]); the `[thresholds]` of an experiment ([`per_contestant`]), judged per cell
//! and drawn as a table of what was crossed by the report (`report::thresholds`).

pub mod expression;
pub mod judgement;
pub mod metric;
pub mod per_contestant;

pub use expression::{rate as parse_rate, Op, Threshold, ThresholdError};
pub use judgement::{Judgement, Measured};
pub use metric::{Latency, Metric};
pub use per_contestant::Thresholds;
