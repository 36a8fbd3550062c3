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
        (
            e.repeats,
            e.endpoints[0].name.as_str(),
            e.loads[0].levels.len()
        ),
        (Repeats::Fixed(1), "hello", 2)
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
        ("r:full", Repeats::Fixed(3), Duration::from_secs(30))
    );
    let missing = read(&write("rate.toml", text), Some("huge")).unwrap_err();
    assert!(
        missing
            .to_string()
            .ends_with("rate.toml: profile \"huge\" is not defined (defined: full)"),
        "{missing}"
    );
    assert!(
        matches!(&missing, ExperimentError::Profile { error, .. } if error.defined == ["full"]),
        "{missing}"
    );
    let both = "name = \"r\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"x\"\nrate = [\"10\"]\n\
        devices = { stages = \"0,5:1s\" }\n";
    let both = read(&write("both.toml", both), None).unwrap_err();
    assert!(
        both.to_string()
            .ends_with("both.toml: loads \"x\": a load has either rate or devices, not both"),
        "{both}"
    );
    // The same as data, for a caller that acts on it.
    let ExperimentError::Invalid { error, .. } = both else {
        panic!("{both}")
    };
    assert_eq!(error.field, FieldPath(vec![Segment::Load("x".into())]));
    assert!(matches!(error.problem, FieldProblem::RateAndDevices));
    let bad_profile = "name = \"r\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"x\"\n\
        connections = [1]\n[profiles.full]\nlayouts = [\"bogus\"]\n";
    let msg = message(read(&write("prof.toml", bad_profile), None));
    assert!(msg.contains("prof.toml: profiles.full: layouts:"), "{msg}");
}

/// An experiment with `repeats = REPEATS` (and a profile `sure` that repeats until sure).
fn with_repeats(name: &str, repeats: &str) -> std::path::PathBuf {
    let text = format!(
        "name = \"q\"\ncontestants = [\"a\"]\nrepeats = {repeats}\n\
         [[loads]]\nname = \"ka\"\nconnections = [10]\n\
         [profiles.sure]\nrepeats = {{ min = 2, max = 4, target = \"1%\" }}\n"
    );
    write(name, &text)
}

#[test]
fn repeats_are_a_number_or_until_sure() {
    let plain = read(&with_repeats("plain.toml", "3"), None).unwrap();
    assert_eq!(plain.repeats, Repeats::Fixed(3));
    assert_eq!((plain.run_count(), plain.most_runs()), (3, 3));
    let sure = UntilSure {
        min: 3,
        max: 12,
        target_percent: 5.0,
    };
    let table = with_repeats("table.toml", "{ min = 3, max = 12, target = \"5%\" }");
    let e = read(&table, None).unwrap();
    assert_eq!(e.repeats, Repeats::UntilSure(sure));
    assert_eq!((e.run_count(), e.most_runs()), (3, 12));
    let profiled = read(&table, Some("sure")).unwrap();
    assert_eq!((profiled.repeats.least(), profiled.repeats.most()), (2, 4));
}

#[test]
fn a_mistake_in_repeats_is_one_line_naming_the_field() {
    let cases = [
        (
            "{ min = 3, max = 12, target = \"x%\" }",
            "repeats: target: \"x%\" is not a percentage like \"5%\"",
        ),
        (
            "{ min = 3, max = 12, target = \"5\" }",
            "repeats: target: \"5\" is not a percentage like \"5%\"",
        ),
        (
            "{ min = 5, max = 3, target = \"5%\" }",
            "repeats: min (5) is above max (3)",
        ),
        (
            "{ min = 0, max = 3, target = \"5%\" }",
            "repeats: min: between 1 and 100",
        ),
        (
            "{ min = 1, max = 300, target = \"5%\" }",
            "repeats: max: between 1 and 100",
        ),
        ("0", "repeats: between 1 and 100"),
        (
            "{ min = 3, max = 12, goal = \"5%\" }",
            "unknown field `goal`, expected one of `min`, `max`, `target`",
        ),
        ("{ min = 3, max = 12 }", "missing field `target`"),
        ("\"5%\"", "a number of rounds, or { min, max, target }"),
    ];
    for (i, (repeats, expected)) in cases.into_iter().enumerate() {
        let msg = message(read(&with_repeats(&format!("r{i}.toml"), repeats), None));
        assert_eq!(msg.lines().count(), 1, "{msg}");
        assert!(msg.contains(expected), "{repeats}: {msg}");
        assert!(msg.contains(&format!("r{i}.toml: ")), "{msg}");
    }
}

#[test]
fn stored_definitions_give_back_their_repeats() {
    let text = std::fs::read_to_string(with_repeats("stored.toml", "4")).unwrap();
    assert_eq!(stored_repeats(&text, "q"), Some(Repeats::Fixed(4)));
    let sure = stored_repeats(&text, "q:sure").unwrap();
    assert_eq!((sure.least(), sure.most()), (2, 4));
    assert_eq!(stored_repeats(&text, "q:gone"), None);
    assert_eq!(stored_repeats("not an experiment", "q"), None);
}

#[test]
fn every_shipped_experiment_and_profile_reads_and_names_known_contestants() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cat = crate::contestant::catalog::Catalog::gather(Some(&root), &[], &root).unwrap();
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

#[test]
fn verdict_thresholds_are_percentages_of_the_cores() {
    let base = "name = \"v\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"k\"\nconnections = [1]\n";
    let plain = read(&write("v0.toml", base), None).unwrap();
    assert_eq!(
        plain.verdict_policy,
        crate::experiment::verdict::Policy::default()
    );
    let own = format!("{base}[verdict]\nforeign = \"25%\"\nsaturated = \"80%\"\n");
    let e = read(&write("v1.toml", &own), None).unwrap();
    let t = e.verdict_policy;
    assert_eq!(
        (t.capacity.foreign, t.efficiency.foreign, t.saturated),
        (0.25, 0.25, 0.8)
    );
    let rate_own = format!("{base}[verdict]\nsteal = \"20%\"\nrate_steal = \"30%\"\n");
    let t = read(&write("v3.toml", &rate_own), None)
        .unwrap()
        .verdict_policy;
    assert_eq!((t.capacity.steal, t.efficiency.steal), (0.2, 0.3));
    assert_eq!(e.cells()[0].verdict_policy, e.verdict_policy);
    let bad = format!("{base}[verdict]\nsteal = \"150%\"\n");
    let msg = message(read(&write("v2.toml", &bad), None));
    assert!(
        msg.ends_with("v2.toml: verdict: steal: \"150%\" is above 100%"),
        "{msg}"
    );
    let typo = format!("{base}[verdict]\nforeing = \"5%\"\n");
    assert!(message(read(&write("v3.toml", &typo), None)).contains("unknown field `foreing`"));
}

#[test]
fn a_rate_load_may_open_a_connection_per_request_and_a_device_load_may_not() {
    let base = "name = \"r\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"x\"\nkeepalive = false\n";
    let rate = format!("{base}rate = [\"500\"]\n");
    let e = read(&write("rate-close.toml", &rate), None).unwrap();
    assert!(!e.loads[0].keepalive);
    assert!(matches!(e.cells()[0].pace, Pace::Open(_)));
    let devices = format!("{base}devices = {{ stages = \"0,5:1s\" }}\n");
    let msg = message(read(&write("devices-close.toml", &devices), None));
    assert!(
        msg.ends_with("loads \"x\": keepalive: device loads keep their connections"),
        "{msg}"
    );
}

#[test]
fn a_load_may_be_over_tls_and_a_mistake_in_its_table_names_the_field() {
    let base =
        "name = \"t\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"clear\"\nconnections = [1]\n\
                [[loads]]\nname = \"full\"\nrate = [\"500\"]\nkeepalive = false\n";
    let good = format!("{base}tls = {{ certificate = \"rsa\", resume = \"off\" }}\n");
    let e = read(&write("tls.toml", &good), None).unwrap();
    assert!(e.loads[0].tls.is_none());
    let tls = e.loads[1]
        .tls
        .as_ref()
        .expect("the second load is over TLS");
    assert_eq!(
        (tls.certificate, tls.resume()),
        (
            crate::contestant::certificates::KeyKind::Rsa,
            engine::Resume::Off
        )
    );
    assert_eq!(e.cells()[1].load.tls.as_ref(), Some(tls));
    let defaults = read(
        &write("tls-empty.toml", &format!("{base}tls = {{}}\n")),
        None,
    )
    .unwrap();
    assert_eq!(
        defaults.loads[1].tls.as_ref().map(|t| t.certificate),
        Some(crate::contestant::certificates::KeyKind::Ecdsa)
    );
    for (table, want) in [
        (
            "tls = { certificate = \"dsa\" }",
            "/tls-bad.toml: loads \"full\": tls: certificate: \"dsa\" is not a kind of certificate (ecdsa or rsa)",
        ),
        (
            "tls = { resume = \"yes\" }",
            "/tls-bad.toml: loads \"full\": tls: resume: \"yes\" is not a way to resume (off, tickets or ids)",
        ),
        (
            "tls = { version = \"1.3-1.2\" }",
            "/tls-bad.toml: loads \"full\": tls: version: TLS versions 1.3-1.2: the minimum is above the maximum",
        ),
    ] {
        let msg = message(read(&write("tls-bad.toml", &format!("{base}{table}\n")), None));
        assert!(msg.ends_with(want), "{msg}");
        assert_eq!(msg.lines().count(), 1);
    }
    let typo = format!("{base}tls = {{ certficate = \"rsa\" }}\n");
    let msg = message(read(&write("tls-typo.toml", &typo), None));
    assert!(
        msg.contains("tls-typo.toml: line 10") && msg.contains("unknown field `certficate`"),
        "{msg}"
    );
}

#[test]
fn a_load_over_http2_runs_at_each_stream_count_and_a_mistake_names_file_load_and_field() {
    let base =
        "name = \"h\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"h1\"\nconnections = [50]\n\
                [[loads]]\nname = \"h2c\"\nconnections = [50]\n";
    let good = format!("{base}http2 = true\nstreams = [1, 10, 100]\n");
    let e = read(&write("h2.toml", &good), None).unwrap();
    assert!(e.loads[0].http2.is_none());
    let streams: Vec<Option<usize>> = e.cells().iter().map(|c| c.streams).collect();
    assert_eq!(streams, [None, Some(1), Some(10), Some(100)]);
    assert_eq!(
        e.run_count(),
        4,
        "a run per stream count, as per connection level"
    );
    let over_tls = format!("{base}http2 = true\nstreams = [10]\ntls = {{}}\n");
    let e = read(&write("h2-tls.toml", &over_tls), None).unwrap();
    assert!(e.loads[1].tls.is_some() && e.loads[1].http2.is_some());
    for (extra, want) in [
        (
            "streams = [10]",
            "/h2-bad.toml: loads \"h2c\": streams: streams are HTTP/2's: add http2 = true, or \
             leave streams out",
        ),
        (
            "http2 = true\nstreams = [0]",
            "/h2-bad.toml: loads \"h2c\": streams: 0 streams per connection: between 1 and 1024",
        ),
        (
            "http2 = true\npipeline = 4",
            "/h2-bad.toml: loads \"h2c\": pipeline: HTTP/2 has streams, not a pipeline: give \
             streams instead",
        ),
    ] {
        let msg = message(read(
            &write("h2-bad.toml", &format!("{base}{extra}\n")),
            None,
        ));
        assert!(msg.ends_with(want), "{msg}");
        assert_eq!(msg.lines().count(), 1);
    }
    let typo = format!("{base}http2 = true\nstream = [10]\n");
    let msg = message(read(&write("h2-typo.toml", &typo), None));
    assert!(
        msg.contains("h2-typo.toml: line 10") && msg.contains("unknown field `stream`"),
        "{msg}"
    );
}

#[test]
fn inline_contestants_take_the_manifest_fields_with_paths_from_the_file() {
    let text = "name = \"i\"\ncontestants = [\"mine\", \"up\"]\n[[loads]]\nname = \"k\"\n\
                connections = [1]\n[contestant.mine]\ncommand = \"exec ./server {port}\"\n\
                threads = \"WORKERS\"\nenv = { WORKERS = \"{threads}\" }\nverify = \"http\"\n\
                [contestant.mine.setup]\nbuild = \"make\"\ninputs = [\"server.c\"]\n\
                [contestant.up]\nurl = \"http://127.0.0.1:8080\"\nprocess = \"nginx\"\n";
    let path = write("inline.toml", text);
    let e = read(&path, None).unwrap();
    assert_eq!(e.file, path);
    let (mine, up) = (&e.inline[0], &e.inline[1]);
    assert_eq!(mine.manifest.name, "mine");
    assert_eq!(mine.dir, path.parent().unwrap().canonicalize().unwrap());
    assert_eq!(mine.manifest.start.env["WORKERS"], "{threads}");
    assert_eq!(mine.manifest.setup.build, "make");
    assert_eq!(mine.manifest.verify, crate::model::VerifyLevel::Http);
    assert!(mine.manifest.endpoints.is_empty() && mine.running.is_none());
    let running = up.running.as_ref().unwrap();
    assert_eq!(running.addr.to_string(), "127.0.0.1:8080");
    assert_eq!(
        running.process,
        crate::contestant::running::Process::Named("nginx".into())
    );
    let env_on_running = text.replace("process = \"nginx\"", "env = { A = \"1\" }");
    let msg = message(read(&write("inline-bad.toml", &env_on_running), None));
    assert!(
        msg.ends_with("inline-bad.toml: contestant.up: env: a server already running (url) is not set up or started by shootout"),
        "{msg}"
    );
}

#[test]
fn thresholds_are_parsed_once_and_name_contestants_of_the_experiment() {
    let base =
        "name = \"g\"\ncontestants = [\"a\", \"b\"]\n[[loads]]\nname = \"ka\"\nconnections = [1]\n\
        [profiles.more]\ncontestants = [\"a\", \"c\"]\n[thresholds]\n";
    let good = base.to_string() + "all = [\"p99<5ms\"]\nc = [\"rps >= 50k\"]\n";
    let e = read(&write("thresholds.toml", &good), None).unwrap();
    let all: Vec<&str> = e.thresholds.of("a").map(|t| t.text.as_str()).collect();
    assert_eq!(all, ["p99<5ms"]);
    assert_eq!(
        e.thresholds.of("c").count(),
        2,
        "a profile's contestant may be named"
    );
    let typo = base.to_string() + "d = [\"p99<5ms\"]\n";
    let msg = message(read(&write("thresholds.toml", &typo), None));
    assert!(
        msg.ends_with("thresholds.toml: thresholds.d: unknown contestant \"d\" (the experiment's: a, b, c; `all` is for every one)"),
        "{msg}"
    );
    let bad = base.to_string() + "b = [\"p99<5xs\"]\n";
    let msg = message(read(&write("thresholds.toml", &bad), None));
    assert!(
        msg.ends_with("thresholds.toml: thresholds.b: \"p99<5xs\": \"5xs\": unknown unit \"xs\" (use us, ms, s, m or h)"),
        "{msg}"
    );
}

/// An experiment naming `greet` beside hello, and declaring it with `table` (the
/// standard `endpoint` or the issue's `endpoints`).
fn with_greet(name: &str, table: &str, fields: &str) -> std::path::PathBuf {
    let text = format!(
        "name = \"g\"\ncontestants = [\"a\"]\nendpoints = [\"hello\", \"greet\"]\n\
         [[loads]]\nname = \"ka\"\nconnections = [1]\n\
         [{table}.greet]\n{fields}\n"
    );
    write(name, &text)
}

#[test]
fn declared_endpoints_carry_their_request_into_the_cells() {
    write("greet.json", "{\"who\": 1}");
    let fields = "method = \"POST\"\npath = \"/greet?x=1\"\nheaders = { X-Token = \"t\" }\n\
                  body_file = \"greet.json\"\nexpect = { status = 201, body_regex = \"^hi\" }";
    let e = read(&with_greet("greet.toml", "endpoint", fields), None).unwrap();
    let names: Vec<&str> = e.endpoints.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["hello", "greet"]);
    let cells = e.cells();
    let greet = &cells[1].endpoint;
    assert_eq!(
        (greet.method.as_str(), greet.path.as_str()),
        ("POST", "/greet?x=1")
    );
    // Parsed once, into the load spec's types: the name as written (HTTP/1.1 sends it so).
    assert_eq!(
        greet.headers,
        ["X-Token: t".parse::<engine::Header>().unwrap()]
    );
    assert_eq!(greet.headers[0].to_string(), "X-Token: t");
    assert_eq!(greet.body, b"{\"who\": 1}");
    assert_eq!(greet.expect.judge(201, b"hi there"), Ok(()));
    assert!(greet.expect.judge(200, b"hi").is_err());
}

#[test]
fn the_issues_plural_tables_read_as_the_standard_ones() {
    let fields = "path = \"/greet\"\nexpect = { status = 200, body = \"hi\" }";
    let plural = read(&with_greet("plural.toml", "endpoints", fields), None).unwrap();
    let standard = read(&with_greet("singular.toml", "endpoint", fields), None).unwrap();
    assert_eq!(plural.endpoints[1].path, standard.endpoints[1].path);
    assert_eq!(plural.endpoints[1].expect.judge(200, b"hi"), Ok(()));
    // Lines and columns stay where the file has them.
    let typo = "path = \"/greet\"\nexpcet = { status = 200 }";
    let msg = message(read(
        &with_greet("plural-typo.toml", "endpoints", typo),
        None,
    ));
    let standard = message(read(
        &with_greet("singular-typo.toml", "endpoint", typo),
        None,
    ));
    assert_eq!(msg.replace("plural-", "singular-"), standard);
    // The stored file gives its repeats back too.
    let text = std::fs::read_to_string(with_greet("plural.toml", "endpoints", fields)).unwrap();
    assert_eq!(stored_repeats(&text, "g"), Some(Repeats::Fixed(1)));
}

#[test]
fn a_mistake_in_an_endpoint_is_one_line_naming_the_file_the_entry_and_the_field() {
    let cases = [
        (
            "path = \"greet\"",
            "x0.toml: endpoint.greet: path: \"greet\" does not start with /",
        ),
        ("method = \"GET\"", "endpoint.greet: missing field `path`"),
        (
            "path = \"/g\"\nexpcet = { status = 200 }",
            "endpoint.greet: unknown field `expcet`",
        ),
        (
            "path = \"/g\"\nexpect = { status = 200, body = \"a\", body_regex = \"a\" }",
            "x3.toml: endpoint.greet: expect: body and body_regex: give one or the other",
        ),
        (
            "path = \"/g\"\nheaders = { \"Bad Name\" = \"v\" }",
            "x4.toml: endpoint.greet: headers: header \"Bad Name: v\" is not a valid HTTP header",
        ),
    ];
    for (i, (fields, expected)) in cases.into_iter().enumerate() {
        let msg = message(read(
            &with_greet(&format!("x{i}.toml"), "endpoint", fields),
            None,
        ));
        assert_eq!(msg.lines().count(), 1, "{msg}");
        assert!(msg.contains(expected), "{fields}: {msg}");
        assert!(msg.contains(&format!("x{i}.toml: ")), "{msg}");
    }
    let unknown = "name = \"g\"\ncontestants = [\"a\"]\nendpoints = [\"gret\"]\n\
                   [[loads]]\nname = \"ka\"\nconnections = [1]\n";
    let msg = message(read(&write("x9.toml", unknown), None));
    assert!(
        msg.contains("x9.toml: endpoints: unknown endpoint \"gret\""),
        "{msg}"
    );
}

#[test]
fn a_capacity_load_searches_from_its_start_with_the_experiments_times() {
    let text = "name = \"c\"\ncontestants = [\"a\"]\nwarmup = \"500ms\"\nduration = \"1s\"\n\
        [[loads]]\nname = \"keep-alive\"\nconnections = [50]\n\
        capacity = [\"p99<10ms\", \"errors<0.1%\"]\nstart = \"4000\"\n\
        [[loads]]\nname = \"new connection\"\nkeepalive = false\ncapacity = [\"p99<20ms\"]\n\
        duration = \"2s\"\n";
    let e = read(&write("capacity.toml", text), None).unwrap();
    let cells = e.cells();
    assert_eq!(cells.len(), 2, "one run per level, as an open loop");
    let objectives = "p99<10ms, errors<0.1%".to_string();
    assert_eq!(
        cells[0].kind,
        crate::model::LoadKind::Capacity { objectives }
    );
    let LoadPace::Capacity(search) = &cells[0].load.pace else {
        panic!("a capacity load: {:?}", cells[0].load.pace);
    };
    let (half, second) = (Duration::from_millis(500), Duration::from_secs(1));
    let plan = &search.plan;
    assert_eq!((plan.start, plan.warmup, plan.step), (4000.0, half, second));
    assert_eq!((cells[0].warmup, cells[0].measured), (half, second));
    let LoadPace::Capacity(other) = &cells[1].load.pace else {
        panic!("a capacity load: {:?}", cells[1].load.pace);
    };
    assert_eq!(
        (other.plan.start, other.plan.step),
        (1000.0, Duration::from_secs(2))
    );
    assert_eq!(
        (cells[1].connections, cells[1].load.keepalive),
        (100, false)
    );
    let bad = "name = \"c\"\ncontestants = [\"a\"]\n[[loads]]\nname = \"ka\"\n\
        capacity = [\"p99<10\"]\n";
    let msg = message(read(&write("capacity-bad.toml", bad), None));
    assert!(
        msg.ends_with(
            "capacity-bad.toml: loads \"ka\": capacity: \"10\" needs a unit (us, ms or s)"
        ),
        "{msg}"
    );
}

#[test]
fn a_table_of_its_own_names_loads_and_columns_and_a_mistake_names_the_table() {
    let base = "name = \"t\"\ncontestants = [\"a\"]\n\
        [[loads]]\nname = \"clear\"\nconnections = [8]\nrate = [\"1000\"]\n\
        [[loads]]\nname = \"tls\"\nconnections = [8]\nrate = [\"1000\"]\ntls = {}\n\
        [[table]]\ntitle = \"TLS against clear\"\norder = \"over TLS\"\n\
        [[table.columns]]\nheader = \"clear\"\nload = \"clear\"\nmeasure = \"cpu\"\n\
        [[table.columns]]\nheader = \"over TLS\"\nload = \"tls\"\nmeasure = \"cpu\"\n";
    let good = format!("{base}baseline = \"clear\"\nagainst = \"difference\"\n");
    let e = read(&write("table.toml", &good), None).unwrap();
    let t = &e.tables[0];
    assert_eq!((t.title.as_str(), t.order), ("TLS against clear", 1));
    assert_eq!(t.columns[1].baseline, Some((0, TableAgainst::Difference)));
    assert_eq!(t.columns[0].measure, TableMeasure::Cpu);
    assert_eq!(
        t.charts,
        [1],
        "the order column is drawn unless charts says"
    );
    let ratio = base.replace("order = ", "charts = [\"clear\", \"over TLS\"]\norder = ");
    let ratio = format!("{ratio}baseline = \"clear\"\nagainst = \"ratio\"\n").replace(
        "load = \"clear\"\nmeasure = \"cpu\"",
        "load = \"clear\"\nmeasure = \"cpu-per-mb\"",
    );
    let e = read(&write("table-ratio.toml", &ratio), None).unwrap();
    let t = &e.tables[0];
    assert_eq!(t.columns[1].baseline, Some((0, TableAgainst::Ratio)));
    assert_eq!(t.columns[0].measure, TableMeasure::CpuPerMb);
    assert_eq!(t.charts, [0, 1]);
    for (extra, want) in [
        (
            "baseline = \"clearly\"",
            "no column \"clearly\" in this experiment",
        ),
        (
            "endpoint = \"api\"",
            "no endpoint \"api\" in this experiment",
        ),
        ("agianst = \"percent\"", "unknown field `agianst`"),
        ("against = \"times\"", "unknown variant `times`"),
    ] {
        let msg = message(read(
            &write("table-bad.toml", &format!("{base}{extra}\n")),
            None,
        ));
        assert!(msg.contains(want), "{msg}");
        assert_eq!(msg.lines().count(), 1, "{msg}");
    }
    let msg = message(read(
        &write(
            "table-load.toml",
            &base.replace("load = \"tls\"", "load = \"tsl\""),
        ),
        None,
    ));
    assert!(
        msg.ends_with("table \"TLS against clear\": columns: no load \"tsl\" in this experiment"),
        "{msg}"
    );
}

#[test]
fn a_load_may_run_on_some_endpoints_only() {
    let text = "name = \"w\"\ncontestants = [\"a\"]\nendpoints = [\"hello\", \"upload\"]\n\
        [[loads]]\nname = \"keep-alive\"\nconnections = [50]\n\
        [[loads]]\nname = \"uploads\"\nrate = [\"100\"]\nendpoints = [\"upload\"]\n";
    let e = read(&write("some.toml", text), None).unwrap();
    let all = e.cells();
    let cells: Vec<(&str, &str)> = (all.iter())
        .map(|c| (c.endpoint.name.as_str(), c.load.name.as_str()))
        .collect();
    assert_eq!(
        cells,
        [
            ("hello", "keep-alive"),
            ("upload", "keep-alive"),
            ("upload", "uploads")
        ]
    );
    assert_eq!(e.run_count(), 3);
    let unknown = text.replace("[\"upload\"]\n", "[\"json\"]\n");
    let msg = message(read(&write("unknown.toml", &unknown), None));
    assert!(
        msg.contains("loads.uploads: endpoints: no endpoint \"json\" in this experiment")
            || msg.contains("endpoints: no endpoint \"json\""),
        "{msg}"
    );
}

#[test]
fn websocket_loads_run_on_the_echo_and_http_loads_beside_it() {
    let text = "name = \"ws\"\ncontestants = [\"a\"]\nendpoints = [\"hello\", \"websocket\"]\n\
        [[loads]]\nname = \"keep-alive\"\nconnections = [50]\n\
        [[loads]]\nname = \"echo\"\nconnections = [50]\nwebsocket = { in_flight = 16 }\n\
        [[loads]]\nname = \"held\"\nconnections = [10000]\nrate = [\"1000\"]\nwebsocket = {}\n";
    let e = read(&write("ws.toml", text), None).unwrap();
    let all = e.cells();
    let cells: Vec<(&str, &str, usize)> = (all.iter())
        .map(|c| {
            (
                c.endpoint.name.as_str(),
                c.load.name.as_str(),
                c.connections,
            )
        })
        .collect();
    assert_eq!(
        cells,
        [
            ("hello", "keep-alive", 50),
            ("websocket", "echo", 50),
            ("websocket", "held", 10000)
        ]
    );
    let echo = e.loads[1].websocket.as_ref().unwrap();
    assert_eq!((echo.in_flight, echo.message_size), (16, 32));
    let without = text.replace(", \"websocket\"]", "]");
    let msg = message(read(&write("ws-no-endpoint.toml", &without), None));
    assert!(
        msg.ends_with("loads \"echo\": websocket: a WebSocket load runs on the websocket endpoint: add \"websocket\" to the experiment's endpoints"),
        "{msg}"
    );
    let no_load = "name = \"ws\"\ncontestants = [\"a\"]\nendpoints = [\"websocket\"]\n\
        [[loads]]\nname = \"keep-alive\"\nconnections = [50]\n";
    let msg = message(read(&write("ws-no-load.toml", no_load), None));
    assert!(
        msg.contains("endpoints: the websocket endpoint is loaded by WebSocket loads"),
        "{msg}"
    );
    let typo = text.replace("in_flight = 16", "in_fligt = 16");
    let msg = message(read(&write("ws-typo.toml", &typo), None));
    assert!(msg.contains("unknown field `in_fligt`"), "{msg}");
}

#[test]
fn memory_per_connection_sets_rss_against_a_load_of_fewer_connections() {
    let base = "name = \"m\"\ncontestants = [\"a\"]\nendpoints = [\"websocket\"]\n\
        [[loads]]\nname = \"few\"\nconnections = [50]\nrate = [\"1000\"]\nwebsocket = {}\n\
        [[loads]]\nname = \"many\"\nconnections = [10000]\nrate = [\"1000\"]\nwebsocket = {}\n\
        [[table]]\ntitle = \"memory\"\n\
        [[table.columns]]\nheader = \"few\"\nload = \"few\"\nmeasure = \"rss\"\n\
        [[table.columns]]\nheader = \"many\"\nload = \"many\"\nmeasure = \"rss\"\n\
        baseline = \"few\"\nagainst = \"per-connection\"\n";
    let e = read(&write("rss.toml", base), None).unwrap();
    let t = &e.tables[0];
    assert_eq!(t.columns[0].measure, TableMeasure::Rss);
    assert_eq!(
        t.columns[1].baseline,
        Some((0, TableAgainst::PerConnection))
    );
    for (from, to, want) in [
        (
            "header = \"few\"\nload = \"few\"\nmeasure = \"rss\"",
            "header = \"few\"\nload = \"few\"",
            "give both columns measure = \"rss\"",
        ),
        (
            "load = \"many\"\nmeasure",
            "load = \"few\"\nmeasure",
            "the baseline's load has as many connections or more",
        ),
    ] {
        let msg = message(read(&write("rss-bad.toml", &base.replace(from, to)), None));
        assert!(
            msg.ends_with(&format!(
                "table \"memory\": columns: per-connection sets rss against the rss of a load of fewer connections: {want}"
            )),
            "{msg}"
        );
    }
}
