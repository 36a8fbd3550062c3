//! Why a run was not measured, as a type: the step that stopped it and what that step
//! said. The record keeps two things of it, both as users have always seen them: its
//! label ([`RunFailure::label`]) and its one-line reason (its `Display`).

use super::certificate_cache::IssueError;
use crate::contestant::catalog::{CatalogError, Status};
use crate::contestant::certificates::KeyKind;
use crate::contestant::verify::Check;
use crate::generators::{ChooseError, FleetError};
use crate::model::Label;
use crate::process::launch::LaunchError;
use crate::process::open_file_limit::TooManyConnections;
use crate::process::server::ServerError;
use crate::units::grouped;

/// Why one run of a contestant was not measured.
#[derive(Debug, thiserror::Error)]
pub enum RunFailure {
    /// Ctrl-C came before the run started.
    #[error("stopped by Ctrl-C before it ran")]
    Interrupted,
    /// The catalog has no contestant by that name, or its manifest is broken.
    #[error(transparent)]
    NotInCatalog(#[from] CatalogError),
    /// It needs setting up first, or cannot be installed here.
    #[error("{}: {}", .0.word(), .0.reason())]
    NotInstalled(Status),
    /// It does not serve the cell's endpoint.
    #[error("does not implement /{0}")]
    DoesNotServe(String),
    /// The load is over TLS and its manifest has no `[tls]` command.
    #[error("does not serve TLS (no [tls] in its contestant.toml)")]
    NoTls,
    /// The load is over TLS and the server was already running: shootout cannot start it
    /// with a certificate.
    #[error("a server already running (url) is not started by shootout, so not over TLS either")]
    RunningNotOverTls,
    /// The load is h2c and its manifest has no `[h2c]` command.
    #[error("does not serve h2c (no [h2c] in its contestant.toml)")]
    NoH2c,
    /// The load is h2 over TLS and its manifest's `[tls]` does not offer h2 by ALPN.
    #[error("does not serve HTTP/2 over TLS (its [tls] alpn has no \"h2\")")]
    NoH2,
    /// The load is over HTTP/2 and the server was already running: shootout cannot start
    /// it serving HTTP/2, nor knows that it does.
    #[error(
        "a server already running (url) is not started by shootout, so not over HTTP/2 either"
    )]
    RunningNotOverHttp2,
    /// The certificates of the load's kind could not be made or read (once per
    /// experiment, then at every run of that kind).
    #[error("{} certificate: {error}", kind.word())]
    Certificate {
        kind: KeyKind,
        error: std::sync::Arc<IssueError>,
    },
    /// It would not start, or did not answer in time.
    #[error(transparent)]
    Start(#[from] LaunchError),
    /// It failed verification (once per experiment, then at every run).
    #[error(transparent)]
    Verify(#[from] VerifyFailure),
    /// The load's generators are SSH hosts, which cannot reach a server on loopback.
    #[error(
        "SSH generators reach the server over the network, and contestants shootout starts \
         listen on 127.0.0.1 only: start it yourself where the hosts reach it and give it \
         by url (docs/generators.md)"
    )]
    UnreachableFromHosts,
    /// The load's spec for its endpoint could not be made.
    #[error(transparent)]
    Spec(#[from] engine::SpecError),
    /// The server could not hold the load's connections.
    #[error(transparent)]
    TooManyConnections(#[from] TooManyConnections),
    /// The load's generators could not be set up.
    #[error(transparent)]
    Generators(#[from] ChooseError),
    /// The engine would not start the load.
    #[error(transparent)]
    Refused(engine::RunError),
    /// Sharded generators failed.
    #[error(transparent)]
    Fleet(FleetError),
    /// The server exited during a load of a run that had more to do (a capacity search's
    /// step): what was measured before is kept.
    #[error("the server exited during the load at {}/s", grouped(*.rate))]
    ServerExited { rate: f64 },
    /// The experiment's database did not start, or stopped, or could not be placed.
    #[error("the database: {0}")]
    Database(String),
}

impl RunFailure {
    /// The label the run is stored under.
    pub fn label(&self) -> Label {
        match self {
            RunFailure::Interrupted => Label::Interrupted,
            RunFailure::NotInCatalog(_)
            | RunFailure::NotInstalled(_)
            | RunFailure::DoesNotServe(_)
            | RunFailure::NoTls
            | RunFailure::RunningNotOverTls
            | RunFailure::NoH2c
            | RunFailure::NoH2
            | RunFailure::RunningNotOverHttp2 => Label::Skipped,
            RunFailure::Certificate { .. } => Label::LoadRefused,
            RunFailure::Start(LaunchError::NotReady(ServerError::Exited { .. }))
            | RunFailure::Start(LaunchError::Start(_)) => Label::ServerFailed,
            RunFailure::Start(LaunchError::NotReady(_)) => Label::Timeout,
            RunFailure::Verify(_) => Label::VerifyFailed,
            RunFailure::Spec(_) => Label::ServerFailed,
            RunFailure::UnreachableFromHosts | RunFailure::TooManyConnections(_) => {
                Label::LoadRefused
            }
            RunFailure::Generators(_) => Label::GeneratorFailed,
            // The server's fault when it does not answer; the load's otherwise.
            RunFailure::Refused(engine::RunError::Unreachable { .. }) => Label::ServerFailed,
            RunFailure::Refused(_) => Label::LoadRefused,
            RunFailure::Fleet(FleetError::Spec(_) | FleetError::AlreadySharded(_)) => {
                Label::LoadRefused
            }
            RunFailure::Fleet(_) => Label::GeneratorFailed,
            RunFailure::ServerExited { .. } => Label::ServerFailed,
            RunFailure::Database(_) => Label::LoadRefused,
        }
    }
}

impl From<engine::RunError> for RunFailure {
    fn from(e: engine::RunError) -> Self {
        RunFailure::Refused(e)
    }
}

impl From<FleetError> for RunFailure {
    /// A shard's load the engine refused here is refused as the in-process one is.
    fn from(e: FleetError) -> Self {
        match e {
            FleetError::Check(e) => RunFailure::Refused(e),
            e => RunFailure::Fleet(e),
        }
    }
}

/// The verification checks a contestant failed, each `name: detail`, joined by `; `.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", failed(.0))]
pub struct VerifyFailure(pub Vec<Check>);

impl VerifyFailure {
    /// The failed ones of `checks`, or None when every check passed.
    pub fn of(checks: &[Check]) -> Option<VerifyFailure> {
        let failed: Vec<Check> = checks.iter().filter(|k| !k.passed).cloned().collect();
        (!failed.is_empty()).then_some(VerifyFailure(failed))
    }
}

fn failed(checks: &[Check]) -> String {
    let lines: Vec<String> = checks
        .iter()
        .map(|k| format!("{}: {}", k.name, k.detail))
        .collect();
    lines.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, passed: bool) -> Check {
        Check {
            name: name.into(),
            passed,
            flagged: false,
            detail: format!("{name} said so"),
        }
    }

    #[test]
    fn a_verify_failure_names_only_the_failed_checks_on_one_line() {
        let checks = [check("hello", false), check("keep-alive", true)];
        let failure = RunFailure::from(VerifyFailure::of(&checks).expect("one failed"));
        assert_eq!(failure.to_string(), "hello: hello said so");
        assert_eq!(failure.label(), Label::VerifyFailed);
        assert!(VerifyFailure::of(&checks[1..]).is_none());
    }

    #[test]
    fn labels_say_whose_fault_a_failure_was() {
        let skipped = RunFailure::DoesNotServe("app".into());
        assert_eq!(skipped.to_string(), "does not implement /app");
        assert_eq!(skipped.label(), Label::Skipped);
        assert_eq!(RunFailure::UnreachableFromHosts.label(), Label::LoadRefused);
        let no_tls = RunFailure::NoTls;
        assert_eq!(
            no_tls.to_string(),
            "does not serve TLS (no [tls] in its contestant.toml)"
        );
        assert_eq!(no_tls.label(), Label::Skipped);
        assert_eq!(RunFailure::RunningNotOverTls.label(), Label::Skipped);
        assert_eq!(
            RunFailure::NoH2c.to_string(),
            "does not serve h2c (no [h2c] in its contestant.toml)"
        );
        assert_eq!(
            RunFailure::NoH2.to_string(),
            "does not serve HTTP/2 over TLS (its [tls] alpn has no \"h2\")"
        );
        for skipped in [
            RunFailure::NoH2c,
            RunFailure::NoH2,
            RunFailure::RunningNotOverHttp2,
        ] {
            assert_eq!(skipped.label(), Label::Skipped);
        }
        assert_eq!(RunFailure::Interrupted.label(), Label::Interrupted);
    }
}
