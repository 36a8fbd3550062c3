//! The shootout on a host must be this one's version: shards of different versions could
//! measure differently, and their results would merge as if they had not.

use super::client::{why_failed, SshClient};
use super::error::{SshError, Step};
use crate::generators::SshHost;
use std::time::{Duration, Instant};

/// What `shootout --version` prints for this build.
pub fn ours() -> String {
    format!("shootout {}", env!("CARGO_PKG_VERSION"))
}

/// Runs `REMOTE --version` on `host` and refuses another version; on success, how long
/// the whole SSH command took (a connection, a login and a process start: what starting
/// a shard there costs).
pub fn check(client: &SshClient, host: &SshHost, remote: &str) -> Result<Duration, SshError> {
    let started = Instant::now();
    let command = format!("{} --version", shell_words::quote(remote));
    let output = client
        .command(host, &command)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| SshError::Client {
            host: host.to_string(),
            step: Step::Version,
            source,
        })?;
    let took = started.elapsed();
    if !output.status.success() {
        return Err(SshError::Step {
            host: host.to_string(),
            step: Step::Version,
            why: why_failed(output.status, &output.stderr),
        });
    }
    let theirs = String::from_utf8_lossy(&output.stdout).trim().to_string();
    match theirs == ours() {
        true => Ok(took),
        false => Err(SshError::Version {
            host: host.to_string(),
            theirs: if theirs.is_empty() {
                "a shootout that prints no version".into()
            } else {
                theirs
            },
            ours: ours(),
        }),
    }
}
