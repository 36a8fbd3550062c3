//! A command-line mistake as one line, like every other bad input: clap's first line,
//! its "did you mean" (which clap prints as a tip lines below, where one line would cut
//! it), and which --help has the details.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;

/// E.g. `unrecognized subcommand 'rnu' (did you mean 'run'? see shootout --help)`, for
/// the mistake `e` that `cli` found in `args` (the program's name first).
pub fn one_line(e: &clap::Error, cli: &clap::Command, args: &[OsString]) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("error: bad arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // clap lists what is missing on the lines below its first, which one line would cut.
    let first = match missing(e) {
        Some(names) => format!("{first} {names}"),
        None => first.to_string(),
    };
    let help = format!("see {} --help", command_path(e, cli, args));
    let mut names = similar(e);
    if names.is_empty() {
        names = swapped_subcommand(e, cli);
    }
    let quoted = |names: &[String], or: &str| {
        let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        quoted.join(or)
    };
    let values = valid_values(e);
    match (names.as_slice(), values.as_slice()) {
        ([], []) => format!("{first} ({help})"),
        // Nothing close to a bad value: the values there are (clap's line below the first).
        ([], values) => format!("{first} (one of {}; {help})", quoted(values, ", ")),
        (names, _) => format!("{first} (did you mean {}? {help})", quoted(names, " or ")),
    }
}

/// The arguments a command needs and did not get (`--cert <FILE>`), comma-separated.
fn missing(e: &clap::Error) -> Option<String> {
    match (e.kind(), e.get(ContextKind::InvalidArg)) {
        (ErrorKind::MissingRequiredArgument, Some(ContextValue::Strings(names))) => {
            Some(names.join(", "))
        }
        _ => None,
    }
}

/// The values a flag or argument takes, when the mistake is a value it does not.
fn valid_values(e: &clap::Error) -> Vec<String> {
    match (e.kind(), e.get(ContextKind::ValidValue)) {
        (ErrorKind::InvalidValue, Some(ContextValue::Strings(values))) => values.clone(),
        _ => Vec::new(),
    }
}

/// The names clap found close to the mistake: subcommands, flags or values.
fn similar(e: &clap::Error) -> Vec<String> {
    let kinds = [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
    ];
    kinds
        .into_iter()
        .filter_map(|kind| e.get(kind))
        .flat_map(|value| match value {
            ContextValue::String(name) => vec![name.clone()],
            ContextValue::Strings(names) => names.clone(),
            _ => Vec::new(),
        })
        .collect()
}

/// The subcommands one edit (a swapped pair included) away from an unknown one. clap's
/// measure (Jaro above 0.7) misses a swapped pair in a name as short as `run` (`rnu`
/// scores 0.56); the edit distance is strsim's, the crate clap measures with.
fn swapped_subcommand(e: &clap::Error, cli: &clap::Command) -> Vec<String> {
    if e.kind() != ErrorKind::InvalidSubcommand {
        return Vec::new();
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return Vec::new();
    };
    cli.get_subcommands()
        .map(|s| s.get_name())
        .filter(|name| strsim::osa_distance(typed, name) == 1)
        .map(str::to_string)
        .collect()
}

/// The (sub)command whose help has the details, e.g. `shootout load`: the one whose
/// usage the error quotes, else the subcommand named first in `args`, else `shootout`.
fn command_path(e: &clap::Error, cli: &clap::Command, args: &[OsString]) -> String {
    if let Some(ContextValue::StyledStr(usage)) = e.get(ContextKind::Usage) {
        let usage = usage.to_string();
        let words: Vec<&str> = usage
            .lines()
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .skip_while(|w| *w == "Usage:")
            .take_while(|w| !w.starts_with(['[', '<', '-']))
            .collect();
        if !words.is_empty() {
            return words.join(" ");
        }
    }
    // Errors about a value quote no usage: the subcommand is the first word that is no flag.
    named_path(cli, args)
}

/// `cli`'s name and the subcommands `args` name after it, nested ones too (`k8s job`).
fn named_path(cli: &clap::Command, args: &[OsString]) -> String {
    let word = first_word(cli, args);
    match word.and_then(|w| cli.find_subcommand(w)) {
        Some(sub) => {
            // The subcommand's word stands for its program name in what follows.
            let at = args.iter().skip(1).position(|a| a.to_str() == word);
            let rest = &args[at.map_or(args.len(), |i| i + 1)..];
            format!("{} {}", cli.get_name(), named_path(sub, rest))
        }
        None => cli.get_name().to_string(),
    }
}

/// The first word of `args` that is neither a flag nor the value of one of `cli`'s own
/// flags (`--root DIR` before the subcommand): where the subcommand is.
fn first_word<'a>(cli: &clap::Command, args: &'a [OsString]) -> Option<&'a str> {
    let mut words = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(word) = words.next() {
        if !word.starts_with('-') {
            return Some(word);
        }
        if takes_value(cli, word) {
            words.next();
        }
    }
    None
}

/// Whether `flag`, as typed (`--root` or `-r`; `--root=DIR` carries its value), is one
/// of `cli`'s flags that takes a value.
fn takes_value(cli: &clap::Command, flag: &str) -> bool {
    let long = flag.strip_prefix("--");
    let short = flag.strip_prefix('-').filter(|s| s.chars().count() == 1);
    cli.get_arguments()
        .filter(|a| a.get_action().takes_values())
        .any(|a| match (long, short) {
            (Some(long), _) => a.get_long() == Some(long),
            (None, Some(short)) => short.chars().next() == a.get_short(),
            (None, None) => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

    #[derive(Debug, Parser)]
    #[command(name = "shootout")]
    struct Cli {
        #[arg(long, global = true)]
        root: Option<String>,
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Debug, Subcommand)]
    enum Command {
        Run,
        Load {
            #[arg(long)]
            connections: Option<usize>,
            #[arg(long)]
            cert: Option<String>,
            #[arg(long, requires = "cert")]
            key: Option<String>,
            #[arg(long, value_enum)]
            format: Option<Format>,
        },
    }

    #[derive(Debug, Clone, ValueEnum)]
    enum Format {
        Text,
        Webbench,
    }

    fn error(args: &[&str]) -> String {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let e = Cli::try_parse_from(&args).expect_err("a mistake");
        one_line(&e, &Cli::command(), &args)
    }

    #[test]
    fn a_mistake_is_one_line_with_what_was_meant() {
        assert_eq!(
            error(&["shootout", "rnu"]),
            "unrecognized subcommand 'rnu' (did you mean 'run'? see shootout --help)"
        );
        assert_eq!(
            error(&["shootout", "load", "--conections", "4"]),
            "unexpected argument '--conections' found \
             (did you mean '--connections'? see shootout load --help)"
        );
        assert_eq!(
            error(&["shootout", "load", "--format", "webbenhc"]),
            "invalid value 'webbenhc' for '--format <FORMAT>' \
             (did you mean 'webbench'? see shootout load --help)"
        );
        assert_eq!(
            error(&["shootout", "load", "--format", "x"]),
            "invalid value 'x' for '--format <FORMAT>' \
             (one of 'text', 'webbench'; see shootout load --help)"
        );
        assert_eq!(
            error(&["shootout", "load", "--zzz"]),
            "unexpected argument '--zzz' found (see shootout load --help)"
        );
        assert_eq!(
            error(&["shootout", "zzz"]),
            "unrecognized subcommand 'zzz' (see shootout --help)"
        );
        assert_eq!(
            error(&["shootout", "load", "--key", "k.pem"]),
            "the following required arguments were not provided: --cert <CERT> \
             (see shootout load --help)"
        );
    }

    #[test]
    fn a_global_flags_value_is_not_taken_for_the_subcommand() {
        assert_eq!(
            error(&["shootout", "--root", "DIR", "load", "--conections", "1"]),
            "unexpected argument '--conections' found \
             (did you mean '--connections'? see shootout load --help)"
        );
        // A folder named like a subcommand is still the flag's value.
        assert_eq!(
            error(&["shootout", "--root", "run", "load", "--format", "x"]),
            "invalid value 'x' for '--format <FORMAT>' \
             (one of 'text', 'webbench'; see shootout load --help)"
        );
        assert_eq!(
            error(&["shootout", "--root=run", "load", "--format", "x"]),
            "invalid value 'x' for '--format <FORMAT>' \
             (one of 'text', 'webbench'; see shootout load --help)"
        );
    }
}
