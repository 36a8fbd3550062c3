//! Experiment files (`experiments/<name>.toml`): a matrix of contestants × endpoints ×
//! layouts × loads × repeats, and named profiles that override parts of it (`full`: the
//! article's own parameters). A mistake is one line naming the file, line and field.

use engine::{DeviceScript, RateSchedule};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// One experiment as declared.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub contestants: Vec<String>,
    #[serde(default = "hello")]
    pub endpoints: Vec<String>,
    #[serde(default = "split")]
    pub layouts: Vec<String>,
    #[serde(default = "one")]
    pub repeats: usize,
    #[serde(default = "one_second")]
    pub warmup: String,
    #[serde(default = "ten_seconds")]
    pub duration: String,
    /// Seed of the per-round shuffles; recorded so that a run order can be replayed.
    pub seed: Option<u64>,
    pub loads: Vec<Load>,
    /// Named overrides, chosen with `shootout run --profile NAME`.
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
}

/// What a profile may override; anything it leaves out stays as the experiment says.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub description: Option<String>,
    pub contestants: Option<Vec<String>>,
    pub endpoints: Option<Vec<String>>,
    pub layouts: Option<Vec<String>>,
    pub repeats: Option<usize>,
    pub warmup: Option<String>,
    pub duration: Option<String>,
    pub loads: Option<Vec<Load>>,
}

/// One load of the matrix: a closed loop at one or more concurrency levels, an open loop
/// at one or more rates (`rate`), or a device ramp (`devices`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Load {
    pub name: String,
    /// Closed loop: one run per level. Open loop: the connection pool (default 100).
    #[serde(default)]
    pub connections: Vec<usize>,
    /// Open loop: one run per schedule, each as `shootout load --rate` reads it.
    #[serde(default)]
    pub rate: Vec<String>,
    /// Device load (the 2019 Stressgrid shape); the run lasts its stages.
    pub devices: Option<Devices>,
    /// Measured time of this load's runs, instead of the experiment's `duration`.
    pub duration: Option<String>,
    #[serde(default = "yes")]
    pub keepalive: bool,
    #[serde(default)]
    pub http10: bool,
    #[serde(default = "one_usize")]
    pub pipeline: usize,
    #[serde(default = "five_seconds")]
    pub timeout: String,
}

/// A device load: device counts over time and what each device does.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Devices {
    /// Device counts as stages, e.g. "0,15000:60s,15000:30s" (as `--devices`).
    pub stages: String,
    /// Requests each device sends before it leaves (and is replaced while wanted).
    #[serde(default = "hundred")]
    pub requests: u32,
    /// Mean time between a device's response and its next request.
    #[serde(default = "think")]
    pub think: String,
    /// Uniform jitter of the think time, as a fraction.
    #[serde(default = "five_percent")]
    pub jitter: f64,
}

impl Load {
    /// The rate schedules of an open-loop load (none for other loads).
    pub fn schedules(&self) -> Result<Vec<RateSchedule>, String> {
        self.rate
            .iter()
            .map(|r| RateSchedule::parse(r).map_err(|e| e.to_string()))
            .collect()
    }

    /// The device script of a device load.
    pub fn device_script(&self) -> Result<Option<DeviceScript>, String> {
        let Some(d) = &self.devices else {
            return Ok(None);
        };
        let count =
            RateSchedule::parse_device_count(&d.stages).map_err(|e| format!("stages: {e}"))?;
        if count.duration().is_zero() {
            return Err("stages: a device load needs stage durations (e.g. 0,1000:30s)".into());
        }
        if !(0.0..1.0).contains(&d.jitter) {
            return Err("jitter: a fraction from 0 to below 1".into());
        }
        Ok(Some(DeviceScript {
            count,
            requests: d.requests.max(1),
            think: engine::parse_duration(&d.think).map_err(|e| format!("think: {e}"))?,
            jitter: d.jitter,
        }))
    }

    /// The connection levels the load runs at: its own, 100 for an open loop that names
    /// none, and the peak device count for a device load.
    pub fn levels(&self) -> Vec<usize> {
        match self.device_script() {
            Ok(Some(script)) => vec![script.count.peak().ceil() as usize],
            _ if self.connections.is_empty() && !self.rate.is_empty() => vec![100],
            _ => self.connections.clone(),
        }
    }
}

impl Experiment {
    /// The experiment with profile `name` applied (its name then says which profile).
    pub fn with_profile(mut self, name: &str) -> Result<Experiment, String> {
        let Some(p) = self.profiles.get(name).cloned() else {
            let known: Vec<&str> = self.profiles.keys().map(String::as_str).collect();
            return Err(format!(
                "profile {name:?} is not defined (defined: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        };
        self.name = format!("{}:{name}", self.name);
        self.description = p.description.unwrap_or(self.description);
        self.contestants = p.contestants.unwrap_or(self.contestants);
        self.endpoints = p.endpoints.unwrap_or(self.endpoints);
        self.layouts = p.layouts.unwrap_or(self.layouts);
        self.repeats = p.repeats.unwrap_or(self.repeats);
        self.warmup = p.warmup.unwrap_or(self.warmup);
        self.duration = p.duration.unwrap_or(self.duration);
        self.loads = p.loads.unwrap_or(self.loads);
        Ok(self)
    }

    /// Runs in the whole matrix.
    pub fn run_count(&self) -> usize {
        let levels: usize = self
            .loads
            .iter()
            .map(|l| l.levels().len() * l.rate.len().max(1))
            .sum();
        self.repeats * self.contestants.len() * self.endpoints.len() * self.layouts.len() * levels
    }

    /// Warm-up and measured time of one run of `load`: a staged schedule or a device ramp
    /// is measured whole (no warm-up); anything else gets the experiment's times.
    pub fn times(&self, load: &Load, schedule: Option<&RateSchedule>) -> (Duration, Duration) {
        let dur = |t: &str| engine::parse_duration(t).unwrap_or(Duration::from_secs(1));
        let staged = match load.device_script() {
            Ok(Some(script)) => script.count.duration(),
            _ => schedule.map_or(Duration::ZERO, RateSchedule::duration),
        };
        if staged.is_zero() {
            let measured = load.duration.as_deref().unwrap_or(&self.duration);
            (dur(&self.warmup), dur(measured))
        } else {
            (Duration::ZERO, staged)
        }
    }
}

fn hundred() -> u32 {
    100
}
fn think() -> String {
    "900ms".into()
}
fn five_percent() -> f64 {
    0.05
}
fn hello() -> Vec<String> {
    vec!["hello".into()]
}
fn split() -> Vec<String> {
    vec!["split".into()]
}
fn one() -> usize {
    1
}
fn one_usize() -> usize {
    1
}
fn yes() -> bool {
    true
}
fn one_second() -> String {
    "1s".into()
}
fn ten_seconds() -> String {
    "10s".into()
}
fn five_seconds() -> String {
    "5s".into()
}

/// Reads and checks an experiment file, with `profile` applied if one is named.
pub fn read(path: &Path, profile: Option<&str>) -> Result<Experiment, String> {
    let mut e: Experiment = crate::toml_file::read(path)?;
    let at = |what: String| format!("{}: {what}", path.display());
    check(&e).map_err(at)?;
    for name in e.profiles.keys() {
        let applied = e.clone().with_profile(name).map_err(at)?;
        check(&applied).map_err(|w| at(format!("profiles.{name}: {w}")))?;
    }
    if let Some(name) = profile {
        e = e.with_profile(name).map_err(at)?;
    }
    Ok(e)
}

fn check(e: &Experiment) -> Result<(), String> {
    if e.contestants.is_empty() || e.loads.is_empty() {
        return Err("an experiment needs contestants and loads".into());
    }
    if let Some(x) = e.endpoints.iter().find(|x| *x != "hello" && *x != "app") {
        return Err(format!("endpoints: unknown endpoint {x:?} (hello or app)"));
    }
    for l in &e.layouts {
        crate::harness::layout::Layout::parse(l).map_err(|w| format!("layouts: {w}"))?;
    }
    if e.repeats == 0 || e.repeats > 100 {
        return Err("repeats: between 1 and 100".into());
    }
    for (field, text) in [("warmup", &e.warmup), ("duration", &e.duration)] {
        engine::parse_duration(text).map_err(|w| format!("{field}: {w}"))?;
    }
    for l in &e.loads {
        check_load(l).map_err(|w| format!("loads {:?}: {w}", l.name))?;
    }
    Ok(())
}

fn check_load(l: &Load) -> Result<(), String> {
    let script = l.device_script()?;
    let schedules = l.schedules().map_err(|w| format!("rate: {w}"))?;
    match (script.is_some(), schedules.is_empty()) {
        (true, false) => return Err("a load has either rate or devices, not both".into()),
        (true, true) if !l.connections.is_empty() => {
            return Err("connections: a device load has one connection per device".into())
        }
        (false, true) if l.connections.is_empty() => {
            return Err("connections: a closed load needs one or more levels".into())
        }
        _ => {}
    }
    if l.connections.contains(&0) {
        return Err("connections: counts must be above 0".into());
    }
    if let Some(d) = &l.duration {
        engine::parse_duration(d).map_err(|w| format!("duration: {w}"))?;
        if script.is_some() || schedules.iter().any(|s| !s.duration().is_zero()) {
            return Err("duration: a staged load lasts its stages".into());
        }
    }
    if !l.keepalive && (script.is_some() || !schedules.is_empty()) {
        return Err("keepalive: rate and device loads keep their connections".into());
    }
    engine::parse_duration(&l.timeout)
        .map(|_| ())
        .map_err(|w| format!("timeout: {w}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("shootout-exp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn reads_a_matrix_and_names_file_line_and_field_on_mistakes() {
        let good = write(
            "good.toml",
            "name = \"q\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"ka\"\nconnections = [10, 100]\n",
        );
        let e = read(&good, None).unwrap();
        assert_eq!(
            (
                e.repeats,
                e.endpoints[0].as_str(),
                e.loads[0].connections.len()
            ),
            (1, "hello", 2)
        );
        let typo = write(
            "typo.toml",
            "name = \"q\"\ncontestants = [\"a\"]\nrepeat = 3\n",
        );
        let msg = read(&typo, None).unwrap_err();
        assert!(
            msg.contains("typo.toml: line 3, column 1: unknown field `repeat`"),
            "{msg}"
        );
        let bad = write(
            "bad.toml",
            "name = \"q\"\ncontestants = [\"a\"]\nlayouts = [\"server:x\"]\n[[loads]]\nname = \"k\"\nconnections = [1]\n",
        );
        assert!(read(&bad, None).unwrap_err().contains("bad.toml: layouts:"));
    }

    #[test]
    fn rate_and_device_loads_and_profiles() {
        let text = "name = \"r\"\ncontestants = [\"a\", \"b\"]\nduration = \"5s\"\n\
            [[loads]]\nname = \"open\"\nrate = [\"1000\", \"0,5000:20s\"]\n\
            [[loads]]\nname = \"ramp\"\ndevices = { stages = \"0,300:10s,300:5s\" }\n\
            [profiles.full]\nrepeats = 3\nduration = \"30s\"\n";
        let e = read(&write("rate.toml", text), None).unwrap();
        assert_eq!(e.loads[0].levels(), vec![100]);
        assert_eq!(e.loads[1].levels(), vec![300]);
        assert_eq!(e.run_count(), 2 * (2 + 1));
        let ramp = &e.loads[1];
        assert_eq!(
            e.times(ramp, None),
            (Duration::ZERO, Duration::from_secs(15))
        );
        let constant = &e.loads[0].schedules().unwrap()[0];
        let mut own = e.loads[0].clone();
        own.duration = Some("2s".into());
        assert_eq!(e.times(&own, Some(constant)).1, Duration::from_secs(2));
        assert_eq!(
            e.times(&e.loads[0], Some(constant)).1,
            Duration::from_secs(5)
        );
        let full = read(&write("rate.toml", text), Some("full")).unwrap();
        assert_eq!(
            (full.name.as_str(), full.repeats, full.duration.as_str()),
            ("r:full", 3, "30s")
        );
        let missing = read(&write("rate.toml", text), Some("huge")).unwrap_err();
        assert!(
            missing.contains("profile \"huge\" is not defined (defined: full)"),
            "{missing}"
        );
        let both =
            "name = \"r\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"x\"\nrate = [\"10\"]\n\
            devices = { stages = \"0,5:1s\" }\n";
        let msg = read(&write("both.toml", both), None).unwrap_err();
        assert!(
            msg.ends_with("both.toml: loads \"x\": a load has either rate or devices, not both"),
            "{msg}"
        );
        let bad_profile = "name = \"r\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"x\"\n\
            connections = [1]\n[profiles.full]\nlayouts = [\"bogus\"]\n";
        let msg = read(&write("prof.toml", bad_profile), None).unwrap_err();
        assert!(msg.contains("prof.toml: profiles.full: layouts:"), "{msg}");
    }

    #[test]
    fn every_shipped_experiment_and_profile_reads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let e = read(&path, None).unwrap_or_else(|m| panic!("{m}"));
            for name in e.profiles.keys() {
                read(&path, Some(name)).unwrap_or_else(|m| panic!("{m}"));
            }
            seen += 1;
        }
        assert!(seen >= 5, "experiments/ holds quick and the four articles");
    }
}
