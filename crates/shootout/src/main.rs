//! `shootout`: a web-server shoot-out people can trust. This binary is a thin shell over
//! the `shootout` library (harness, record, store, report) and the `engine`; see `cli`
//! for the commands.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Like any Unix tool, end quietly when a reader such as `head` closes stdout
    // (Rust ignores SIGPIPE by default, which turns that into a panic on print).
    // SAFETY: restoring a default signal disposition at start-up, before any thread.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    cli::run().unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        cli::exit_code(&e)
    })
}
