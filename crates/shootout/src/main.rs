//! `shootout`: a web-server shoot-out people can trust. This binary is a thin shell over
//! the `shootout` library (harness, record, store, report) and the `engine`; see `cli`
//! for the commands.

mod cli;

fn main() {
    // Like any Unix tool, end quietly when a reader such as `head` closes stdout
    // (Rust ignores SIGPIPE by default, which turns that into a panic on print).
    // SAFETY: restoring a default signal disposition at start-up, before any thread.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    std::process::exit(cli::main());
}
