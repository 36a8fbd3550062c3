//! `shootout list | setup | verify | start`: the catalog of contestants.

use super::catalog::Folders;
use super::{interrupt, WorkFailed};
use anyhow::{bail, Context};
use clap::Args;
use shootout::contestant::catalog::{self, Catalog, Status};
use shootout::contestant::manifest::Contestant;
use shootout::contestant::setup;
use shootout::contestant::setup_all;
use shootout::contestant::verify;
use shootout::contestant::verify::Plan;
use shootout::model::endpoint::Endpoint;
use shootout::model::VerifyLevel;
use shootout::process::group_cpu;
use shootout::process::launch::{launch, LaunchSpec};
use shootout::process::server::Server;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Flags of `shootout list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// One JSON array instead of a table
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    folders: Folders,
}

/// Which contestants a command is for.
#[derive(Debug, Args)]
pub struct Selection {
    /// Contestant names (see `shootout list`)
    names: Vec<String>,
    /// Every contestant that is not blocked
    #[arg(long, conflicts_with = "names")]
    all: bool,
    #[command(flatten)]
    folders: Folders,
}

/// Flags of `shootout verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    which: Selection,
    /// Parallelism to start the server with
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Set up contestants that are not ready first
    #[arg(long)]
    setup: bool,
    /// Also load /hello for 3 s (64 connections, one generator thread) and report the
    /// server's busy cores: shows whether --threads reached it
    #[arg(long)]
    load: bool,
    /// strict (every check, the catalog's exact answers), http (framing, keep-alive,
    /// Connection: close, HTTP/1.0, each endpoint's expected status and body) or none
    /// [default: the manifest's `verify`, strict unless it says otherwise]
    #[arg(long, value_parser = verify_level)]
    level: Option<VerifyLevel>,
}

fn verify_level(text: &str) -> Result<VerifyLevel, String> {
    VerifyLevel::from_word(text).ok_or_else(|| format!("{text:?} is not strict, http or none"))
}

/// Flags of `shootout start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    name: String,
    #[arg(long)]
    port: u16,
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// CPUs to pin the server to, e.g. 1 or 0,1
    #[arg(long, value_delimiter = ',')]
    cpus: Option<Vec<usize>>,
    #[command(flatten)]
    folders: Folders,
}

/// `shootout list`.
pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let cat = args.folders.required()?;
    if args.json {
        println!("{}", serde_json::to_string(&listing(&cat))?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<24} {:<12} {:<11} {:<26} {:<10} reason / note",
        "contestant", "status", "language", "framework", "endpoints"
    );
    for c in &cat.contestants {
        let s = catalog::status(c);
        let m = &c.manifest;
        let why = if s.reason().is_empty() {
            m.note.as_str()
        } else {
            s.reason()
        };
        println!(
            "{:<24} {:<12} {:<11} {:<26} {:<10} {why}",
            m.name,
            s.word(),
            m.language,
            m.framework,
            match m.endpoints.is_empty() {
                true => "any".to_string(),
                false => m.endpoints.join(","),
            }
        );
    }
    for (name, e) in &cat.broken {
        println!("{name:<24} {:<12} {e}", "broken");
    }
    Ok(ExitCode::SUCCESS)
}

/// One contestant as `shootout list --json` shows it.
#[derive(serde::Serialize)]
struct Listed<'a> {
    name: &'a str,
    status: &'static str,
    reason: String,
    #[serde(flatten)]
    manifest: Option<ListedManifest<'a>>,
}

/// The manifest fields `list --json` shows (absent for a broken manifest).
#[derive(serde::Serialize)]
struct ListedManifest<'a> {
    language: &'a str,
    framework: &'a str,
    version: &'a str,
    endpoints: &'a [String],
    threads: &'a str,
    articles: &'a [String],
    parses_http: bool,
    note: &'a str,
}

fn listing(cat: &Catalog) -> Vec<Listed<'_>> {
    let mut rows: Vec<Listed> = Vec::new();
    for c in &cat.contestants {
        let (m, s) = (&c.manifest, catalog::status(c));
        rows.push(Listed {
            name: &m.name,
            status: s.word(),
            reason: s.reason().to_string(),
            manifest: Some(ListedManifest {
                language: &m.language,
                framework: &m.framework,
                version: &m.version,
                endpoints: &m.endpoints,
                threads: &m.start.threads,
                articles: &m.articles,
                parses_http: m.parses_http,
                note: &m.note,
            }),
        });
    }
    rows.extend(cat.broken.iter().map(|(name, why)| Listed {
        name,
        status: "broken",
        reason: why.clone(),
        manifest: None,
    }));
    rows
}

/// The selected contestants (an unknown name is bad input: exit 2).
fn select<'c>(cat: &'c Catalog, which: &Selection) -> anyhow::Result<Vec<&'c Contestant>> {
    if which.all {
        return Ok(cat
            .contestants
            .iter()
            .filter(|c| c.manifest.blocked.is_empty())
            .collect());
    }
    if which.names.is_empty() {
        bail!("name at least one contestant, or --all (see shootout list)");
    }
    let chosen = which.names.iter().map(|n| cat.get(n));
    Ok(chosen.collect::<Result<_, _>>()?)
}

fn set_up(c: &Contestant) -> anyhow::Result<()> {
    std::fs::create_dir_all(&c.build).with_context(|| c.build.display().to_string())?;
    let t0 = Instant::now();
    setup::setup(c, &c.build.join("setup.log"))?;
    println!(
        "{}: ready (setup {:.1}s)",
        c.name(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs `each` on every chosen contestant; a failure is one line naming it, and the
/// others go on. Exit 1 when any failed.
fn for_each(
    chosen: Vec<&Contestant>,
    mut each: impl FnMut(&Contestant) -> anyhow::Result<()>,
) -> ExitCode {
    let mut failed = false;
    for c in chosen {
        if let Err(e) = each(c) {
            eprintln!("error: {}: {e:#}", c.name());
            failed = true;
        }
    }
    match failed {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    }
}

/// `shootout setup`: the chosen contestants all at once (contestant::setup_all), each
/// reported as it ends; exit 1 when any failed.
pub fn setup(which: Selection) -> anyhow::Result<ExitCode> {
    let cat = which.folders.required()?;
    let chosen = select(&cat, &which)?;
    let outcomes = setup_all::set_up_all(&chosen, &|o| match &o.result {
        Ok(()) => println!(
            "{}: ready (setup {:.1}s)",
            o.contestant.name(),
            o.took.as_secs_f64()
        ),
        Err(e) => eprintln!("error: {}: setup: {e}", o.contestant.name()),
    });
    Ok(match outcomes.iter().all(|o| o.result.is_ok()) {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    })
}

/// `shootout verify`.
pub fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let cat = args.which.folders.required()?;
    let chosen = select(&cat, &args.which)?;
    Ok(for_each(chosen, |c| verify_one(c, &args)))
}

fn verify_one(c: &Contestant, args: &VerifyArgs) -> anyhow::Result<()> {
    match catalog::status(c) {
        Status::Ready => {}
        Status::NeedsSetup(_) if args.setup => set_up(c).context("setup")?,
        s => bail!("verify: {}: {}", s.word(), s.reason()),
    }
    let spec = LaunchSpec {
        threads: args.threads,
        ..LaunchSpec::default()
    };
    let level = args.level.unwrap_or(c.manifest.verify);
    let endpoints = built_in_endpoints(c, level)?;
    let plan = Plan {
        level,
        endpoints: &endpoints,
        parses_http: c.manifest.parses_http,
    };
    let mut server = launch(c, &spec)?;
    let checks = verify::run(SocketAddr::from(([127, 0, 0, 1], server.port)), &plan);
    println!(
        "{}: {:<16} {} ({})",
        c.name(),
        "level",
        level.word(),
        level.meaning()
    );
    if args.load {
        match load_check(&server, args.threads) {
            Ok(line) => println!("{}: {:<16} {line}", c.name(), "load"),
            Err(e) => eprintln!("error: {}: load: {e:#}", c.name()),
        }
    }
    server.stop();
    let mut bad = Vec::new();
    for k in &checks {
        let mark = if !k.passed {
            "FAIL"
        } else if k.flagged {
            "FLAG"
        } else {
            "ok"
        };
        println!("{}: {:<16} {mark:<4} {}", c.name(), k.name, k.detail);
        if !k.passed {
            bad.push(k.name.as_str());
        }
    }
    match bad.is_empty() {
        true => Ok(()),
        false => bail!("verify: failed {}", bad.join(", ")),
    }
}

/// The built-in endpoints `c` serves (hello when its manifest names none): a contestant
/// that serves only endpoints an experiment declares is verified by `shootout run`.
fn built_in_endpoints(c: &Contestant, level: VerifyLevel) -> anyhow::Result<Vec<Endpoint>> {
    let named = &c.manifest.endpoints;
    let served: Vec<Endpoint> = match named.is_empty() {
        true => vec![Endpoint::hello()],
        false => named.iter().filter_map(|n| Endpoint::builtin(n)).collect(),
    };
    if served.is_empty() && level != VerifyLevel::None {
        bail!(
            "verify: serves none of the built-in endpoints (hello, app): run an experiment that \
             declares its endpoints (shootout run EXPERIMENT) to verify it"
        );
    }
    Ok(served)
}

/// Loads /hello briefly with the engine in-process and measures the server's cores.
fn load_check(server: &Server, threads: usize) -> anyhow::Result<String> {
    let url = format!("http://127.0.0.1:{}/hello", server.port);
    let mut config = engine::LoadConfig::new(engine::Target::parse(&url)?);
    config.connections = 64;
    config.threads = 1;
    config.warmup = Duration::from_millis(500);
    config.stop = engine::Stop::After(Duration::from_secs(3));
    config.keepalive = true;
    let before = group_cpu::Sample::take(server.pid());
    let t0 = Instant::now();
    let r = engine::run(&config, &interrupt::INTERRUPTED)?;
    let after = group_cpu::Sample::take(server.pid());
    let wall = t0.elapsed().as_secs_f64();
    let busy = (after.seconds() - before.seconds()) / wall;
    // Threads busy at least a fifth of a core: the server's working threads, which
    // --threads should set, even when the generator leaves it less than whole cores.
    let working = after.busy_threads(&before, wall, 0.2);
    let bound = if r.generator.bound {
        " (generator-bound)"
    } else {
        ""
    };
    Ok(format!(
        "threads {threads}: {:.0} req/s, {} errors, server busy {busy:.2} cores in {working} busy thread(s){bound}",
        r.rps,
        r.requests.errors(),
    ))
}

/// `shootout start`: runs one contestant in the foreground until Ctrl-C (exit 1 when
/// it cannot start, or exits by itself).
pub fn start(args: StartArgs) -> anyhow::Result<ExitCode> {
    let cat = args.folders.required()?;
    let c = cat.get(&args.name)?;
    let name = c.name();
    if let s @ (Status::Blocked(_) | Status::NeedsSetup(_)) = catalog::status(c) {
        let why = format!("{}: {} (run shootout setup {name})", s.word(), s.reason());
        return Err(anyhow::Error::new(WorkFailed(anyhow::Error::msg(why)))
            .context(format!("{name}: start")));
    }
    interrupt::install();
    let spec = LaunchSpec {
        port: Some(args.port),
        threads: args.threads,
        cpus: args.cpus.as_deref(),
    };
    let mut server = launch(c, &spec)
        .map_err(|e| WorkFailed(e.into()))
        .context(name.to_string())?;
    println!(
        "{name} listening on http://127.0.0.1:{}/ (pid {}, log {}); Ctrl-C stops it",
        args.port,
        server.pid(),
        server.log.display()
    );
    while !interrupt::requested() && server.alive() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let died = !server.alive();
    server.stop();
    if died {
        let why = format!("the server exited; log: {}", server.log.display());
        return Err(
            anyhow::Error::new(WorkFailed(anyhow::Error::msg(why))).context(name.to_string())
        );
    }
    Ok(ExitCode::SUCCESS)
}
