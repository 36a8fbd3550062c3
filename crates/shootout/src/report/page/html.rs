//! The web page of `shootout report --html`: one self-contained file (inline CSS and
//! SVG, no script, no network) that opens from disk and reads on a phone.

use crate::model::{Bottleneck, Label};
use crate::report::document::Document;
use crate::report::page::colours::Colours;
use crate::report::page::first_screen::first_screen;
use crate::report::page::{figures, warnings};
use crate::report::table::escape;
use std::fmt::Write;

/// The page's style. The body is 1200 px at most so that a table of the 2017 layout with
/// the ceiling's columns fits a 1280-pixel window; numbers stay on one line, headers wrap
/// between words and prose cells (notes, reasons) wrap, so no table scrolls sideways
/// there (a phone still scrolls it inside its box).
const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 12px;color:#111}\
h1,h2,h3{line-height:1.2}.table{overflow-x:auto;margin:1em 0}table{border-collapse:collapse;font-size:13px}\
caption{text-align:left;font-weight:600;padding:4px 0;white-space:nowrap}th,td{padding:3px 6px;border-bottom:1px solid #ddd;white-space:nowrap;vertical-align:top}\
th{white-space:normal;vertical-align:bottom;text-align:left}td.text{white-space:normal;min-width:12em}\
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}.note{font-size:12px;color:#444;margin:2px 0;max-width:75em}\
.summary{font-size:17px;font-weight:600;margin:.4em 0}.host{margin:.2em 0}.findings{padding-left:1.2em}.findings li{margin:.25em 0}\
.meta{font-size:13px;color:#444}details{margin:.5em 0}summary{cursor:pointer;font-weight:600}\
figure{margin:1em 0}svg.chart{width:100%;height:auto;max-width:900px;display:block;margin:1em 0}\
svg .title{font-size:15px;font-weight:600}svg .tick,svg .legend{font-size:12px}svg .label{font-size:13px}\
svg .grid{stroke:#e3e3e3}svg .axis{stroke:#333}svg path.series{fill:none;stroke-width:2.2}\
.warn{background:#fff4e0;border-left:4px solid #E69F00;padding:4px 8px}pre{overflow-x:auto;background:#f6f6f6;padding:8px}";

/// One chart as a standalone SVG file: the page's chart style inlined, white behind.
pub fn standalone(svg: &str) -> String {
    let css = STYLE
        .split('}')
        .filter(|rule| rule.starts_with("svg "))
        .map(|r| format!("{}}}", &r[4..]))
        .collect::<String>();
    svg.replacen(
        "xmlns=\"http://www.w3.org/2000/svg\">",
        &format!("xmlns=\"http://www.w3.org/2000/svg\" style=\"background:#fff;font-family:sans-serif\"><style>{css}</style>"),
        1,
    )
}

/// The page for `docs`.
pub fn page(docs: &[Document]) -> String {
    let title = docs
        .iter()
        .map(|d| d.experiment.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>shootout: {}</title><style>{STYLE}</style></head><body>\n<h1>shootout: {}</h1>\n",
        escape(&title),
        escape(&title)
    );
    // One style per contestant across every chart of the page.
    let colours = Colours::of(docs);
    for d in docs {
        out += &section(d, &colours);
    }
    out + &glossary() + "</body></html>\n"
}

/// Each label and bottleneck word, in one line.
fn glossary() -> String {
    let mut out = String::from("<section><h2>What the words mean</h2>\n<dl>\n");
    let labels = Label::ALL.map(|l| (l.word(), l.meaning()));
    let bottlenecks = Bottleneck::ALL.map(|b| (b.word(), b.meaning()));
    for (word, meaning) in labels.iter().chain(&bottlenecks) {
        let _ = writeln!(out, "<dt>{word}</dt><dd>{}</dd>", escape(meaning));
    }
    out + "<dt>valid</dt><dd>the run says something about the server: not generator-bound, not disturbed; only valid runs are ranked</dd>\n</dl></section>\n"
}

/// One experiment: what it found first, then its tables and charts, then the warnings
/// (folded) and what it ran with.
fn section(d: &Document, colours: &Colours) -> String {
    let mut out = format!("<section><h2>{}</h2>\n", escape(&d.experiment.name));
    out += &first_screen(d);
    out += "<h3>Tables</h3>\n";
    for t in d.tables() {
        out += &t.html();
    }
    out += "<h3>Charts</h3>\n";
    for f in figures::figures(d, colours) {
        let _ = writeln!(out, "<figure id=\"{}\">{}</figure>", f.id, f.svg);
    }
    out += &warnings::folded(d);
    out += &details(d);
    out + "</section>\n"
}

/// Versions, the harness' overhead, and the experiment file as run.
fn details(d: &Document) -> String {
    let mut out = String::from("<h3>Versions</h3>\n<ul>\n");
    for (name, v) in d.versions() {
        let _ = writeln!(out, "<li><b>{}</b>: {}</li>", escape(&name), escape(&v));
    }
    out += "</ul>\n";
    if let Some(line) = d.overhead_line() {
        let _ = writeln!(out, "<p>{}</p>", escape(&line));
    }
    out += "<h3>Parameters (the experiment file as run)</h3>\n";
    let _ = writeln!(out, "<pre>{}</pre>", escape(&d.experiment.definition));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::document;

    #[test]
    fn the_page_says_what_it_found_before_any_table_and_folds_its_warnings_after_the_charts() {
        let html = page(&[document()]);
        let at = |text: &str| {
            html.find(text)
                .unwrap_or_else(|| panic!("{text} in the page"))
        };
        let summary = at("<p class=\"summary\">34 runs: 23 valid");
        let found = at("<li><b>Capacity (/hello, split, keep-alive, 50 connections)</b>: c-epoll");
        let first_table = at("<div class=\"table\">");
        let last_chart = html.rfind("<figure").unwrap();
        let folds = at("<div class=\"warnings\">");
        assert!(
            summary < found && found < first_table,
            "the findings come first"
        );
        assert!(last_chart < folds, "the warnings come after the results");
        let folded = &html[folds..];
        assert!(folded.contains("<details><summary>34 runs by label: 23 ok, 5 generator-bound"));
        assert!(folded.contains("<details><summary>The generator warned about 1 run</summary>"));
        assert!(
            !html[..folds].contains("class=\"warn\""),
            "no warning before the results"
        );
    }
}
