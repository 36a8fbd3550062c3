//! docs/your-server.md, run as written: its server and experiment copied to a temporary
//! folder outside the repository, and the commands of its first `sh` block run there one
//! by one, with SHOOTOUT_ROOT unset and HOME / XDG_DATA_HOME in the folder (so results
//! land there). Two changes to the experiment: `[verdict]` lets foreign CPU through, since
//! the tests of the suite run side by side and load the same two cores; and its loads are
//! shorter and repeated twice, not three times (each run of the guide's own settings
//! spends 36 s under load, and the guide runs it twice), which no command or output
//! asserted here depends on.

use crate::checkout;

use checkout::{outside, run_to_end};
use std::path::{Path, PathBuf};
use std::process::Output;
use tempfile::TempDir;

/// The repository's docs/your-server* files.
fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

/// The shootout commands of the guide's first `sh` block, split into arguments.
fn guide_commands() -> Vec<Vec<String>> {
    let guide = std::fs::read_to_string(docs().join("your-server.md")).unwrap();
    let block = guide
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/your-server.md has a ```sh block");
    block
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| l.starts_with("shootout "))
        .map(|l| l.split_whitespace().skip(1).map(String::from).collect())
        .collect()
}

/// A fresh folder with the guide's server.py and mine.toml.
fn user_folder() -> TempDir {
    let folder = checkout::temp_folder("your-server");
    let tmp = folder.path();
    std::fs::create_dir_all(tmp.join("home")).unwrap();
    for file in ["server.py", "mine.toml"] {
        std::fs::copy(docs().join("your-server").join(file), tmp.join(file)).unwrap();
    }
    let toml = tmp.join("mine.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    for (guide, here) in [
        ("repeats = 3\n", "repeats = 2\n"),
        ("warmup = \"1s\"\n", "warmup = \"0.2s\"\n"),
        ("duration = \"2s\"\n", "duration = \"1s\"\n"),
    ] {
        assert!(text.contains(guide), "mine.toml has {guide:?}");
        text = text.replace(guide, here);
    }
    text.push_str("\n[verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n");
    std::fs::write(&toml, text).unwrap();
    folder
}

/// `shootout ARGS` from `tmp`, as a user outside a checkout.
fn shootout(tmp: &Path, args: &[String]) -> (Output, String) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_to_end(&mut outside(tmp, &args))
}

#[test]
fn the_guide_runs_as_written() {
    let commands = guide_commands();
    assert_eq!(commands.len(), 5, "five commands: {commands:?}");
    let folder = user_folder();
    let tmp = folder.path();
    let mut said = Vec::new();
    for args in &commands {
        let (out, text) = shootout(tmp, args);
        assert_eq!(out.status.code(), Some(0), "shootout {args:?}:\n{text}");
        said.push(text);
    }
    // Both runs: both servers verified at level http, both endpoints ranked, stored.
    for run in &said[..2] {
        for name in ["mine", "mine-nodelay"] {
            assert!(
                run.contains(&format!("{name}: verified at level http")),
                "{run}"
            );
        }
        assert!(run.contains("/greet, layout split, keep-alive"), "{run}");
        assert!(run.contains("/echo, layout split, keep-alive"), "{run}");
        assert!(run.contains("thresholds: "), "{run}");
    }
    assert!(said[0].contains("stored as experiment 1"), "{}", said[0]);
    assert!(said[1].contains("stored as experiment 2"), "{}", said[1]);
    // results lists both; compare pairs their cells; the report prints the tables.
    assert!(said[2].contains("mine"), "{}", said[2]);
    assert!(said[3].contains("mine-nodelay"), "{}", said[3]);
    assert!(said[4].contains("| rank |"), "{}", said[4]);
    crossed_threshold_exits_99_with_its_table(tmp);
}

/// The same server as a CI gate it fails: `mine` (Nagle's ~40 ms per response) against
/// `p99<5ms`, one short run.
fn crossed_threshold_exits_99_with_its_table(tmp: &Path) {
    let gate = "name = \"gate\"\ncontestants = [\"mine\"]\nendpoints = [\"greet\"]\n\
                layouts = [\"split\"]\nrepeats = 1\nwarmup = \"0.5s\"\nduration = \"1s\"\n\
                [contestant.mine]\ncommand = \"python3 server.py {port}\"\nverify = \"http\"\n\
                [endpoint.greet]\npath = \"/greet\"\nexpect = { status = 200, body = \"hi\" }\n\
                [[loads]]\nname = \"keep-alive\"\nconnections = [8]\n\
                [thresholds]\nmine = [\"p99<5ms\"]\n\
                [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n";
    std::fs::write(tmp.join("gate.toml"), gate).unwrap();
    let (out, text) = shootout(tmp, &["run".into(), "gate.toml".into()]);
    assert_eq!(out.status.code(), Some(99), "{text}");
    assert!(text.contains("thresholds crossed: 1 of 1"), "{text}");
    assert!(text.contains("p99<5ms"), "{text}");
}
