//! `shootout report [EXPERIMENT...]`: the stored experiments' tables in the articles'
//! layouts, for a terminal, as Markdown or as JSON, and as a self-contained web page.

use super::results::open_store;
use super::WorkFailed;
use anyhow::Context;
use clap::{Args, ValueEnum};
use shootout::report::document::Document;
use shootout::report::page::colours::Colours;
use shootout::report::page::{figures, html};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Flags of `shootout report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Experiment ids or names (a name means its newest run of it), or single runs as
    /// run:ID [default: the newest experiment]
    experiments: Vec<String>,
    /// How to print the tables
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also write a self-contained web page with the tables and charts
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Also write each chart as its own SVG file in DIR (for docs; see scripts/report-docs)
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
}

/// Table formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns
    Text,
    /// GitHub-flavoured Markdown
    Markdown,
    /// One JSON object per experiment a line: its header lines, findings and tables (each
    /// table's title, headers, align, rows and notes, as the text shows them)
    Json,
}

/// Prints the report, and writes the page and charts when asked.
pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let docs = load(&args.experiments).context("report")?;
    for d in &docs {
        print(d, args.format);
    }
    if let Some(path) = &args.html {
        std::fs::write(path, html::page(&docs))
            .map_err(|e| WorkFailed(e.into()))
            .with_context(|| format!("report: writing {}", path.display()))?;
        println!("web page: {}", path.display());
    }
    if let Some(dir) = &args.svg_dir {
        write_svgs(&docs, dir)
            .map_err(|e| WorkFailed(e.into()))
            .with_context(|| format!("report: --svg-dir {}", dir.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Each chart as `DIR/<experiment>-<chart>.svg`, a standalone file with the page's style.
fn write_svgs(docs: &[Document], dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    // The page's colours: a contestant keeps its colour in every file, as on the page.
    let colours = Colours::of(docs);
    for d in docs {
        for f in figures::figures(d, &colours) {
            let name = format!("{}-{}.svg", d.experiment.name.replace(':', "-"), f.id);
            std::fs::write(dir.join(&name), html::standalone(&f.svg))?;
            println!("chart: {}", dir.join(name).display());
        }
    }
    Ok(())
}

fn load(which: &[String]) -> anyhow::Result<Vec<Document>> {
    let store = open_store()?;
    if which.is_empty() {
        let newest = (store.experiments()?.pop())
            .context("no stored experiment yet (run `shootout run` first)")?;
        return Ok(vec![Document::of(&store, newest)?]);
    }
    let docs = which.iter().map(|w| Document::load(&store, w));
    Ok(docs.collect::<Result<_, _>>()?)
}

fn print(d: &Document, format: Format) {
    if format == Format::Json {
        let findings: Vec<String> = d.findings().iter().map(|f| f.line()).collect();
        let json = serde_json::json!({
            "experiment": d.experiment.name,
            "id": d.experiment.id,
            "header": d.header(),
            "findings": findings,
            "tables": d.tables(),
        });
        println!("{json}");
        return;
    }
    let md = format == Format::Markdown;
    for line in d.header() {
        println!("{}{line}", if md { "- " } else { "" });
    }
    for finding in d.findings() {
        println!("{}{}", if md { "- " } else { "" }, finding.line());
    }
    for line in d.warnings() {
        println!("{}{line}", if md { "- " } else { "" });
    }
    if !d.versions().is_empty() {
        println!("{}versions:", if md { "- " } else { "" });
        for (name, v) in d.versions() {
            println!("{}{name}: {v}", if md { "  - " } else { "  " });
        }
    }
    for t in d.tables() {
        println!();
        print!("{}", if md { t.markdown() } else { t.text() });
    }
    println!();
}
