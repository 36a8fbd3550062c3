//! Where `shootout load` writes its result besides the terminal: a JSON file (`--out`)
//! and the results store (`--save [--label TEXT]`, with the load's spec). Both are checked
//! before any load is sent, so that a bad path or label starts nothing.

use super::results::{open_store, store_path};
use super::WorkFailed;
use anyhow::{bail, Context};
use engine::{LoadConfig, LoadResult, LoadSpec, Target};
use shootout::contestant::locations;
use shootout::model::capacity::CapacityResult;
use shootout::model::{LoadKind, Machine};
use shootout::store::{NewSavedLoad, Store};
use std::path::{Path, PathBuf};

/// Where one load's result goes besides the terminal: a file, the store, both or neither.
pub struct Destinations {
    out: Option<PathBuf>,
    save: Option<Save>,
}

/// A load to save: the open store, and what is recorded beside the result.
struct Save {
    store: Store,
    label: String,
    command: Vec<String>,
    kind: LoadKind,
    machine: Machine,
    spec: LoadSpec,
}

impl Destinations {
    /// Checks `--out`'s folder and `--label`, and opens the store for `--save`; `spec` is
    /// the load and `config` what it resolved to.
    pub fn prepare(
        out: Option<&Path>,
        save: bool,
        label: Option<&str>,
        spec: &LoadSpec,
        config: &LoadConfig,
        kind: LoadKind,
    ) -> anyhow::Result<Destinations> {
        if let Some(path) = out {
            check_out(path)?;
        }
        // Checked here, not by clap, whose message of a missing flag spans two lines.
        if label.is_some() && !save {
            bail!("--label names a saved load: add --save");
        }
        let save = match save {
            false => None,
            true => Some(Save {
                label: label_of(label, &config.target)?,
                store: open_store()?,
                command: command(),
                kind,
                // Outside a checkout, the current folder's commit: the user's own
                // repository, when it is one.
                machine: Machine::here(&locations::checkout()?.unwrap_or_else(|| ".".into())),
                spec: spec.clone(),
            }),
        };
        Ok(Destinations {
            out: out.map(Path::to_path_buf),
            save,
        })
    }

    /// Writes `--out` and saves; returns the line that says where the load was saved.
    /// Failing to write either is a failure of the work (exit 1).
    pub fn write(self, result: &LoadResult) -> anyhow::Result<Option<String>> {
        self.write_with(result, None)
    }

    /// [`Destinations::write`] for a capacity search: `--out` gets the search (schema
    /// shootout.capacity/1), the store keeps it beside `result`, the step at capacity.
    pub fn write_with(
        self,
        result: &LoadResult,
        capacity: Option<&CapacityResult>,
    ) -> anyhow::Result<Option<String>> {
        if let Some(path) = &self.out {
            let written = match capacity {
                Some(c) => write_json(path, &c.json()),
                None => write_json(path, result),
            };
            written
                .map_err(WorkFailed)
                .with_context(|| format!("--out {}", path.display()))?;
        }
        let Some(mut save) = self.save else {
            return Ok(None);
        };
        let id = save
            .store
            .save_load(&NewSavedLoad {
                label: &save.label,
                command: &save.command,
                kind: &save.kind,
                machine: &save.machine,
                spec: &save.spec,
                result,
                capacity,
            })
            .map_err(|e| WorkFailed(e.into()))
            .context("--save")?;
        Ok(Some(saved_line(&save.store, &save.label, id)))
    }
}

/// `--out FILE`: its folder must exist, and it must not be a folder itself.
fn check_out(path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("--out {}: is a folder, not a file", path.display());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!("--out {}: no folder {}", path.display(), dir.display());
    }
    Ok(())
}

/// The label given, or the URL's `host:port/path`. A label may not look like an id
/// (`12`, `run:3`, `load:4`): commands read those as ids, never as labels.
fn label_of(given: Option<&str>, target: &Target) -> anyhow::Result<String> {
    let Some(text) = given else {
        return Ok(format!("{}{}", target.host_header, target.path));
    };
    let text = text.trim();
    if text.is_empty() {
        bail!("--label is empty");
    }
    if text.parse::<i64>().is_ok() || text.starts_with("run:") || text.starts_with("load:") {
        bail!("--label {text:?}: a number, run:ID or load:ID names a stored id; choose another");
    }
    Ok(text.to_string())
}

/// The flags after `load`, as given, to say later how the load was run.
fn command() -> Vec<String> {
    std::env::args()
        .skip_while(|a| a != "load")
        .skip(1)
        .collect()
}

/// The result as `load --json` prints it (a load's, or a capacity search's).
fn write_json(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    std::fs::write(path, text)?;
    Ok(())
}

/// `saved as load:4 "a" in results/shootout.db: ...`, with how to refer to it, and the
/// id alone when an experiment has the label as its name.
fn saved_line(store: &Store, label: &str, id: i64) -> String {
    let path = store_path().map_or(String::new(), |p| format!(" in {}", p.display()));
    let shared = store.find(label).is_ok();
    let name = if shared {
        format!("load:{id}")
    } else {
        quoted(label)
    };
    let note = match shared {
        true => {
            format!(" (experiment {label:?} has this name too: refer to the load as load:{id})")
        }
        false => String::new(),
    };
    format!(
        "saved as load:{id}, label {label:?}{path}{note}: see it with `shootout results {name}`, \
         compare it with `shootout compare {name} OTHER`"
    )
}

/// `text` as a shell reads it back: as is when it is plain, else in single quotes.
fn quoted(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._:/@%+=,-".contains(c);
    match text.chars().all(plain) {
        true => text.to_string(),
        false => format!("'{}'", text.replace('\'', r"'\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_default_to_the_url_and_never_look_like_ids() {
        let target = Target::parse("http://127.0.0.1:8080/hello").unwrap();
        assert_eq!(label_of(None, &target).unwrap(), "127.0.0.1:8080/hello");
        assert_eq!(label_of(Some(" before "), &target).unwrap(), "before");
        for bad in ["", "12", "run:3", "load:x"] {
            assert!(label_of(Some(bad), &target).is_err(), "{bad:?}");
        }
        assert_eq!(quoted("127.0.0.1:8080/hello"), "127.0.0.1:8080/hello");
        assert_eq!(quoted("it's new"), r"'it'\''s new'");
    }
}
