//! The versions a contestant was measured with: its manifest's `toolchain` command (e.g.
//! `go version`), run once per experiment and stored with every run.

use crate::contestant::manifest::Contestant;
use std::process::{Command, Stdio};

/// Longest version text kept; a command that prints a page is cut here.
const MAX_CHARS: usize = 300;

/// What the contestant's `toolchain` command prints, on one line; the manifest's
/// `version` text when it has no command; the failure when the command fails.
pub fn versions(c: &Contestant) -> String {
    let command = c.fill(c.manifest.toolchain.trim(), Default::default());
    if command.is_empty() {
        return c.manifest.version.clone();
    }
    // `timeout` bounds a command that hangs (a JVM waiting on something, say).
    let out = Command::new("timeout")
        .args(["20", "/bin/sh", "-c", &command])
        .current_dir(&c.dir)
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let text = [o.stdout, o.stderr].concat();
            one_line(&String::from_utf8_lossy(&text))
        }
        Ok(o) => format!("unknown: `{command}` failed ({})", o.status),
        Err(e) => format!("unknown: `{command}`: {e}"),
    }
}

/// Non-empty trimmed lines joined with "; ", at most `MAX_CHARS` characters.
fn one_line(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    joined.chars().take(MAX_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_becomes_one_bounded_line() {
        assert_eq!(
            one_line("go version go1.22\n\n  x 1 \n"),
            "go version go1.22; x 1"
        );
        assert_eq!(one_line(&"a".repeat(1000)).len(), MAX_CHARS);
    }
}
