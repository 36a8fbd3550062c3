//! The machine and the software an experiment ran on, recorded with it.

use std::path::Path;

/// CPU model, usable cores, kernel, shootout version and git commit.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub kernel: String,
    pub shootout: String,
    pub commit: String,
    /// The host's steal and other work at idle before the first run (experiments since
    /// make-up runs; None before, and for single loads).
    pub idle: Option<super::HostNoise>,
}

impl Machine {
    /// This machine, and the commit of the checkout at `root` (empty outside git).
    pub fn here(root: &Path) -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .unwrap_or_default()
            .lines()
            .find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
            })
            .unwrap_or_default();
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let commit = std::process::Command::new("git")
            .args(["rev-parse", "--short", "HEAD"])
            .current_dir(root)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        Machine {
            cpu,
            cores: engine::allowed_cpus(),
            kernel: kernel.trim().to_string(),
            shootout: env!("CARGO_PKG_VERSION").to_string(),
            commit,
            idle: None,
        }
    }

    /// `AMD EPYC 7B13, 2 cores, Linux 6.1.0; shootout 0.1.0 at commit 1a2b3c4`, with `?`
    /// for what was not known: how results and reports name the machine.
    pub fn describe(&self) -> String {
        let known = |k: &str| if k.is_empty() { "?" } else { k }.to_string();
        format!(
            "{}, {} cores, Linux {}; shootout {} at commit {}",
            known(&self.cpu),
            self.cores,
            known(&self.kernel),
            known(&self.shootout),
            known(&self.commit)
        )
    }
}
