//! One stored experiment, ready to report: what ran, on what, and its tables in the
//! articles' layouts.

use crate::experiment::{self, Repeats};
use crate::model::{RunId, RunIdError, RunRecord};
use crate::report::declared::Declared;
use crate::report::experiment::leaders::{self, Finding};
use crate::report::experiment::summary::Summary;
use crate::report::experiment::{
    capacity, convergence, efficiency, kinds::Kinds, matrix, ramp, servers, unverified,
};
use crate::report::table::Table;
use crate::stats::{measures, median};
use crate::store::{ExperimentRow, Store, StoreError};

/// Where `shootout results` has always found it; it lives with the other units now.
use crate::units::utc;

/// Why an experiment could not be read for a report.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    RunId(#[from] RunIdError),
}

/// An experiment and its runs, as stored.
pub struct Document {
    pub experiment: ExperimentRow,
    pub runs: Vec<RunRecord>,
    /// How the experiment repeated, from its stored plan; None for a single run.
    pub repeats: Option<Repeats>,
}

impl Document {
    /// Reads experiment `what` (an id or a name) from `store`, or one run of it
    /// (`run:ID`, the ids `shootout results EXPERIMENT` lists).
    pub fn load(store: &Store, what: &str) -> Result<Document, DocumentError> {
        if RunId::is_meant(what) {
            return Ok(Document::of_run(store, what.parse()?)?);
        }
        Ok(Document::of(store, store.find(what)?)?)
    }

    /// Experiment `experiment` with its runs.
    pub fn of(store: &Store, experiment: ExperimentRow) -> Result<Document, StoreError> {
        let runs = store.load_runs(experiment.id)?;
        let repeats = match &experiment.plan {
            Some(plan) => Some(plan.repeats.into()),
            // Stored before plans were (schema 9): only its file, as stored, says.
            None => experiment::stored_repeats(&experiment.definition, &experiment.name),
        };
        Ok(Document {
            experiment,
            runs,
            repeats,
        })
    }

    /// Run `id` alone, with its experiment.
    pub fn of_run(store: &Store, id: RunId) -> Result<Document, StoreError> {
        let (experiment, run) = store.find_run(id)?;
        Ok(Document {
            experiment,
            runs: vec![run.record],
            repeats: None,
        })
    }

    /// `name` (#id), started at, on what machine, from which commit, and for an
    /// experiment that repeats until sure, the cells that did not converge.
    pub fn header(&self) -> Vec<String> {
        (self.identity().into_iter())
            .chain(self.host())
            .chain([self.summary().line()])
            .chain(self.overhead_line())
            .chain(self.convergence())
            .collect()
    }

    /// Which experiment (name, id, start, seed), and the machine and commit it ran on.
    pub fn identity(&self) -> [String; 2] {
        let e = &self.experiment;
        [
            format!(
                "experiment {} (#{}), started {}, seed {}",
                e.name,
                e.id,
                utc(e.started_unix_ms),
                e.seed
            ),
            format!("machine: {}", e.machine.describe()),
        ]
    }

    /// The host's idle steal and other work before the first run, when it was watched.
    pub fn host(&self) -> Option<String> {
        self.experiment.machine.idle.map(|noise| noise.line())
    }

    /// The harness' overhead per run, as a line.
    pub fn overhead_line(&self) -> Option<String> {
        self.overhead().map(|(median, max)| {
            format!("harness overhead per run (wall time minus time under load): median {median:.2} s, max {max:.2} s")
        })
    }

    /// How the runs went: valid, re-run, marked.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.runs)
    }

    /// Each table's leaders with their figures: what the experiment found, said first.
    pub fn findings(&self) -> Vec<Finding> {
        leaders::all(&self.runs)
    }

    /// A warning line for each contestant that ran unverified (level `none`).
    pub fn warnings(&self) -> Vec<String> {
        unverified::lines(&self.runs)
    }

    /// For an experiment that repeats until sure: what it asked, and the cells that did
    /// not converge.
    pub fn convergence(&self) -> Vec<String> {
        (self.repeats.as_ref()).map_or(Vec::new(), |r| convergence::lines(&self.runs, r))
    }

    /// Harness overhead per measured run: its wall time minus the time under load
    /// (start, ready, verify, stop), as median and max seconds.
    pub fn overhead(&self) -> Option<(f64, f64)> {
        let v: Vec<f64> = self.runs.iter().filter_map(measures::overhead_s).collect();
        let max = v.iter().cloned().fold(0.0, f64::max);
        (!v.is_empty()).then(|| (median(&v), max))
    }

    /// Each contestant and the versions it ran with.
    pub fn versions(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for r in &self.runs {
            let Some(versions) = measures::toolchain(r) else {
                continue;
            };
            if !out.iter().any(|(n, _)| *n == r.coordinates.contestant) {
                out.push((r.coordinates.contestant.clone(), versions.to_string()));
            }
        }
        out.sort();
        out
    }

    /// Capacity at objective (an experiment with capacity loads), what TLS costs each
    /// server (one with loads over TLS), what HTTP/2 gains or costs each server (one with
    /// loads over HTTP/2), the 2009 matrices and the 2017 per-server tables of the closed
    /// and open loads, and the 2019 table of the device ramps.
    pub fn tables(&self) -> Vec<Table> {
        let kinds = Kinds::of(&self.runs);
        let mut out = capacity::tables(&kinds.capacity);
        if let Some(plan) = self.experiment.plan.as_ref() {
            for d in self.declared() {
                out.extend(d.tables(plan, &self.runs));
            }
        }
        out.extend(matrix::tables(&kinds.closed));
        out.extend(servers::tables(&kinds.closed));
        out.extend(efficiency::tables(&kinds.rated));
        out.extend(ramp::tables(&kinds.ramps));
        out
    }
}

impl Document {
    /// The comparison tables its plan declares: what TLS costs (loads over TLS), what
    /// HTTP/2 gains (loads over HTTP/2).
    pub fn declared(&self) -> Vec<Declared> {
        let Some(plan) = self.experiment.plan.as_ref() else {
            return Vec::new();
        };
        crate::report::declared::of_plan(plan)
    }
}
