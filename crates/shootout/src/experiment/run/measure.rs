//! One run's measurement: start the server (or take the one running), verify it once,
//! load it from the generator's CPUs while watching both sides, stop it. A load over TLS
//! starts the server with its `[tls]` command and the load's kind of certificate,
//! verifies it over TLS, and loads `https://localhost:PORT` trusting the test CA alone. A
//! load over HTTP/2 starts it with its `[h2c]` command (over TLS, its `[tls]` command,
//! whose ALPN offers h2), checks that it answers over HTTP/2, and keeps the cell's streams
//! in flight on each connection. A WebSocket load (on the `websocket` endpoint) checks the
//! server's echo as `verify --websocket` does and loads `ws://` at its `[websocket]` path.

use super::certificate_cache::Issued;
use super::contestant_cache::Transport;
use super::failure::RunFailure;
use super::judge::{self, ServerSide};
use super::{Event, Runner};
use crate::contestant::manifest::Contestant;
use crate::contestant::running::RunningServer;
use crate::experiment::over_tls::SERVER_NAME;
use crate::experiment::{MatrixCell, OverTls};
use crate::generators::{self, fleet, Generators};
use crate::model::capacity::CapacityResult;
use crate::model::Point;
use crate::model::{LoadKind, Outcome, RunCoordinates, RunRecord, VerifyLevel};
use crate::process::group_cpu::Members;
use crate::process::launch::{launch, launch_h2c, launch_over_tls, LaunchSpec};
use crate::process::monitor::Monitor;
use crate::process::open_file_limit::OpenFileLimit;
use crate::process::server::Server;
use crate::process::Pinned;
use engine::{LoadResult, LoadSpec, TlsSpec};
use std::net::SocketAddr;
use std::time::Instant;

/// What one load (or one capacity search) measured, and the server's side of it.
pub(super) struct Measurement {
    pub(super) outcome: Outcome,
    pub(super) series: Vec<Point>,
    pub(super) server_cpu_s: f64,
    pub(super) peak_rss_kb: u64,
    pub(super) load_s: f64,
    /// A capacity search's steps and answer.
    pub(super) capacity: Option<CapacityResult>,
}

impl Measurement {
    pub(super) fn into_record(self, coordinates: RunCoordinates, kind: LoadKind) -> RunRecord {
        RunRecord {
            coordinates,
            kind,
            toolchain: String::new(),
            verify: VerifyLevel::default(),
            outcome: self.outcome,
            server_cpu_s: self.server_cpu_s,
            peak_rss_kb: self.peak_rss_kb,
            series: self.series,
            wall_s: 0.0,
            load_s: self.load_s,
            make_up: false,
            capacity: self.capacity,
        }
    }
}

/// A server ready for a cell's loads: started (or already running) and verified, where
/// its loads reach it (its address, the Host its requests carry, the TLS client).
pub(super) struct Ready<'c> {
    pub(super) watched: Watched<'c>,
    /// The postmaster of the experiment's database, whose process tree is watched beside
    /// the server.
    pub(super) database: Option<u32>,
    pub(super) addr: SocketAddr,
    pub(super) host: String,
    pub(super) tls: Option<TlsSpec>,
    /// The path of its WebSocket echo (its `[websocket]`), where a WebSocket load goes.
    pub(super) echo: Option<String>,
}

impl<F: FnMut(Event)> Runner<'_, F> {
    /// Start, verify (once per contestant and transport), load with monitoring, stop; a
    /// server already running is verified and loaded as it is. A failure before the load
    /// is returned.
    pub(super) fn measure(
        &mut self,
        c: &Contestant,
        cell: &MatrixCell,
    ) -> Result<Measurement, RunFailure> {
        let mut ready = self.ready(c, cell)?;
        let (spec, config) = load_spec(cell, &ready)?;
        let m = load(cell, (&spec, &config), &mut ready, self.controls);
        ready.watched.stop();
        Ok(m)
    }

    /// The server of `c` for `cell`: started and verified (once per contestant and
    /// transport), and able to hold the cell's connections; or the one already running,
    /// verified. A failure stops what was started.
    pub(super) fn ready<'c>(
        &mut self,
        c: &'c Contestant,
        cell: &MatrixCell,
    ) -> Result<Ready<'c>, RunFailure> {
        if let Some(running) = &c.running {
            return self.ready_running(c, running);
        }
        if let Generators::Ssh(_) = &cell.load.generators {
            return Err(RunFailure::UnreachableFromHosts);
        }
        let (server, issued) = self.serve(c, cell)?;
        // A server shootout started listens on loopback at the port it was given.
        let addr = SocketAddr::from(([127, 0, 0, 1], server.port));
        let tls = client(issued.as_ref(), cell.load.tls.as_ref());
        let (host, transport) = reach(addr, issued.as_ref(), tls.as_ref(), cell.streams);
        let with = (transport, self.database.tables());
        (self.cache).verify_once(c, (addr, &host), with, &mut self.on_event)?;
        let limit = OpenFileLimit::of_group(server.pid());
        if let Some(refusal) = limit.and_then(|l| l.refusal(cell.connections)) {
            return Err(refusal.into());
        }
        Ok(Ready {
            watched: Watched::Started(server),
            database: self.database.group(),
            addr,
            host,
            tls,
            echo: echo_path(c),
        })
    }

    /// Starts `c` for `cell`, pinned to the layout's CPUs (the experiment's database moved
    /// to the layout's first, and handed to it): in clear text (with its `[h2c]` command
    /// for a load over HTTP/2), or for a load over TLS with its `[tls]` command, serving
    /// the certificates of the load's kind (made once per experiment), which it returns
    /// too.
    fn serve(
        &mut self,
        c: &Contestant,
        cell: &MatrixCell,
    ) -> Result<(Server, Option<Issued>), RunFailure> {
        let environment = self.database.place(&cell.layout)?;
        let spec = LaunchSpec {
            port: None,
            threads: cell.layout.server_threads(),
            cpus: cell.layout.server.as_deref(),
            environment: &environment,
        };
        let Some(over) = &cell.load.tls else {
            let server = match cell.streams {
                None => launch(c, &spec)?,
                Some(_) => launch_h2c(c, &spec)?,
            };
            return Ok((server, None));
        };
        let kind = over.certificate;
        let issued = (self.certificates.issue(c.builds(), kind))
            .map_err(|error| RunFailure::Certificate { kind, error })?;
        Ok((launch_over_tls(c, &spec, &issued.files)?, Some(issued)))
    }

    /// A server that was already running, verified (once per contestant) at its URL's
    /// address and with its URL's host; it is neither started, stopped nor pinned.
    fn ready_running<'c>(
        &mut self,
        c: &Contestant,
        running: &'c RunningServer,
    ) -> Result<Ready<'c>, RunFailure> {
        let at = (running.addr, running.host.as_str());
        let with = (Transport::Clear, self.database.tables());
        (self.cache).verify_once(c, at, with, &mut self.on_event)?;
        Ok(Ready {
            watched: Watched::Running(running),
            database: None,
            addr: running.addr,
            host: running.host.clone(),
            tls: None,
            echo: echo_path(c),
        })
    }
}

/// The path of `c`'s WebSocket echo, when it serves one.
fn echo_path(c: &Contestant) -> Option<String> {
    c.manifest.websocket.as_ref().map(|ws| ws.path.clone())
}

/// Over TLS (`issued` certificates, `over` the load's settings), the client's settings:
/// the load's, trusting the certificates' CA alone.
fn client(issued: Option<&Issued>, over: Option<&OverTls>) -> Option<TlsSpec> {
    let (issued, over) = issued.zip(over)?;
    Some(over.client_trusting(issued.ca.clone()))
}

/// How a run reaches the server it started at `addr`: the Host its requests carry, and
/// how it is verified (over TLS with `issued` certificates and the `tls` client; over
/// HTTP/2 when the cell has `streams`). Over TLS it is `localhost:PORT`, the name the
/// certificate is for.
fn reach<'t>(
    addr: SocketAddr,
    issued: Option<&'t Issued>,
    tls: Option<&'t TlsSpec>,
    streams: Option<usize>,
) -> (String, Transport<'t>) {
    let http2 = streams.is_some();
    match (issued.zip(tls), http2) {
        (Some((i, client)), true) => (over_tls(addr), Transport::H2(i.files.kind, client)),
        (Some((i, _)), false) => (over_tls(addr), Transport::Tls(&i.files)),
        (None, true) => (addr.to_string(), Transport::H2c),
        (None, false) => (addr.to_string(), Transport::Clear),
    }
}

/// The Host of a server over TLS at `addr`.
fn over_tls(addr: SocketAddr) -> String {
    format!("{SERVER_NAME}:{}", addr.port())
}

/// The server a load watches: one shootout started (its process group, stopped when
/// dropped), or one that was already running (its process tree, when its process is
/// known).
pub(super) enum Watched<'s> {
    Started(Server),
    Running(&'s RunningServer),
}

impl Watched<'_> {
    /// The processes whose CPU and memory are the server's.
    pub(super) fn members(&self) -> Members {
        match self {
            Watched::Started(server) => Members::Group(server.pid()),
            Watched::Running(r) => r.pid.map_or(Members::Unknown, Members::Tree),
        }
    }

    /// False when a server shootout started exited. A running server's process may
    /// exit without the server going (a wrapper): its load's errors tell.
    pub(super) fn alive(&mut self) -> bool {
        match self {
            Watched::Started(server) => server.alive(),
            Watched::Running(_) => true,
        }
    }

    /// Why its CPU cannot be attributed to it, or None when it can.
    pub(super) fn unattributed(&self) -> Option<String> {
        match self {
            Watched::Started(_) => None,
            Watched::Running(r) => r.unattributed(),
        }
    }

    /// Stops a server shootout started; one already running is left as it is.
    pub(super) fn stop(&mut self) {
        if let Watched::Started(server) = self {
            server.stop();
        }
    }
}

/// One load's result, the server watched during it, and how long it took.
pub(super) struct Watching {
    pub(super) result: Result<LoadResult, RunFailure>,
    pub(super) series: Vec<Point>,
    pub(super) load_s: f64,
}

/// Runs one load from the generator's CPUs, sampling the server's processes and the
/// database's.
pub(super) fn watched_load(
    cell: &MatrixCell,
    (spec, config): (&LoadSpec, &engine::LoadConfig),
    ready: &Ready,
    controls: &super::Controls,
) -> Watching {
    // Best effort, as taskset: a kernel that refuses leaves the generator unpinned, and
    // the verdict's CPU samples show it.
    let pinned = (cell.layout.generator.as_deref()).and_then(|cpus| Pinned::thread(cpus).ok());
    let monitor = Monitor::start(ready.watched.members(), ready.database);
    let t0 = Instant::now();
    let result = generate(cell, (spec, config), controls);
    let load_s = t0.elapsed().as_secs_f64();
    let series = monitor.finish();
    drop(pinned);
    Watching {
        result,
        series,
        load_s,
    }
}

/// Loads the server from the generator's CPUs, watching it, and judges the load.
fn load(
    cell: &MatrixCell,
    (spec, config): (&LoadSpec, &engine::LoadConfig),
    ready: &mut Ready,
    controls: &super::Controls,
) -> Measurement {
    let w = watched_load(cell, (spec, config), ready, controls);
    let server = &mut ready.watched;
    let side = ServerSide {
        alive: server.alive(),
        unattributed: server.unattributed(),
    };
    let (server_cpu_s, peak_rss_kb) = match side.unattributed {
        None => judge::server_usage(&w.series, cell.warmup),
        Some(_) => (0.0, 0),
    };
    let outcome = judge::judge(w.result, &w.series, cell, side, controls.interrupt);
    Measurement {
        outcome,
        series: w.series,
        server_cpu_s,
        peak_rss_kb,
        load_s: w.load_s,
        capacity: None,
    }
}

/// The load run by the cell's generators: this process's loops, or shards started on
/// one barrier and merged.
fn generate(
    cell: &MatrixCell,
    (spec, config): (&LoadSpec, &engine::LoadConfig),
    controls: &super::Controls,
) -> Result<LoadResult, RunFailure> {
    let cpus = cell.layout.generator.as_deref();
    let launcher = generators::launcher(&cell.load.generators, cpus, controls.push)?;
    let Some(launcher) = launcher else {
        let load = engine::check(config)?;
        return Ok(engine::run_watched(
            &load,
            controls.interrupt,
            controls.live,
        )?);
    };
    Ok(fleet::run(launcher.as_ref(), spec, controls.interrupt)?)
}

/// The load of one run of `cell` against the server `ready` (at its address, named by
/// its host in the requests, over TLS with its client when it has one): its endpoint's
/// request (a WebSocket load: its messages, at the server's echo) and its load's pace, as
/// the spec shards receive and as this process runs it.
pub(super) fn load_spec(
    cell: &MatrixCell,
    ready: &Ready,
) -> Result<(LoadSpec, engine::LoadConfig), engine::SpecError> {
    let host = &ready.host;
    let mut spec = match (&cell.load.websocket, ready.tls.clone()) {
        (Some(ws), _) => {
            let path = ready.echo.as_deref().unwrap_or(&cell.endpoint.path);
            let mut spec = LoadSpec::new(engine::parse_url(&format!("ws://{host}{path}"))?);
            spec.websocket = ws.clone();
            spec
        }
        (None, None) => cell.endpoint.load_spec(host)?,
        (None, Some(tls)) => LoadSpec {
            tls,
            ..cell.endpoint.load_spec_over_tls(host)?
        },
    };
    spec.connections = cell.connections;
    let generator = cell.layout.generator.as_ref();
    spec.threads = Some(generator.map_or(engine::allowed_cpus(), Vec::len));
    spec.keepalive = cell.load.keepalive;
    spec.http10 = cell.load.http10;
    spec.pipeline = cell.load.pipeline;
    spec.http2 = cell.streams.is_some();
    spec.streams = cell.streams.unwrap_or_else(engine::defaults::streams);
    spec.timeout = cell.load.timeout;
    spec.pace = cell.pace.clone();
    spec.warmup = cell.warmup;
    spec.stop = Some(engine::Stop::After(cell.measured));
    let config = spec.resolve_at(ready.addr)?;
    Ok((spec, config))
}
