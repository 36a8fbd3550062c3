//! `shootout`: a web-server shoot-out people can trust. This binary is a thin shell over
//! the `shootout` library (harness, record, store, report) and the `engine`; see `cli`
//! for the commands.

mod cli;

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// Always true: a broken pipe always ends the process (see `main`).
static END_ON_BROKEN_PIPE: AtomicBool = AtomicBool::new(true);

fn main() -> ExitCode {
    // Like any Unix tool, end quietly when a reader such as `head` closes stdout
    // (Rust ignores SIGPIPE by default, which turns that into a panic on print): SIGPIPE
    // takes its default action. Registration fails only for signals that cannot be caught.
    let _ = signal_hook::flag::register_conditional_default(
        signal_hook::consts::SIGPIPE,
        &END_ON_BROKEN_PIPE,
    );
    cli::run().unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        cli::exit_code(&e)
    })
}
