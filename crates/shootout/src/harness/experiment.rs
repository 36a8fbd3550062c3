//! Experiment files (`experiments/<name>.toml`): a matrix of contestants × endpoints ×
//! layouts × loads × repeats. A mistake is one line naming the file, line and field.

use serde::Deserialize;
use std::path::Path;

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
}

/// One load of the matrix: a closed loop at one or more concurrency levels.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Load {
    pub name: String,
    pub connections: Vec<usize>,
    #[serde(default = "yes")]
    pub keepalive: bool,
    #[serde(default)]
    pub http10: bool,
    #[serde(default = "one_usize")]
    pub pipeline: usize,
    #[serde(default = "five_seconds")]
    pub timeout: String,
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

/// Reads and checks an experiment file.
pub fn read(path: &Path) -> Result<Experiment, String> {
    let e: Experiment = crate::toml_file::read(path)?;
    check(&e).map_err(|what| format!("{}: {what}", path.display()))?;
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
        crate::cli::duration::parse(text).map_err(|w| format!("{field}: {w}"))?;
    }
    for l in &e.loads {
        if l.connections.is_empty() || l.connections.contains(&0) {
            return Err(format!(
                "loads {:?}: connections must be a list of counts above 0",
                l.name
            ));
        }
        crate::cli::duration::parse(&l.timeout)
            .map_err(|w| format!("loads {:?}: timeout: {w}", l.name))?;
    }
    Ok(())
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
        let e = read(&good).unwrap();
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
        let msg = read(&typo).unwrap_err();
        assert!(
            msg.contains("typo.toml: line 3, column 1: unknown field `repeat`"),
            "{msg}"
        );
        let bad = write(
            "bad.toml",
            "name = \"q\"\ncontestants = [\"a\"]\nlayouts = [\"server:x\"]\n[[loads]]\nname = \"k\"\nconnections = [1]\n",
        );
        assert!(read(&bad).unwrap_err().contains("bad.toml: layouts:"));
    }
}
