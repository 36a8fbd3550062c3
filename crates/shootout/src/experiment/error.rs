//! Why an experiment cannot run, as data: the file, the field (its path through the
//! file's tables, [`FieldPath`]) and what is wrong with it ([`FieldProblem`]). Each shows
//! as one line, `FILE: loads "ka": rate: WHY`; a caller may match on the problem instead.

use super::layout::LayoutError;
use super::percent::PercentError;
use crate::capacity::ObjectiveError;
use crate::contestant::catalog::NO_CATALOG;
use crate::contestant::running::RunningError;
use crate::generators::GeneratorsError;
use crate::threshold::per_contestant::ThresholdsError;
use crate::toml_file::TomlFileError;
use crate::units::grouped;
use engine::{ConfigError, DurationError, ScheduleError, SpecError};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why an experiment cannot run; nothing was started.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    #[error(transparent)]
    File(#[from] TomlFileError),
    /// A field breaks a rule (boxed: a problem may carry a parser's whole error).
    #[error("{}: {error}", path.display())]
    Invalid {
        path: PathBuf,
        error: Box<FieldError>,
    },
    /// `--profile` names a profile the file does not define.
    #[error("{}: {error}", path.display())]
    Profile {
        path: PathBuf,
        error: UnknownProfile,
    },
    #[error("{}: contestants: unknown contestant {name:?} (see shootout list)", path.display())]
    UnknownContestant { path: PathBuf, name: String },
    #[error("{}: contestants: {name:?} is not declared here ([contestant.{name}]), and {NO_CATALOG}", path.display())]
    NoCatalog { path: PathBuf, name: String },
}

/// A field of the file and what is wrong with it, not yet placed in a file. Its problem
/// is not its `source`: the text already says it, once.
#[derive(Debug, thiserror::Error)]
#[error("{}{problem}", field.prefix())]
pub struct FieldError {
    pub field: FieldPath,
    pub problem: FieldProblem,
}

/// Where a field is: the tables and keys leading to it, outermost first. Empty for a
/// rule of the whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath(pub Vec<Segment>);

/// One step of a [`FieldPath`], shown as the file writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A key the experiment format defines: `rate`, `expect.status`.
    Field(&'static str),
    /// A key as serde found it in a table (`setup.build`).
    Key(String),
    /// `loads "ka"`
    Load(String),
    /// `endpoint.greet`
    Endpoint(String),
    /// `contestant.mine`
    Contestant(String),
    /// `profiles.quick`
    Profile(String),
    /// `table "TLS against clear text"`
    Table(String),
}

/// What is wrong with a field.
#[derive(Debug, thiserror::Error)]
pub enum FieldProblem {
    #[error("an experiment needs contestants and loads")]
    NoContestantsOrLoads,
    #[error("{0} and {1}: give one or the other")]
    BothGiven(&'static str, &'static str),
    #[error("empty")]
    Empty,
    #[error("no {what} {name:?} in this experiment")]
    Unknown { what: &'static str, name: String },
    #[error("two columns are headed {0:?}")]
    SameHeader(String),
    #[error("cpu is measured at a fixed rate, and load {0:?} has none")]
    CpuWithoutRate(String),
    #[error("per-connection sets rss against the rss of a load of fewer connections: {0}")]
    PerConnection(&'static str),
    #[error(transparent)]
    Duration(#[from] DurationError),
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    #[error(transparent)]
    Percent(#[from] PercentError),
    #[error("between 1 and {most}")]
    Rounds { most: usize },
    #[error("min ({min}) is above max ({max})")]
    MinAboveMax { min: usize, max: usize },
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error(transparent)]
    Generators(#[from] GeneratorsError),
    #[error("k8s: the harness cannot start a Kubernetes Job (`shootout k8s job` prints one)")]
    K8sGenerators,
    /// `[thresholds]`: its error names its entry itself.
    #[error(transparent)]
    Thresholds(#[from] ThresholdsError),
    #[error("a load has either rate or devices, not both")]
    RateAndDevices,
    #[error("a device load has one connection per device")]
    DeviceConnections,
    #[error("a closed load needs one or more levels")]
    NoLevels,
    #[error("counts must be above 0")]
    ZeroConnections,
    #[error("a staged load lasts its stages")]
    StagedDuration,
    #[error("device loads keep their connections")]
    DevicesKeepAlive,
    #[error("a device load needs stage durations (e.g. 0,1000:30s)")]
    NoStageDurations,
    #[error("a fraction from 0 to below 1")]
    Jitter,
    /// A capacity load's objective: its error quotes the text.
    #[error(transparent)]
    Objective(#[from] ObjectiveError),
    #[error("a capacity load searches for its rate, one open loop per step: leave {0} out")]
    CapacityPace(&'static str),
    #[error(
        "a capacity search's first rate: add capacity = [\"p99<20ms\", ...], or leave start out"
    )]
    StartWithoutCapacity,
    #[error("{text:?} is not a rate: requests/s above 0, at most {}", grouped(*.max))]
    StartRate { text: String, max: f64 },
    #[error("unknown endpoint {0:?} (hello, app, baseline, json, upload, static, db, queries[:N], fortunes, updates[:N], or one declared as [endpoint.{0}])")]
    UnknownEndpoint(String),
    #[error("{0}: add [database] kind = \"postgresql\"")]
    NoDatabase(String),
    #[error("a pool of {pool} connections: from 1 to {most}")]
    Pool { pool: u32, most: u32 },
    #[error("{0} is built in: give yours another name")]
    BuiltInName(String),
    #[error("{0:?} does not start with /")]
    NotAPath(String),
    #[error("{0:?} has a space or control character (percent-encode it)")]
    UnencodedPath(String),
    #[error("header name {0:?} has a ':'")]
    ColonInHeaderName(String),
    /// The request's method, a header, the URL the path makes, or a TLS setting: the
    /// engine's own check of a load's setting.
    #[error(transparent)]
    Request(#[from] SpecError),
    #[error("{0:?} is not a kind of certificate (ecdsa or rsa)")]
    Certificate(String),
    #[error("{0:?} is not a way to resume (off, tickets or ids)")]
    Resume(String),
    /// A load's HTTP/2 settings.
    #[error(transparent)]
    Http2(#[from] Http2Problem),
    /// A load's WebSocket settings.
    #[error(transparent)]
    WebSocket(#[from] WebSocketProblem),
    #[error("{}: {error}", path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0} is not an HTTP status (100 to 599)")]
    Status(u16),
    #[error("{pattern:?} is not a regular expression: {}", regex_reason(error))]
    Regex {
        pattern: String,
        error: regex::Error,
    },
    #[error("a name of letters, digits, '-', '_' and '.' (it names a folder)")]
    ContestantName,
    /// A `[contestant.NAME]` field of the wrong type, or unknown.
    #[error("{}", .0.message().trim())]
    Table(toml::de::Error),
    #[error("{}: no such folder", .0.display())]
    NoFolder(PathBuf),
    #[error("a command that starts the server, or the url of one already running")]
    NoServer,
    #[error("only for a server already running (url)")]
    OnlyWhenRunning,
    #[error(transparent)]
    Url(#[from] ConfigError),
    #[error(
        "{0:?} has a path: give the server's root (http://host:port), the endpoints give the paths"
    )]
    UrlWithPath(String),
    #[error("a server already running (url) is not set up or started by shootout")]
    NotStartedHere,
    /// A server already running was not found; the error names its field.
    #[error(transparent)]
    Running(#[from] RunningError),
}

/// The most streams per connection the engine keeps in flight (its `LoadConfig` check).
pub const MOST_STREAMS: usize = 1024;

/// Why a load's HTTP/2 settings cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Http2Problem {
    #[error("streams are HTTP/2's: add http2 = true, or leave streams out")]
    WithoutHttp2,
    #[error("{0} streams per connection: between 1 and {MOST_STREAMS}")]
    Count(usize),
    #[error("HTTP/2 has streams, not a pipeline: give streams instead")]
    Pipeline,
    #[error("HTTP/2 is not HTTP/1.0: give http2 or http10, not both")]
    Http10,
    #[error("HTTP/2 keeps its connections: leave keepalive = false out")]
    NewConnections,
    #[error("a device sends one request at a time: streams = [1] or none")]
    DeviceStreams,
}

/// Why a load's WebSocket settings cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebSocketProblem {
    #[error("{0} messages in flight per connection: between 1 and 1024")]
    InFlight(usize),
    #[error("a message of {0} octets: at most 16 MiB")]
    MessageSize(usize),
    #[error("at least 1 message per connection")]
    PerConnection,
    #[error("a WebSocket load runs on the websocket endpoint: add \"websocket\" to the experiment's endpoints")]
    NoEndpoint,
    #[error("a WebSocket load runs on the websocket endpoint alone")]
    OtherEndpoint,
    #[error(
        "the websocket endpoint is loaded by WebSocket loads (websocket = {{...}}), and none is"
    )]
    NoLoad,
    #[error("the contestants serve WebSocket in clear text (ws://): leave {0} out")]
    NotOverWebSocket(&'static str),
    #[error("a WebSocket load keeps its connections: leave keepalive = false out")]
    NewConnections,
    #[error("a device sends one message at a time, and its script ends its connection: leave in_flight and messages_per_connection out")]
    Devices,
    #[error("a capacity search is of HTTP requests: leave websocket out")]
    Capacity,
}

/// `--profile NAME` that the file does not define.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("profile {name:?} is not defined (defined: {})", listed(defined))]
pub struct UnknownProfile {
    pub name: String,
    pub defined: Vec<String>,
}

impl FieldProblem {
    /// This problem, in `field`.
    pub fn at(self, field: &'static str) -> FieldError {
        FieldError {
            field: FieldPath(vec![Segment::Field(field)]),
            problem: self,
        }
    }
}

/// For `map_err`: what went wrong, in `field`.
pub(super) fn at<E: Into<FieldProblem>>(field: &'static str) -> impl FnOnce(E) -> FieldError {
    move |e| e.into().at(field)
}

/// For `map_err`: the error, inside `segment`.
pub(super) fn under(segment: Segment) -> impl FnOnce(FieldError) -> FieldError {
    move |mut e| {
        e.field.0.insert(0, segment);
        e
    }
}

impl From<FieldProblem> for FieldError {
    /// A problem of the whole file.
    fn from(problem: FieldProblem) -> FieldError {
        FieldError {
            field: FieldPath::default(),
            problem,
        }
    }
}

impl FieldError {
    /// The error, in the experiment file at `path`.
    pub fn in_file(self, path: &Path) -> ExperimentError {
        ExperimentError::Invalid {
            path: path.to_path_buf(),
            error: Box::new(self),
        }
    }
}

impl UnknownProfile {
    /// The error, in the experiment file at `path`.
    pub fn in_file(self, path: &Path) -> ExperimentError {
        ExperimentError::Profile {
            path: path.to_path_buf(),
            error: self,
        }
    }
}

impl FieldPath {
    /// The path as a message starts with it: `loads "ka": rate: `, or nothing.
    fn prefix(&self) -> String {
        self.0.iter().map(|s| format!("{s}: ")).collect()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self.0.iter().map(Segment::to_string).collect();
        f.write_str(&shown.join(": "))
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Field(name) => f.write_str(name),
            Segment::Key(name) => f.write_str(name),
            Segment::Load(name) => write!(f, "loads {name:?}"),
            Segment::Endpoint(name) => write!(f, "endpoint.{name}"),
            Segment::Contestant(name) => write!(f, "contestant.{name}"),
            Segment::Profile(name) => write!(f, "profiles.{name}"),
            Segment::Table(title) => write!(f, "table {title:?}"),
        }
    }
}

/// The regex crate's reason in one line (its syntax errors draw the pattern over lines).
fn regex_reason(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text.lines().rev().find(|l| !l.trim().is_empty());
    last.unwrap_or("invalid")
        .trim_start_matches("error: ")
        .to_string()
}

/// `a, b`, or `none`.
fn listed(names: &[String]) -> String {
    match names.is_empty() {
        true => "none".into(),
        false => names.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_error_shows_its_path_then_its_problem() {
        let e = under(Segment::Load("ka".into()))(FieldProblem::NoLevels.at("connections"));
        assert_eq!(
            e.to_string(),
            "loads \"ka\": connections: a closed load needs one or more levels"
        );
        assert_eq!(e.field.to_string(), "loads \"ka\": connections");
        let whole = FieldError::from(FieldProblem::NoContestantsOrLoads);
        assert_eq!(
            whole.to_string(),
            "an experiment needs contestants and loads"
        );
        let e = under(Segment::Profile("quick".into()))(whole).in_file(Path::new("q.toml"));
        assert_eq!(
            e.to_string(),
            "q.toml: profiles.quick: an experiment needs contestants and loads"
        );
    }

    #[test]
    fn an_unknown_profile_lists_the_defined_ones() {
        let mut e = UnknownProfile {
            name: "huge".into(),
            defined: vec!["full".into(), "quick".into()],
        };
        assert_eq!(
            e.to_string(),
            "profile \"huge\" is not defined (defined: full, quick)"
        );
        e.defined.clear();
        assert_eq!(
            e.to_string(),
            "profile \"huge\" is not defined (defined: none)"
        );
    }
}
