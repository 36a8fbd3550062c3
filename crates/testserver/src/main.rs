//! `shootout-testserver BEHAVIOR [--tls] [--port P]`: serves one behavior until Ctrl-C, for
//! manual checks.

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use testserver::{Behavior, BehaviorError, H2Behavior, TestPki, TestServer, Tls, WsBehavior};

const USAGE: &str = "usage: shootout-testserver BEHAVIOR [--tls] [--port P]
behaviors: hello, delay:20ms, status:503, malformed-status-line, long-content-length,
  short-content-length, reset-mid-response, invalid-chunk-size, chunked, chunked-bare-lf,
  chunk-size-trailing-space, huge-headers:40000, never-answer, close-after:3, close-idle:50ms, interim, connection-close,
  http10-close-delimited, stall-after:100, pause-after:100,1s, workers:4,10ms, sum, sum-cached
workload endpoints from a folder shootout wrote (items.json, static/): workloads:DIR, and the
  cheats workloads-cached:DIR, workloads-echo-length:DIR, workloads-preserialised:DIR,
  workloads-wrong-type:DIR, workloads-no-date:DIR
database endpoints against DATABASE_URL: database, database:cached-db,
  database:unsorted-fortunes, database:unescaped-fortunes, database:updates-write-fewer
HTTP/2 (h2c, or ALPN h2 with --tls): h2:hello, h2:delay:20ms, h2:status:503, h2:body:100000,
  h2:bad-preface, h2:oversized-frame-after:3, h2:zero-window, h2:window-stops-after:100000,
  h2:goaway-after:100, h2:rst-every:3,refused, h2:rst-every:3,internal, h2:hpack-garbage-after:3,
  h2:max-concurrent:1, h2:ping-flood:3, h2:protocol-error-after:3, h2:no-status, h2:close-after:3
WebSocket (ws://, or wss:// with --tls): ws:echo, ws:ping-every:3, ws:fragmented,
  ws:wrong-accept, ws:refuse, ws:masked-frame, ws:invalid-utf8, ws:reserved-bits,
  ws:ignore-close, ws:close-after:3, ws:too-long, ws:close-mid-message, ws:ping-flood:100
--tls: a certificate for localhost from a test CA made at start and kept nowhere (for
  clients that do not verify, such as h2load)";

/// A behavior of either protocol.
enum Serve {
    Http1(Behavior),
    H2(H2Behavior),
    Ws(WsBehavior),
}

/// What the command line asks for.
enum Command {
    Serve {
        serve: Serve,
        tls: bool,
        port: u16,
    },
    /// `-h`, `--help`: print the usage and succeed.
    Usage,
}

/// A command line that is not `BEHAVIOR [--tls] [--port P]`.
#[derive(Debug, thiserror::Error)]
enum ArgsError {
    #[error("--port needs a value")]
    NoPort,
    #[error("bad port `{0}`")]
    BadPort(String),
    #[error("unexpected argument `{0}`")]
    Unexpected(String),
    #[error("missing BEHAVIOR")]
    NoBehavior,
    #[error(transparent)]
    Behavior(#[from] BehaviorError),
}

fn main() -> ExitCode {
    let (serve, tls, port) = match parse_args(std::env::args().skip(1)) {
        Ok(Command::Serve { serve, tls, port }) => (serve, tls, port),
        Ok(Command::Usage) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let tls = match tls.then(test_tls).transpose() {
        Ok(tls) => tls,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let started = match serve {
        Serve::Http1(behavior) => TestServer::bind_tls(addr, behavior, tls),
        Serve::H2(behavior) => TestServer::bind_h2(addr, behavior, tls),
        Serve::Ws(behavior) => TestServer::bind_ws(addr, behavior, tls),
    };
    let server = match started {
        Ok(server) => server,
        Err(e) => {
            eprintln!("cannot listen on port {port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", server.url("/"));
    // Ctrl-C ends the process; the server lives until then.
    loop {
        std::thread::park();
    }
}

/// A TLS side with a fresh test certificate.
fn test_tls() -> Result<Tls, testserver::PkiError> {
    Ok(Tls::new(TestPki::new()?.server_config()?))
}

/// Reads `BEHAVIOR [--tls] [--port P]`.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Command, ArgsError> {
    let mut serve = None;
    let mut tls = false;
    let mut port = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Usage),
            "--tls" => tls = true,
            "--port" => {
                let value = args.next().ok_or(ArgsError::NoPort)?;
                port = value.parse().map_err(|_| ArgsError::BadPort(value))?;
            }
            _ if serve.is_none() && arg.starts_with("ws:") => {
                serve = Some(Serve::Ws(arg.parse()?));
            }
            _ if serve.is_none() && arg.starts_with("h2:") => {
                serve = Some(Serve::H2(arg.parse()?));
            }
            _ if serve.is_none() => serve = Some(Serve::Http1(arg.parse()?)),
            _ => return Err(ArgsError::Unexpected(arg)),
        }
    }
    let serve = serve.ok_or(ArgsError::NoBehavior)?;
    Ok(Command::Serve { serve, tls, port })
}
