//! `shootout man`: the manual page, written by clap_mangen from the same definitions clap
//! parses, so that it never drifts from `--help`.

use super::WorkFailed;
use anyhow::Context;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `shootout man`.
#[derive(Debug, Args)]
#[command(after_help = "\
Read it with: shootout man | man -l -
Install the pages: shootout man --dir ~/.local/share/man/man1")]
pub struct ManArgs {
    /// Write one page per command into DIR (shootout.1, shootout-load.1, ...) instead
    /// of printing shootout's own page
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the page of `cli`, or writes every command's page into `--dir`.
pub fn run(args: ManArgs, cli: clap::Command) -> anyhow::Result<()> {
    match args.dir {
        Some(dir) => write_pages(cli, &dir),
        None => print_page(cli),
    }
}

fn print_page(cli: clap::Command) -> anyhow::Result<()> {
    let mut page = Vec::new();
    // As generate_to does for --dir: clap's `help` subcommand has no page to point to.
    clap_mangen::Man::new(cli.disable_help_subcommand(true))
        .render(&mut page)
        .and_then(|()| std::io::stdout().write_all(&page))
        .map_err(|e| WorkFailed(e.into()))
        .context("writing the manual page")
}

/// The folder must exist: a mistyped path is bad input, not a folder to make.
fn write_pages(cli: clap::Command, dir: &std::path::Path) -> anyhow::Result<()> {
    if !dir.is_dir() {
        anyhow::bail!("--dir {}: no such folder", dir.display());
    }
    clap_mangen::generate_to(cli, dir)
        .map_err(|e| WorkFailed(e.into()))
        .with_context(|| format!("writing the manual pages into {}", dir.display()))
}
