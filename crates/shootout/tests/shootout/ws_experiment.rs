//! An experiment over WebSocket end to end (issue 36, item 6): c-epoll (set up in a
//! moment) verified as `verify --websocket` checks it, then loaded at its `[websocket]`
//! path: a closed loop with messages in flight, a fixed message rate, held connections,
//! a new connection every few messages, and devices; nginx-static, which has no
//! `[websocket]`, skipped with the reason. The experiment's own table draws messages/s,
//! CPU per message and memory per held connection. One repeat of 1 s per run.

use crate::checkout;

const EXPERIMENT: &str = "name = \"ws-tiny\"\n\
    contestants = [\"c-epoll\", \"nginx-static\"]\nendpoints = [\"websocket\"]\n\
    layouts = [\"split\"]\nwarmup = \"0.3s\"\nduration = \"1s\"\nseed = 7\n\
    [make_up]\nruns = 0\n\
    [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n\
    [[loads]]\nname = \"echo\"\nconnections = [4]\nwebsocket = { in_flight = 8 }\n\
    [[loads]]\nname = \"at 1000/s\"\nconnections = [4]\nrate = [\"1000\"]\n\
    websocket = { binary = true, message_size = 100 }\n\
    [[loads]]\nname = \"held 400\"\nconnections = [400]\nrate = [\"200\"]\nwebsocket = {}\n\
    [[loads]]\nname = \"churn\"\nconnections = [4]\n\
    websocket = { messages_per_connection = 10 }\n\
    [[loads]]\nname = \"devices\"\ndevices = { stages = \"0,20:0.5s,20:0.5s\", think = \"50ms\", requests = 5 }\n\
    websocket = {}\n\
    [[table]]\ntitle = \"Echo\"\n\
    [[table.columns]]\nheader = \"msg/s\"\nload = \"echo\"\n\
    [[table.columns]]\nheader = \"CPU\"\nload = \"at 1000/s\"\nmeasure = \"cpu\"\n\
    [[table.columns]]\nheader = \"RSS 4\"\nload = \"at 1000/s\"\nmeasure = \"rss\"\n\
    [[table.columns]]\nheader = \"RSS 400\"\nload = \"held 400\"\nmeasure = \"rss\"\n\
    baseline = \"RSS 4\"\nagainst = \"per-connection\"\n";

/// A checkout of the two real contestants (linked, so that builds and results stay in
/// the temporary folder) and the experiment above.
fn checkout_with_experiment() -> tempfile::TempDir {
    checkout::with_real_contestants(
        "ws-experiment",
        &["c-epoll", "nginx-static"],
        ("ws-tiny", EXPERIMENT),
    )
}

#[test]
fn a_websocket_experiment_loads_each_echo_and_draws_its_table() {
    let folder = checkout_with_experiment();
    let root = folder.path();
    let out = checkout::shootout(root, &["run", "ws-tiny", "--setup"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let all = format!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(matches!(out.status.code(), Some(0 | 1)), "{all}");
    let runs = checkout::exported_runs(root);
    let run = |contestant: &str, load: &str| {
        (runs.iter())
            .find(|r| r["contestant"] == contestant && r["load"] == load)
            .unwrap_or_else(|| panic!("{contestant} in {load}: {all}"))
    };
    for load in ["echo", "at 1000/s", "held 400", "churn", "devices"] {
        let skipped = run("nginx-static", load);
        assert_eq!(skipped["label"], "skipped", "{all}");
        assert_eq!(skipped["reason"], "does not implement /websocket", "{all}");
        let r = run("c-epoll", load);
        assert_eq!(r["endpoint"], "websocket", "{r}");
        let x = &r["result"];
        assert!(
            x["url"].as_str().unwrap().starts_with("ws://127.0.0.1:"),
            "{r}"
        );
        assert!(x["url"].as_str().unwrap().ends_with("/ws"), "{r}");
        assert!(x["requests"]["ok"].as_u64().unwrap() > 0, "{r}");
        let q = &x["requests"];
        assert_eq!(
            q["ok"].as_u64().unwrap() + q["in_flight"].as_u64().unwrap(),
            q["total"],
            "{r}"
        );
        // Every connection closed with the handshake at the end (its upgrade may have
        // been in the warm-up, which counts nothing).
        assert!(x["ws"]["closes_sent"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(x["ws"]["closes_sent"], x["ws"]["closes_answered"], "{r}");
    }
    let echo = &run("c-epoll", "echo")["result"]["config"]["websocket"];
    assert_eq!(echo["in_flight"], 8, "{echo}");
    let binary = &run("c-epoll", "at 1000/s")["result"]["config"]["websocket"];
    assert_eq!(
        (&binary["binary"], &binary["message_size"]),
        (&true.into(), &100.into())
    );
    let held = &run("c-epoll", "held 400")["result"];
    assert_eq!(held["ws"]["closes_answered"], 400, "{held}");
    let churn = &run("c-epoll", "churn")["result"];
    let opened = churn["connections"]["opened"].as_u64().unwrap();
    let ok = churn["requests"]["ok"].as_u64().unwrap();
    assert!(
        opened >= ok / 10,
        "{opened} connections for {ok} messages: {churn}"
    );
    // Each connection upgraded (one made in the warm-up may upgrade after it).
    let upgrades = churn["ws"]["upgrades"].as_u64().unwrap();
    assert!((opened..=opened + 4).contains(&upgrades), "{churn}");
    let devices = &run("c-epoll", "devices");
    assert_eq!(devices["load_kind"], "devices", "{devices}");
    // Checked as verify --websocket checks it, once, before its first run.
    assert!(
        text.contains("ws upgrade") && text.contains("ws no-upgrade"),
        "{all}"
    );
    // The table, in the terminal, with memory per connection beyond the baseline's.
    assert!(text.contains("Echo — /websocket, layout split"), "{all}");
    assert!(text.contains(" B per connection"), "{all}");
}
