//! `shootout k8s job [FLAGS] -- LOAD FLAGS`: prints an Indexed Job whose pods run the
//! load's shards on one start time, and on stderr the steps that collect and merge
//! their results. The load's flags are the ones `shootout load` reads to describe a load
//! (a scenario and a body file among them, read here); they become one spec, checked
//! here, so that a mistake fails once, now, not in every pod, and the Job carries it.

use super::borrowed_flags::BorrowedFlags;
use super::load_flags::LoadFlags;
use super::tls_flags::{self, TlsFlags};
use super::{usage_error, WorkFailed};
use anyhow::{bail, Context};
use clap::{Args, CommandFactory, Parser, Subcommand};
use engine::{parse_duration, LoadSpec};
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

/// The flags after `--`: those of `shootout load` that describe the load. The others
/// (output, shards, saving) have no meaning in a pod, which prints JSON for `shootout
/// merge`, and are refused as unknown.
#[derive(Debug, Parser)]
#[command(name = "shootout load", bin_name = "shootout load")]
struct PodLoad {
    #[command(flatten)]
    load: LoadFlags,
    #[command(flatten)]
    tls: TlsFlags,
    #[command(flatten)]
    borrowed: BorrowedFlags,
}

/// Prints the Job on stdout and the steps that follow on stderr.
pub fn run(args: K8sArgs) -> anyhow::Result<ExitCode> {
    let K8sCommand::Job(args) = args.command;
    let plan = plan(&args).context("k8s job")?;
    let manifest = k8s::manifest(&plan).map_err(|e| WorkFailed(e.into()))?;
    let yaml = k8s::to_yaml(&manifest).map_err(|e| WorkFailed(e.into()))?;
    print!("{yaml}");
    let secret = match &manifest.secret {
        Some(_) => format!(
            " (the load's spec, with the client's private key, is in Secret {} before the \
             Job: keep the file as you keep the key)",
            plan.name
        ),
        None => String::new(),
    };
    eprintln!(
        "{}: {} shards from {}; save the Job as {}.yaml{secret}, then:\n{}",
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
    let mut spec = load_spec(&args.load)?;
    let load = (spec.resolve_elsewhere())
        .map_err(tls_flags::in_flag_words)
        .context("load flags after --")?;
    k8s::check_shares(&load, args.shards)?;
    let cpus = cpus(args, &spec)?;
    // Without -t a pod would run one loop per core of its node, not of its share.
    spec.threads = spec.threads.or(Some(cpus.get() as usize));
    let (start_at_unix_ms, start_in) = start(args)?;
    Ok(JobPlan {
        name: args.name.clone(),
        namespace: args.namespace.clone(),
        image: image(args)?,
        shards: args.shards,
        start_at_unix_ms,
        cpus,
        memory: args.memory.clone(),
        deadline: k8s::deadline(&load, start_in),
        spec,
    })
}

/// The flags after `--` read as `shootout load` reads those that describe a load.
fn load_spec(flags: &[String]) -> anyhow::Result<LoadSpec> {
    let argv: Vec<std::ffi::OsString> = std::iter::once("shootout load".into())
        .chain(flags.iter().map(Into::into))
        .collect();
    let pod = match PodLoad::try_parse_from(&argv) {
        Ok(pod) => pod,
        Err(e) if e.use_stderr() => bail!(
            "load flags after --: {}; only flags that describe the load go there",
            usage_error::one_line(&e, &PodLoad::command(), &argv)
        ),
        Err(_) => bail!("load flags after --: see shootout load --help"),
    };
    pod.load.spec(&pod.tls).context("load flags after --")
}

fn cpus(args: &JobArgs, spec: &LoadSpec) -> anyhow::Result<NonZeroU32> {
    match (args.cpus, spec.threads) {
        (Some(cpus), _) => Ok(cpus),
        (None, Some(threads)) => u32::try_from(threads)
            .ok()
            .and_then(NonZeroU32::new)
            .context("load flag -t: too many threads for --cpus"),
        (None, None) => Ok(NonZeroU32::MIN),
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
