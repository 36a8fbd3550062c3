//! Experiments (`experiments/<name>.toml`): a matrix of contestants × endpoints × layouts
//! × loads × repeats. The file is read once ([`file`]), checked once ([`check`]) into the
//! typed [`Experiment`] below, and never parsed again; a mistake is one line naming the
//! file, line and field, and as data ([`ExperimentError`]: the field's path and a typed
//! problem). Then run ([`run`]): cells on their [`layout`]s, each run judged
//! from both sides' CPU ([`verdict`]).

mod capacity_load;
mod check;
pub mod database_setting;
mod endpoints;
mod error;
mod file;
mod inline;
pub mod layout;
mod make_up;
mod matrix;
pub mod over_http2;
pub mod over_tls;
mod over_websocket;
mod percent;
mod repeats;
mod rounds;
pub mod run;
pub mod table;
pub mod verdict;

pub use capacity_load::CapacityLoad;
pub use database_setting::DatabaseSetting;
pub use error::{
    ExperimentError, FieldError, FieldPath, FieldProblem, Http2Problem, Segment, UnknownProfile,
    WebSocketProblem,
};
pub use inline::{Inline, Running};
pub use make_up::MakeUp;
pub use matrix::MatrixCell;
pub use over_http2::OverHttp2;
pub use over_tls::OverTls;
pub use percent::PercentError;
pub use repeats::{Repeats, UntilSure};
pub use rounds::{Round, Rounds, Stop};
pub use table::{Table, TableAgainst, TableColumn, TableMeasure};

use crate::experiment::layout::Layout;
use crate::experiment::verdict::Policy;
use crate::model::endpoint::{Builtin, Endpoint};
use crate::threshold::Thresholds;
use engine::{DeviceScript, RateSchedule, WebSocketSpec};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One experiment, checked: every duration, layout, schedule and script parsed.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// As declared, then `NAME:PROFILE` when a profile was applied.
    pub name: String,
    pub description: String,
    pub contestants: Vec<String>,
    /// Built in (`hello`, `app`) or declared by the file (`[endpoint.NAME]`).
    pub endpoints: Vec<Endpoint>,
    pub layouts: Vec<Layout>,
    pub repeats: Repeats,
    pub warmup: Duration,
    pub duration: Duration,
    /// Seed of the per-round shuffles; recorded so that a run order can be replayed.
    pub seed: Option<u64>,
    pub loads: Vec<Load>,
    /// Where verdicts draw their lines (`[verdict]`; the measured defaults otherwise).
    pub verdict_policy: Policy,
    /// How many runs may be made up, and for how long (`[make_up]`).
    pub make_up: MakeUp,
    /// Contestants the file declares itself (`[contestant.NAME]`).
    pub inline: Vec<Inline>,
    /// The experiment file, and its text as read (stored with the experiment's results).
    pub file: PathBuf,
    pub text: String,
    /// What results must meet (`[thresholds]`): `shootout run` exits 99 when one is
    /// crossed.
    pub thresholds: Thresholds,
    /// Comparison tables of its own (`[[table]]`), drawn by the report.
    pub tables: Vec<Table>,
    /// The database the harness starts for the contestants (`[database]`).
    pub database: Option<DatabaseSetting>,
}

/// One load of the matrix, checked.
#[derive(Debug, Clone)]
pub struct Load {
    pub name: String,
    pub pace: LoadPace,
    /// The connection levels it runs at, one run each: its own; 100 for an open loop (or a
    /// capacity search) that names none; the peak device count for a device load.
    pub levels: Vec<usize>,
    /// Measured time of a closed or constant-rate load, instead of the experiment's.
    pub duration: Option<Duration>,
    pub keepalive: bool,
    pub http10: bool,
    pub pipeline: usize,
    pub timeout: Duration,
    /// Where its generators run: the harness's process, local processes, SSH hosts.
    pub generators: crate::generators::Generators,
    /// Over TLS when given: each run starts its server with its `[tls]` command and
    /// loads it at `https://localhost:PORT`.
    pub tls: Option<OverTls>,
    /// Over HTTP/2 when given: each run starts its server with its `[h2c]` command (with
    /// `tls`, its `[tls]` command, whose ALPN offers h2) and keeps the streams its cell
    /// says in flight on each connection.
    pub http2: Option<OverHttp2>,
    /// The endpoints it runs on; None: every endpoint of the experiment.
    pub endpoints: Option<Vec<String>>,
    /// A WebSocket echo load (on the `websocket` endpoint alone): the messages each
    /// connection sends; None over HTTP.
    pub websocket: Option<WebSocketSpec>,
}

impl Load {
    /// Whether it runs on `endpoint`: a WebSocket load on the WebSocket echo alone, an
    /// HTTP load anywhere else.
    pub fn runs_on(&self, endpoint: &str) -> bool {
        let echo = endpoint == Builtin::WebSocket.name();
        echo == self.websocket.is_some()
            && (self.endpoints.as_ref()).is_none_or(|names| names.iter().any(|n| n == endpoint))
    }
}

/// How a load sends.
#[derive(Debug, Clone)]
pub enum LoadPace {
    /// As fast as responses allow.
    Closed,
    /// An open loop: one run per schedule.
    Rates(Vec<Rate>),
    /// Devices along stages, each running a script of requests and think times.
    Devices {
        stages: String,
        script: DeviceScript,
    },
    /// A search for the highest fixed rate that meets every objective: one run, whose
    /// steps are open loops at the rates the search chooses.
    Capacity(CapacityLoad),
}

/// An open-loop schedule, and its text as the experiment wrote it (stored with the run).
#[derive(Debug, Clone)]
pub struct Rate {
    pub text: String,
    pub schedule: RateSchedule,
}

impl Experiment {
    /// Runs in the whole matrix: every round of a fixed number, or the least rounds of
    /// repeats until sure (the runs certain to come).
    pub fn run_count(&self) -> usize {
        self.repeats.least() * self.pair_count()
    }

    /// Runs in the whole matrix if every cell runs its most rounds.
    pub fn most_runs(&self) -> usize {
        self.repeats.most() * self.pair_count()
    }

    /// Contestants × cells: what one full round runs.
    pub fn pair_count(&self) -> usize {
        self.contestants.len() * self.cells().len()
    }
}

/// Reads and checks an experiment file (and every profile it defines), with `profile`
/// applied if one is named.
pub fn read(path: &Path, profile: Option<&str>) -> Result<Experiment, ExperimentError> {
    check::read(path, profile)
}

/// The repeats a stored experiment ran with, from its definition (the file as run) and
/// its stored name; None when the text no longer reads as an experiment.
pub fn stored_repeats(definition: &str, stored_name: &str) -> Option<Repeats> {
    check::stored_repeats(definition, stored_name)
}

#[cfg(test)]
mod tests;
