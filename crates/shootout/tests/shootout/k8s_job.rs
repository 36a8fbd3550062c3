//! `shootout k8s job` as a user runs it: the Indexed Job it prints, read back into
//! Kubernetes' typed objects field by field, the load's spec in the pod's environment;
//! each pod's command run here as the kubelet would run it (its index in
//! JOB_COMPLETION_INDEX, the spec in SHOOTOUT_SPEC), against a local test server, and
//! the pods' results merged; bad flags refused with one line before any Job exists.
//! No cluster runs here: nothing is ever applied.

use crate::checkout;
use crate::mtls;

use checkout::{assert_one_line_error, bare as shootout};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Container;
use shootout::k8s::Manifest;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};
use testserver::{Behavior, TestServer};

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// `shootout k8s job ARGS`: the Job it printed, alone, read back from its YAML.
fn job(args: &[&str]) -> (Job, String) {
    let (manifest, yaml, stderr) = manifest(args);
    assert!(
        yaml.starts_with("apiVersion: batch/v1\nkind: Job\n"),
        "{yaml}"
    );
    assert_eq!(manifest.secret, None);
    (manifest.job, stderr)
}

/// `shootout k8s job ARGS`: what it printed, read back, with the YAML and stderr.
fn manifest(args: &[&str]) -> (Manifest, String, String) {
    let out = shootout(&[&["k8s", "job"], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    let yaml = String::from_utf8(out.stdout).expect("YAML is UTF-8");
    let manifest = shootout::k8s::from_yaml(&yaml).expect("the YAML reads back as a Job");
    (manifest, yaml, stderr)
}

fn container(job: &Job) -> &Container {
    let pod = job.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    assert_eq!(pod.containers.len(), 1);
    &pod.containers[0]
}

/// The load's spec the container's environment carries, as JSON.
fn load_spec(c: &Container) -> serde_json::Value {
    let env = c.env.as_deref().unwrap();
    let var = env.iter().find(|e| e.name == "SHOOTOUT_SPEC");
    let text = var.and_then(|e| e.value.as_deref()).expect("SHOOTOUT_SPEC");
    serde_json::from_str(text).expect("the spec is JSON")
}

#[test]
fn the_job_runs_every_shard_at_once_from_one_start() {
    let start_at = now_ms() + 3_600_000;
    let (job, steps) = job(&[
        "--shards",
        "3",
        "--image",
        "registry.example/shootout:0.1.0",
        "--name",
        "load-a",
        "--namespace",
        "bench",
        "--start-at",
        &start_at.to_string(),
        "--",
        "http://nginx.bench.svc:8080/hello",
        "-c",
        "30000",
        "-d",
        "20s",
        "-H",
        "X-Run: a b",
        "-t",
        "2",
    ]);
    assert_eq!(job.metadata.name.as_deref(), Some("load-a"));
    assert_eq!(job.metadata.namespace.as_deref(), Some("bench"));
    let spec = job.spec.as_ref().unwrap();
    assert_eq!(spec.completion_mode.as_deref(), Some("Indexed"));
    assert_eq!((spec.completions, spec.parallelism), (Some(3), Some(3)));
    assert_eq!(spec.backoff_limit, Some(0));
    // An hour to the start, then 20 s of load, a 5 s timeout and the margin.
    let deadline = spec.active_deadline_seconds.unwrap();
    assert!(
        (3600 + 145 - 60..=3600 + 145).contains(&deadline),
        "{deadline}"
    );
    let pod = spec.template.spec.as_ref().unwrap();
    assert_eq!(pod.restart_policy.as_deref(), Some("Never"));
    let c = container(&job);
    assert_eq!(c.image.as_deref(), Some("registry.example/shootout:0.1.0"));
    // The flags become one spec (-t given: its threads kept), no arguments.
    assert_eq!(c.args, None);
    let spec = load_spec(c);
    assert_eq!(spec["url"], "http://nginx.bench.svc:8080/hello");
    assert_eq!(spec["connections"], 30000);
    assert_eq!(spec["stop"]["after"], "20s");
    // The header as written: the pod's load sends it so over HTTP/1.1.
    assert_eq!(spec["headers"], serde_json::json!(["X-Run: a b"]));
    assert_eq!(spec["threads"], 2);
    let command = c.command.as_deref().unwrap();
    assert_eq!(command[..2], ["/bin/sh", "-c"]);
    assert_eq!(command[3], "shootout", "the script's $0");
    let script = &command[2];
    assert!(
        script.contains("--shard \"$((JOB_COMPLETION_INDEX + 1))/3\""),
        "{script}"
    );
    assert!(script.contains("--spec env:SHOOTOUT_SPEC"), "{script}");
    assert!(
        script.contains(&format!("--start-at {start_at} --json")),
        "{script}"
    );
    let env = &c.env.as_deref().unwrap()[0];
    assert_eq!(env.name, "JOB_COMPLETION_INDEX");
    let field = env.value_from.as_ref().unwrap().field_ref.as_ref().unwrap();
    assert_eq!(
        field.field_path,
        "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    );
    let resources = c.resources.as_ref().unwrap();
    let (requests, limits) = (&resources.requests, &resources.limits);
    assert_eq!(requests.as_ref().unwrap()["cpu"].0, "2", "-t 2: two cores");
    assert_eq!(requests, limits);
    // The second step, for this Job: every index's log into a file, then merge.
    assert!(steps.contains("for i in $(seq 0 2); do kubectl -n bench logs --tail=-1 -l batch.kubernetes.io/job-name=load-a,batch.kubernetes.io/job-completion-index=$i > load-a-$((i + 1)).json; done"), "{steps}");
    assert!(steps.contains("shootout merge load-a-*.json"), "{steps}");
}

#[test]
fn without_t_each_pod_runs_one_loop_per_core_it_is_given() {
    let (job, _) = job(&["--cpus", "4", "--", "http://nginx:80/", "-c", "8"]);
    let c = container(&job);
    assert_eq!(load_spec(c)["threads"], 4);
    assert_eq!(load_spec(c)["connections"], 8);
    assert_eq!(
        c.image.as_deref(),
        Some(concat!("shootout:", env!("CARGO_PKG_VERSION")))
    );
    let spec = job.spec.as_ref().unwrap();
    assert_eq!((spec.completions, spec.parallelism), (Some(2), Some(2)));
}

/// kubectl reads YAML 1.1, where a bare `on`, `no` or `yes` is a boolean: it refused a
/// Job whose flag `--body on` was printed bare ("cannot unmarshal bool into ... args").
/// The load now travels as one JSON spec, a binary body file too.
#[test]
fn strings_that_yaml_1_1_takes_for_booleans_are_quoted_and_any_body_travels() {
    let dir = std::env::temp_dir().join(format!("shootout-k8s-body-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = dir.join("body.bin");
    std::fs::write(&body, [0u8, 0xff, b'o', b'n']).unwrap();
    let out = shootout(&[
        "k8s",
        "job",
        "--name",
        "no",
        "--",
        "http://a:80/",
        "-m",
        "POST",
        "--body-file",
        &body.display().to_string(),
        "-H",
        "X: yes",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let yaml = String::from_utf8(out.stdout).unwrap();
    assert!(yaml.contains("\n  name: \"no\"\n"), "{yaml}");
    let job = shootout::k8s::from_yaml(&yaml).unwrap().job;
    let spec = load_spec(container(&job));
    assert_eq!(spec["body"], "AP9vbg==", "the four bytes, base64");
    assert_eq!(spec["headers"][0], "X: yes");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs pod `index`'s container command here as the kubelet would: the image's PATH
/// holding this shootout, the index and `spec` (SHOOTOUT_SPEC) in the environment,
/// stderr to the termination message file (here one in `dir`). Its stdout, which is the
/// pod's log.
fn run_pod(c: &Container, spec: &str, index: usize, dir: &Path) -> Output {
    let mut argv: Vec<String> = c.command.clone().unwrap();
    let message = dir.join(format!("termination-{index}"));
    let kubelet_path = c.termination_message_path.as_deref().unwrap();
    argv[2] = argv[2].replace(kubelet_path, &message.display().to_string());
    argv.extend(c.args.clone().unwrap_or_default());
    let bin = Path::new(env!("CARGO_BIN_EXE_shootout")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .env("JOB_COMPLETION_INDEX", index.to_string())
        .env("SHOOTOUT_SPEC", spec)
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("the pod's shell runs");
    let message = std::fs::read_to_string(&message).unwrap_or_default();
    assert!(out.status.success(), "pod {index}: {message}");
    out
}

#[test]
fn every_pod_runs_its_own_shard_and_their_logs_merge() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let before = now_ms();
    let (job, _) = job(&[
        "--shards",
        "3",
        "--start-in",
        "2s",
        "--",
        &url,
        "-c",
        "6",
        "-n",
        "600",
    ]);
    let dir = std::env::temp_dir().join(format!("shootout-k8s-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = container(&job);
    let start_at = start_at(c);
    assert!(
        start_at >= before + 2000,
        "start {start_at}, asked at {before}"
    );
    let merged = run_pods(c, &load_spec(c).to_string(), 3, &dir);
    assert_eq!(merged["requests"]["ok"].as_u64(), Some(600));
    assert_eq!(merged["requests"]["total"].as_u64(), Some(600));
    assert_eq!(merged["config"]["shard"], "merged 3");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shared start the pods' script names (`--start-at T`).
fn start_at(c: &Container) -> u64 {
    c.command.as_ref().unwrap()[2]
        .split("--start-at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|t| t.parse().ok())
        .expect("the script has --start-at")
}

/// Runs `shards` pods of `c` at once, as parallelism = completions says, each with `spec`,
/// checks each one's result, and merges them: the merged result.
fn run_pods(c: &Container, spec: &str, shards: usize, dir: &Path) -> serde_json::Value {
    let start_at = start_at(c);
    let pods: Vec<_> = (0..shards)
        .map(|i| {
            let (c, spec, dir) = (c.clone(), spec.to_string(), dir.to_path_buf());
            std::thread::spawn(move || run_pod(&c, &spec, i, &dir))
        })
        .collect();
    let mut files = Vec::new();
    let mut ok_sum = 0;
    for (i, pod) in pods.into_iter().enumerate() {
        let log = pod.join().unwrap().stdout;
        let result: serde_json::Value = serde_json::from_slice(&log).expect("the log is JSON");
        assert_eq!(result["config"]["shard"], format!("{}/{shards}", i + 1));
        assert!(result["started_unix_ms"].as_u64().unwrap() >= start_at);
        ok_sum += result["requests"]["ok"].as_u64().unwrap();
        let file = dir.join(format!("shootout-load-{}.json", i + 1));
        std::fs::write(&file, &log).unwrap();
        files.push(file.display().to_string());
    }
    let merge = shootout(
        &[
            &["merge", "--json"],
            &files.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ]
        .concat(),
    );
    assert!(
        merge.status.success(),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    let merged: serde_json::Value = serde_json::from_slice(&merge.stdout).unwrap();
    assert_eq!(merged["requests"]["ok"].as_u64(), Some(ok_sum));
    merged
}

/// A load with a client certificate (mTLS): its spec holds the private key, so it is in
/// a Secret printed before the Job, and the pods read SHOOTOUT_SPEC from it; the Job holds
/// no key. Run here with the Secret's spec, as the kubelet would set it, the pods load a
/// server that requires the certificate, and their results merge.
#[test]
fn a_client_key_travels_in_a_secret_the_job_references() {
    let dir = checkout::temp_folder("k8s-mtls");
    let m = mtls::Setup::new(dir.path());
    let job = [
        "--shards",
        "2",
        "--start-in",
        "2s",
        "--name",
        "mtls",
        "--",
        &m.url,
    ];
    let sent = ["-c", "4", "-n", "200"];
    let (manifest, yaml, steps) = manifest(&[&job[..], &m.flags(), &sent].concat());
    assert!(yaml.starts_with("apiVersion: v1\nkind: Secret\n"), "{yaml}");
    let job_text = &yaml[yaml.find("\n---\n").expect("two documents")..];
    mtls::holds_no_key(job_text, &m.client_key, "the Job");
    let secret = manifest.secret.expect("a Secret");
    assert_eq!(secret.metadata.name.as_deref(), Some("mtls"));
    let spec = &secret.string_data.as_ref().unwrap()[shootout::k8s::SPEC_KEY];
    let parsed: serde_json::Value = serde_json::from_str(spec).unwrap();
    assert!(parsed["tls"]["client"]["key"]
        .as_str()
        .unwrap()
        .contains("PRIVATE KEY"));
    let c = container(&manifest.job);
    let var = c
        .env
        .as_deref()
        .unwrap()
        .iter()
        .find(|e| e.name == "SHOOTOUT_SPEC");
    let var = var.expect("SHOOTOUT_SPEC");
    assert_eq!(var.value, None, "no spec in the Job");
    let from = var
        .value_from
        .as_ref()
        .unwrap()
        .secret_key_ref
        .as_ref()
        .unwrap();
    assert_eq!(
        (from.name.as_str(), from.key.as_str()),
        ("mtls", "spec.json")
    );
    assert!(
        steps.contains("kubectl delete job/mtls secret/mtls"),
        "{steps}"
    );
    assert!(steps.contains("in Secret mtls before the Job"), "{steps}");
    let merged = run_pods(c, spec, 2, dir.path());
    assert_eq!(merged["requests"]["ok"].as_u64(), Some(200));
}

#[test]
fn bad_flags_are_refused_with_one_line_before_any_job() {
    let url = "http://nginx.bench.svc:8080/hello";
    let cases: [(&[&str], &str); 11] = [
        (
            &["--", url, "--json"],
            "load flags after --: unexpected argument '--json' found",
        ),
        (
            &["--", url, "--shard", "1/2"],
            "; only flags that describe the load go there",
        ),
        (
            &["--", url, "--scenario", "no-such.toml"],
            "load flags after --: no-such.toml",
        ),
        (
            &["--", url, "-H", "X Y: z"],
            "header \"X Y: z\" is not a valid HTTP header",
        ),
        (
            &["--", url, "--bogus"],
            "load flags after --: unexpected argument '--bogus'",
        ),
        (&["--", "ftp://a/"], "load flags after --: URL \"ftp://a/\""),
        (
            &["--shards", "4", "--", url, "-c", "3"],
            "shard 4/4 would get none",
        ),
        (
            &["--name", "Load", "--", url],
            "\"Load\" is not a Kubernetes name: only lowercase letters, digits and '-' \
             (see shootout k8s job --help)",
        ),
        (
            &["--memory", "1GB", "--", url],
            "\"1GB\" is not a memory size",
        ),
        (
            &["--start-at", "1000", "--", url],
            "--start-at 1000: that is",
        ),
        (&[url], "error:"),
    ];
    for (args, needle) in cases {
        let out = shootout(&[&["k8s", "job"], args].concat());
        assert_one_line_error(&out, needle);
    }
}
