//! The experiment file as written: strings and options, read by serde, with the named
//! profiles that override parts of it. [`super::check`] turns it into an [`super::Experiment`].

use super::error::UnknownProfile;
use crate::contestant::manifest::DatabaseKind;
use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize};
use serde_untagged::UntaggedEnumVisitor;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::LazyLock;

/// One experiment as declared.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub contestants: Vec<String>,
    /// Built-in (`hello`, `app`) or declared below.
    #[serde(default = "hello")]
    pub endpoints: Vec<String>,
    /// The endpoints this experiment declares, `[endpoint.NAME]`.
    #[serde(default)]
    pub endpoint: BTreeMap<String, EndpointFile>,
    #[serde(default = "split")]
    pub layouts: Vec<String>,
    #[serde(default = "one_round")]
    pub repeats: RepeatsFile,
    #[serde(default = "one_second")]
    pub warmup: String,
    #[serde(default = "ten_seconds")]
    pub duration: String,
    /// Seed of the per-round shuffles; recorded so that a run order can be replayed.
    pub seed: Option<u64>,
    /// Where every load's generators run (`local:3`, `ssh:...`), unless a load says:
    /// as `shootout load --generators`; the harness's own process by default.
    pub generators: Option<String>,
    pub loads: Vec<LoadFile>,
    /// Where verdicts draw their lines, e.g. `foreign = "20%"` on a machine known to be
    /// shared.
    #[serde(default)]
    pub verdict: VerdictFile,
    /// How many runs may be made up, and for how long, when runs do not count.
    #[serde(default)]
    pub make_up: MakeUpFile,
    /// What results must meet (a CI gate): `all = ["p99<5ms"]` for every contestant,
    /// `NAME = [...]` for one.
    #[serde(default)]
    pub thresholds: BTreeMap<String, Vec<String>>,
    /// Named overrides, chosen with `shootout run --profile NAME`.
    #[serde(default)]
    pub profiles: BTreeMap<String, ProfileFile>,
    /// Contestants declared here (`[contestant.NAME]`), checked by [`super::inline`].
    #[serde(default)]
    pub contestant: BTreeMap<String, toml::Table>,
    /// Comparison tables of its own (`[[table]]`), checked by [`super::table`].
    #[serde(default)]
    pub table: Vec<TableFile>,
    /// The database the harness starts for the database endpoints (`[database]`).
    pub database: Option<DatabaseFile>,
}

/// The `[database]` table: `kind = "postgresql"`, each server's connection pool and the
/// rows of World.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseFile {
    pub kind: DatabaseKind,
    pub pool: Option<u32>,
    pub world: Option<u32>,
}

/// A `[[table]]`: a comparison table the report draws, a row per contestant.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableFile {
    pub title: String,
    pub columns: Vec<ColumnFile>,
    /// The header of the column the rows are ordered by (default the first).
    pub order: Option<String>,
    /// The headers of the columns drawn on the page, a bar chart each (default the
    /// order column).
    pub charts: Option<Vec<String>>,
}

/// A column of a `[[table]]`: the cell it takes (a load, at the table's endpoint and
/// layout unless it names its own) and what it measures there.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnFile {
    pub header: String,
    pub load: String,
    pub endpoint: Option<String>,
    pub layout: Option<String>,
    /// An HTTP/2 load's stream count (default its first).
    pub streams: Option<usize>,
    #[serde(default)]
    pub measure: TableMeasure,
    /// The header of the column its figure is set against.
    pub baseline: Option<String>,
    #[serde(default)]
    pub against: TableAgainst,
}

/// The `[verdict]` table: percentages of the cores' time.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictFile {
    pub saturated: Option<String>,
    pub foreign: Option<String>,
    pub steal: Option<String>,
    /// Fixed-rate runs' own lines, when not `foreign` and `steal` (the efficiency
    /// tables' figure, CPU per response, tolerates more foreign CPU than requests/s).
    pub rate_foreign: Option<String>,
    pub rate_steal: Option<String>,
    /// How long a round waits for a quiet machine before it runs anyway, e.g. "30s".
    pub wait: Option<String>,
}

/// The `[make_up]` table: `runs = 10` (0: none), `time = "2m"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MakeUpFile {
    pub runs: Option<usize>,
    pub time: Option<String>,
}

/// An `[endpoint.NAME]` table: the request, and what a good answer is.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointFile {
    #[serde(default = "get")]
    pub method: String,
    pub path: String,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    pub body: Option<String>,
    /// Relative to the experiment file; read once, when the file is checked.
    pub body_file: Option<PathBuf>,
    #[serde(default)]
    pub expect: ExpectFile,
}

/// `expect = { status = 200, body = "hi" }`, or `body_regex`, or neither (any body).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectFile {
    #[serde(default = "ok")]
    pub status: u16,
    pub body: Option<String>,
    pub body_regex: Option<String>,
}

impl Default for ExpectFile {
    fn default() -> Self {
        ExpectFile {
            status: ok(),
            body: None,
            body_regex: None,
        }
    }
}

/// What a profile may override; anything it leaves out stays as the experiment says.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileFile {
    pub description: Option<String>,
    pub contestants: Option<Vec<String>>,
    pub endpoints: Option<Vec<String>>,
    pub layouts: Option<Vec<String>>,
    pub repeats: Option<RepeatsFile>,
    pub warmup: Option<String>,
    pub duration: Option<String>,
    pub generators: Option<String>,
    pub loads: Option<Vec<LoadFile>>,
}

/// `repeats = 3` (rounds), or `repeats = { min = 3, max = 12, target = "5%" }` (rounds
/// until each cell is sure enough).
#[derive(Debug, Clone)]
pub enum RepeatsFile {
    Rounds(usize),
    UntilSure(UntilSureFile),
}

/// The table form of `repeats`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UntilSureFile {
    pub min: usize,
    pub max: usize,
    /// The widest 95% interval half-width a cell may keep, `"5%"` of its median.
    pub target: String,
}

impl<'de> Deserialize<'de> for RepeatsFile {
    // A number or a table: serde's own untagged enums lose the table's field errors.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        UntaggedEnumVisitor::new()
            .expecting("a number of rounds, or { min, max, target }")
            .u64(|n| {
                usize::try_from(n)
                    .map(RepeatsFile::Rounds)
                    .map_err(|_| serde::de::Error::custom("too many rounds"))
            })
            .map(|table| table.deserialize().map(RepeatsFile::UntilSure))
            .deserialize(d)
    }
}

/// One load of the matrix: a closed loop at one or more concurrency levels, an open loop
/// at one or more rates (`rate`), a device ramp (`devices`), or a search for the highest
/// rate that meets objectives (`capacity`); over HTTP, or WebSocket (`websocket`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadFile {
    pub name: String,
    /// Closed loop: one run per level. Open loop: the connection pool (default 100).
    #[serde(default)]
    pub connections: Vec<usize>,
    /// Open loop: one run per schedule, each as `shootout load --rate` reads it.
    #[serde(default)]
    pub rate: Vec<String>,
    /// Device load (the 2019 Stressgrid shape); the run lasts its stages.
    pub devices: Option<DevicesFile>,
    /// A capacity search: the objectives every step must meet, in the threshold grammar
    /// (`["p99<10ms", "errors<0.1%"]`); the search finds the rate.
    pub capacity: Option<Vec<String>>,
    /// A capacity search's first rate, requests/s (`"4000"`).
    pub start: Option<String>,
    /// Measured time of this load's runs (a capacity search's: of each step, at least),
    /// instead of the experiment's `duration`.
    pub duration: Option<String>,
    #[serde(default = "engine::defaults::keepalive")]
    pub keepalive: bool,
    #[serde(default)]
    pub http10: bool,
    #[serde(default = "engine::defaults::pipeline")]
    pub pipeline: usize,
    #[serde(default = "timeout")]
    pub timeout: String,
    /// Where this load's generators run, instead of the experiment's `generators`.
    pub generators: Option<String>,
    /// Over TLS: `tls = { certificate = "ecdsa", resume = "off", version = "1.3" }`.
    pub tls: Option<TlsFile>,
    /// Over HTTP/2: h2c with prior knowledge, or h2 by ALPN with `tls`.
    #[serde(default)]
    pub http2: bool,
    /// HTTP/2 streams in flight per connection, one run each (default 1).
    #[serde(default)]
    pub streams: Vec<usize>,
    /// The experiment's endpoints this load runs on (default all): an upload at the rate
    /// a hello runs at would be gigabytes a second.
    pub endpoints: Option<Vec<String>>,
    /// A WebSocket echo load on the `websocket` endpoint: `websocket = { in_flight = 16,
    /// message_size = 32, binary = false, messages_per_connection = 100 }`, each field
    /// as `shootout load`'s flag, left out at its default (the spec's own type, parsed
    /// once here).
    pub websocket: Option<engine::WebSocketSpec>,
}

/// A load's `tls` table: the certificate the servers serve, how a new connection resumes,
/// which versions the client offers; each left out takes the engine's default (ECDSA,
/// tickets, 1.2-1.3).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFile {
    /// `ecdsa` (P-256) or `rsa` (2048).
    pub certificate: Option<String>,
    /// `off`, `tickets` or `ids` (as `shootout load --tls-resume`).
    pub resume: Option<String>,
    /// `1.2`, `1.3` or `1.2-1.3` (as `--tls-version`).
    pub version: Option<String>,
}

/// A device load: device counts over time and what each device does.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DevicesFile {
    /// Device counts as stages, e.g. "0,15000:60s,15000:30s" (as `--devices`).
    pub stages: String,
    /// Requests each device sends before it leaves (and is replaced while wanted).
    #[serde(default = "engine::defaults::device_requests")]
    pub requests: u32,
    /// Mean time between a device's response and its next request.
    #[serde(default = "think")]
    pub think: String,
    /// Uniform jitter of the think time, as a fraction.
    #[serde(default = "engine::defaults::jitter")]
    pub jitter: f64,
}

impl ExperimentFile {
    /// The experiment with profile `name` applied (its name then says which profile).
    pub fn with_profile(self, name: &str) -> Result<ExperimentFile, UnknownProfile> {
        match self.profiles.get(name).cloned() {
            Some(p) => Ok(self.with(name, p)),
            None => Err(UnknownProfile {
                name: name.to_string(),
                defined: self.profiles.keys().cloned().collect(),
            }),
        }
    }

    /// The experiment with `p`, the profile called `name`, applied.
    pub fn with(mut self, name: &str, p: ProfileFile) -> ExperimentFile {
        self.name = format!("{}:{name}", self.name);
        self.description = p.description.unwrap_or(self.description);
        self.contestants = p.contestants.unwrap_or(self.contestants);
        self.endpoints = p.endpoints.unwrap_or(self.endpoints);
        self.layouts = p.layouts.unwrap_or(self.layouts);
        self.repeats = p.repeats.unwrap_or(self.repeats);
        self.warmup = p.warmup.unwrap_or(self.warmup);
        self.duration = p.duration.unwrap_or(self.duration);
        self.generators = p.generators.or(self.generators);
        self.loads = p.loads.unwrap_or(self.loads);
        self
    }
}

/// The file's text with its `[endpoints.NAME]` table headers read as `[endpoint.NAME]`.
/// The issue's own example declares an endpoint so, beside `endpoints = [...]`: a key
/// defined twice, which every TOML parser refuses. `endpoint .NAME` (TOML allows spaces
/// around the dot) is as long as `endpoints.NAME`, so every error keeps its line and column.
pub fn standard_tables(text: &str) -> Cow<'_, str> {
    static PLURAL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^(\s*\[\s*)endpoints(\s*\.)").expect("a valid pattern"));
    PLURAL.replace_all(text, "${1}endpoint ${2}")
}

fn get() -> String {
    "GET".into()
}
fn ok() -> u16 {
    200
}
/// The load defaults are the spec's (`engine::defaults`); these two as the file's text.
fn think() -> String {
    engine::format_duration(engine::defaults::think())
}
fn timeout() -> String {
    engine::format_duration(engine::defaults::timeout())
}
fn hello() -> Vec<String> {
    vec!["hello".into()]
}
fn split() -> Vec<String> {
    vec!["split".into()]
}
fn one_round() -> RepeatsFile {
    RepeatsFile::Rounds(1)
}
fn one_second() -> String {
    "1s".into()
}
fn ten_seconds() -> String {
    "10s".into()
}

/// What a column's figure is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableMeasure {
    /// Requests/s.
    #[default]
    Rps,
    /// The server's CPU µs per response, at a fixed rate.
    Cpu,
    /// The server's CPU µs per MB a response moved (its request and its answer), at a
    /// fixed rate: what a byte costs, for uploads and downloads.
    #[serde(rename = "cpu-per-mb")]
    CpuPerMb,
    /// The server's peak resident memory, KiB (set against a column of fewer
    /// connections `per-connection`: what a held connection costs it).
    Rss,
}

/// How a figure is set against its baseline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableAgainst {
    /// In percent of the baseline.
    #[default]
    Percent,
    /// The figure minus the baseline.
    Difference,
    /// The figure as a multiple of the baseline: `2.1×`.
    Ratio,
    /// Memory: the figure minus the baseline, per connection the column holds beyond the
    /// baseline's: `1,676 B per connection`.
    #[serde(rename = "per-connection")]
    PerConnection,
}
