//! Capacity at a latency objective: the highest fixed rate a server answers while every
//! objective holds (`p99<20ms`, `errors<0.1%`), found by a search of open-loop steps
//! (latency from each request's intended send time), with an interval from repeats at
//! the boundary, or a bound when the generator, not the server, ran out first. The
//! steps also give the server's cost per response across its load range when an
//! experiment watches the server.
//!
//! [`objective`] parses the objectives, [`search`] chooses each next rate from the
//! verdicts so far, [`judge`] judges one step, [`drain`] waits between steps for the
//! server to drain what the step before left, and [`run`] carries a search out over a
//! caller's loads (`shootout load --capacity`, or an experiment's `capacity` load). What a
//! search keeps (its steps, plan and answer) is `model::capacity`'s.

pub mod drain;
pub mod judge;
pub mod objective;
pub mod run;
pub mod search;

pub use drain::{Drain, Probe};
pub use judge::StepMeasure;
pub use objective::{ObjectiveError, Objectives};
pub use run::{run, StepFailed, StepLoad};
