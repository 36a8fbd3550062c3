//! shootout in a user's shell: completion scripts, the manual page, and mistakes answered
//! with what was meant, in one line.

use std::path::PathBuf;
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

/// A folder of this test's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("shootout-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
    assert_suggests(
        &["completions", "tcsh"],
        "invalid value 'tcsh' for '<SHELL>' (did you mean 'zsh'? see shootout completions --help)",
    );
    // Nothing close: the values there are.
    assert_suggests(
        &["completions", "cmd"],
        "invalid value 'cmd' for '<SHELL>' \
         (one of 'bash', 'elvish', 'fish', 'powershell', 'zsh'; see shootout completions --help)",
    );
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
    let dir = TempDir::new("man");
    let path = dir.0.to_str().expect("a UTF-8 temp path");
    stdout_of(&["man", "--dir", path]);
    let load = std::fs::read_to_string(dir.0.join("shootout-load.1")).expect("shootout-load.1");
    assert!(load.contains("\\-\\-connections"), "{load:.400}");
    assert!(load.contains("\\-\\-latency"), "{load:.400}");
    for page in
        std::iter::once("shootout".to_string()).chain(names.iter().map(|n| format!("shootout-{n}")))
    {
        assert!(dir.0.join(format!("{page}.1")).is_file(), "no {page}.1");
    }
    let missing = shootout(&["man", "--dir", &format!("{path}/nope")]);
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{err}");
    assert!(err.contains("nope: no such folder"), "{err}");
}

/// Asserts a mistake answered in one line naming what was meant, exit 2, nothing on stdout.
fn assert_suggests(args: &[&str], line: &str) {
    let out = shootout(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err, format!("error: {line}\n"), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn misspellings_are_one_line_with_what_was_meant() {
    assert_suggests(
        &["rnu"],
        "unrecognized subcommand 'rnu' (did you mean 'run'? see shootout --help)",
    );
    assert_suggests(
        &["load", "http://127.0.0.1:1/", "--conections", "4"],
        "unexpected argument '--conections' found \
         (did you mean '--connections'? see shootout load --help)",
    );
    assert_suggests(
        &["load", "http://127.0.0.1:1/", "--format", "webbenhc"],
        "invalid value 'webbenhc' for '--format <FORMAT>' \
         (did you mean 'webbench'? see shootout load --help)",
    );
    // Nothing close: no guess, the same one line.
    assert_suggests(
        &["zzzz"],
        "unrecognized subcommand 'zzzz' (see shootout --help)",
    );
}
