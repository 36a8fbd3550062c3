//! `shootout-testserver BEHAVIOR [--port P]`: serves one behavior until Ctrl-C, for manual checks.

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use testserver::{Behavior, BehaviorError, TestServer};

const USAGE: &str = "usage: shootout-testserver BEHAVIOR [--port P]
behaviors: hello, delay:20ms, status:503, malformed-status-line, long-content-length,
  short-content-length, reset-mid-response, invalid-chunk-size, chunked, chunked-bare-lf,
  chunk-size-trailing-space, huge-headers:40000, never-answer, close-after:3, close-idle:50ms, interim, connection-close,
  http10-close-delimited, stall-after:100, pause-after:100,1s";

/// What the command line asks for.
enum Command {
    Serve {
        behavior: Behavior,
        port: u16,
    },
    /// `-h`, `--help`: print the usage and succeed.
    Usage,
}

/// A command line that is not `BEHAVIOR [--port P]`.
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
    let (behavior, port) = match parse_args(std::env::args().skip(1)) {
        Ok(Command::Serve { behavior, port }) => (behavior, port),
        Ok(Command::Usage) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = match TestServer::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)), behavior) {
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

/// Reads `BEHAVIOR [--port P]`.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Command, ArgsError> {
    let mut behavior = None;
    let mut port = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Usage),
            "--port" => {
                let value = args.next().ok_or(ArgsError::NoPort)?;
                port = value.parse().map_err(|_| ArgsError::BadPort(value))?;
            }
            _ if behavior.is_none() => behavior = Some(arg.parse()?),
            _ => return Err(ArgsError::Unexpected(arg)),
        }
    }
    let behavior = behavior.ok_or(ArgsError::NoBehavior)?;
    Ok(Command::Serve { behavior, port })
}
