//! The experiment as it was resolved at its start, stored with it: what the report needs
//! later (its repeats above all) is read from here, typed, and the experiment file is
//! never read or parsed again. A shape of its own, not the harness's types, so that the
//! stored JSON stays readable when those change.

use crate::contestant::certificates::KeyKind;
use crate::experiment::{Experiment, LoadPace, OverTls, Repeats, Table, UntilSure};
use engine::{Resume, TlsVersions};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// An experiment's resolved plan (the `plan` column, JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub contestants: Vec<String>,
    pub endpoints: Vec<String>,
    pub layouts: Vec<String>,
    pub loads: Vec<PlannedLoad>,
    pub repeats: PlannedRepeats,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub budget: Budget,
    /// The experiment's own comparison tables (`[[table]]`); none in plans stored
    /// before they were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<Table>,
    /// The database the harness started for it (`[database]`); None without one, and in
    /// plans stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<PlannedDatabase>,
}

/// The database an experiment ran with, as its tables say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedDatabase {
    /// Each server's connection pool (`DATABASE_POOL`): the same for all.
    pub pool: u32,
    pub world_rows: u32,
}

/// One load of the matrix: its name, kind and the levels it runs at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedLoad {
    pub name: String,
    /// `closed`, `rate`, `devices` or `capacity`.
    pub kind: String,
    /// A rate load's schedules, a device load's stages, or a capacity load's objectives,
    /// as the file wrote them.
    pub schedules: Vec<String>,
    /// Connections (closed and open loops) or peak devices, one run each.
    pub levels: Vec<usize>,
    /// Its own measured time, when it overrides the experiment's.
    pub duration_s: Option<f64>,
    /// False: a new connection per request. True for plans stored before it was kept.
    #[serde(default = "kept_alive")]
    pub keepalive: bool,
    /// Over TLS: what the servers served and the clients offered; None in clear text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<PlannedTls>,
    /// Over HTTP/2 (h2c in clear text, h2 over TLS): its stream counts; None over
    /// HTTP/1.x, as in every plan stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http2: Option<PlannedHttp2>,
    /// The endpoints it runs on, when not every endpoint of the experiment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoints: Option<Vec<String>>,
}

impl PlannedLoad {
    /// Whether it runs on `endpoint`.
    pub fn runs_on(&self, endpoint: &str) -> bool {
        (self.endpoints.as_ref()).is_none_or(|names| names.iter().any(|n| n == endpoint))
    }
}

/// A load over HTTP/2 as planned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedHttp2 {
    /// Streams in flight per connection, one run each.
    pub streams: Vec<usize>,
}

/// A load over TLS as planned: what the report needs to say what its runs measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlannedTls {
    pub certificate: Certificate,
    /// How a new connection resumed: `off`, `tickets`, `ids`.
    pub resume: Resume,
    /// The versions offered: `1.2-1.3`, `1.3`.
    pub version: TlsVersions,
}

/// The kind of certificate the servers served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Certificate {
    /// ECDSA P-256.
    Ecdsa,
    /// RSA 2048.
    Rsa,
}

impl Certificate {
    /// As a reader knows it: `ECDSA P-256`, `RSA 2048`.
    pub fn title(self) -> &'static str {
        match self {
            Certificate::Ecdsa => "ECDSA P-256",
            Certificate::Rsa => "RSA 2048",
        }
    }
}

fn kept_alive() -> bool {
    true
}

/// The experiment's rounds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum PlannedRepeats {
    Fixed {
        rounds: usize,
    },
    UntilSure {
        min: usize,
        max: usize,
        target_percent: f64,
    },
}

/// What the run could spend: rounds stop starting after `time_s` (`--budget`), and
/// make-up runs are capped in count and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    pub time_s: Option<f64>,
    pub make_up_runs: usize,
    /// How long after the planned rounds a make-up round may start; None: a third of
    /// the planned rounds' time.
    pub make_up_time_s: Option<f64>,
}

impl Plan {
    /// The plan of `exp`, as it is about to run, with the `--budget` it was given.
    pub fn of(exp: &Experiment, budget: Option<Duration>) -> Plan {
        Plan {
            contestants: exp.contestants.clone(),
            endpoints: exp.endpoints.iter().map(|e| e.name.clone()).collect(),
            layouts: exp.layouts.iter().map(|l| l.name.clone()).collect(),
            loads: exp.loads.iter().map(PlannedLoad::of).collect(),
            repeats: PlannedRepeats::from(exp.repeats),
            warmup_s: exp.warmup.as_secs_f64(),
            duration_s: exp.duration.as_secs_f64(),
            budget: Budget {
                time_s: budget.map(|b| b.as_secs_f64()),
                make_up_runs: exp.make_up.runs_for(exp.run_count()),
                make_up_time_s: exp.make_up.time.map(|t| t.as_secs_f64()),
            },
            tables: exp.tables.clone(),
            database: exp.database.map(|d| PlannedDatabase {
                pool: d.pool,
                world_rows: d.world_rows,
            }),
        }
    }
}

impl PlannedLoad {
    fn of(load: &crate::experiment::Load) -> PlannedLoad {
        let (kind, schedules) = match &load.pace {
            LoadPace::Closed => ("closed", Vec::new()),
            LoadPace::Rates(rates) => ("rate", rates.iter().map(|r| r.text.clone()).collect()),
            LoadPace::Devices { stages, .. } => ("devices", vec![stages.clone()]),
            LoadPace::Capacity(search) => ("capacity", search.objectives.texts()),
        };
        PlannedLoad {
            name: load.name.clone(),
            kind: kind.to_string(),
            schedules,
            levels: load.levels.clone(),
            duration_s: load.duration.map(|d| d.as_secs_f64()),
            keepalive: load.keepalive,
            tls: load.tls.as_ref().map(PlannedTls::of),
            http2: (load.http2.as_ref()).map(|h2| PlannedHttp2 {
                streams: h2.streams.clone(),
            }),
            endpoints: load.endpoints.clone(),
        }
    }
}

impl PlannedTls {
    fn of(tls: &OverTls) -> PlannedTls {
        PlannedTls {
            certificate: match tls.certificate {
                KeyKind::Ecdsa => Certificate::Ecdsa,
                KeyKind::Rsa => Certificate::Rsa,
            },
            resume: tls.resume(),
            version: tls.client.version,
        }
    }
}

impl From<Repeats> for PlannedRepeats {
    fn from(r: Repeats) -> PlannedRepeats {
        match r {
            Repeats::Fixed(rounds) => PlannedRepeats::Fixed { rounds },
            Repeats::UntilSure(u) => PlannedRepeats::UntilSure {
                min: u.min,
                max: u.max,
                target_percent: u.target_percent,
            },
        }
    }
}

impl From<PlannedRepeats> for Repeats {
    fn from(r: PlannedRepeats) -> Repeats {
        match r {
            PlannedRepeats::Fixed { rounds } => Repeats::Fixed(rounds),
            PlannedRepeats::UntilSure {
                min,
                max,
                target_percent,
            } => Repeats::UntilSure(UntilSure {
                min,
                max,
                target_percent,
            }),
        }
    }
}
