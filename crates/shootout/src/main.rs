//! `shootout`: a web-server shoot-out people can trust. This binary is a thin shell over
//! the `engine` library; see `cli` for the commands.

mod cli;
mod harness;
mod report;
mod store;
mod toml_file;

fn main() {
    // Like any Unix tool, end quietly when a reader such as `head` closes stdout
    // (Rust ignores SIGPIPE by default, which turns that into a panic on print).
    // SAFETY: restoring a default signal disposition at start-up, before any thread.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    std::process::exit(cli::main());
}
