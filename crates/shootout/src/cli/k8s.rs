//! `shootout k8s job [FLAGS] -- LOAD FLAGS`: prints an Indexed Job whose pods run the
//! load's shards on one start time, and on stderr the steps that collect and merge
//! their results. The load's flags are read by `shootout load`'s own parser and checked
//! here, so that a mistake fails once, now, not in every pod.

use super::{load, usage_error, Cli, WorkFailed};
use anyhow::{bail, Context};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Subcommand};
use engine::{parse_duration, LoadConfig};
use shootout::k8s::{self, JobPlan, Memory, ObjectName};
use std::num::NonZeroU32;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Flags of `shootout k8s`.
#[derive(Debug, Args)]
pub struct K8sArgs {
    #[command(subcommand)]
    command: K8sCommand,
}

#[derive(Debug, Subcommand)]
enum K8sCommand {
    /// Print an Indexed Job (YAML) whose pods run a load's shards, and the steps that
    /// collect their results for `shootout merge`
    Job(JobArgs),
}

/// Flags of `shootout k8s job`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  shootout k8s job --shards 3 --image registry.example/shootout:0.1.0 -- \\\n    http://nginx.bench.svc:8080/hello -c 30000 -d 60s > shootout-load.yaml\nSee docs/kubernetes.md."
)]
pub struct JobArgs {
    /// Pods, all running at once, one shard of the load each
    #[arg(long, default_value = "2")]
    shards: NonZeroU32,
    /// Container image with shootout on its PATH and /bin/sh (deploy/Containerfile)
    /// [default: shootout:VERSION, this shootout's version]
    #[arg(long)]
    image: Option<String>,
    /// The Job's name (a DNS-1123 label)
    #[arg(long, default_value = "shootout-load")]
    name: ObjectName,
    /// The Job's namespace [default: kubectl's current one]
    #[arg(long)]
    namespace: Option<ObjectName>,
    /// Start the load this long after now: time to apply the Job, schedule its pods and
    /// pull the image [default: 60s]
    #[arg(long, value_parser = parse_duration, conflicts_with = "start_at")]
    start_in: Option<Duration>,
    /// Start the load at this wall-clock time (Unix milliseconds, each node's clock)
    #[arg(long, value_name = "UNIX_MS")]
    start_at: Option<u64>,
    /// Whole cores per pod, requested and limited [default: the load's -t, else 1; the
    /// load gets -t CPUS when it has no -t]
    #[arg(long)]
    cpus: Option<NonZeroU32>,
    /// Memory per pod, requested and limited (512Mi, 2Gi)
    #[arg(long, default_value = "1Gi")]
    memory: Memory,
    /// `shootout load` flags: the URL (as the pods reach it) and the rest
    #[arg(last = true, required = true, value_name = "LOAD FLAGS")]
    load: Vec<String>,
}

/// Load flags a pod cannot take: the Job sets them, or they name this machine's files.
const REFUSED: [(&str, &str, &str); 11] = [
    (
        "shard",
        "--shard",
        "each pod's shard is its completion index + 1",
    ),
    ("start_at", "--start-at", "give it to k8s job, before --"),
    ("json", "--json", "every pod prints JSON already"),
    (
        "format",
        "--format",
        "pods print JSON; shootout merge prints any format",
    ),
    (
        "hdr_log",
        "--hdr-log",
        "a pod's files go with it: use shootout merge --hdr-log",
    ),
    (
        "out",
        "--out",
        "a pod's files go with it: its log is the result",
    ),
    ("save", "--save", "a pod has no results store"),
    ("label", "--label", "a pod has no results store"),
    (
        "thresholds",
        "--threshold",
        "one shard is not the load: judge the merged result",
    ),
    (
        "scenario",
        "--scenario",
        "the file is here, not in the pods: give its fields as flags",
    ),
    (
        "body_file",
        "--body-file",
        "the file is here, not in the pods: use --body",
    ),
];

/// Prints the Job on stdout and the steps that follow on stderr.
pub fn run(args: K8sArgs) -> anyhow::Result<ExitCode> {
    let K8sCommand::Job(args) = args.command;
    let plan = plan(&args).context("k8s job")?;
    let yaml = k8s::to_yaml(&k8s::job(&plan)).map_err(|e| WorkFailed(e.into()))?;
    print!("{yaml}");
    eprintln!(
        "{}: {} shards from {}; save the Job as {}.yaml, then:\n{}",
        plan.name,
        plan.shards,
        humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(plan.start_at_unix_ms)),
        plan.name,
        k8s::collect::steps(&plan)
    );
    Ok(ExitCode::SUCCESS)
}

/// The Job's plan, from its flags and the load's, every one checked.
fn plan(args: &JobArgs) -> anyhow::Result<JobPlan> {
    let matches = load_matches(&args.load)?;
    refuse_pod_less_flags(&matches)?;
    let load_args = load::LoadArgs::from_arg_matches(&matches)?;
    let load = load::config_elsewhere(&load_args).context("load flags after --")?;
    k8s::check_shares(&load, args.shards)?;
    let threads_given = matches.value_source("threads") == Some(ValueSource::CommandLine);
    let cpus = cpus(args, &load, threads_given)?;
    let mut load_flags = args.load.clone();
    if !threads_given {
        // Without -t a pod would run one loop per core of its node, not of its share.
        load_flags.extend(["-t".to_string(), cpus.to_string()]);
    }
    let (start_at_unix_ms, start_in) = start(args)?;
    Ok(JobPlan {
        name: args.name.clone(),
        namespace: args.namespace.clone(),
        image: image(args)?,
        shards: args.shards,
        start_at_unix_ms,
        cpus,
        memory: args.memory.clone(),
        load_flags,
        deadline: k8s::deadline(&load, start_in),
    })
}

/// The flags after `--` read as `shootout load` reads its own: its `load` matches.
fn load_matches(flags: &[String]) -> anyhow::Result<ArgMatches> {
    let argv: Vec<std::ffi::OsString> = ["shootout", "load"]
        .iter()
        .map(Into::into)
        .chain(flags.iter().map(Into::into))
        .collect();
    let mut matches = match Cli::command().try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) if e.use_stderr() => bail!(
            "load flags after --: {}",
            usage_error::one_line(&e, &Cli::command(), &argv)
        ),
        Err(_) => bail!("load flags after --: see shootout load --help"),
    };
    match matches.remove_subcommand() {
        Some((_, load)) => Ok(load),
        None => bail!("load flags after --: none given"),
    }
}

fn refuse_pod_less_flags(matches: &ArgMatches) -> anyhow::Result<()> {
    for (id, flag, why) in REFUSED {
        if matches.value_source(id) == Some(ValueSource::CommandLine) {
            bail!("load flag {flag} after --: {why}");
        }
    }
    Ok(())
}

fn cpus(args: &JobArgs, load: &LoadConfig, threads_given: bool) -> anyhow::Result<NonZeroU32> {
    match (args.cpus, threads_given) {
        (Some(cpus), _) => Ok(cpus),
        (None, true) => u32::try_from(load.threads)
            .ok()
            .and_then(NonZeroU32::new)
            .context("load flag -t: too many threads for --cpus"),
        (None, false) => Ok(NonZeroU32::MIN),
    }
}

/// The start (Unix ms) and how far ahead of now it is; a start already past is refused.
fn start(args: &JobArgs) -> anyhow::Result<(u64, Duration)> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("this machine's clock is before 1970")?;
    let now_ms = now.as_millis() as u64;
    match args.start_at {
        Some(at) if at <= now_ms => {
            bail!("--start-at {at}: that is {} ms ago", now_ms - at)
        }
        Some(at) => Ok((at, Duration::from_millis(at - now_ms))),
        None => {
            let ahead = args.start_in.unwrap_or(Duration::from_secs(60));
            Ok((now_ms + ahead.as_millis() as u64, ahead))
        }
    }
}

fn image(args: &JobArgs) -> anyhow::Result<String> {
    let image = args
        .image
        .clone()
        .unwrap_or_else(|| format!("shootout:{}", env!("CARGO_PKG_VERSION")));
    if image.is_empty() || image.contains(char::is_whitespace) {
        bail!("--image {image:?}: an image reference has no spaces and is not empty");
    }
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `value_source` knows an argument by its id: each refused one must be a load flag
    /// of that name, and `threads` its -t.
    #[test]
    fn every_flag_looked_at_is_a_load_flag() {
        let cli = Cli::command();
        let load = cli.find_subcommand("load").expect("a load command");
        let long = |id: &str| {
            let arg = load.get_arguments().find(|a| a.get_id() == id);
            arg.and_then(|a| a.get_long()).map(|l| format!("--{l}"))
        };
        for (id, flag, _) in REFUSED {
            assert_eq!(long(id).as_deref(), Some(flag), "{id}");
        }
        assert_eq!(long("threads").as_deref(), Some("--threads"));
    }
}
