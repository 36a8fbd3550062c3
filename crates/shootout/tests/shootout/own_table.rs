//! An experiment with a table of its own (`[[table]]`, issue 33), end to end: the TLS
//! ceiling (c-epoll-tls, quick to build) on kept connections in clear text and over TLS,
//! and a table that sets the second against the first. `shootout run` ends with the table,
//! and its page draws it with its chart. One repeat of 1 s per run.

use crate::checkout;

const EXPERIMENT: &str = "name = \"own-table\"\n\
    contestants = [\"c-epoll-tls\"]\nlayouts = [\"split\"]\n\
    warmup = \"0.3s\"\nduration = \"1s\"\nseed = 7\n\
    [make_up]\nruns = 0\n\
    [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n\
    [[loads]]\nname = \"clear\"\nconnections = [4]\n\
    [[loads]]\nname = \"over TLS\"\nconnections = [4]\ntls = {}\n\
    [[table]]\ntitle = \"TLS against clear text\"\norder = \"TLS\"\n\
    [[table.columns]]\nheader = \"clear\"\nload = \"clear\"\n\
    [[table.columns]]\nheader = \"TLS\"\nload = \"over TLS\"\nbaseline = \"clear\"\n";

/// A checkout of the TLS ceiling (linked, with c-epoll's sources it builds beside it)
/// and the experiment above.
fn checkout_with_experiment() -> tempfile::TempDir {
    checkout::with_real_contestants(
        "own-table",
        &["c-epoll", "c-epoll-tls"],
        ("own-table", EXPERIMENT),
    )
}

#[test]
fn an_experiment_with_a_table_of_its_own_prints_and_draws_it() {
    let folder = checkout_with_experiment();
    let root = folder.path();
    let out = checkout::shootout(root, &["run", "own-table", "--setup"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let all = format!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(matches!(out.status.code(), Some(0 | 1)), "{all}");
    assert!(
        text.contains("TLS against clear text — /hello, layout split"),
        "{all}"
    );
    let row = (text.lines())
        .find(|l| l.trim_start().starts_with("c-epoll-tls") && l.contains("%)"))
        .unwrap_or_else(|| panic!("a row with TLS in percent of clear text: {all}"));
    assert!(row.contains('('), "{row}");
    let page = root.join("page.html");
    let page_arg = page.to_str().unwrap();
    let out = checkout::shootout(root, &["report", "own-table", "--html", page_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<caption>TLS against clear text — /hello, layout split"));
    assert!(
        html.contains("id=\"tls-against-clear-text-tls-hello-layout-split\""),
        "the table's chart"
    );
}
