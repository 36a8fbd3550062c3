//! `shootout load URL`: one closed-loop load, printed the way wrk, ab or webbench would.

use super::borrowed_flags::BorrowedFlags;
use super::capacity::{self, Asked, CapacityFlags, StepRunner};
use super::destinations::Destinations;
use super::load_flags::LoadFlags;
use super::load_progress::{self, ProgressArgs};
use super::scenario::set;
use super::tls_flags::{self, TlsFlags};
use super::{interrupt, spec_input, WorkFailed};
use anyhow::Context;
use clap::{Args, ValueEnum};
use engine::{LoadConfig, LoadResult, LoadSpec, RunError, Shard};
use shootout::generators::{self, FleetError, Generators, Launcher};
use shootout::model::LoadKind;
use shootout::report;
use shootout::threshold::{Judgement, Threshold};
use std::process::ExitCode;

/// Flags of `shootout load`, named as wrk, ab and h2load name them where they can be.
#[derive(Debug, Args)]
pub struct LoadArgs {
    #[command(flatten)]
    load: LoadFlags,
    #[command(flatten)]
    tls: TlsFlags,
    #[command(flatten)]
    borrowed: BorrowedFlags,
    /// Read the whole load from a JSON spec (see docs/load.md): a FILE, - for stdin, or
    /// env:NAME for an environment variable. No flag that describes the load may be given
    /// with it; --shard and --start-at may, and override the spec's
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["LoadFlags", "TlsFlags"])]
    spec: Option<String>,
    /// Run part I of N of the load (connections, rate, requests), e.g. 1/2
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Start at this wall-clock time (Unix milliseconds), so that shards start together
    #[arg(long, value_name = "UNIX_MS")]
    start_at: Option<u64>,
    /// Where the load comes from: this process, local:N processes on this machine (each
    /// pinned to its share of the cores and within its own open-file limit),
    /// ssh:user@host[:port],... or k8s (see `shootout k8s job`); shards start together
    /// and merge exactly
    #[arg(long, value_name = "WHERE", default_value_t = Generators::InProcess,
          conflicts_with_all = ["shard", "start_at"])]
    generators: Generators,
    /// With ssh: generators, copy this binary to each host first and run that copy
    /// (else each host runs the shootout on its PATH, which must be this version)
    #[arg(long)]
    push: bool,
    /// How to print the result
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print the result as JSON (schema shootout.load/1, see docs/load.md)
    #[arg(long)]
    json: bool,
    /// Also write the per-second latency histograms as an HdrHistogram interval log
    #[arg(long, value_name = "FILE")]
    hdr_log: Option<std::path::PathBuf>,
    /// Exit 99 unless the result meets this, e.g. 'p99<5ms', 'errors<0.1%', 'rps>=50k'
    /// (repeatable; metrics: rps, p50 p75 p90 p99 p99.9 p99.99 max mean, errors)
    #[arg(long = "threshold", value_name = "EXPR", value_parser = Threshold::for_load)]
    thresholds: Vec<Threshold>,
    /// Keep the result in the results store beside experiments (see `shootout results`,
    /// `shootout compare LABEL OTHER`)
    #[arg(long)]
    save: bool,
    /// Name of the saved load [default: the URL's host:port/path]; a label names its
    /// newest save
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// Also write the result as JSON (schema shootout.load/1) to FILE; the summary still
    /// prints
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    #[command(flatten)]
    progress: ProgressArgs,
    #[command(flatten)]
    capacity: CapacityFlags,
}

fn parse_shard(text: &str) -> Result<Shard, engine::ShardError> {
    Shard::parse(text)
}

/// Output layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// wrk's summary
    Text,
    /// ApacheBench's key lines
    Ab,
    /// webbench's two lines
    Webbench,
}

/// What `shootout load` exits with, for `--help`.
pub const EXIT_CODES: &str = "Exit status:
  0    the load ran, some request succeeded, and every --threshold held
  1    no request succeeded (one line after the summary says how they ended),
       or the generator itself failed
  2    bad input: a flag, a --threshold, the URL, a target that refuses
       connections; nothing was sent
  99   a --threshold was crossed: a table after the summary says which and by
       how much (on stderr with --json, so that stdout stays one JSON object)
  130  stopped by Ctrl-C or SIGTERM; what was measured is printed
When more than one applies, the first of 130, 1, 99 is the exit status.";

/// Runs the load and prints it, then its thresholds: the exit code by [`EXIT_CODES`].
pub fn run(args: LoadArgs) -> anyhow::Result<ExitCode> {
    capacity::check_thresholds(&args.thresholds, args.capacity.searching()).context("load")?;
    let spec = spec(&args).context("load")?;
    let asked = args.capacity.asked(spec.warmup);
    let config = match &args.spec {
        Some(_) => spec.resolve().map_err(anyhow::Error::new),
        None => spec.resolve().map_err(tls_flags::in_flag_words),
    }
    .context("load")?;
    let destinations = Destinations::prepare(
        args.out.as_deref(),
        args.save,
        args.label.as_deref(),
        &spec,
        &config,
        asked
            .as_ref()
            .map_or(LoadKind::of(&config.pace), |a| LoadKind::Capacity {
                objectives: a.objectives.to_string(),
            }),
    )
    .context("load")?;
    let launcher = generators::launcher(&args.generators, None, args.push)
        .map_err(|e| generators_failed(e, &args.generators))?;
    if let Some(asked) = asked {
        return search(&asked, &spec, launcher.as_deref(), destinations, &args);
    }
    let result = match launcher {
        None => in_process(&config, &args)?,
        Some(launcher) => sharded(launcher.as_ref(), &spec)?,
    };
    let saved = destinations.write(&result)?;
    print(&result, args.json, args.format, args.hdr_log.as_deref())?;
    if let Some(line) = saved {
        eprintln!("{line}");
    }
    Ok(exit_status(&result, &args))
}

/// A capacity search (`--capacity`): its header, each step, the answer (or its JSON), the
/// saved search and the capacity thresholds; the exit code as a load's.
fn search(
    asked: &Asked,
    spec: &LoadSpec,
    launcher: Option<&dyn Launcher>,
    destinations: Destinations,
    args: &LoadArgs,
) -> anyhow::Result<ExitCode> {
    if !args.json {
        println!("{}", capacity::header(asked, spec));
    }
    let runner = launcher.map_or(StepRunner::InProcess, StepRunner::Sharded);
    let searched = capacity::search(asked, spec, &runner, args.json)?;
    let saved = capacity::keep(&searched, destinations)?;
    match args.json {
        true => println!("{:#}", searched.capacity.json()),
        false => print!("{}", capacity::summary_text(&searched)),
    }
    if let Some(line) = saved {
        eprintln!("{line}");
    }
    let held = capacity::judge_thresholds(&searched.capacity, &args.thresholds, args.json);
    let succeeded = searched.results.iter().any(|r| r.requests.ok > 0);
    if !succeeded {
        eprintln!("no request succeeded in any step of the search");
    }
    Ok(super::ending(succeeded, held))
}

/// The load run by this process's own loops, with its header and status line.
fn in_process(config: &LoadConfig, args: &LoadArgs) -> anyhow::Result<LoadResult> {
    let result = engine::check(config).and_then(|load| {
        interrupt::install();
        if !args.json && args.format == Format::Text {
            report::load_output::wrk::print_header(&load);
        }
        load_progress::run_shown(&load, &args.progress)
    });
    match result {
        Ok(r) => Ok(r),
        Err(e) => Err(run_error(e)),
    }
}

/// Generators that cannot start here are the user's input (exit 2); hosts that failed
/// their checks (unreachable, another version, a clock too far off) are a failure of the
/// work (exit 1), named by host and step.
fn generators_failed(e: generators::ChooseError, asked: &Generators) -> anyhow::Error {
    let e = anyhow::Error::new(e).context("load: --generators");
    match asked {
        Generators::Ssh(_) => WorkFailed(e).into(),
        _ => e,
    }
}

/// A loop that failed is the generator's failure (exit 1), not the user's input.
fn run_error(e: RunError) -> anyhow::Error {
    match e {
        e @ RunError::Loop { .. } => WorkFailed(e.into()).into(),
        e => anyhow::Error::new(e).context("load"),
    }
}

/// The load run as shards by `launcher`, merged: a shard that failed fails the load
/// (exit 1) by name; a load no shard can run is refused before any starts (exit 2).
fn sharded(launcher: &dyn Launcher, spec: &LoadSpec) -> anyhow::Result<LoadResult> {
    interrupt::install();
    match generators::fleet::run(launcher, spec, &interrupt::INTERRUPTED) {
        Ok(r) => Ok(r),
        Err(FleetError::Check(e)) => Err(run_error(e)),
        Err(e @ (FleetError::Spec(_) | FleetError::AlreadySharded(_))) => {
            Err(anyhow::Error::new(e).context("load"))
        }
        Err(e) => Err(WorkFailed(anyhow::Error::new(e).context("load")).into()),
    }
}

/// After the summary: the thresholds judged, and a line when no request succeeded; the
/// exit code (interrupted 130, nothing succeeded 1, a threshold crossed 99, else 0).
fn exit_status(result: &LoadResult, args: &LoadArgs) -> ExitCode {
    let held = judge_thresholds(result, &args.thresholds, args.json);
    let succeeded = result.requests.ok > 0;
    if !succeeded {
        eprintln!("{}", nothing_succeeded(&result.requests));
    }
    super::ending(succeeded, held)
}

/// Judges `thresholds` on `result` and prints what they came to (on stderr beside JSON,
/// which keeps stdout one JSON object); true when every one held (or there are none).
fn judge_thresholds(result: &LoadResult, thresholds: &[Threshold], json: bool) -> bool {
    if thresholds.is_empty() {
        return true;
    }
    let judged: Vec<Judgement> = thresholds
        .iter()
        .map(|t| Judgement::of(t, t.metric.of_load(result), "no response"))
        .collect();
    let text = shootout::report::thresholds::load_text(&judged);
    match json {
        true => eprint!("\n{text}"),
        false => print!("\n{text}"),
    }
    judged.iter().all(Judgement::held)
}

/// `no request succeeded (of 523 requests: status 523)`: how every request ended.
fn nothing_succeeded(n: &engine::Counts) -> String {
    let classes = [
        ("status", n.status),
        ("timeout", n.timeout),
        ("connect", n.connect),
        ("read", n.read),
        ("write", n.write),
        ("parse", n.parse),
        ("tls", n.tls),
        ("reset", n.reset),
        ("h2", n.h2),
        ("wrong", n.wrong),
        ("dropped", n.dropped),
        ("in flight", n.in_flight),
    ];
    let ended: Vec<String> = classes
        .iter()
        .filter(|(_, count)| *count > 0)
        .map(|(class, count)| format!("{class} {count}"))
        .collect();
    match ended.is_empty() {
        true => "no request succeeded: none was sent".into(),
        false => format!(
            "no request succeeded (of {} requests: {})",
            n.total(),
            ended.join(", ")
        ),
    }
}

/// Prints a result in the asked format and writes its interval log (a failure to write
/// either is a failure of the work: exit 1).
pub fn print(
    result: &LoadResult,
    json: bool,
    format: Format,
    hdr_log: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    // The log first: whatever happens to stdout, the measurements are on disk.
    if let Some(path) = hdr_log {
        std::fs::File::create(path)
            .map(std::io::BufWriter::new)
            .and_then(|mut f| engine::write_hdr_log(result, &mut f))
            .map_err(|e| WorkFailed(e.into()))
            .with_context(|| format!("writing the HdrHistogram log {}", path.display()))?;
    }
    if json {
        let text = serde_json::to_string_pretty(result)
            .map_err(|e| WorkFailed(e.into()))
            .context("writing JSON")?;
        println!("{text}");
        return Ok(());
    }
    match format {
        Format::Text => report::load_output::wrk::print(result),
        Format::Ab => report::load_output::ab::print(result),
        Format::Webbench => report::load_output::webbench::print(result),
    }
    Ok(())
}

/// The load: a `--spec`, or the flags (over a `--scenario`), with this process's shard
/// and start over either.
fn spec(args: &LoadArgs) -> anyhow::Result<LoadSpec> {
    let mut spec = match &args.spec {
        Some(source) => spec_input::read(source)?,
        None => args.load.spec(&args.tls)?,
    };
    set(&mut spec.shard, args.shard);
    spec.start_at = args.start_at.or(spec.start_at);
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn load_args(line: &[&str]) -> Result<LoadArgs, clap::Error> {
        let argv = ["shootout", "load"].iter().chain(line);
        let cli = super::super::Cli::try_parse_from(argv)?;
        match cli.command {
            super::super::Command::Load(args) => Ok(*args),
            _ => panic!("not a load"),
        }
    }

    #[test]
    fn a_spec_takes_no_load_flag_but_its_shard_and_start() {
        let flags = [
            &["-c", "3"][..],
            &["http://127.0.0.1:1/"],
            &["--body", "x"],
            &["--insecure"],
        ];
        for flag in flags {
            let line = [&["--spec", "-"], flag].concat();
            let e = load_args(&line).unwrap_err().to_string();
            assert!(e.contains("cannot be used with"), "{flag:?}: {e}");
        }
        let dir = std::env::temp_dir().join(format!("shootout-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("spec.json");
        std::fs::write(&file, r#"{"url": "http://127.0.0.1:1/", "connections": 4}"#).unwrap();
        let path = file.display().to_string();
        let args = load_args(&["--spec", &path, "--shard", "2/2", "--start-at", "7"]).unwrap();
        let s = spec(&args).unwrap();
        assert_eq!((s.connections, s.shard.index, s.start_at), (4, 1, Some(7)));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
