//! `shootout list | setup | verify | start`: the catalog of contestants.

use super::interrupt;
use clap::Args;
use shootout::harness::catalog::{self, Catalog, Status};
use shootout::harness::manifest::Contestant;
use shootout::harness::process::{free_port, Server};
use shootout::harness::{group_cpu, setup, verify};
use std::time::{Duration, Instant};

/// How long a contestant may take to start listening (JVMs, BEAM).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Flags of `shootout list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// One JSON array instead of a table
    #[arg(long)]
    json: bool,
}

/// Which contestants a command is for.
#[derive(Debug, Args)]
pub struct Selection {
    /// Contestant names (see `shootout list`)
    names: Vec<String>,
    /// Every contestant that is not blocked
    #[arg(long, conflicts_with = "names")]
    all: bool,
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
}

fn catalog() -> Result<Catalog, i32> {
    catalog::root()
        .and_then(|r| Catalog::load(&r))
        .map_err(|e| {
            eprintln!("error: contestants: {e}");
            2
        })
}

/// `shootout list`.
pub fn list(args: ListArgs) -> i32 {
    let Ok(cat) = catalog() else { return 2 };
    if args.json {
        let rows: Vec<serde_json::Value> = cat.contestants.iter().map(|c| {
            let s = catalog::status(c);
            let m = &c.manifest;
            serde_json::json!({
                "name": m.name, "status": s.word(), "reason": s.reason(), "language": m.language,
                "framework": m.framework, "version": m.version, "endpoints": m.endpoints,
                "threads": m.start.threads, "articles": m.articles, "parses_http": m.parses_http,
                "note": m.note,
            })
        }).chain(cat.broken.iter().map(|(n, e)| serde_json::json!({"name": n, "status": "broken", "reason": e})))
        .collect();
        println!("{}", serde_json::Value::Array(rows));
        return 0;
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
            m.endpoints.join(",")
        );
    }
    for (name, e) in &cat.broken {
        println!("{name:<24} {:<12} {e}", "broken");
    }
    0
}

/// The selected contestants, or exit code 2 with one line per unknown name.
fn select<'c>(cat: &'c Catalog, which: &Selection) -> Result<Vec<&'c Contestant>, i32> {
    if which.all {
        return Ok(cat
            .contestants
            .iter()
            .filter(|c| c.manifest.blocked.is_empty())
            .collect());
    }
    if which.names.is_empty() {
        eprintln!("error: name at least one contestant, or --all (see shootout list)");
        return Err(2);
    }
    which
        .names
        .iter()
        .map(|n| {
            cat.get(n).map_err(|e| {
                eprintln!("error: {e}");
                2
            })
        })
        .collect()
}

fn set_up(c: &Contestant) -> Result<(), String> {
    std::fs::create_dir_all(&c.build).map_err(|e| format!("{}: {e}", c.build.display()))?;
    let t0 = Instant::now();
    setup::setup(c, &c.build.join("setup.log"))?;
    println!(
        "{}: ready (setup {:.1}s)",
        c.name(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `shootout setup`.
pub fn setup(which: Selection) -> i32 {
    let Ok(cat) = catalog() else { return 2 };
    let Ok(chosen) = select(&cat, &which) else {
        return 2;
    };
    let mut failed = 0;
    for c in chosen {
        if let Err(e) = set_up(c) {
            eprintln!("error: {}: setup: {e}", c.name());
            failed += 1;
        }
    }
    i32::from(failed > 0)
}

/// `shootout verify`.
pub fn verify(args: VerifyArgs) -> i32 {
    let Ok(cat) = catalog() else { return 2 };
    let Ok(chosen) = select(&cat, &args.which) else {
        return 2;
    };
    let mut failed = 0;
    for c in chosen {
        if let Err(e) = verify_one(c, &args) {
            eprintln!("error: {}: {e}", c.name());
            failed += 1;
        }
    }
    i32::from(failed > 0)
}

fn verify_one(c: &Contestant, args: &VerifyArgs) -> Result<(), String> {
    match catalog::status(c) {
        Status::Ready => {}
        Status::NeedsSetup(_) if args.setup => set_up(c).map_err(|e| format!("setup: {e}"))?,
        s => return Err(format!("verify: {}: {}", s.word(), s.reason())),
    }
    let port = free_port().map_err(|e| e.to_string())?;
    let mut server = Server::start(c, port, args.threads, None, &c.build.join("server.log"))
        .map_err(|e| format!("start: {e}"))?;
    server
        .wait_ready(START_TIMEOUT)
        .map_err(|e| format!("start: {e}"))?;
    let checks = verify::run(port, c.serves("app"), c.manifest.parses_http);
    if args.load {
        match load_check(&server, args.threads) {
            Ok(line) => println!("{}: {:<16} {line}", c.name(), "load"),
            Err(e) => eprintln!("error: {}: load: {e}", c.name()),
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
            bad.push(k.name);
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("verify: failed {}", bad.join(", ")))
    }
}

/// Loads /hello briefly with the engine in-process and measures the server's cores.
fn load_check(server: &Server, threads: usize) -> Result<String, String> {
    let url = format!("http://127.0.0.1:{}/hello", server.port);
    let mut config =
        engine::LoadConfig::new(engine::Target::parse(&url).map_err(|e| e.to_string())?);
    config.connections = 64;
    config.threads = 1;
    config.warmup = Duration::from_millis(500);
    config.stop = engine::Stop::After(Duration::from_secs(3));
    config.keepalive = true;
    let before = group_cpu::Sample::take(server.pid());
    let t0 = Instant::now();
    let r = engine::run(&config, &interrupt::INTERRUPTED).map_err(|e| e.to_string())?;
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

/// `shootout start`: runs one contestant in the foreground until Ctrl-C.
pub fn start(args: StartArgs) -> i32 {
    let Ok(cat) = catalog() else { return 2 };
    let c = match cat.get(&args.name) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let s @ (Status::Blocked(_) | Status::NeedsSetup(_)) = catalog::status(c) {
        eprintln!(
            "error: {}: start: {}: {} (run shootout setup {})",
            c.name(),
            s.word(),
            s.reason(),
            c.name()
        );
        return 1;
    }
    interrupt::install();
    let log = c.build.join("server.log");
    let mut server = match Server::start(c, args.port, args.threads, args.cpus.as_deref(), &log)
        .and_then(|mut s| s.wait_ready(START_TIMEOUT).map(|_| s))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: start: {e}", c.name());
            return 1;
        }
    };
    println!(
        "{} listening on http://127.0.0.1:{}/ (pid {}, log {}); Ctrl-C stops it",
        c.name(),
        args.port,
        server.pid(),
        log.display()
    );
    while !interrupt::requested() && server.alive() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let died = !server.alive();
    server.stop();
    if died {
        eprintln!(
            "error: {}: the server exited; log: {}",
            c.name(),
            log.display()
        );
        return 1;
    }
    0
}
