use super::*;
use crate::model::RunRecord;
use crate::report::fixture::{disturbed, h2_document, only_table, row};
use crate::report::table::Table;

fn table_of(runs: &[RunRecord]) -> Table {
    only_table(&h2_document(), declared, runs)
}

fn sentence_of<'t>(t: &'t Table, contestant: &str) -> Option<&'t str> {
    let start = format!("{contestant} ");
    t.notes
        .iter()
        .find(|n| n.starts_with(&start))
        .map(String::as_str)
}

#[test]
fn each_server_has_a_row_of_what_http2_gains_or_costs_it_most_requests_first() {
    let t = table_of(&h2_document().runs);
    assert_eq!(
        t.title,
        "What HTTP/2 gains or costs each server — /hello, layout split"
    );
    let order: Vec<&str> = t.rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        order,
        ["nginx-static", "java-netty", "go-nethttp", "py-clear"],
        "by requests/s over h2c at 1 stream"
    );
    assert_eq!(
        row(&t, "nginx-static"),
        [
            ("contestant", "nginx-static"),
            ("req/s HTTP/1.1", "50,000"),
            ("req/s h2c ×1", "45,000 (90%)"),
            ("req/s h2c ×10", "90,000 (180%)"),
            ("req/s h2c ×100", "95,000 (190%)"),
            ("µs/req HTTP/1.1", "22.1"),
            ("µs/req h2c ×10", "18.0 (-4.1)"),
            ("req/s HTTP/1.1 TLS", "40,000"),
            ("req/s h2 ×10", "60,000 (150%)"),
            ("notes", ""),
        ]
    );
    assert_eq!(
        sentence_of(&t, "nginx-static"),
        Some(
            "nginx-static answers 90% of its HTTP/1.1 requests/s over h2c with 1 stream per \
             connection, 180% with 10 and 190% with 100, and 150% over TLS (h2) with 10; \
             -4.1 µs CPU per request against HTTP/1.1 at 5000/s (h2c ×10)"
        )
    );
}

#[test]
fn where_http2_breaks_down_a_sentence_says_how() {
    let t = table_of(&h2_document().runs);
    assert_eq!(row(&t, "java-netty")[4], ("req/s h2c ×100", "20,000 (50%)"));
    assert_eq!(
        sentence_of(&t, "java-netty"),
        Some(
            "java-netty answers 88% of its HTTP/1.1 requests/s over h2c with 1 stream per \
             connection, 175% with 10 and 50% with 100, and 110% over TLS (h2) with 10; \
             -2.2 µs CPU per request against HTTP/1.1 at 5000/s (h2c ×10); h2c ×100, 50 \
             connections: 3.6% of requests failed (3,000 reset); RST_STREAM REFUSED_STREAM \
             ×3,000; GOAWAY ENHANCE_YOUR_CALM ×1; 200 sent again"
        )
    );
}

#[test]
fn a_server_without_http2_keeps_its_row_and_says_why_once() {
    let t = table_of(&h2_document().runs);
    let py = row(&t, "py-clear");
    assert_eq!(py[1], ("req/s HTTP/1.1", "10,000"));
    assert_eq!(py[2].1, "-");
    assert_eq!(py[5], ("µs/req HTTP/1.1", "40.0"));
    assert_eq!(
        py[9].1,
        "req/s h2c ×1, req/s h2c ×10, req/s h2c ×100, µs/req h2c ×10: 1 skipped: does not \
         serve h2c (no [h2c] in its contestant.toml); req/s h2 ×10: 1 skipped: does not \
         serve HTTP/2 over TLS (its [tls] alpn has no \"h2\")"
    );
    assert_eq!(sentence_of(&t, "py-clear"), None);
}

#[test]
fn a_figure_without_a_run_that_counts_is_marked_and_the_legend_says_what_each_is() {
    let runs = disturbed(h2_document().runs, "go-nethttp", "h2c at 5000/s");
    let t = table_of(&runs);
    let go = row(&t, "go-nethttp");
    assert_eq!(go[6], ("µs/req h2c ×10", "31.5† (+11.5)"));
    assert!(
        go[9].1.starts_with("µs/req h2c ×10: 1 disturbed"),
        "{}",
        go[9].1
    );
    assert!(sentence_of(&t, "go-nethttp")
        .unwrap()
        .contains("+11.5† µs CPU per request against HTTP/1.1 at 5000/s (h2c ×10)"));
    let legend = &t.notes[0];
    assert!(legend.contains(
        "req/s h2c ×10: requests/s on kept connections, as fast as responses come, over \
         HTTP/2 with prior knowledge (h2c), 10 streams per connection, 50 connections (load \
         \"h2c keep-alive\") (in percent of HTTP/1.1's)"
    ));
    assert!(legend.contains("† no run counts"), "{legend}");
}

#[test]
fn an_experiment_without_http2_has_no_such_table_and_the_page_shows_it_when_it_has() {
    let d = h2_document();
    let mut h11 = d.experiment.plan.clone().unwrap();
    h11.loads.retain(|l| l.http2.is_none());
    assert!(declared(&h11).is_none());
    let tls = crate::report::fixture::tls_document();
    assert!(tls
        .tables()
        .iter()
        .all(|t| !t.title.starts_with("What HTTP/2")));
    let all = d.tables();
    let titles: Vec<&str> = all.iter().map(|t| t.title.as_str()).collect();
    assert!(titles
        .iter()
        .any(|t| t.starts_with("What HTTP/2 gains or costs")));
    let tls_tables = all.iter().filter(|t| t.title.starts_with("What TLS"));
    assert!(
        tls_tables
            .flat_map(|t| &t.notes)
            .all(|n| !n.contains("h2 keep-alive")),
        "loads over HTTP/2 are not the TLS table's"
    );
    assert!(
        titles.contains(&"Requests per second — /hello, h2c keep-alive, 100 streams"),
        "each stream count has its own cells: {titles:?}"
    );
    let page = crate::report::page::html::page(&[d]);
    assert!(
        page.contains("<caption>What HTTP/2 gains or costs each server — /hello, layout split"),
        "the page shows it"
    );
    assert!(page.contains("nginx-static answers 90% of its HTTP/1.1 requests/s"));
}
