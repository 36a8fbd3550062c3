//! Thresholds: limits a result must meet, so that a load or an experiment can fail a CI
//! job (exit 99, k6's convention). Written `METRIC OP VALUE` (`p99<5ms`, `errors<0.1%`,
//! `rps >= 50k`), parsed once into a [`Threshold`] ([`expression`]); what each metric
//! reads from a result ([`metric`]); a threshold judged against a measured value
//! ([`judgement`]); the `[thresholds]` of an experiment ([`gates`]), judged per cell
//! and drawn as a table of what was crossed by the report (`report::thresholds`).

pub mod expression;
pub mod gates;
pub mod judgement;
pub mod metric;

pub use expression::{Op, Threshold, ThresholdError};
pub use gates::Gates;
pub use judgement::{Judgement, Measured};
pub use metric::{Latency, Metric};
