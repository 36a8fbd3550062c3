//! An experiment over TLS end to end (issue 22): the TLS ceiling (c-epoll-tls: its
//! rustls-ffi library is built once into the checkout's own build folder and shared) started with its `[tls]` command and the load's certificate, verified over TLS
//! and loaded at https://localhost:PORT; c-epoll, which has no `[tls]`, skipped with the
//! reason in its clear-text cells' stead. The stored runs carry what TLS did (handshakes
//! full and resumed, their time, what was negotiated) and `shootout run` ends with the
//! table of what TLS costs. One repeat of 1 s per run.

use crate::checkout;

const EXPERIMENT: &str = "name = \"tls-tiny\"\n\
    contestants = [\"c-epoll-tls\", \"c-epoll\"]\nlayouts = [\"split\"]\n\
    warmup = \"0.3s\"\nduration = \"1s\"\nseed = 7\n\
    [make_up]\nruns = 0\n\
    [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n\
    [[loads]]\nname = \"keep-alive over TLS\"\nconnections = [4]\n\
    tls = { certificate = \"ecdsa\" }\n\
    [[loads]]\nname = \"new client\"\nconnections = [10]\nrate = [\"100\"]\nkeepalive = false\n\
    tls = { resume = \"off\" }\n\
    [[loads]]\nname = \"new client, resumed\"\nconnections = [10]\nrate = [\"100\"]\n\
    keepalive = false\ntls = { resume = \"tickets\" }\n\
    [[loads]]\nname = \"requests over TLS\"\nconnections = [4]\nrate = [\"1000\"]\ntls = {}\n\
    [[loads]]\nname = \"requests\"\nconnections = [4]\nrate = [\"1000\"]\n";

/// A checkout of the two real contestants (linked, so that builds and results stay in
/// the temporary folder) and the experiment above.
fn checkout_with_experiment() -> tempfile::TempDir {
    checkout::with_real_contestants(
        "tls-experiment",
        &["c-epoll", "c-epoll-tls"],
        ("tls-tiny", EXPERIMENT),
    )
}

#[test]
fn a_tls_experiment_stores_what_tls_did_and_ends_with_what_it_costs() {
    let folder = checkout_with_experiment();
    let root = folder.path();
    let out = checkout::shootout(root, &["run", "tls-tiny", "--setup"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let all = format!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(matches!(out.status.code(), Some(0 | 1)), "{all}");
    let runs = checkout::exported_runs(root);
    let run = |contestant: &str, load: &str| {
        (runs.iter())
            .find(|r| r["contestant"] == contestant && r["load"] == load)
            .unwrap_or_else(|| panic!("{contestant} in {load}: {all}"))
    };
    // Without [tls], skipped over TLS with the reason; measured in clear text.
    let skipped = run("c-epoll", "new client");
    assert_eq!(skipped["label"], "skipped", "{all}");
    assert_eq!(
        skipped["reason"],
        "does not serve TLS (no [tls] in its contestant.toml)"
    );
    assert!(run("c-epoll", "requests")["result"]["tls"].is_null());
    // Over TLS, every request answered and the handshakes counted.
    let tls = |load: &str| {
        let r = run("c-epoll-tls", load);
        let x = &r["result"];
        assert!(
            x["url"].as_str().unwrap().starts_with("https://localhost:"),
            "{r}"
        );
        assert_eq!(x["requests"]["tls"], 0, "{r}");
        assert!(x["requests"]["ok"].as_u64().unwrap() > 0, "{r}");
        x["tls"].clone()
    };
    let full = tls("new client");
    assert!(full["full"].as_u64().unwrap() >= 50, "{full}");
    assert_eq!(full["resumed"], 0, "{full}");
    assert!(
        full["handshake_us"]["p50"].as_f64().unwrap() > 0.0,
        "{full}"
    );
    let negotiated = &full["negotiated"];
    assert_eq!(negotiated["version"], "TLS 1.3", "{full}");
    assert_eq!(
        negotiated["group"], "X25519",
        "never a post-quantum group: {full}"
    );
    assert!(
        negotiated["suite"].as_str().unwrap().starts_with("TLS13_"),
        "{full}"
    );
    let resumed = tls("new client, resumed");
    assert!(resumed["resumed"].as_u64().unwrap() >= 50, "{resumed}");
    tls("keep-alive over TLS");
    tls("requests over TLS");
    // The table, in the terminal and on the page.
    assert!(
        text.contains("What TLS costs each server — /hello, layout split"),
        "{all}"
    );
    assert!(text.contains("c-epoll-tls spends "), "{all}");
    let page = text
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .and_then(|l| l.split(" (").next())
        .expect("the run names its page");
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        html.contains("<caption>What TLS costs each server"),
        "{page}"
    );
}
