//! `shootout verify`: start contestants, check that they speak HTTP (in clear text, or
//! over TLS with `--tls`: the chain and what they negotiate first; HTTP/2 with
//! `--http2`), stop them.

use super::contestants::{select, Selection};
use super::interrupt;
use super::serve_tls::{launch_serving, ServeTls};
use anyhow::{bail, Context};
use clap::Args;
use engine::{Certificates, LoadSpec, Stop, TlsSpec};
use shootout::contestant::catalog::{self, Status};
use shootout::contestant::certificates::{CertificateFiles, KeyKind};
use shootout::contestant::manifest::Contestant;
use shootout::contestant::setup;
use shootout::contestant::verify::{self, Check, Plan, Tables};
use shootout::database::Database;
use shootout::model::endpoint::{Builtin, Endpoint};
use shootout::model::VerifyLevel;
use shootout::process::group_cpu;
use shootout::process::launch::{launch_h2c, LaunchSpec};
use shootout::process::server::Server;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
    #[command(flatten)]
    serve: ServeTls,
    /// Check HTTP/2 too: with --tls, by ALPN h2 on the [tls] command's port, after the TLS
    /// and HTTP/1.1 checks; without, in clear text with prior knowledge (h2c) on the
    /// [h2c] command's port, HTTP/2 checks only. --all takes the contestants that serve it
    #[arg(long)]
    http2: bool,
    /// Check only the WebSocket echo endpoint its contestant.toml declares ([websocket]
    /// path), as HttpArena's validator does (101, the Accept hash, text and binary echo,
    /// ordering, close 1000, a 4xx without Upgrade); these checks follow the HTTP/1.1 ones
    /// of any verify in clear text. --all takes the contestants that declare it
    #[arg(long, conflicts_with_all = ["http2", "tls"])]
    websocket: bool,
    /// The database started for contestants whose contestant.toml says database =
    /// "postgresql" (their db, queries, fortunes and updates are checked against it)
    #[command(flatten)]
    database: super::database::DatabaseArgs,
}

fn verify_level(text: &str) -> Result<VerifyLevel, String> {
    VerifyLevel::from_word(text).ok_or_else(|| format!("{text:?} is not strict, http or none"))
}

/// `shootout verify`: exit 1 when any contestant failed; 2 before any starts for a
/// name that is not one, or that serves no TLS under `--tls`.
pub fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let cat = args.which.folders.required()?;
    let mut chosen = select(&cat, &args.which)?;
    if args.serve.tls {
        if args.which.all {
            chosen.retain(|c| c.manifest.tls.is_some());
        } else if let Some(c) = chosen.iter().find(|c| c.manifest.tls.is_none()) {
            bail!(
                "{}: serves no TLS (its contestant.toml has no [tls] table): verify it \
                 without --tls",
                c.name()
            );
        }
    }
    if args.http2 {
        keep_http2(&mut chosen, args.which.all, args.serve.tls)?;
    }
    if args.websocket {
        keep_websocket(&mut chosen, args.which.all)?;
    }
    let over_tls = args.serve.over_tls();
    // --websocket checks no database endpoint: no database is started for it.
    let reads = |c: &&Contestant| c.manifest.database.is_some() && !args.websocket;
    let mut database = (chosen.iter().any(reads))
        .then(|| super::database::start(&args.database))
        .transpose()
        .context("verify: start the database")?;
    let mut failed = false;
    for c in chosen {
        let database = database.as_ref().filter(|_| reads(&c));
        if let Err(e) = verify_one(c, &args, over_tls, database) {
            eprintln!("error: {}: {e:#}", c.name());
            failed = true;
        }
    }
    if let Some(db) = &mut database {
        db.stop();
    }
    Ok(match failed {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    })
}

/// Under `--http2`: with `--all`, only the contestants that serve HTTP/2 the way asked
/// (over TLS by ALPN, or h2c); a contestant named that does not is refused in one line.
fn keep_http2(chosen: &mut Vec<&Contestant>, all: bool, tls: bool) -> anyhow::Result<()> {
    let serves = |c: &Contestant| match tls {
        true => c.manifest.serves_h2(),
        false => c.manifest.serves_h2c(),
    };
    if all {
        chosen.retain(|c| serves(c));
        return Ok(());
    }
    match (chosen.iter().find(|c| !serves(c)), tls) {
        (Some(c), true) => bail!(
            "{}: serves no HTTP/2 over TLS (its [tls] alpn offers no h2): verify it without --http2",
            c.name()
        ),
        (Some(c), false) => bail!(
            "{}: serves no h2c (its contestant.toml has no [h2c] table): verify it with --tls --http2, or without --http2",
            c.name()
        ),
        (None, _) => Ok(()),
    }
}

/// Under `--websocket`: with `--all`, only the contestants that declare a `[websocket]`
/// endpoint; a contestant named that does not is refused in one line.
fn keep_websocket(chosen: &mut Vec<&Contestant>, all: bool) -> anyhow::Result<()> {
    if all {
        chosen.retain(|c| c.manifest.serves_websocket());
        return Ok(());
    }
    match chosen.iter().find(|c| !c.manifest.serves_websocket()) {
        Some(c) => bail!(
            "{}: serves no WebSocket (its contestant.toml has no [websocket] table): verify it without --websocket",
            c.name()
        ),
        None => Ok(()),
    }
}

/// Starts `c` (over TLS serving the certificate of `over_tls`, when given; with the
/// `database`'s URL when it reads one), runs its checks, prints them and stops it; an
/// error names the first step that failed or the checks that did.
fn verify_one(
    c: &Contestant,
    args: &VerifyArgs,
    over_tls: Option<KeyKind>,
    database: Option<&Database>,
) -> anyhow::Result<()> {
    match catalog::status(c) {
        Status::Ready => {}
        Status::NeedsSetup(_) if args.setup => set_up(c).context("setup")?,
        s => bail!("verify: {}: {}", s.word(), s.reason()),
    }
    let environment: Vec<_> = database.iter().flat_map(|db| db.environment()).collect();
    let spec = LaunchSpec {
        threads: args.threads,
        environment: &environment,
        ..LaunchSpec::default()
    };
    let level = args.level.unwrap_or(c.manifest.verify);
    let endpoints = built_in_endpoints(c, level)?;
    let plan = Plan {
        level,
        endpoints: &endpoints,
        parses_http: c.manifest.parses_http,
        database: database.map(|db| db as &dyn Tables),
    };
    let h2c = args.http2 && over_tls.is_none();
    let (mut server, certificate) = match h2c {
        true => (launch_h2c(c, &spec)?, None),
        false => launch_serving(c, &spec, over_tls)?,
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], server.port));
    let mut checks = match (&certificate, h2c) {
        (_, true) => Vec::new(),
        (_, false) if args.websocket => Vec::new(),
        (Some(files), false) => verify::run_over_tls(addr, &plan, files).context("certificate")?,
        (None, false) => verify::run(addr, &plan),
    };
    // The [websocket] endpoint is served by the [start] command, in clear text.
    let websocket = c.manifest.websocket.as_ref();
    if let Some(ws) =
        websocket.filter(|_| certificate.is_none() && !h2c && level != VerifyLevel::None)
    {
        checks.extend(verify::run_websocket(addr, &addr.to_string(), &ws.path));
    }
    if args.http2 {
        let host = match &certificate {
            Some(_) => format!("localhost:{}", addr.port()),
            None => addr.to_string(),
        };
        let client = certificate.as_ref().map(trusting).transpose()?;
        checks.extend(verify::run_h2(addr, &host, &plan, client.as_ref()));
    }
    let say = |what: &str, text: &str| println!("{}: {what:<16} {text}", c.name());
    if let Some(files) = &certificate {
        say("certificate", &served(files));
    }
    say("level", &format!("{} ({})", level.word(), level.meaning()));
    if let Some(ws) = websocket.filter(|w| !w.library.is_empty() && certificate.is_none() && !h2c) {
        say("websocket", &format!("{} ({})", ws.path, ws.library));
    }
    if let Some(db) = database {
        let world = &args.database.world;
        let line = format!(
            "PostgreSQL {} (World {world} rows, log {})",
            db.version,
            db.log().display()
        );
        say("database", &line);
    }
    if args.load {
        match load_check(&server, args.threads, certificate.as_ref(), args.http2) {
            Ok(line) => say("load", &line),
            Err(e) => eprintln!("error: {}: load: {e:#}", c.name()),
        }
    }
    server.stop();
    print_checks(c, &checks)
}

/// TLS client settings that trust the test CA of `files` alone.
fn trusting(files: &CertificateFiles) -> anyhow::Result<TlsSpec> {
    let pem = std::fs::read(&files.ca).with_context(|| files.ca.display().to_string())?;
    let named = files.ca.display().to_string();
    Ok(TlsSpec {
        cacert: Some(Certificates::from_pem(&pem, &named)?),
        ..TlsSpec::default()
    })
}

/// `ECDSA P-256: …/tls/ecdsa/cert.pem (the client trusts only …/tls/ecdsa/ca.pem)`.
fn served(files: &CertificateFiles) -> String {
    let kind = match files.kind {
        KeyKind::Ecdsa => "ECDSA P-256",
        KeyKind::Rsa => "RSA 2048",
    };
    format!(
        "{kind}: {} (the client trusts only {})",
        files.cert.display(),
        files.ca.display()
    )
}

/// One line per check, marked ok, FLAG or FAIL; an error naming the failed ones.
fn print_checks(c: &Contestant, checks: &[Check]) -> anyhow::Result<()> {
    let mut bad = Vec::new();
    for k in checks {
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

/// The built-in endpoints `c` serves (hello when its manifest names none): a contestant
/// that serves only endpoints an experiment declares is verified by `shootout run`.
fn built_in_endpoints(c: &Contestant, level: VerifyLevel) -> anyhow::Result<Vec<Endpoint>> {
    let named = &c.manifest.endpoints;
    let served: Vec<Endpoint> = match named.is_empty() {
        true => vec![Endpoint::hello()],
        false => named.iter().filter_map(|n| Endpoint::builtin(n)).collect(),
    };
    if served.is_empty() && level != VerifyLevel::None {
        let names: Vec<&str> = Builtin::ALL.iter().map(|b| b.name()).collect();
        bail!(
            "verify: serves none of the built-in endpoints ({}): run an experiment that \
             declares its endpoints (shootout run EXPERIMENT) to verify it",
            names.join(", ")
        );
    }
    Ok(served)
}

/// Loads /hello briefly with the engine in-process and measures the server's cores;
/// over TLS as `localhost`, trusting the test CA of `certificate`.
fn load_check(
    server: &Server,
    threads: usize,
    certificate: Option<&CertificateFiles>,
    http2: bool,
) -> anyhow::Result<String> {
    let mut spec = hello_load(server.port, certificate)?;
    if http2 {
        // The same requests in flight as HTTP/1.1's 64 connections: 8 of 8 streams.
        (spec.http2, spec.connections, spec.streams) = (true, 8, 8);
    }
    let config = spec.resolve_at(SocketAddr::from(([127, 0, 0, 1], server.port)))?;
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

/// 64 keep-alive connections from one thread for 3 s after 0.5 s of warm-up.
fn hello_load(port: u16, certificate: Option<&CertificateFiles>) -> anyhow::Result<LoadSpec> {
    let url = match certificate {
        None => format!("http://127.0.0.1:{port}/hello"),
        Some(_) => format!("https://localhost:{port}/hello"),
    };
    let mut spec = LoadSpec::new(engine::parse_url(&url)?);
    spec.connections = 64;
    spec.threads = Some(1);
    spec.warmup = Duration::from_millis(500);
    spec.stop = Some(Stop::After(Duration::from_secs(3)));
    spec.keepalive = true;
    if let Some(files) = certificate {
        let pem = std::fs::read(&files.ca).with_context(|| files.ca.display().to_string())?;
        let named = files.ca.display().to_string();
        spec.tls.cacert = Some(Certificates::from_pem(&pem, &named)?);
    }
    Ok(spec)
}
