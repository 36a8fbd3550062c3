//! `shootout completions SHELL`: the shell's completion script for every subcommand and
//! flag, on stdout (clap_complete writes it from the same definitions clap parses).

use super::WorkFailed;
use anyhow::Context;
use clap::Args;
use clap_complete::Shell;
use std::io::Write;

/// Flags of `shootout completions`.
#[derive(Debug, Args)]
#[command(after_help = "\
Load the script in the running shell, or install it where the shell looks:
  bash: source <(shootout completions bash)
        shootout completions bash > ~/.local/share/bash-completion/completions/shootout
  zsh:  shootout completions zsh > ~/.zfunc/_shootout   (with fpath+=~/.zfunc before compinit)
  fish: shootout completions fish > ~/.config/fish/completions/shootout.fish")]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the completion script of `cli` for the asked shell.
pub fn run(args: CompletionsArgs, mut cli: clap::Command) -> anyhow::Result<()> {
    // Into memory first: clap_complete panics when its writer fails (e.g. a full disk).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "shootout", &mut script);
    std::io::stdout()
        .write_all(&script)
        .map_err(|e| WorkFailed(e.into()))
        .context("writing the completion script")
}
