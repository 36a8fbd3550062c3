//! `shootout load URL`: one closed-loop load, printed the way wrk, ab or webbench would.

use super::borrowed_flags::BorrowedFlags;
use super::keep::Keep;
use super::load_progress::{self, ProgressArgs};
use super::scenario::{self, Scenario};
use super::{interrupt, WorkFailed};
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use engine::{
    parse_duration, DeviceScript, IoChoice, LoadConfig, LoadResult, Pace, RateSchedule, RunError,
    Shard, Stop, Target,
};
use shootout::generators::{self, FleetError, Generators, Launcher};
use shootout::report;
use shootout::threshold::{Judgement, Threshold};
use std::process::ExitCode;
use std::time::Duration;

/// Flags of `shootout load`, named as wrk, ab and h2load name them where they can be.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Target URL (http only), e.g. http://127.0.0.1:8080/hello
    url: Option<String>,
    /// Read the load from a TOML scenario (flags given here win over it)
    #[arg(long, value_name = "FILE")]
    scenario: Option<std::path::PathBuf>,
    /// Connections to keep open [default: 10]
    #[arg(short = 'c', long)]
    connections: Option<usize>,
    /// Event-loop threads [default: the cores this process may run on]
    #[arg(short = 't', long)]
    threads: Option<usize>,
    /// How long to measure (10s, 500ms, 2m) [default: 10s]
    #[arg(short = 'd', long, value_parser = parse_duration, conflicts_with = "requests")]
    duration: Option<Duration>,
    /// Number of requests to measure instead of a duration (as ab -n)
    #[arg(short = 'n', long)]
    requests: Option<u64>,
    /// A request unanswered for this long counts as a timeout [default: 5s]
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Extra request header, "Name: value" (repeatable)
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    headers: Vec<String>,
    /// Request method
    #[arg(short = 'm', long, default_value = "GET")]
    method: String,
    /// Request body
    #[arg(long, conflicts_with = "body_file")]
    body: Option<String>,
    /// Read the request body from a file
    #[arg(long)]
    body_file: Option<std::path::PathBuf>,
    /// Requests written ahead on each connection (HTTP/1.1 pipelining)
    #[arg(long, default_value_t = 1)]
    pipeline: usize,
    /// Load sent before measuring, not recorded (e.g. 2s) [default: 0s]
    #[arg(long, value_parser = parse_duration)]
    warmup: Option<Duration>,
    /// A new connection for every request (as ab without -k)
    #[arg(long)]
    no_keepalive: bool,
    /// Send HTTP/1.0 requests (as ab and webbench do)
    #[arg(long = "http1.0")]
    http10: bool,
    #[command(flatten)]
    borrowed: BorrowedFlags,
    /// Open loop: requests/s in total, or stages "1000:10s,5000:30s" (linear ramps);
    /// latency counts from each request's intended send time
    #[arg(long, value_name = "RATE")]
    rate: Option<String>,
    /// Device load (Stressgrid): device counts over time as stages, e.g.
    /// "0,15000:60s,15000:60s,0:30s"; each device keeps one connection
    #[arg(long, value_name = "STAGES", conflicts_with = "rate")]
    devices: Option<String>,
    /// Requests each device sends before it leaves (and is replaced while wanted)
    /// [default: 100]
    #[arg(long, value_name = "N")]
    device_requests: Option<u32>,
    /// Mean time between a device's response and its next request [default: 900ms]
    #[arg(long, value_parser = parse_duration)]
    think: Option<Duration>,
    /// Uniform jitter of the think time, as a fraction (0.05 = ±5%) [default: 0.05]
    #[arg(long)]
    jitter: Option<f64>,
    /// Run part I of N of the load (connections, rate, requests), e.g. 1/2
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
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
    /// I/O interface of the event loops [default: uring if the kernel has it]
    #[arg(long, value_enum)]
    io: Option<IoArg>,
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
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum IoArg {
    Uring,
    Epoll,
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
    let config = config(&args).context("load")?;
    let keep = Keep::prepare(
        args.out.as_deref(),
        args.save,
        args.label.as_deref(),
        &config,
    )
    .context("load")?;
    let launcher = generators::launcher(&args.generators, None, args.push)
        .map_err(|e| generators_failed(e, &args.generators))?;
    let result = match launcher {
        None => in_process(&config, &args)?,
        Some(launcher) => sharded(launcher.as_ref(), &config)?,
    };
    let saved = keep.keep(&result)?;
    print(&result, args.json, args.format, args.hdr_log.as_deref())?;
    if let Some(line) = saved {
        eprintln!("{line}");
    }
    Ok(exit_status(&result, &args))
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
fn sharded(launcher: &dyn Launcher, config: &LoadConfig) -> anyhow::Result<LoadResult> {
    interrupt::install();
    match generators::fleet::run(launcher, config, &interrupt::INTERRUPTED) {
        Ok(r) => Ok(r),
        Err(FleetError::Check(e)) => Err(run_error(e)),
        Err(e @ FleetError::Args(_)) => Err(anyhow::Error::new(e).context("load")),
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

/// Turns the flags into an engine load, with one-line errors for bad input.
fn config(args: &LoadArgs) -> anyhow::Result<LoadConfig> {
    config_with(args, Target::parse)
}

/// The load these flags describe, for processes that run it on another network (the
/// pods of `shootout k8s job`): read as [`config`] reads it, the URL's host unresolved.
pub fn config_elsewhere(args: &LoadArgs) -> anyhow::Result<LoadConfig> {
    config_with(args, Target::parse_unresolved)
}

fn config_with(
    args: &LoadArgs,
    target: fn(&str) -> Result<Target, engine::ConfigError>,
) -> anyhow::Result<LoadConfig> {
    let file = match &args.scenario {
        Some(path) => scenario::read(path)?,
        None => Scenario::default(),
    };
    let args = &with_scenario(args, file)?;
    let Some(url) = &args.url else {
        bail!("no URL: give one, or a --scenario with url = \"...\"");
    };
    let target = target(url)?;
    let mut c = LoadConfig::new(target);
    c.method = args.method.clone();
    c.headers = args
        .headers
        .iter()
        .map(|h| parse_header(h))
        .collect::<anyhow::Result<_>>()?;
    c.body = match (&args.body, &args.body_file) {
        (Some(b), _) => b.clone().into_bytes(),
        (None, Some(path)) => std::fs::read(path)
            .with_context(|| format!("reading --body-file {}", path.display()))?,
        (None, None) => Vec::new(),
    };
    c.connections = args.connections.unwrap_or(10);
    c.threads = args.threads.unwrap_or_else(engine::allowed_cpus);
    c.pace = pace(args)?;
    c.warmup = args.warmup.unwrap_or_default();
    c.stop = match (args.duration, args.requests) {
        (_, Some(n)) => Stop::Requests(n),
        (Some(d), None) => Stop::After(d),
        (None, None) => Stop::After(default_duration(&c)?),
    };
    if let Some(shard) = &args.shard {
        c.shard = Shard::parse(shard).map_err(|e| anyhow::anyhow!("--shard: {e}"))?;
    }
    c.start_at = args.start_at;
    c.timeout = args.timeout.unwrap_or(Duration::from_secs(5));
    c.pipeline = args.pipeline;
    c.keepalive = !args.no_keepalive;
    c.http10 = args.http10;
    c.io = match args.io {
        None => IoChoice::Auto,
        Some(IoArg::Uring) => IoChoice::Uring,
        Some(IoArg::Epoll) => IoChoice::Epoll,
    };
    // engine::check validates the whole load, the request included, for every caller.
    Ok(c)
}

/// The flags, with what the scenario file says where no flag was given.
fn with_scenario(args: &LoadArgs, file: Scenario) -> anyhow::Result<LoadArgs> {
    let dur = |field: &str, v: Option<String>| -> anyhow::Result<Option<Duration>> {
        v.map(|t| parse_duration(&t).map_err(|e| anyhow::anyhow!("scenario {field}: {e}")))
            .transpose()
    };
    let devices = file.devices.unwrap_or_default();
    let has_devices = !devices.stages.is_empty();
    Ok(LoadArgs {
        url: args.url.clone().or(file.url),
        scenario: None,
        connections: args.connections.or(file.connections),
        threads: args.threads.or(file.threads),
        duration: args.duration.or(dur("duration", file.duration)?),
        requests: args.requests,
        timeout: args.timeout.or(dur("timeout", file.timeout)?),
        headers: args.headers.clone(),
        method: args.method.clone(),
        body: args.body.clone(),
        body_file: args.body_file.clone(),
        pipeline: args.pipeline,
        warmup: args.warmup.or(dur("warmup", file.warmup)?),
        no_keepalive: args.no_keepalive,
        http10: args.http10,
        borrowed: args.borrowed.clone(),
        rate: args.rate.clone().or(file.rate),
        devices: args
            .devices
            .clone()
            .or(has_devices.then_some(devices.stages)),
        device_requests: args.device_requests.or(devices.requests),
        think: args.think.or(dur("think", devices.think)?),
        jitter: args.jitter.or(devices.jitter),
        shard: args.shard.clone(),
        start_at: args.start_at,
        generators: args.generators.clone(),
        push: args.push,
        io: args.io,
        format: args.format,
        json: args.json,
        hdr_log: args.hdr_log.clone(),
        thresholds: args.thresholds.clone(),
        save: args.save,
        label: args.label.clone(),
        out: args.out.clone(),
        progress: args.progress.clone(),
    })
}

/// Closed, open (`--rate`) or devices (`--devices`): one of them.
fn pace(args: &LoadArgs) -> anyhow::Result<Pace> {
    match (&args.rate, &args.devices) {
        (Some(_), Some(_)) => bail!("a device load sets its own pace: drop --rate"),
        (Some(rate), None) => Ok(Pace::Open(RateSchedule::parse(rate).context("--rate")?)),
        (None, Some(stages)) => Ok(Pace::Devices(DeviceScript {
            count: RateSchedule::parse_device_count(stages).context("--devices")?,
            requests: args.device_requests.unwrap_or(100),
            think: args.think.unwrap_or(Duration::from_millis(900)),
            jitter: args.jitter.unwrap_or(0.05),
        })),
        (None, None) => Ok(Pace::Closed),
    }
}

/// 10 s, or with rate stages, the stages' length (the warm-up being their first part).
fn default_duration(c: &LoadConfig) -> anyhow::Result<Duration> {
    let staged = c.pace.staged();
    if staged.is_zero() {
        return Ok(Duration::from_secs(10));
    }
    if staged <= c.warmup {
        bail!("--warmup is as long as the stages: nothing would be measured");
    }
    Ok(staged - c.warmup)
}

/// Splits "Name: value"; the engine checks the two are valid HTTP.
fn parse_header(h: &str) -> anyhow::Result<(String, String)> {
    let Some((name, value)) = h.split_once(':') else {
        bail!("header {h:?} has no ':' (expected \"Name: value\")");
    };
    // Line breaks are kept for the engine to refuse, not trimmed into a valid header.
    let blank = |c: char| c.is_whitespace() && c != '\r' && c != '\n';
    Ok((
        name.trim().to_string(),
        value.trim_matches(blank).to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `config`, written as a shard's flags and read back by the parser `shootout load`
    /// uses, is the same load.
    fn round_trip(config: &LoadConfig) -> LoadConfig {
        let mut line = vec!["shootout".to_string()];
        line.extend(generators::shard_args(config).unwrap());
        line.extend(["--threads".into(), config.threads.to_string()]);
        let cli = super::super::Cli::try_parse_from(&line).unwrap();
        let super::super::Command::Load(args) = cli.command else {
            panic!("not a load: {line:?}");
        };
        super::config(&args).unwrap()
    }

    #[test]
    fn shard_flags_give_the_same_load_back() {
        let target = |url: &str| Target::parse(url).unwrap();
        let mut c = LoadConfig::new(target("http://127.0.0.1:1/p?q=1"));
        c.threads = 3;
        assert_eq!(format!("{:?}", round_trip(&c)), format!("{c:?}"));
        c.method = "POST".into();
        c.headers = vec![
            ("X-A".into(), "b: c".into()),
            ("Accept".into(), "*/*".into()),
        ];
        c.body = b"{\"a\": 1}".to_vec();
        c.connections = 30_000;
        c.stop = Stop::Requests(12_345);
        c.warmup = Duration::from_micros(1_500_250);
        c.timeout = Duration::from_millis(2_500);
        c.pipeline = 4;
        c.http10 = true;
        c.io = IoChoice::Epoll;
        c.pace = Pace::Open(RateSchedule::parse("1000:10s,5000.5:1500ms").unwrap());
        assert_eq!(format!("{:?}", round_trip(&c)), format!("{c:?}"));
        c.keepalive = false;
        c.pipeline = 1;
        c.stop = Stop::After(Duration::from_millis(2_001));
        c.pace = Pace::Devices(DeviceScript {
            count: RateSchedule::parse_device_count("0,150:3s,150:2s,0:1s").unwrap(),
            requests: 7,
            think: Duration::from_millis(900),
            jitter: 0.05,
        });
        c.keepalive = true;
        c.io = IoChoice::Uring;
        assert_eq!(format!("{:?}", round_trip(&c)), format!("{c:?}"));
    }

    #[test]
    fn a_changed_host_header_goes_into_the_shards_url() {
        let mut c = LoadConfig::new(Target::parse("http://127.0.0.1:1/x").unwrap());
        c.target.host_header = "localhost:1".into();
        let args = generators::shard_args(&c).unwrap();
        assert_eq!(args[1], "http://localhost:1/x");
        c.body = vec![0xff];
        let e = generators::shard_args(&c).unwrap_err();
        assert_eq!(e, generators::ShardArgsError::BinaryBody);
    }

    #[test]
    fn headers_need_a_colon_and_no_line_breaks() {
        assert_eq!(
            parse_header("X-A:  b c ").unwrap(),
            ("X-A".to_string(), "b c".to_string())
        );
        assert!(parse_header("nocolon").is_err());
        // What splits here but is no valid header is refused by the engine's check.
        for bad in ["X: a\r\nY: b", ": v", "X: a\r\n"] {
            let mut c = LoadConfig::new(Target::parse("http://127.0.0.1:1/").unwrap());
            c.headers = vec![parse_header(bad).unwrap()];
            assert!(c.validate().is_err(), "{bad:?}");
        }
    }
}
