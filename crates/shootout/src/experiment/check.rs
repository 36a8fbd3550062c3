//! From the file as written to the typed [`Experiment`]: every field parsed once, every
//! rule checked once, each mistake one line naming the file and the field.

use super::capacity_load::{self, StepTimes};
use super::database_setting;
use super::endpoints;
use super::error::{at, under, ExperimentError, FieldError, FieldProblem, Segment};
use super::file::{self, DevicesFile, ExperimentFile, LoadFile, VerdictFile};
use super::inline;
use super::make_up;
use super::over_http2;
use super::over_tls;
use super::over_websocket;
use super::percent;
use super::repeats::{self, Repeats};
use super::table;
use super::{Experiment, Load, LoadPace, Rate};
use crate::contestant::catalog::Catalog;
use crate::contestant::manifest::Contestant;
use crate::experiment::layout::Layout;
use crate::experiment::verdict::{Policy, Tolerance};
use crate::generators::Generators;
use crate::model::endpoint::Endpoint;
use crate::threshold::Thresholds;
use crate::toml_file;
use engine::{parse_duration, DeviceScript, RateSchedule};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

impl Experiment {
    /// Every contestant named is in `cat` (one whose manifest is broken counts: its runs
    /// say why they were skipped). `path` is the file, for the message.
    pub fn check_contestants(&self, cat: &Catalog, path: &Path) -> Result<(), ExperimentError> {
        let known = |name: &String| {
            cat.contestants.iter().any(|c| c.name() == name)
                || cat.broken.iter().any(|(n, _)| n == name)
        };
        let (path, name) = match self.contestants.iter().find(|n| !known(n)) {
            None => return Ok(()),
            Some(name) => (path.to_path_buf(), name.clone()),
        };
        Err(match cat.folders.is_empty() {
            true => ExperimentError::NoCatalog { path, name },
            false => ExperimentError::UnknownContestant { path, name },
        })
    }

    /// The contestants this experiment declares itself and runs, built under `builds`:
    /// a server already running must answer at its URL and its process must run.
    pub fn inline_contestants(&self, builds: &Path) -> Result<Vec<Contestant>, ExperimentError> {
        let named = self
            .inline
            .iter()
            .filter(|i| self.contestants.contains(&i.manifest.name));
        named
            .map(|i| i.contestant(&self.file, builds))
            .collect::<Result<_, _>>()
            .map_err(|e| e.in_file(&self.file))
    }
}

pub(super) fn read(path: &Path, profile: Option<&str>) -> Result<Experiment, ExperimentError> {
    let text = toml_file::text(path)?;
    let file: ExperimentFile = toml_file::parse(path, &file::standard_tables(&text))?;
    let invalid = |e: FieldError| e.in_file(path);
    let dir = path.parent().unwrap_or(Path::new("."));
    let declared = endpoints::declared(&file.endpoint, dir).map_err(invalid)?;
    let plain = check(file.clone(), &declared).map_err(invalid)?;
    (plain.thresholds.check_names(&threshold_names(&file)))
        .map_err(|e| invalid(FieldProblem::from(e).into()))?;
    check_profiles(&file, &declared).map_err(invalid)?;
    let inline = inline::check_all(&file.contestant, path).map_err(invalid)?;
    let exp = match profile {
        None => plain,
        Some(name) => {
            let applied = file.with_profile(name).map_err(|e| e.in_file(path))?;
            check(applied, &declared).map_err(invalid)?
        }
    };
    Ok(Experiment {
        inline,
        file: path.to_path_buf(),
        text,
        ..exp
    })
}

/// Every profile the file defines, applied and checked (a mistake names the profile).
fn check_profiles(
    file: &ExperimentFile,
    declared: &BTreeMap<String, Endpoint>,
) -> Result<(), FieldError> {
    for (name, profile) in &file.profiles {
        let applied = file.clone().with(name, profile.clone());
        check(applied, declared).map_err(under(Segment::Profile(name.clone())))?;
    }
    Ok(())
}

/// The repeats an experiment ran with, from its file's text as stored and the name it
/// was stored under (`NAME:PROFILE` when a profile was applied); None when the text no
/// longer reads as an experiment.
pub(super) fn stored_repeats(definition: &str, stored_name: &str) -> Option<Repeats> {
    let file: ExperimentFile = toml::from_str(&file::standard_tables(definition)).ok()?;
    let file = match stored_name.strip_prefix(&format!("{}:", file.name)) {
        Some(profile) => file.with_profile(profile).ok()?,
        None => file,
    };
    repeats::check(&file.repeats).ok()
}

fn check(
    e: ExperimentFile,
    declared: &BTreeMap<String, Endpoint>,
) -> Result<Experiment, FieldError> {
    if e.contestants.is_empty() || e.loads.is_empty() {
        return Err(FieldProblem::NoContestantsOrLoads.into());
    }
    let endpoints = endpoints::named(&e.endpoints, declared)?;
    let layouts: Vec<Layout> = (e.layouts.iter())
        .map(|l| Layout::parse(l).map_err(at("layouts")))
        .collect::<Result<_, _>>()?;
    let repeats = repeats::check(&e.repeats)?;
    let time = |field, text: &str| parse_duration(text).map_err(at(field));
    let (warmup, duration) = (time("warmup", &e.warmup)?, time("duration", &e.duration)?);
    let generators =
        generators(e.generators.as_deref().unwrap_or("process")).map_err(at("generators"))?;
    let inherited = Inherited {
        generators: &generators,
        warmup,
        duration,
        endpoints: &endpoints,
    };
    let loads: Vec<Load> = (e.loads.iter())
        .map(|l| check_load(l, &inherited).map_err(under(Segment::Load(l.name.clone()))))
        .collect::<Result<_, _>>()?;
    let websocket_loads = loads.iter().filter(|l| l.websocket.is_some()).count();
    over_websocket::check_endpoint(&endpoints, websocket_loads)?;
    let names = table::Names {
        loads: &loads,
        endpoints: &endpoints,
        layouts: &layouts,
    };
    let tables = table::check(&e.table, &names)?;
    let database = database_setting::check(e.database.as_ref(), &endpoints, &layouts)?;
    Ok(Experiment {
        verdict_policy: verdict_policy(&e.verdict).map_err(under(Segment::Field("verdict")))?,
        make_up: make_up::check(&e.make_up)?,
        thresholds: Thresholds::parse(&e.thresholds)
            .map_err(|g| FieldError::from(FieldProblem::from(g)))?,
        warmup,
        duration,
        name: e.name,
        description: e.description,
        contestants: e.contestants,
        endpoints,
        layouts,
        repeats,
        seed: e.seed,
        loads,
        tables,
        database,
        inline: Vec::new(),
        file: PathBuf::new(),
        text: String::new(),
    })
}

/// The contestants `[thresholds]` may name: the experiment's, and any of its profiles'.
fn threshold_names(file: &ExperimentFile) -> Vec<&str> {
    let profiles = file
        .profiles
        .values()
        .filter_map(|p| p.contestants.as_ref());
    let mut names: Vec<&str> = [&file.contestants]
        .into_iter()
        .chain(profiles)
        .flatten()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The `[verdict]` percentages as shares, each within (0, 100%]. `foreign` and `steal`
/// set both kinds of run's lines; `rate_foreign` and `rate_steal`, fixed-rate runs' alone.
fn verdict_policy(v: &VerdictFile) -> Result<Policy, FieldError> {
    let share = |field, text: &Option<String>, default: f64| match text {
        None => Ok(default),
        Some(t) => percent::share(t).map_err(at(field)),
    };
    let d = Policy::default();
    let capacity = Tolerance {
        foreign: share("foreign", &v.foreign, d.capacity.foreign)?,
        steal: share("steal", &v.steal, d.capacity.steal)?,
    };
    let rate_foreign = share("foreign", &v.foreign, d.efficiency.foreign)?;
    let rate_steal = share("steal", &v.steal, d.efficiency.steal)?;
    let efficiency = Tolerance {
        foreign: share("rate_foreign", &v.rate_foreign, rate_foreign)?,
        steal: share("rate_steal", &v.rate_steal, rate_steal)?,
    };
    Ok(Policy {
        saturated: share("saturated", &v.saturated, d.saturated)?,
        capacity,
        efficiency,
        wait: match &v.wait {
            None => d.wait,
            Some(t) => parse_duration(t).map_err(at("wait"))?,
        },
    })
}

/// Generators the harness can drive: all but a Kubernetes Job, which kubectl starts.
fn generators(text: &str) -> Result<Generators, FieldProblem> {
    match text.parse()? {
        Generators::K8s => Err(FieldProblem::K8sGenerators),
        g => Ok(g),
    }
}

/// What a load takes from its experiment unless it says otherwise.
struct Inherited<'g> {
    generators: &'g Generators,
    warmup: Duration,
    duration: Duration,
    /// The experiment's endpoints, which a load may narrow.
    endpoints: &'g [Endpoint],
}

fn check_load(l: &LoadFile, inherited: &Inherited) -> Result<Load, FieldError> {
    let duration = (l.duration.as_deref())
        .map(|d| parse_duration(d).map_err(at("duration")))
        .transpose()?;
    let times = StepTimes {
        warmup: inherited.warmup,
        measured: duration.unwrap_or(inherited.duration),
    };
    let pace = match capacity_load::check(l, times)? {
        Some(search) => LoadPace::Capacity(search),
        None => pace(l)?,
    };
    let levels = levels(l, &pace).map_err(at("connections"))?;
    if duration.is_some() && staged(&pace) {
        return Err(FieldProblem::StagedDuration.at("duration"));
    }
    if !l.keepalive && matches!(pace, LoadPace::Devices { .. }) {
        return Err(FieldProblem::DevicesKeepAlive.at("keepalive"));
    }
    Ok(Load {
        name: l.name.clone(),
        levels,
        duration,
        keepalive: l.keepalive,
        http10: l.http10,
        pipeline: l.pipeline,
        timeout: parse_duration(&l.timeout).map_err(at("timeout"))?,
        generators: match &l.generators {
            Some(g) => generators(g).map_err(at("generators"))?,
            None => inherited.generators.clone(),
        },
        tls: (l.tls.as_ref())
            .map(|t| over_tls::check(t).map_err(under(Segment::Field("tls"))))
            .transpose()?,
        http2: over_http2::check(l, &pace)?,
        endpoints: (l.endpoints.as_ref())
            .map(|names| load_endpoints(names, inherited.endpoints).map_err(at("endpoints")))
            .transpose()?,
        websocket: over_websocket::check(l, &pace, inherited.endpoints)?,
        pace,
    })
}

/// A load's `endpoints`: some of the experiment's, at least one.
fn load_endpoints(names: &[String], all: &[Endpoint]) -> Result<Vec<String>, FieldProblem> {
    if names.is_empty() {
        return Err(FieldProblem::Empty);
    }
    match names.iter().find(|n| !all.iter().any(|e| &e.name == *n)) {
        Some(name) => Err(FieldProblem::Unknown {
            what: "endpoint",
            name: name.clone(),
        }),
        None => Ok(names.to_vec()),
    }
}

/// The connection levels a load runs at, one run each (see [`Load::levels`]).
fn levels(l: &LoadFile, pace: &LoadPace) -> Result<Vec<usize>, FieldProblem> {
    let levels = match pace {
        LoadPace::Devices { .. } if !l.connections.is_empty() => {
            return Err(FieldProblem::DeviceConnections)
        }
        LoadPace::Devices { script, .. } => vec![script.count.peak().ceil() as usize],
        LoadPace::Closed if l.connections.is_empty() => return Err(FieldProblem::NoLevels),
        LoadPace::Rates(_) | LoadPace::Capacity(_) if l.connections.is_empty() => vec![100],
        _ => l.connections.clone(),
    };
    match levels.contains(&0) {
        true => Err(FieldProblem::ZeroConnections),
        false => Ok(levels),
    }
}

/// Closed, open (rates) or devices: never two at once.
fn pace(l: &LoadFile) -> Result<LoadPace, FieldError> {
    let rates = (l.rate.iter())
        .map(|text| {
            let schedule = RateSchedule::parse(text).map_err(at("rate"))?;
            Ok(Rate {
                text: text.clone(),
                schedule,
            })
        })
        .collect::<Result<Vec<_>, FieldError>>()?;
    match (&l.devices, rates.is_empty()) {
        (Some(_), false) => Err(FieldProblem::RateAndDevices.into()),
        (Some(d), true) => Ok(LoadPace::Devices {
            stages: d.stages.clone(),
            script: device_script(d)?,
        }),
        (None, false) => Ok(LoadPace::Rates(rates)),
        (None, true) => Ok(LoadPace::Closed),
    }
}

fn device_script(d: &DevicesFile) -> Result<DeviceScript, FieldError> {
    let count = RateSchedule::parse_device_count(&d.stages).map_err(at("stages"))?;
    if count.duration().is_zero() {
        return Err(FieldProblem::NoStageDurations.at("stages"));
    }
    if !(0.0..1.0).contains(&d.jitter) {
        return Err(FieldProblem::Jitter.at("jitter"));
    }
    Ok(DeviceScript {
        count,
        requests: d.requests.max(1),
        think: parse_duration(&d.think).map_err(at("think"))?,
        jitter: d.jitter,
    })
}

/// A schedule with stages (or a device ramp) lasts its stages.
fn staged(pace: &LoadPace) -> bool {
    match pace {
        LoadPace::Closed | LoadPace::Capacity(_) => false,
        LoadPace::Rates(rates) => rates.iter().any(|r| !r.schedule.duration().is_zero()),
        LoadPace::Devices { .. } => true,
    }
}
