//! `shootout load --spec FILE|-|env:NAME`: a load as one JSON object, read whole, as
//! shards and Kubernetes pods receive it.

use anyhow::Context;
use engine::LoadSpec;
use std::io::Read;

/// The prefix that names an environment variable instead of a file (a Kubernetes pod's
/// spec travels in one).
const ENV_PREFIX: &str = "env:";

/// The spec in `source`: a file, `-` for standard input, or `env:NAME`; the error names
/// the source and, for a bad field, its line and column.
pub fn read(source: &str) -> anyhow::Result<LoadSpec> {
    let text = match source {
        "-" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("--spec -: reading standard input")?;
            text
        }
        _ => match source.strip_prefix(ENV_PREFIX) {
            Some(name) => std::env::var(name).with_context(|| format!("--spec {source}"))?,
            None => std::fs::read_to_string(source).with_context(|| format!("--spec {source}"))?,
        },
    };
    serde_json::from_str(&text).with_context(|| format!("--spec {source}"))
}
