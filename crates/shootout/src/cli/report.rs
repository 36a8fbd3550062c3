//! `shootout report [EXPERIMENT...]`: the stored experiments' tables in the articles'
//! layouts, for a terminal or as Markdown, and as a self-contained web page.

use clap::{Args, ValueEnum};
use shootout::report::document::Document;
use shootout::report::{charts, html};
use shootout::store::Store;
use std::path::{Path, PathBuf};

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
}

/// Prints the report; returns the exit code.
pub fn run(args: ReportArgs) -> i32 {
    let docs = match load(&args.experiments) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: report: {e}");
            return 2;
        }
    };
    for d in &docs {
        print(d, args.format);
    }
    if let Some(path) = &args.html {
        if let Err(e) = std::fs::write(path, html::page(&docs)) {
            eprintln!("error: report: writing {}: {e}", path.display());
            return 1;
        }
        println!("web page: {}", path.display());
    }
    if let Some(dir) = &args.svg_dir {
        if let Err(e) = write_svgs(&docs, dir) {
            eprintln!("error: report: --svg-dir {}: {e}", dir.display());
            return 1;
        }
    }
    0
}

/// Each chart as `DIR/<experiment>-<chart>.svg`, a standalone file with the page's style.
fn write_svgs(docs: &[Document], dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for d in docs {
        for f in charts::figures(d) {
            let name = format!("{}-{}.svg", d.experiment.name.replace(':', "-"), f.id);
            std::fs::write(dir.join(&name), html::standalone(&f.svg))?;
            println!("chart: {}", dir.join(name).display());
        }
    }
    Ok(())
}

fn load(which: &[String]) -> Result<Vec<Document>, String> {
    let root = shootout::harness::catalog::root()?;
    let store = Store::open(&root.join("results").join("shootout.db"))?;
    let newest = match which.is_empty() {
        true => vec![store
            .experiments()?
            .last()
            .map(|e| e.id.to_string())
            .ok_or("no stored experiment yet (run `shootout run` first)")?],
        false => which.to_vec(),
    };
    newest.iter().map(|w| Document::load(&store, w)).collect()
}

fn print(d: &Document, format: Format) {
    let md = format == Format::Markdown;
    for line in d.header() {
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
