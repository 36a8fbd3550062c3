//! One load on one side of a comparison: a saved load, a `shootout.load/1` JSON file, or
//! one stored run that measured something.

use super::SideError;
use crate::model::capacity::CapacityResult;
use crate::model::{RunId, RunRecord};
use crate::stats::measures;
use crate::store::{ExperimentRow, SavedLoad};
use crate::units::utc;
use engine::LoadResult;
use std::path::Path;

/// A single load and how to name it.
#[derive(Debug, Clone)]
pub struct Single {
    /// Short, for a table: the label, the file's name, or `run:ID contestant`.
    pub name: String,
    /// One line: what it is, where it came from, and what load it was.
    pub title: String,
    pub result: LoadResult,
    /// The server's CPU milliseconds per response, when the harness measured it (runs).
    pub cpu_ms_per_response: Option<f64>,
    /// A capacity search (a saved `load --capacity`, its JSON file, or a `capacity`
    /// run), whose `result` is the step at capacity.
    pub capacity: Option<CapacityResult>,
}

impl Single {
    /// A saved load.
    pub fn saved(load: SavedLoad) -> Single {
        let row = &load.row;
        Single {
            name: row.label.clone(),
            title: format!(
                "saved load {} (load:{}), saved {}: {}",
                row.label,
                row.id,
                utc(row.saved_unix_ms),
                describe(&load.result)
            ),
            result: load.result,
            cpu_ms_per_response: None,
            capacity: load.capacity,
        }
    }

    /// The result `load --json` or `load --out` wrote to `path`.
    pub fn file(path: &Path) -> Result<Single, SideError> {
        let bad = |why: String| SideError::File {
            path: path.to_path_buf(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let result = crate::model::read_load_result(&text).map_err(|e| {
            bad(format!(
                "not a shootout.load result (as load --json or --out write): {e}"
            ))
        })?;
        let name = path.file_name().unwrap_or(path.as_os_str());
        Ok(Single {
            name: name.to_string_lossy().into_owned(),
            title: format!("file {}: {}", path.display(), describe(&result)),
            result,
            cpu_ms_per_response: None,
            capacity: None,
        })
    }

    /// Run `id` of `experiment`, when it measured something.
    pub fn run(
        id: RunId,
        run: &RunRecord,
        experiment: &ExperimentRow,
    ) -> Result<Single, SideError> {
        let Some(result) = run.result() else {
            return Err(SideError::NothingMeasured {
                id,
                label: run.label().word(),
            });
        };
        // A run that is not ok still compares; its title says what it was.
        let label = match run.label() {
            crate::model::Label::Ok => String::new(),
            other => format!(", {}", other.word()),
        };
        Ok(Single {
            name: format!("{id} {}", run.coordinates.contestant),
            title: format!(
                "{id}, {} in experiment {} (#{}){label}: {}",
                run.coordinates.contestant,
                experiment.name,
                experiment.id,
                describe(result)
            ),
            result: result.clone(),
            cpu_ms_per_response: measures::cpu_ms_per_response(run),
            capacity: run.capacity.clone(),
        })
    }

    /// What was loaded and how: `GET /hello, 10 connections, keep-alive`, and the rate
    /// of an open loop. Two loads of one shape are the same cell.
    pub fn shape(&self) -> String {
        let c = &self.result.config;
        let rate = (self.result.rate.as_ref())
            .map(|r| format!(", rate {:.0}/s", r.target_rps))
            .unwrap_or_default();
        let keepalive = if c.keepalive {
            "keep-alive"
        } else {
            "a new connection per request"
        };
        format!(
            "{} {}, {} connections, {keepalive}, HTTP/{}{rate}",
            c.method,
            path_of(&self.result.url),
            c.connections,
            c.http_version
        )
    }

    /// Why its numbers may not say what they seem to: the generator was saturated, the
    /// load was interrupted, requests failed.
    pub fn warnings(&self) -> Vec<String> {
        let r = &self.result;
        let mut out = Vec::new();
        if r.generator.bound {
            out.push(format!(
                "{}: generator-bound (the generator was saturated: the numbers describe it, not the server)",
                self.name
            ));
        }
        if r.interrupted {
            out.push(format!("{}: interrupted (stopped early)", self.name));
        }
        let (errors, dropped) = (r.requests.errors(), r.requests.dropped);
        match (errors, dropped) {
            (0, _) => {}
            (_, 0) => out.push(format!("{}: {errors} requests failed", self.name)),
            _ => out.push(format!(
                "{}: {errors} requests failed ({dropped} of them dropped: due, and never sent \
                 for want of a connection)",
                self.name
            )),
        }
        out
    }
}

/// `GET http://127.0.0.1:8080/hello, 10 connections, 10.0 s, started 2026-11-22 18:31 UTC`.
fn describe(r: &LoadResult) -> String {
    format!(
        "{} {}, {} connections, {:.1} s, started {}",
        r.config.method,
        r.url,
        r.config.connections,
        r.duration_s,
        utc(r.started_unix_ms as i64)
    )
}

/// The path and query of a URL as the user gave it (`/` when it has none). Read from the
/// text, not with `engine::Target::parse`, which would resolve the host again.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map_or("/", |i| &rest[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_urls() {
        assert_eq!(path_of("http://127.0.0.1:8080/hello?x=1"), "/hello?x=1");
        assert_eq!(path_of("http://localhost"), "/");
    }
}
