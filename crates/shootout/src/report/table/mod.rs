//! A table of text cells, drawn for a terminal, as Markdown, or as HTML.

/// Rows of cells under headers, with a title and notes below.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Leading columns aligned left (names); the rest are numbers, aligned right,
    /// except a last column headed `notes`.
    pub left: usize,
    pub notes: Vec<String>,
}

impl Table {
    /// A table with `headers`, the first `left` of them aligned left.
    pub fn new(title: impl Into<String>, headers: &[&str], left: usize) -> Table {
        Table {
            title: title.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            left,
            ..Table::default()
        }
    }

    fn is_left(&self, column: usize) -> bool {
        column < self.left || (column + 1 == self.headers.len() && self.headers[column] == "notes")
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

    /// An HTML table with a caption; cells are escaped.
    pub fn html(&self) -> String {
        let cell = |tag: &str, c: usize, x: &String| {
            let class = if self.is_left(c) {
                ""
            } else {
                " class=\"num\""
            };
            format!("<{tag}{class}>{}</{tag}>", escape(x))
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
}

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
        let mut t = Table::new("t", &["name", "req/s", "notes"], 1);
        t.rows.push(vec!["a|b".into(), "1,000".into(), "x".into()]);
        t.rows.push(vec!["long name".into(), "5".into(), "".into()]);
        t
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
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
