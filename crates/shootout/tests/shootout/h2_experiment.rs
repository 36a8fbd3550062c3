//! An experiment over HTTP/2 end to end (issue 23, item 6): nginx-static (set up in a
//! moment) started with its `[h2c]` command and loaded over h2c at two stream counts, and
//! with its `[tls]` command and loaded over h2 by ALPN; c-epoll, which has no `[h2c]` nor
//! `[tls]`, skipped with the reason in its HTTP/2 cells. The stored runs carry the protocol
//! and their streams, and `shootout run` ends with the table of what HTTP/2 gains or costs.
//! One repeat of 1 s per run.

use crate::checkout;

const EXPERIMENT: &str = "name = \"h2-tiny\"\n\
    contestants = [\"nginx-static\", \"c-epoll\"]\nlayouts = [\"split\"]\n\
    warmup = \"0.3s\"\nduration = \"1s\"\nseed = 7\n\
    [make_up]\nruns = 0\n\
    [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n\
    [[loads]]\nname = \"keep-alive\"\nconnections = [4]\n\
    [[loads]]\nname = \"h2c\"\nconnections = [4]\nhttp2 = true\nstreams = [1, 10]\n\
    [[loads]]\nname = \"h2c at 1000/s\"\nconnections = [4]\nrate = [\"1000\"]\n\
    http2 = true\nstreams = [10]\n\
    [[loads]]\nname = \"at 1000/s\"\nconnections = [4]\nrate = [\"1000\"]\n\
    [[loads]]\nname = \"h2 over TLS\"\nconnections = [4]\nhttp2 = true\nstreams = [10]\n\
    tls = {}\n";

/// A checkout of the two real contestants (linked, so that builds and results stay in
/// the temporary folder) and the experiment above.
fn checkout_with_experiment() -> tempfile::TempDir {
    checkout::with_real_contestants(
        "h2-experiment",
        &["c-epoll", "nginx-static"],
        ("h2-tiny", EXPERIMENT),
    )
}

#[test]
fn an_http2_experiment_stores_protocol_and_streams_and_ends_with_what_http2_gains() {
    let folder = checkout_with_experiment();
    let root = folder.path();
    let out = checkout::shootout(root, &["run", "h2-tiny", "--setup"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let all = format!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(matches!(out.status.code(), Some(0 | 1)), "{all}");
    let runs = checkout::exported_runs(root);
    let run = |contestant: &str, load: &str, streams: Option<u64>| {
        (runs.iter())
            .find(|r| {
                r["contestant"] == contestant
                    && r["load"] == load
                    && r["streams"].as_u64() == streams
            })
            .unwrap_or_else(|| panic!("{contestant} in {load} at {streams:?}: {all}"))
    };
    // Without [h2c] or [tls], skipped over HTTP/2 with the reason, at each stream count.
    for streams in [1, 10] {
        let skipped = run("c-epoll", "h2c", Some(streams));
        assert_eq!(skipped["label"], "skipped", "{all}");
        assert_eq!(
            skipped["reason"],
            "does not serve h2c (no [h2c] in its contestant.toml)"
        );
    }
    assert_eq!(run("c-epoll", "h2 over TLS", Some(10))["label"], "skipped");
    let h11 = &run("c-epoll", "keep-alive", None)["result"];
    assert_eq!(h11["config"]["http_version"], "1.1", "{h11}");
    // Over HTTP/2, every request answered, the streams the cell asked for.
    let h2 = |load: &str, streams: u64| {
        let r = run("nginx-static", load, Some(streams));
        let x = &r["result"];
        assert_eq!(x["config"]["http_version"], "2", "{r}");
        assert_eq!(x["config"]["streams"], streams, "{r}");
        assert!(x["requests"]["ok"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(x["requests"]["reset"], 0, "{r}");
        assert_eq!(x["requests"]["h2"], 0, "{r}");
        assert!(
            x["h2"]["settings"].is_object(),
            "the server's SETTINGS: {r}"
        );
        x.clone()
    };
    let one = h2("h2c", 1);
    assert!(one["url"].as_str().unwrap().starts_with("http://"), "{one}");
    h2("h2c", 10);
    h2("h2c at 1000/s", 10);
    let tls = h2("h2 over TLS", 10);
    assert!(
        tls["url"]
            .as_str()
            .unwrap()
            .starts_with("https://localhost:"),
        "{tls}"
    );
    assert_eq!(tls["tls"]["negotiated"]["alpn"], "h2", "{tls}");
    // Checked over HTTP/2 before its first runs over h2c and over h2.
    assert!(text.contains("nginx-static: verified at level"), "{all}");
    assert!(
        text.contains("h2c hello") && text.contains("h2 hello"),
        "{all}"
    );
    // The table, in the terminal and on the page.
    assert!(
        text.contains("What HTTP/2 gains or costs each server — /hello, layout split"),
        "{all}"
    );
    assert!(
        text.contains("nginx-static answers ") && text.contains("over h2c with 1 stream"),
        "{all}"
    );
    let page = text
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .and_then(|l| l.split(" (").next())
        .expect("the run names its page");
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        html.contains("<caption>What HTTP/2 gains or costs each server"),
        "{page}"
    );
}
