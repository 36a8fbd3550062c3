//! `shootout-testserver BEHAVIOR [--port P]`: serves one behavior until Ctrl-C, for manual checks.

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use testserver::{Behavior, TestServer};

const USAGE: &str = "usage: shootout-testserver BEHAVIOR [--port P]
behaviors: hello, delay:20ms, status:503, malformed-status-line, long-content-length,
  short-content-length, reset-mid-response, invalid-chunk-size, chunked, chunked-bare-lf,
  chunk-size-trailing-space, huge-headers:40000, never-answer, close-after:3, close-idle:50ms, interim, connection-close,
  http10-close-delimited, stall-after:100, pause-after:100,1s";

fn main() -> ExitCode {
    let (behavior, port) = match parse_args(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(msg) if msg.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("{msg}\n{USAGE}");
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
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<(Behavior, u16), String> {
    let mut behavior = None;
    let mut port = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // An empty error means "print the usage and succeed".
            "-h" | "--help" => return Err(String::new()),
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = value.parse().map_err(|_| format!("bad port `{value}`"))?;
            }
            _ if behavior.is_none() => behavior = Some(arg.parse()?),
            _ => return Err(format!("unexpected argument `{arg}`")),
        }
    }
    Ok((behavior.ok_or("missing BEHAVIOR")?, port))
}
