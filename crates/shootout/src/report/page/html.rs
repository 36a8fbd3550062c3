//! The web page of `shootout report --html`: one self-contained file (inline CSS and
//! SVG, no script, no network) that opens from disk and reads on a phone.

use crate::record::{Bottleneck, Label, RunRecord};
use crate::report::document::Document;
use crate::report::page::figures;
use crate::report::stats::measures;
use crate::report::table::columns::{Column, Design};
use crate::report::table::escape;
use std::fmt::Write;

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1000px;padding:0 12px;color:#111}\
h1,h2,h3{line-height:1.2}.table{overflow-x:auto;margin:1em 0}table{border-collapse:collapse;font-size:13px}\
caption{text-align:left;font-weight:600;padding:4px 0}th,td{padding:3px 8px;border-bottom:1px solid #ddd;white-space:nowrap}\
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}.note{font-size:12px;color:#444;margin:2px 0}\
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
    for d in docs {
        out += &section(d);
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

fn section(d: &Document) -> String {
    let mut out = format!("<section><h2>{}</h2>\n", escape(&d.experiment.name));
    for line in d.header() {
        let _ = writeln!(out, "<p>{}</p>", escape(&line));
    }
    for line in d.warnings() {
        let _ = writeln!(out, "<p class=\"warn\">{}</p>", escape(&line));
    }
    out += &labels(d);
    out += "<h3>Tables</h3>\n";
    for t in d.tables() {
        out += &t.html();
    }
    out += "<h3>Charts</h3>\n";
    for f in figures::figures(d) {
        let _ = writeln!(out, "<figure id=\"{}\">{}</figure>", f.id, f.svg);
    }
    out += &details(d);
    out + "</section>\n"
}

/// The runs that did not measure the server, and the generator's warnings, where
/// everyone sees them.
fn labels(d: &Document) -> String {
    let flagged: Vec<&RunRecord> = d
        .runs
        .iter()
        .filter(|r| r.label() != Label::Ok || !measures::warnings(r).is_empty())
        .collect();
    if flagged.is_empty() {
        return "<p>Every run measured the server (label ok).</p>\n".into();
    }
    let design = Design {
        title: "Runs that are not ok, and the generator's warnings".into(),
        columns: vec![
            Column::name("contestant", |r: &&RunRecord| r.cell.contestant.clone()),
            Column::name("cell", |r: &&RunRecord| {
                format!(
                    "/{} {} {} c={}",
                    r.cell.endpoint, r.cell.layout, r.cell.load, r.cell.connections
                )
            }),
            Column::name("repeat", |r: &&RunRecord| (r.cell.repeat + 1).to_string()),
            Column::name("label", |r: &&RunRecord| r.label().word().into()),
            Column::name("reason or warning", |r: &&RunRecord| {
                let why = match r.label() {
                    Label::Ok => measures::warnings(r).join("; "),
                    _ => r.reason().to_string(),
                };
                why.chars().take(240).collect()
            }),
        ],
        marks: vec![
            "generator-bound runs describe the generator, not the server: they are never ranked"
                .into(),
        ],
    };
    format!(
        "<div class=\"warn\">{}</div>\n",
        design.draw(&flagged).html()
    )
}

/// Versions and the experiment file as run.
fn details(d: &Document) -> String {
    let mut out = String::from("<h3>Versions</h3>\n<ul>\n");
    for (name, v) in d.versions() {
        let _ = writeln!(out, "<li><b>{}</b>: {}</li>", escape(&name), escape(&v));
    }
    out += "</ul>\n<h3>Parameters (the experiment file as run)</h3>\n";
    let _ = writeln!(out, "<pre>{}</pre>", escape(&d.experiment.definition));
    out
}
