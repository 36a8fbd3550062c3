//! The system's OpenSSH client, as every step runs it: never asking for a password,
//! bounded when a host stops answering, with the user's own options.

use super::error::SshError;
use crate::generators::SshHost;
use std::process::Command;

/// The environment variable with extra `ssh` options, split as a shell would split them,
/// e.g. `-i ~/.ssh/fleet -o StrictHostKeyChecking=accept-new`.
pub const OPTIONS_ENV: &str = "SHOOTOUT_SSH_OPTS";

/// How `ssh` is run: BatchMode first (a prompt would hang an unattended run), then the
/// user's options, then defaults they may override (ssh keeps an option's first value).
#[derive(Debug, Clone, Default)]
pub struct SshClient {
    options: Vec<String>,
}

impl SshClient {
    /// The client with the options in [`OPTIONS_ENV`], if set.
    pub fn from_env() -> Result<Self, SshError> {
        match std::env::var(OPTIONS_ENV) {
            Ok(text) => Self::with_options(&text),
            Err(std::env::VarError::NotPresent) => Ok(Self::default()),
            Err(e) => Err(SshError::Options {
                env: OPTIONS_ENV,
                why: e.to_string(),
            }),
        }
    }

    /// The client with `text`'s options, split as a shell would split them.
    pub fn with_options(text: &str) -> Result<Self, SshError> {
        // A hand-written split would get quotes and backslashes subtly wrong.
        let options = shell_words::split(text).map_err(|e| SshError::Options {
            env: OPTIONS_ENV,
            why: format!("{e} in {text:?}"),
        })?;
        Ok(SshClient { options })
    }

    /// `ssh ... HOST -- REMOTE`: `remote` is one command line for the remote shell,
    /// already quoted.
    pub fn command(&self, host: &SshHost, remote: &str) -> Command {
        let mut cmd = Command::new("ssh");
        cmd.args(["-o", "BatchMode=yes"]).args(&self.options);
        // A host that stops answering fails a step instead of hanging it.
        for default in [
            "ConnectTimeout=10",
            "ServerAliveInterval=5",
            "ServerAliveCountMax=3",
        ] {
            cmd.args(["-o", default]);
        }
        if let Some(port) = host.port {
            cmd.arg("-p").arg(port.to_string());
        }
        let destination = match &host.user {
            Some(user) => format!("{user}@{}", host.host),
            None => host.host.clone(),
        };
        cmd.arg("--").arg(destination).arg(remote);
        cmd
    }
}

/// The last line a failed command wrote on stderr, or its exit status when it wrote
/// nothing: ssh's own reason (`connect to host ... Connection refused`) or the remote's.
pub fn why_failed(status: std::process::ExitStatus, stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    match text.lines().map(str::trim).rfind(|l| !l.is_empty()) {
        Some(line) => line.to_string(),
        None => format!("ssh ended with {status}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(client: &SshClient, host: &str) -> Vec<String> {
        let cmd = client.command(&host.parse().unwrap(), "shootout --version");
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn batch_mode_first_then_the_users_options_then_defaults() {
        let client = SshClient::with_options("-i '/keys/a key' -o LogLevel=ERROR").unwrap();
        let got = args(&client, "me@198.18.0.2:2222");
        assert_eq!(
            &got[..6],
            [
                "-o",
                "BatchMode=yes",
                "-i",
                "/keys/a key",
                "-o",
                "LogLevel=ERROR"
            ]
        );
        assert!(got.contains(&"ConnectTimeout=10".to_string()));
        assert_eq!(
            &got[got.len() - 5..],
            ["-p", "2222", "--", "me@198.18.0.2", "shootout --version"]
        );
        let plain = args(&SshClient::default(), "198.18.0.3");
        assert_eq!(
            &plain[plain.len() - 3..],
            ["--", "198.18.0.3", "shootout --version"]
        );
    }

    #[test]
    fn unbalanced_quotes_in_the_options_are_refused() {
        let err = SshClient::with_options("-i 'key").unwrap_err().to_string();
        assert!(err.starts_with("SHOOTOUT_SSH_OPTS: "), "{err}");
    }
}
