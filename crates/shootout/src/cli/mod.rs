//! Command-line parsing and dispatch.

mod borrowed_flags;
mod capacity;
mod catalog;
mod compare;
mod completions;
mod contestants;
mod database;
mod destinations;
mod interrupt;
mod k8s;
mod load;
mod load_flags;
mod load_progress;
mod man;
mod merge;
mod report;
mod results;
mod run;
mod scenario;
mod serve_tls;
mod spec_input;
mod tls_flags;
mod usage_error;
mod verify;

use clap::{CommandFactory, Parser, Subcommand};
use shootout::contestant::locations::ROOT_ENV;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code for bad input (flags, files, names, a target that refuses connections):
/// every error that reaches `main` unless it is a [`WorkFailed`].
pub const EXIT_USAGE: u8 = 2;
/// Exit code when the user stopped the load early (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;
/// Exit code when a result crossed one of its thresholds (k6's convention).
pub const EXIT_THRESHOLD_CROSSED: u8 = 99;

/// The work itself failed, not its input (a store that cannot be written, a build that
/// failed): the process exits 1 instead of 2.
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub struct WorkFailed(pub anyhow::Error);

/// How `load` and `run` end once their work is printed: interrupted 130, nothing
/// measured (`measured` false: no request succeeded, no run was valid) 1, a threshold
/// crossed 99, else 0; the first that applies.
pub fn ending(measured: bool, held: bool) -> ExitCode {
    if interrupt::requested() {
        ExitCode::from(EXIT_INTERRUPTED)
    } else if !measured {
        ExitCode::FAILURE
    } else if !held {
        ExitCode::from(EXIT_THRESHOLD_CROSSED)
    } else {
        ExitCode::SUCCESS
    }
}

/// The exit code for an error that reached `main`.
pub fn exit_code(e: &anyhow::Error) -> ExitCode {
    match e.downcast_ref::<WorkFailed>() {
        Some(_) => ExitCode::FAILURE,
        None => ExitCode::from(EXIT_USAGE),
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "shootout",
    version,
    about = "How fast is this web server, next to that one, on this machine?"
)]
struct Cli {
    /// A shootout checkout: its contestants/ (the catalog), experiments/ and results/
    /// [default: the nearest folder here or above that has a contestants/ folder; outside
    /// one, results go to $XDG_DATA_HOME/shootout, else ~/.local/share/shootout]
    #[arg(long, global = true, value_name = "DIR", env = ROOT_ENV)]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load one URL with a closed-loop HTTP/1.1 load (what wrk, ab and h2load do)
    #[command(after_help = load::EXIT_CODES)]
    Load(Box<load::LoadArgs>),
    /// Merge the JSON results of a load's shards (--shard) into one, exactly
    Merge(merge::MergeArgs),
    /// Kubernetes: print an Indexed Job whose pods run a load's shards on one start
    K8s(k8s::K8sArgs),
    /// Run an experiment: every contestant × endpoint × layout × load, repeated
    #[command(after_help = run::EXIT_CODES)]
    Run(run::RunArgs),
    /// Tables in the articles' layouts and a web page with charts, from stored results
    Report(report::ReportArgs),
    /// Two experiments cell by cell, or two single loads (saved, JSON files, runs):
    /// changes and their significance
    Compare(compare::CompareArgs),
    /// List stored experiments and saved loads, or the runs of one, or one saved load
    Results(results::ResultsArgs),
    /// Write one stored experiment, with all its runs and series, or one saved load, as JSON
    Export(results::ExportArgs),
    /// List the contestants and whether each is ready, needs setup, or is blocked
    List(contestants::ListArgs),
    /// Install what contestants need and build them (idempotent, cached)
    Setup(contestants::Selection),
    /// Start contestants, check that they speak HTTP correctly (over TLS with --tls),
    /// stop them
    Verify(verify::VerifyArgs),
    /// Run one contestant in the foreground (pinned with --cpus) until Ctrl-C
    Start(contestants::StartArgs),
    /// Run a private PostgreSQL with TechEmpower's tables in the foreground until Ctrl-C
    Database(database::DatabaseCommand),
    /// Print the completion script for bash, zsh or fish
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff), or write one per command with --dir
    Man(man::ManArgs),
}

/// Parses the command line and runs the command: its exit code, or the error that
/// stopped it (which `main` prints as one line).
pub fn run() -> anyhow::Result<ExitCode> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        // One line, as for every other bad input; --help has the details.
        Err(e) if e.use_stderr() => {
            anyhow::bail!("{}", usage_error::one_line(&e, &Cli::command(), &args))
        }
        Err(e) => {
            let _ = e.print();
            return Ok(ExitCode::SUCCESS);
        }
    };
    if let Some(root) = &cli.root {
        // The library finds the checkout through the variable (`locations::checkout`), and
        // the processes shootout starts (load shards) inherit it. Nothing else runs yet:
        // no thread reads the environment while it changes.
        std::env::set_var(ROOT_ENV, root);
    }
    match cli.command {
        Command::Load(args) => load::run(*args),
        Command::Merge(args) => merge::run(args),
        Command::K8s(args) => k8s::run(args),
        Command::Run(args) => run::run(args),
        Command::Report(args) => report::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Results(args) => results::results(args),
        Command::Export(args) => results::export(args),
        Command::List(args) => contestants::list(args),
        Command::Setup(which) => contestants::setup(which),
        Command::Verify(args) => verify::verify(args),
        Command::Start(args) => contestants::start(args),
        Command::Database(args) => database::run(args),
        Command::Completions(args) => {
            completions::run(args, Cli::command()).map(|()| ExitCode::SUCCESS)
        }
        Command::Man(args) => man::run(args, Cli::command()).map(|()| ExitCode::SUCCESS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap checks its definitions (the names a conflict refers to, duplicate flags) only
    /// when built with debug assertions: this test, run without --release, checks them.
    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
