//! One experiment, run: every cell of its matrix, repeats interleaved across contestants
//! in a shuffled order per round (the rounds planned by `experiment::Rounds`: a fixed
//! number, or until each cell is sure enough), each run started pinned, verified, loaded
//! in-process, watched ([`measure`]), judged ([`judge`]), and stopped; a capacity cell's
//! run is a search of fixed-rate steps on one server ([`capacity_search`]); a run that
//! could not be measured says why ([`failure`]).

mod capacity_search;
mod certificate_cache;
mod contestant_cache;
mod cpu_at_rest;
pub mod failure;
mod judge;
mod measure;
mod owned_database;

pub use certificate_cache::IssueError;
pub use failure::{RunFailure, VerifyFailure};

use crate::contestant::catalog::{self, Catalog, Status};
use crate::contestant::manifest::Contestant;
use crate::contestant::verify::Check;
use crate::experiment::{Experiment, LoadPace, MatrixCell, Rounds, Stop};
use crate::machine::idle::{self, Quiet};
use crate::model::capacity::Step;
use crate::model::VerifyLevel;
use crate::model::{RunCoordinates, RunRecord};
use certificate_cache::CertificateCache;
use contestant_cache::ContestantCache;
use owned_database::OwnedDatabase;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What `run` tells its caller as it goes.
pub enum Event<'a> {
    /// A run is about to start: the contestant, and the cell.
    Started(&'a str, &'a MatrixCell),
    /// A run ended: it, how many have ended, and how many are known to come in all (the
    /// total grows when rounds beyond the least start).
    Finished(&'a RunRecord, usize, usize),
    /// No further round starts: why, after how many rounds.
    Stopped(Stop, usize),
    /// The machine was busy before round `usize` (from 0): what the wait found.
    Busy(usize, Quiet),
    /// A contestant was verified, once per experiment, before its first load: at which
    /// level, and what each check found (none at level `none`).
    Verified(&'a str, VerifyLevel, &'a [Check]),
    /// A capacity search judged a step: the contestant, the cell, the step's number (from
    /// 1), and the step.
    Step(&'a str, &'a MatrixCell, usize, &'a Step),
    /// The experiment's database (`[database]`) was started before the first round, or
    /// could not be: one line that says which.
    Database(&'a str),
}

/// What a caller can see and do while an experiment runs.
pub struct Controls<'a> {
    /// Set (Ctrl-C) to stop the current load and skip the rest.
    pub interrupt: &'a AtomicBool,
    /// Every load publishes its responses here, for a live requests/s.
    pub live: &'a engine::Live,
    /// No round starts once this much time has passed (a run in progress finishes).
    pub budget: Option<Duration>,
    /// Copy this binary to SSH generator hosts before each load's checks (`--push`).
    pub push: bool,
}

/// Runs `exp` round by round; `on_event` sees each run start and end (progress,
/// streaming to a store) and why the rounds stopped.
pub fn run(
    exp: &Experiment,
    cat: &Catalog,
    seed: u64,
    controls: &Controls,
    on_event: impl FnMut(Event),
) -> Vec<RunRecord> {
    let cells = exp.cells();
    let mut rounds = Rounds::new(exp, controls.budget);
    let mut runner = Runner {
        cat,
        controls,
        cache: ContestantCache::new(&exp.endpoints),
        certificates: CertificateCache::default(),
        database: OwnedDatabase::start(exp.database.as_ref()),
        on_event,
    };
    if let Some(line) = runner.database.line() {
        (runner.on_event)(Event::Database(&line));
    }
    let mut runs = Vec::with_capacity(exp.run_count());
    let mut rng = seed;
    let t0 = Instant::now();
    let stop = loop {
        let interrupted = controls.interrupt.load(Ordering::Relaxed);
        let round = match rounds.next(t0.elapsed(), interrupted) {
            Ok(round) => round,
            Err(stop) => break stop,
        };
        let (strictest, wait) = (exp.verdict_policy.strictest(), exp.verdict_policy.wait);
        let quiet = idle::wait_for_quiet(strictest.foreign, wait, controls.interrupt);
        if quiet != Quiet::Now {
            (runner.on_event)(Event::Busy(round.number, quiet));
        }
        for (c, name) in shuffled(&exp.contestants, &mut rng) {
            for (i, cell) in cells.iter().enumerate().filter(|(i, _)| round.runs(c, *i)) {
                let mut r = runner.run_or_skip(name, cell, round.number);
                r.make_up = round.makes_up(c, i);
                rounds.record(c, i, &r);
                (runner.on_event)(Event::Finished(&r, runs.len() + 1, rounds.total()));
                runs.push(r);
            }
        }
    };
    (runner.on_event)(Event::Stopped(stop, rounds.started()));
    runs
}

/// What every run of one experiment shares: the catalog, the caller's controls, what is
/// found once per contestant, the certificates of its TLS loads, its database, and where
/// events go.
struct Runner<'a, F> {
    cat: &'a Catalog,
    controls: &'a Controls<'a>,
    cache: ContestantCache<'a>,
    certificates: CertificateCache,
    database: OwnedDatabase,
    on_event: F,
}

impl<F: FnMut(Event)> Runner<'_, F> {
    /// One run of `name` in `cell`, or its record as interrupted when Ctrl-C came first.
    fn run_or_skip(&mut self, name: &str, cell: &MatrixCell, repeat: usize) -> RunRecord {
        if self.controls.interrupt.load(Ordering::Relaxed) {
            return not_run(named(name, cell, repeat), cell, RunFailure::Interrupted);
        }
        (self.on_event)(Event::Started(name, cell));
        self.run_cell(name, cell, repeat)
    }

    /// One run of `name` in `cell`: skipped when the contestant cannot run it, else
    /// measured.
    fn run_cell(&mut self, name: &str, cell: &MatrixCell, repeat: usize) -> RunRecord {
        let names = named(name, cell, repeat);
        let c = match self.cat.get(name) {
            Ok(c) => c,
            Err(e) => return not_run(names, cell, e.into()),
        };
        let skipped = |failure: RunFailure| RunRecord {
            verify: c.manifest.verify,
            ..not_run(names.clone(), cell, failure)
        };
        if let s @ (Status::NeedsSetup(_) | Status::Blocked(_)) = catalog::status(c) {
            return skipped(RunFailure::NotInstalled(s));
        }
        if !c.serves(cell.endpoint.served_as()) {
            return skipped(RunFailure::DoesNotServe(cell.endpoint.name.clone()));
        }
        if let Some(refusal) = unserved(c, cell) {
            return skipped(refusal);
        }
        let t0 = Instant::now();
        let measured = match &cell.load.pace {
            LoadPace::Capacity(search) => self.search(name, c, cell, search),
            _ => self.measure(c, cell),
        };
        let toolchain = self.cache.toolchain(c);
        let mut record = match measured {
            Ok(m) => m.into_record(names, cell.kind.clone()),
            Err(failure) => not_run(names, cell, failure),
        };
        record.toolchain = toolchain;
        record.verify = c.manifest.verify;
        record.wall_s = t0.elapsed().as_secs_f64();
        record
    }
}

/// Why `c` cannot serve `cell`'s load as it asks: over TLS, over HTTP/2, or both.
fn unserved(c: &Contestant, cell: &MatrixCell) -> Option<RunFailure> {
    not_over_tls(c, cell).or_else(|| not_over_http2(c, cell))
}

/// Why `c` cannot run `cell`'s load over TLS, when it is over TLS: a server already
/// running is not started by shootout, and one without `[tls]` cannot serve it.
fn not_over_tls(c: &Contestant, cell: &MatrixCell) -> Option<RunFailure> {
    cell.load.tls.as_ref()?;
    if c.running.is_some() {
        return Some(RunFailure::RunningNotOverTls);
    }
    c.manifest.tls.is_none().then_some(RunFailure::NoTls)
}

/// Why `c` cannot run `cell`'s load over HTTP/2, when it is over HTTP/2: a server already
/// running is not started by shootout; in clear text one needs `[h2c]`, over TLS a `[tls]`
/// whose ALPN offers h2 (one without `[tls]` at all is [`not_over_tls`]'s).
fn not_over_http2(c: &Contestant, cell: &MatrixCell) -> Option<RunFailure> {
    cell.load.http2.as_ref()?;
    if c.running.is_some() {
        return Some(RunFailure::RunningNotOverHttp2);
    }
    match cell.load.tls {
        None => (!c.manifest.serves_h2c()).then_some(RunFailure::NoH2c),
        Some(_) => (!c.manifest.serves_h2()).then_some(RunFailure::NoH2),
    }
}

/// The record of a run that was not measured: its label and reason from `failure`.
fn not_run(names: RunCoordinates, cell: &MatrixCell, failure: RunFailure) -> RunRecord {
    let kind = cell.kind.clone();
    RunRecord::not_run(names, kind, failure.label(), failure.to_string())
}

/// The record's names for contestant `name` in `cell`, repeat `repeat`.
fn named(name: &str, cell: &MatrixCell, repeat: usize) -> RunCoordinates {
    RunCoordinates {
        contestant: name.to_string(),
        endpoint: cell.endpoint.name.clone(),
        layout: cell.layout.name.clone(),
        load: cell.load.name.clone(),
        connections: cell.connections,
        streams: cell.streams,
        repeat,
    }
}

/// Fisher-Yates with splitmix64: the same seed, the same order; each name with its place.
fn shuffled<'a>(names: &'a [String], state: &mut u64) -> Vec<(usize, &'a String)> {
    let mut v: Vec<(usize, &String)> = names.iter().enumerate().collect();
    for i in (1..v.len()).rev() {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        v.swap(i, ((z ^ (z >> 31)) % (i as u64 + 1)) as usize);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contestant::manifest::Origin;

    /// A contestant whose manifest ends with `tables` (`[tls]`, `[h2c]`).
    fn contestant(tables: &str) -> Contestant {
        let toml = format!(
            "name = \"c\"\nlanguage = \"C\"\nframework = \"x\"\nversion = \"1\"\n\
             [start]\ncommand = \"exec server {{port}}\"\n{tables}"
        );
        Contestant {
            manifest: toml::from_str(&toml).unwrap(),
            dir: "/c".into(),
            build: "/builds/c".into(),
            origin: Origin::Inline,
            declared_in: "/h2.toml".into(),
            running: None,
        }
    }

    /// The cells of an experiment of one contestant and these loads: HTTP/1.1, h2c, over
    /// TLS, h2 over TLS.
    fn cells() -> Vec<MatrixCell> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h2.toml");
        let text = "name = \"h\"\ncontestants = [\"c\"]\n\
            [[loads]]\nname = \"h1\"\nconnections = [1]\n\
            [[loads]]\nname = \"h2c\"\nconnections = [1]\nhttp2 = true\n\
            [[loads]]\nname = \"tls\"\nconnections = [1]\ntls = {}\n\
            [[loads]]\nname = \"h2\"\nconnections = [1]\nhttp2 = true\ntls = {}\n";
        std::fs::write(&path, text).unwrap();
        crate::experiment::read(&path, None).unwrap().cells()
    }

    fn refusals(c: &Contestant) -> Vec<Option<String>> {
        let each = cells().into_iter().map(|cell| unserved(c, &cell));
        each.map(|f| f.map(|f| f.to_string())).collect()
    }

    #[test]
    fn a_contestant_that_does_not_serve_what_a_load_asks_is_skipped_saying_why() {
        let no_tls = "does not serve TLS (no [tls] in its contestant.toml)";
        let no_h2c = "does not serve h2c (no [h2c] in its contestant.toml)";
        let no_h2 = "does not serve HTTP/2 over TLS (its [tls] alpn has no \"h2\")";
        let said = |v: [Option<&str>; 4]| v.map(|x| x.map(str::to_string)).to_vec();
        assert_eq!(
            refusals(&contestant("")),
            said([None, Some(no_h2c), Some(no_tls), Some(no_tls)])
        );
        let tls = "[tls]\ncommand = \"exec server {port} {cert} {key}\"\n";
        assert_eq!(
            refusals(&contestant(tls)),
            said([None, Some(no_h2c), None, Some(no_h2)])
        );
        let both = format!("{tls}alpn = [\"h2\", \"http/1.1\"]\n[h2c]\ncommand = \"x {{port}}\"\n");
        assert_eq!(refusals(&contestant(&both)), said([None; 4]));
    }

    #[test]
    fn shuffles_are_repeatable_and_vary_by_round() {
        let names: Vec<String> = (0..6).map(|i| format!("c{i}")).collect();
        let (mut a, mut b) = (7, 7);
        let first = shuffled(&names, &mut a);
        assert_eq!(first, shuffled(&names, &mut b));
        let second = shuffled(&names, &mut a);
        assert_ne!(first, second);
        let mut sorted = second.clone();
        sorted.sort();
        assert_eq!(sorted, names.iter().enumerate().collect::<Vec<_>>());
    }
}
