//! `shootout`: a web-server shoot-out people can trust. This binary is a thin shell over
//! the `engine` library; see `cli` for the commands.

mod cli;
mod report;

fn main() {
    std::process::exit(cli::main());
}
