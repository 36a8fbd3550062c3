//! `shootout list | setup | start`: the catalog of contestants (`verify` is verify.rs).

use super::catalog::Folders;
use super::serve_tls::{launch_serving, ServeTls};
use super::{interrupt, WorkFailed};
use anyhow::{bail, Context};
use clap::Args;
use shootout::contestant::catalog::{self, Catalog, Status};
use shootout::contestant::certificates::KeyKind;
use shootout::contestant::manifest::{Contestant, Manifest};
use shootout::contestant::setup_all;
use shootout::process::launch::{launch_h2c, LaunchSpec};
use shootout::process::server::Server;
use std::process::ExitCode;
use std::time::Duration;

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
    pub(super) names: Vec<String>,
    /// Every contestant that is not blocked
    #[arg(long, conflicts_with = "names")]
    pub(super) all: bool,
    #[command(flatten)]
    pub(super) folders: Folders,
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
    serve: ServeTls,
    /// Cleartext HTTP/2 with prior knowledge: start with the contestant's [h2c] command
    /// (over TLS, HTTP/2 is --tls: its [tls] command offers h2 by ALPN where it serves it)
    #[arg(long, conflicts_with = "tls")]
    h2c: bool,
    /// Start a private PostgreSQL first and give the server DATABASE_URL and DATABASE_POOL
    /// (see `shootout database`)
    #[arg(long)]
    database: bool,
    #[command(flatten)]
    database_args: super::database::DatabaseArgs,
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
    // The framework column as wide as its longest entry, so the columns after it align.
    let widest = |field: fn(&Manifest) -> String, header: &str| {
        (cat.contestants.iter())
            .map(|c| field(&c.manifest).chars().count())
            .fold(header.len(), usize::max)
    };
    let fw = widest(|m| m.framework.clone(), "framework");
    let ew = widest(endpoints, "endpoints");
    println!(
        "{:<24} {:<12} {:<11} {:<fw$} {:<ew$} {:<4} {:<6} {:<3} reason / note",
        "contestant", "status", "language", "framework", "endpoints", "tls", "http2", "ws"
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
            "{:<24} {:<12} {:<11} {:<fw$} {:<ew$} {:<4} {:<6} {:<3} {why}",
            m.name,
            s.word(),
            m.language,
            m.framework,
            endpoints(m),
            match m.tls.is_some() {
                true => "yes",
                false => "no",
            },
            http2(m),
            match m.serves_websocket() {
                true => "yes",
                false => "no",
            },
        );
    }
    for (name, e) in &cat.broken {
        println!("{name:<24} {:<12} {e}", "broken");
    }
    Ok(ExitCode::SUCCESS)
}

/// The endpoints column: those it names, or `any` (every endpoint of an experiment).
fn endpoints(m: &Manifest) -> String {
    match m.endpoints.is_empty() {
        true => "any".to_string(),
        false => m.endpoints.join(","),
    }
}

/// The http2 column: how it serves HTTP/2, cleartext with prior knowledge (`h2c`, an
/// `[h2c]` table) and over TLS by ALPN (`h2`, its `[tls]` offers it).
fn http2(m: &Manifest) -> &'static str {
    match (m.serves_h2c(), m.serves_h2()) {
        (true, true) => "h2c,h2",
        (true, false) => "h2c",
        (false, true) => "h2",
        (false, false) => "no",
    }
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
    /// Whether it serves HTTPS too (a `[tls]` table): `shootout verify NAME --tls`.
    tls: bool,
    /// Whether it serves cleartext HTTP/2 with prior knowledge (an `[h2c]` table).
    h2c: bool,
    /// Whether it serves HTTP/2 over TLS (its `[tls]` offers `h2` by ALPN).
    h2: bool,
    /// The path of its WebSocket echo (a `[websocket]` table), or null.
    websocket: Option<&'a str>,
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
                tls: m.tls.is_some(),
                h2c: m.serves_h2c(),
                h2: m.serves_h2(),
                websocket: m.websocket.as_ref().map(|w| w.path.as_str()),
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
pub(super) fn select<'c>(
    cat: &'c Catalog,
    which: &Selection,
) -> anyhow::Result<Vec<&'c Contestant>> {
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

/// Starts `c` as `spec` says (over TLS with the test certificate of `over_tls`, or with
/// its `[h2c]` command); the URL it answers on, with what a client must trust over TLS.
fn serve(
    c: &Contestant,
    spec: &LaunchSpec,
    over_tls: Option<KeyKind>,
    h2c: bool,
) -> anyhow::Result<(Server, String)> {
    if h2c {
        let server = launch_h2c(c, spec)?;
        let url = format!(
            "http://127.0.0.1:{}/ (HTTP/2 with prior knowledge: h2load, curl \
             --http2-prior-knowledge)",
            server.port
        );
        return Ok((server, url));
    }
    let (server, files) = launch_serving(c, spec, over_tls)?;
    let port = server.port;
    let alpn = match &c.manifest.tls {
        Some(tls) => tls.alpn.iter().map(|a| a.name()).collect::<Vec<_>>(),
        None => Vec::new(),
    };
    let url = match files {
        None => format!("http://127.0.0.1:{port}/"),
        Some(files) => format!(
            "https://localhost:{port}/ ({} certificate; ALPN {}; --cacert {})",
            files.kind.word(),
            alpn.join(", "),
            files.ca.display()
        ),
    };
    Ok((server, url))
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
    if args.serve.tls && c.manifest.tls.is_none() {
        bail!("{name}: serves no TLS (its contestant.toml has no [tls] table): start it without --tls");
    }
    if args.h2c && c.manifest.h2c.is_none() {
        bail!("{name}: serves no h2c (its contestant.toml has no [h2c] table): start it without --h2c");
    }
    interrupt::install();
    let mut database = (args.database)
        .then(|| super::database::start(&args.database_args))
        .transpose()
        .context(format!("{name}: start the database"))?;
    let environment: Vec<(&'static str, String)> =
        database.iter().flat_map(|db| db.environment()).collect();
    if let Some(db) = &database {
        println!(
            "DATABASE_URL={} (PostgreSQL {}, pid {}, log {})",
            db.url(),
            db.version,
            db.pid(),
            db.log().display()
        );
    }
    let spec = LaunchSpec {
        port: Some(args.port),
        threads: args.threads,
        cpus: args.cpus.as_deref(),
        environment: &environment,
    };
    let (mut server, url) = serve(c, &spec, args.serve.over_tls(), args.h2c)
        .map_err(WorkFailed)
        .context(name.to_string())?;
    println!(
        "{name} listening on {url} (pid {}, log {}); Ctrl-C stops it",
        server.pid(),
        server.log.display()
    );
    while !interrupt::requested() && server.alive() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let died = !server.alive();
    server.stop();
    if let Some(db) = &mut database {
        db.stop();
    }
    if died {
        let why = format!("the server exited; log: {}", server.log.display());
        return Err(
            anyhow::Error::new(WorkFailed(anyhow::Error::msg(why))).context(name.to_string())
        );
    }
    Ok(ExitCode::SUCCESS)
}
