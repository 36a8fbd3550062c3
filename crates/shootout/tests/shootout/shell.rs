//! shootout in a user's shell: completion scripts, the manual page, and mistakes answered
//! with what was meant, in one line.

use std::process::{Command, Output};

fn shootout(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(args)
        .output()
        .expect("the shootout binary runs")
}

fn stdout_of(args: &[&str]) -> String {
    let out = shootout(args);
    assert!(
        out.status.success(),
        "shootout {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The subcommands `shootout --help` lists (clap's own `help` aside).
fn subcommands() -> Vec<String> {
    let help = stdout_of(&["--help"]);
    let names: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    for expected in ["load", "run", "compare", "completions", "man"] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
    }
    names
}

#[test]
fn completion_scripts_name_every_subcommand() {
    let names = subcommands();
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        for name in &names {
            assert!(script.contains(name.as_str()), "{shell}: no {name}");
        }
        // Flags of subcommands too, e.g. load's.
        assert!(script.contains("connections"), "{shell}: no --connections");
    }
}

#[test]
fn bash_loads_the_completion_script() {
    let bin = env!("CARGO_BIN_EXE_shootout");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source <('{bin}' completions bash) && complete -p shootout"
        ))
        .output()
        .expect("bash runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("-F _shootout shootout"), "{said}");
}

#[test]
fn an_unknown_shell_is_one_line_and_exit_2() {
    assert_suggests("unknown_shell_near", &["completions", "tcsh"]);
    // Nothing close: the values there are.
    assert_suggests("unknown_shell_far", &["completions", "cmd"]);
}

#[test]
fn the_manual_page_names_every_subcommand() {
    let names = subcommands();
    let page = stdout_of(&["man"]);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq"),
        "not roff: {page:.80}"
    );
    assert!(page.contains(".TH shootout 1"), "{page:.200}");
    for name in &names {
        assert!(page.contains(&format!("shootout\\-{name}(1)")), "no {name}");
    }
}

#[test]
fn the_manual_has_a_page_per_subcommand_in_dir() {
    let names = subcommands();
    let dir = tempfile::Builder::new()
        .prefix("shootout-man-")
        .tempdir()
        .expect("a temporary folder");
    let path = dir.path().to_str().expect("a UTF-8 temp path");
    stdout_of(&["man", "--dir", path]);
    let load =
        std::fs::read_to_string(dir.path().join("shootout-load.1")).expect("shootout-load.1");
    assert!(load.contains("\\-\\-connections"), "{load:.400}");
    assert!(load.contains("\\-\\-latency"), "{load:.400}");
    for page in
        std::iter::once("shootout".to_string()).chain(names.iter().map(|n| format!("shootout-{n}")))
    {
        assert!(
            dir.path().join(format!("{page}.1")).is_file(),
            "no {page}.1"
        );
    }
    let missing = shootout(&["man", "--dir", &format!("{path}/nope")]);
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{err}");
    assert!(err.contains("nope: no such folder"), "{err}");
}

/// Asserts a mistake answered in one line naming what was meant, exit 2, nothing on
/// stdout; the line is the snapshot `name` (snapshots/ beside this file), the command its description.
fn assert_suggests(name: &str, args: &[&str]) {
    let out = shootout(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert!(
        err.ends_with('\n') && err.lines().count() == 1,
        "{args:?}: {err:?}"
    );
    insta::with_settings!({
        description => format!("shootout {}", args.join(" ")),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, err);
    });
}

#[test]
fn misspellings_are_one_line_with_what_was_meant() {
    assert_suggests("misspelt_subcommand", &["rnu"]);
    let url = "http://127.0.0.1:1/";
    assert_suggests("misspelt_flag", &["load", url, "--conections", "4"]);
    assert_suggests("misspelt_value", &["load", url, "--format", "webbenhc"]);
    // Nothing close: no guess, the same one line.
    assert_suggests("unknown_subcommand", &["zzzz"]);
}
