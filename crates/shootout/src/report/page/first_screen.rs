//! The top of an experiment's section, what fits a first screen: how the runs went (the
//! summary line), how quiet the host was, and each table's leaders with their figures.
//! Everything a reader checks before trusting them comes after the results, folded.

use crate::report::document::Document;
use crate::report::table::escape;
use std::fmt::Write;

/// The summary and host lines, the findings, and which experiment on which machine.
pub fn first_screen(d: &Document) -> String {
    let mut out = format!("<p class=\"summary\">{}</p>\n", escape(&d.summary().line()));
    if let Some(host) = d.host() {
        let _ = writeln!(out, "<p class=\"host\">{}</p>", escape(&host));
    }
    out += &findings(d);
    let [experiment, machine] = d.identity();
    let _ = writeln!(
        out,
        "<p class=\"meta\">{}<br>{}</p>",
        escape(&experiment),
        escape(&machine)
    );
    out
}

/// Each table's leaders, a line each: the table in bold, then who leads it.
fn findings(d: &Document) -> String {
    let findings = d.findings();
    if findings.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ul class=\"findings\">\n");
    for f in findings {
        let _ = writeln!(
            out,
            "<li><b>{}</b>: {}</li>",
            escape(&f.what),
            escape(&f.leaders)
        );
    }
    out + "</ul>\n"
}
