//! The types every layer shares. The run record: what one run was and what it measured,
//! as types. The harness writes it, the store maps it column for column, the reports read
//! it; nothing downstream re-parses text or reads JSON by key. And the endpoints
//! (`endpoint`): the request a run sends and the answer verification expects.

mod builtin;
mod builtin_endpoint;
pub mod capacity;
pub mod endpoint;
mod host_noise;
mod ids;
mod label;
mod load_json;
mod load_kind;
mod machine;
mod outcome;
mod run_coordinates;
mod series_point;
pub mod standing;
mod verdict;
mod verify_level;

pub use host_noise::HostNoise;
pub use ids::{ExperimentId, RunId, RunIdError};
pub use label::Label;
pub use load_json::{read_load_result, LoadJsonError};
pub use load_kind::LoadKind;
pub use machine::Machine;
pub use outcome::Outcome;
pub use run_coordinates::RunCoordinates;
pub use series_point::Point;
pub use verdict::{Bottleneck, CpuSplit, Verdict};
pub use verify_level::VerifyLevel;

use engine::LoadResult;

/// Now, in Unix milliseconds: the wall-clock time experiments, their ends and the
/// machine lock are stamped with (0 on a clock set before 1970).
pub fn now_unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// One run: one contestant × endpoint × layout × load × repeat, as run and as stored.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RunRecord {
    /// Where the run sits in the matrix (`cell` in JSON, as before the name).
    #[serde(rename = "cell")]
    pub coordinates: RunCoordinates,
    pub kind: LoadKind,
    /// The versions the contestant ran with (its manifest's `toolchain` command).
    pub toolchain: String,
    /// How the contestant was checked before its loads (`none`: not at all).
    #[serde(default)]
    pub verify: VerifyLevel,
    pub outcome: Outcome,
    /// Server process-group CPU seconds during the measured load.
    pub server_cpu_s: f64,
    pub peak_rss_kb: u64,
    /// Samples every 100 ms of the server's and the generator's CPU and memory.
    pub series: Vec<Point>,
    /// Wall seconds of the whole run (start to stop) and of the load itself.
    pub wall_s: f64,
    pub load_s: f64,
    /// Run again because the cell lacked valid runs (a make-up run), not as one of the
    /// experiment's planned repeats.
    #[serde(default)]
    pub make_up: bool,
    /// A `capacity` load's search: every step, and the capacity it found. The outcome's
    /// result is then the step at capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<capacity::CapacityResult>,
}

impl RunRecord {
    /// A run that measured nothing: blocked, failed before the load, or interrupted.
    pub fn not_run(
        coordinates: RunCoordinates,
        kind: LoadKind,
        label: Label,
        reason: impl Into<String>,
    ) -> Self {
        RunRecord {
            coordinates,
            kind,
            toolchain: String::new(),
            verify: VerifyLevel::default(),
            outcome: Outcome::NotRun {
                label,
                reason: reason.into(),
            },
            server_cpu_s: 0.0,
            peak_rss_kb: 0,
            series: Vec::new(),
            wall_s: 0.0,
            load_s: 0.0,
            make_up: false,
            capacity: None,
        }
    }

    /// What the run says about the server.
    pub fn label(&self) -> Label {
        self.outcome.label()
    }

    /// Why, for every label but ok (the generator's warnings for a generator-bound run).
    pub fn reason(&self) -> &str {
        self.outcome.reason()
    }

    /// The verdict from both sides' CPU, when the load ran.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.outcome.verdict()
    }

    /// What the load measured, when it ran.
    pub fn result(&self) -> Option<&LoadResult> {
        self.outcome.result()
    }

    /// The open-loop schedule as written in the experiment (`rate` loads only).
    pub fn rate(&self) -> Option<&str> {
        match &self.kind {
            LoadKind::Rate { schedule } => Some(schedule),
            _ => None,
        }
    }

    /// Whether the run was a device ramp (the 2019 shape).
    pub fn is_ramp(&self) -> bool {
        matches!(self.kind, LoadKind::Devices { .. })
    }

    /// Whether the run was a capacity search (its `capacity` holds the steps).
    pub fn is_capacity(&self) -> bool {
        matches!(self.kind, LoadKind::Capacity { .. })
    }
}
