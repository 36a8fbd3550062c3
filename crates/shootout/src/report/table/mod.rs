//! A table of text cells, drawn for a terminal, as Markdown, as HTML, or as JSON; tables are
//! declared as lists of columns (`columns`).

pub mod columns;

/// Where a column's cells sit: names to the left, numbers to the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Align {
    Left,
    Right,
}

/// Rows of cells under headers, with a title and notes below; as JSON, these fields.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    /// Each column's alignment, in the order of `headers`.
    pub align: Vec<Align>,
    pub rows: Vec<Vec<String>>,
    pub notes: Vec<String>,
}

impl Table {
    fn is_left(&self, column: usize) -> bool {
        self.align.get(column) == Some(&Align::Left)
    }

    /// Aligned columns for a terminal.
    pub fn text(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|c| {
                let cells = self.rows.iter().filter_map(|r| r.get(c));
                cells
                    .chain([&self.headers[c]])
                    .map(|x| x.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| -> String {
            let padded: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(c, x)| {
                    let w = widths.get(c).copied().unwrap_or(0);
                    if self.is_left(c) {
                        format!("{x:<w$}")
                    } else {
                        format!("{x:>w$}")
                    }
                })
                .collect();
            format!("  {}", padded.join("  ").trim_end())
        };
        let mut out = format!("{}\n{}\n", self.title, line(&self.headers));
        for r in &self.rows {
            out += &line(r);
            out.push('\n');
        }
        for n in &self.notes {
            out += &format!("  {n}\n");
        }
        out
    }

    /// A GitHub-flavoured Markdown table.
    pub fn markdown(&self) -> String {
        let esc = |x: &String| x.replace('|', "\\|");
        let row = |cells: &[String]| {
            format!(
                "| {} |",
                cells.iter().map(esc).collect::<Vec<_>>().join(" | ")
            )
        };
        let rule: Vec<String> = (0..self.headers.len())
            .map(|c| {
                if self.is_left(c) {
                    "---".into()
                } else {
                    "---:".into()
                }
            })
            .collect();
        let mut out = format!(
            "**{}**\n\n{}\n|{}|\n",
            self.title,
            row(&self.headers),
            rule.join("|")
        );
        for r in &self.rows {
            out += &row(r);
            out.push('\n');
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for n in &self.notes {
                out += &format!("{n}\n");
            }
        }
        out
    }

    /// An HTML table with a caption; cells are escaped. Numbers stay on one line; a
    /// column of prose (left-aligned, some cell longer than [`PROSE`] characters: notes,
    /// reasons) is marked `text` so that the page's style lets it wrap. Headers may wrap
    /// between words, not at their hyphens (`CPU-s/1k req` breaks before `req`).
    pub fn html(&self) -> String {
        let prose: Vec<bool> = (0..self.headers.len()).map(|c| self.is_prose(c)).collect();
        let cell = |tag: &str, c: usize, x: &String| {
            let class = match (self.is_left(c), prose[c]) {
                (false, _) => " class=\"num\"",
                (true, true) => " class=\"text\"",
                (true, false) => "",
            };
            let text = match tag {
                "th" => escape(x).replace('-', NON_BREAKING_HYPHEN),
                _ => escape(x),
            };
            format!("<{tag}{class}>{text}</{tag}>")
        };
        let row = |tag: &str, cells: &[String]| {
            let inner: String = cells
                .iter()
                .enumerate()
                .map(|(c, x)| cell(tag, c, x))
                .collect();
            format!("<tr>{inner}</tr>\n")
        };
        let mut out = format!(
            "<div class=\"table\"><table>\n<caption>{}</caption>\n<thead>{}</thead>\n<tbody>\n",
            escape(&self.title),
            row("th", &self.headers)
        );
        for r in &self.rows {
            out += &row("td", r);
        }
        out += "</tbody></table>\n";
        for n in &self.notes {
            out += &format!("<p class=\"note\">{}</p>\n", escape(n));
        }
        out + "</div>\n"
    }

    /// Whether column `c` holds prose rather than names: left-aligned, with a cell longer
    /// than [`PROSE`] characters.
    fn is_prose(&self, c: usize) -> bool {
        let longest = self.rows.iter().filter_map(|r| r.get(c));
        self.is_left(c) && longest.map(|x| x.chars().count()).max() > Some(PROSE)
    }
}

/// U+2011, a hyphen a line does not break at.
const NON_BREAKING_HYPHEN: &str = "\u{2011}";

/// The length past which a left-aligned cell reads as prose (a note, a reason) that may
/// wrap on the page; names and cells of a few words stay on one line.
pub const PROSE: usize = 32;

/// `text` safe inside HTML or SVG text and attributes.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        Table {
            title: "t".into(),
            headers: ["name", "req/s", "notes"].map(String::from).to_vec(),
            align: vec![Align::Left, Align::Right, Align::Left],
            rows: vec![
                ["a|b", "1,000", "x"].map(String::from).to_vec(),
                ["long name", "5", ""].map(String::from).to_vec(),
            ],
            notes: Vec::new(),
        }
    }

    #[test]
    fn text_aligns_names_left_and_numbers_right() {
        let text = sample().text();
        assert!(text.contains("  a|b        1,000  x\n"), "{text}");
        assert!(text.contains("  long name      5\n"), "{text}");
    }

    #[test]
    fn markdown_and_html_escape_their_cells() {
        let t = sample();
        assert!(t.markdown().contains("| a\\|b | 1,000 | x |"));
        assert!(t.markdown().contains("|---|---:|---|"));
        assert!(t.html().contains("<td class=\"num\">1,000</td>"));
        let mut long = t.clone();
        long.rows[1][2] = "a note long enough to read as prose, not a name".into();
        assert!(
            long.html().contains("<td class=\"text\">x</td>"),
            "a prose column wraps"
        );
        assert!(
            long.html().contains("<td>long name</td>"),
            "names stay on one line"
        );
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }

    #[test]
    fn as_json_a_table_is_its_cells_as_the_text_shows_them() {
        let json = serde_json::to_value(sample()).expect("a table is JSON");
        assert_eq!(json["title"], "t");
        assert_eq!(json["align"], serde_json::json!(["left", "right", "left"]));
        assert_eq!(json["rows"][0], serde_json::json!(["a|b", "1,000", "x"]));
    }
}
