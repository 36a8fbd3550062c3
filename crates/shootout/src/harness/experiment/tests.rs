use super::*;
use engine::Pace;

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shootout-exp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn message(r: Result<Experiment, ExperimentError>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn reads_a_matrix_and_names_file_line_and_field_on_mistakes() {
    let good = write(
        "good.toml",
        "name = \"q\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"ka\"\nconnections = [10, 100]\n",
    );
    let e = read(&good, None).unwrap();
    assert_eq!(
        (e.repeats, e.endpoints[0].as_str(), e.loads[0].levels.len()),
        (1, "hello", 2)
    );
    assert_eq!(
        (e.warmup, e.duration),
        (Duration::from_secs(1), Duration::from_secs(10))
    );
    let typo = write(
        "typo.toml",
        "name = \"q\"\ncontestants = [\"a\"]\nrepeat = 3\n",
    );
    let msg = message(read(&typo, None));
    assert!(
        msg.contains("typo.toml: line 3, column 1: unknown field `repeat`"),
        "{msg}"
    );
    let bad = write(
        "bad.toml",
        "name = \"q\"\ncontestants = [\"a\"]\nlayouts = [\"server:x\"]\n[[loads]]\nname = \"k\"\nconnections = [1]\n",
    );
    assert!(message(read(&bad, None)).contains("bad.toml: layouts:"));
}

#[test]
fn rate_and_device_loads_and_profiles() {
    let text = "name = \"r\"\ncontestants = [\"a\", \"b\"]\nduration = \"5s\"\n\
        [[loads]]\nname = \"open\"\nrate = [\"1000\", \"0,5000:20s\"]\n\
        [[loads]]\nname = \"ramp\"\ndevices = { stages = \"0,300:10s,300:5s\" }\n\
        [profiles.full]\nrepeats = 3\nduration = \"30s\"\n";
    let e = read(&write("rate.toml", text), None).unwrap();
    assert_eq!(e.loads[0].levels, vec![100]);
    assert_eq!(e.loads[1].levels, vec![300]);
    assert_eq!(e.run_count(), 2 * (2 + 1));
    let cells = e.cells();
    let ramp = &cells[2];
    assert!(matches!(ramp.pace, Pace::Devices(_)));
    assert_eq!(
        (ramp.warmup, ramp.measured),
        (Duration::ZERO, Duration::from_secs(15))
    );
    // A constant rate gets the experiment's times (or the load's own), a staged one its stages.
    assert_eq!(cells[0].measured, Duration::from_secs(5));
    assert_eq!(cells[1].measured, Duration::from_secs(20));
    let mut own = e.clone();
    own.loads[0].duration = Some(Duration::from_secs(2));
    assert_eq!(own.cells()[0].measured, Duration::from_secs(2));
    let full = read(&write("rate.toml", text), Some("full")).unwrap();
    assert_eq!(
        (full.name.as_str(), full.repeats, full.duration),
        ("r:full", 3, Duration::from_secs(30))
    );
    let missing = message(read(&write("rate.toml", text), Some("huge")));
    assert!(
        missing.contains("profile \"huge\" is not defined (defined: full)"),
        "{missing}"
    );
    let both = "name = \"r\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"x\"\nrate = [\"10\"]\n\
        devices = { stages = \"0,5:1s\" }\n";
    let msg = message(read(&write("both.toml", both), None));
    assert!(
        msg.ends_with("both.toml: loads \"x\": a load has either rate or devices, not both"),
        "{msg}"
    );
    let bad_profile = "name = \"r\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"x\"\n\
        connections = [1]\n[profiles.full]\nlayouts = [\"bogus\"]\n";
    let msg = message(read(&write("prof.toml", bad_profile), None));
    assert!(msg.contains("prof.toml: profiles.full: layouts:"), "{msg}");
}

#[test]
fn every_shipped_experiment_and_profile_reads_and_names_known_contestants() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cat = crate::harness::catalog::Catalog::load(&root).unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("experiments")).unwrap() {
        let path = entry.unwrap().path();
        let file: file::ExperimentFile = crate::toml_file::read(&path).unwrap();
        let plain = read(&path, None).unwrap_or_else(|m| panic!("{m}"));
        plain.check_contestants(&cat, &path).unwrap();
        for name in file.profiles.keys() {
            let e = read(&path, Some(name)).unwrap_or_else(|m| panic!("{m}"));
            e.check_contestants(&cat, &path).unwrap();
        }
        seen += 1;
    }
    assert!(seen >= 5, "experiments/ holds quick and the four articles");
}
