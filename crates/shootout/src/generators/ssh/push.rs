//! `--push`: this shootout binary copied to a host, so that every shard runs the same
//! build without installing anything there.

use super::client::{why_failed, SshClient};
use super::error::{SshError, Step};
use super::version;
use crate::generators::SshHost;
use std::path::Path;
use std::process::Stdio;

/// Copies `binary` to `host` as `.cache/shootout/shootout-VERSION` under the login's home
/// folder, and returns that path (relative: a session starts in the home folder). The
/// copy lands under a temporary name and is renamed, so a shard never runs a half-written
/// binary and an interrupted copy leaves the previous one working.
pub fn push(client: &SshClient, host: &SshHost, binary: &Path) -> Result<String, SshError> {
    let fail = |why: String| SshError::Step {
        host: host.to_string(),
        step: Step::Push,
        why,
    };
    let file = std::fs::File::open(binary)
        .map_err(|e| fail(format!("cannot read {}: {e}", binary.display())))?;
    let target = remote_path();
    // `$$` (the remote shell's pid) keeps two harnesses pushing at once apart.
    let command = format!(
        "mkdir -p .cache/shootout && cat > {target}.$$ && chmod +x {target}.$$ && mv -f {target}.$$ {target}"
    );
    let output = client
        .command(host, &command)
        .stdin(Stdio::from(file))
        .output()
        .map_err(|source| SshError::Client {
            host: host.to_string(),
            step: Step::Push,
            source,
        })?;
    match output.status.success() {
        true => Ok(target),
        false => Err(fail(why_failed(output.status, &output.stderr))),
    }
}

/// Where a pushed binary lives on a host, relative to the login's home folder.
fn remote_path() -> String {
    let version = version::ours().replace(' ', "-");
    format!(".cache/shootout/{version}")
}
