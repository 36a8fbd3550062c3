//! Load scenarios in TOML: what `shootout load` flags say, kept in a file, e.g. the
//! 2019 device ramp. A scenario is laid over a [`LoadSpec`]'s defaults; flags given on
//! the command line are laid over it and win.
//!
//! ```toml
//! url = "http://127.0.0.1:8080/app"
//! timeout = "5s"
//! threads = 2
//! [devices]
//! stages = "0,15000:60s,15000:120s,0:30s"
//! requests = 100
//! think = "900ms"
//! jitter = 0.05
//! ```
//!
//! Requests that vary go in a `[vary]` table (`seed`, `requests`, `expect`, as a spec's
//! `vary`: docs/varying-requests.md). An https URL's TLS settings go in a `[tls]` table, the flags' settings by the same
//! names (`version`, `alpn`, `sni`, `cacert`, `insecure`, `ciphers`, `groups`, `cert`,
//! `key`, `resume`); file names there are relative to the scenario's folder.

use super::tls_flags::{Source, TlsFlags};
use anyhow::Context;
use engine::{parse_duration, LoadSpec, Pace, RateSchedule, Stop, VarySpec};
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// A scenario file's fields; every one optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub url: Option<String>,
    pub connections: Option<usize>,
    pub threads: Option<usize>,
    pub duration: Option<String>,
    pub timeout: Option<String>,
    pub warmup: Option<String>,
    pub rate: Option<String>,
    pub devices: Option<Devices>,
    /// HTTP/2: h2c for an http:// URL, by ALPN for https://.
    pub http2: Option<bool>,
    /// HTTP/2 streams per connection.
    pub streams: Option<usize>,
    /// The `[tls]` table.
    pub tls: Option<TlsFlags>,
    /// The `[vary]` table: requests that vary (`seed`, `requests`, `expect`), as a spec's.
    pub vary: Option<VarySpec>,
}

/// The `[devices]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Devices {
    pub stages: String,
    pub requests: Option<u32>,
    pub think: Option<String>,
    pub jitter: Option<f64>,
}

impl Scenario {
    /// What the file says, over `spec` (whose URL is already the flags' or the file's);
    /// the file is in `dir`.
    pub fn apply(self, spec: &mut LoadSpec, dir: &Path) -> anyhow::Result<()> {
        if let Some(tls) = &self.tls {
            tls.apply(&mut spec.tls, Source::Scenario(dir))?;
        }
        spec.vary = self.vary.or(spec.vary.take());
        set(&mut spec.connections, self.connections);
        set(&mut spec.http2, self.http2);
        set(&mut spec.streams, self.streams);
        spec.threads = self.threads.or(spec.threads);
        if let Some(d) = duration("duration", self.duration)? {
            spec.stop = Some(Stop::After(d));
        }
        set(&mut spec.timeout, duration("timeout", self.timeout)?);
        set(&mut spec.warmup, duration("warmup", self.warmup)?);
        match (self.rate, self.devices) {
            (Some(_), Some(_)) => anyhow::bail!("a device load sets its own pace: drop --rate"),
            (Some(rate), None) => {
                spec.pace = Pace::Open(RateSchedule::parse(&rate).context("scenario rate")?)
            }
            (None, Some(d)) => spec.pace = Pace::Devices(d.script()?),
            (None, None) => {}
        }
        Ok(())
    }
}

impl Devices {
    fn script(self) -> anyhow::Result<engine::DeviceScript> {
        let count = RateSchedule::parse_device_count(&self.stages).context("scenario stages")?;
        let mut script = engine::default_devices(count);
        set(&mut script.requests, self.requests);
        set(&mut script.think, duration("think", self.think)?);
        set(&mut script.jitter, self.jitter);
        Ok(script)
    }
}

/// `field` takes `value` when one was given: a file's or a flag's value laid over a default.
pub fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

/// A duration field of the file, parsed; the error names it.
fn duration(field: &str, text: Option<String>) -> anyhow::Result<Option<Duration>> {
    let parsed = text.map(|t| parse_duration(&t)).transpose();
    parsed.map_err(|e| anyhow::anyhow!("scenario {field}: {e}"))
}

/// Reads a scenario; the error names the file, and the line and field when TOML does.
pub fn read(path: &Path) -> Result<Scenario, shootout::toml_file::TomlFileError> {
    shootout::toml_file::read(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_device_scenario_and_names_bad_fields() {
        let dir = std::env::temp_dir().join(format!("shootout-scenario-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.toml");
        std::fs::write(
            &good,
            "url = \"http://127.0.0.1:1/app\"\n[devices]\nstages = \"0,10:1s\"\nthink = \"900ms\"\n",
        )
        .unwrap();
        let s = read(&good).unwrap();
        assert_eq!(s.devices.unwrap().stages, "0,10:1s");
        let bad = dir.join("bad.toml");
        std::fs::write(
            &bad,
            "url = \"x\"\n[devices]\nstages = \"1\"\nthinks = \"1s\"\n",
        )
        .unwrap();
        let e = read(&bad).unwrap_err().to_string();
        assert!(
            e.contains("bad.toml: line 4, column 1: unknown field `thinks`"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
