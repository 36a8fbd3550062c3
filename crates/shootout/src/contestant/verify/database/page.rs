//! A fortunes page as compared: TechEmpower's page built from the rows, and any page read
//! into tokens by a WHATWG tokenizer (html5gum, as TechEmpower's own verifier reads pages
//! with html5ever's): tag names in lower case, character references decoded, text trimmed
//! and whitespace alone between tags dropped, comments and the tokenizer's complaints
//! left out. Two pages are the same when their tokens are: `&quot;` and `"` alike, but an
//! unescaped `<script>` is a tag, not text.

use html5gum::{Token as Html, Tokenizer};
use std::fmt;

/// The fortune every page adds to the table's at request time, as TechEmpower's does.
pub(super) const ADDED: (i32, &str) = (0, "Additional fortune added at request time.");

/// One token of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Doctype(String),
    Start(String, Vec<(String, String)>),
    End(String),
    Text(String),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Doctype(name) => write!(f, "<!DOCTYPE {name}>"),
            Token::Start(name, attributes) => {
                write!(f, "<{name}")?;
                for (a, v) in attributes {
                    write!(f, " {a}={v:?}")?;
                }
                f.write_str(">")
            }
            Token::End(name) => write!(f, "</{name}>"),
            Token::Text(text) => write!(f, "{:?}", short(text)),
        }
    }
}

/// The page TechEmpower's fortunes test wants for `rows` (the table's and the added one),
/// sorted by message.
pub(super) fn wanted(rows: &[(i32, String)]) -> String {
    let mut rows = rows.to_vec();
    rows.sort_by(|a, b| a.1.cmp(&b.1));
    table(&rows)
}

/// TechEmpower's page of `rows` in their order, escaped.
pub(super) fn table(rows: &[(i32, String)]) -> String {
    let cells: String = (rows.iter())
        .map(|(id, m)| {
            format!(
                "<tr><td>{id}</td><td>{}</td></tr>",
                html_escape::encode_text(m)
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>\
         <tr><th>id</th><th>message</th></tr>{cells}</table></body></html>"
    )
}

/// `html`'s tokens, normalised as the module says.
pub(super) fn tokens(html: &str) -> Vec<Token> {
    let name = |bytes: &[u8]| String::from_utf8_lossy(bytes).to_ascii_lowercase();
    let mut out: Vec<Token> = Vec::new();
    let mut text = String::new();
    for token in Tokenizer::new(html).flatten() {
        let next = match token {
            Html::String(s) => {
                text.push_str(&String::from_utf8_lossy(&s));
                continue;
            }
            Html::Doctype(d) => Token::Doctype(name(&d.name)),
            Html::StartTag(t) => {
                let attributes = (t.attributes.iter())
                    .map(|(a, v)| (name(a), String::from_utf8_lossy(v).into_owned()))
                    .collect();
                Token::Start(name(&t.name), attributes)
            }
            Html::EndTag(t) => Token::End(name(&t.name)),
            Html::Comment(_) | Html::Error(_) => continue,
        };
        push_text(&mut out, &mut text);
        out.push(next);
    }
    push_text(&mut out, &mut text);
    out
}

/// The text gathered so far as a token, trimmed, unless it is only whitespace.
fn push_text(out: &mut Vec<Token>, text: &mut String) {
    let trimmed = text.trim();
    if !trimmed.is_empty() {
        out.push(Token::Text(trimmed.to_string()));
    }
    text.clear();
}

/// The elements TechEmpower's page is made of: any other is a message's markup.
pub(super) const ELEMENTS: [&str; 8] = ["html", "head", "title", "body", "table", "tr", "th", "td"];

/// The rows of the page's table: the texts of each `<tr>`'s two `<td>` cells.
pub(super) fn rows(tokens: &[Token]) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut cells: Vec<String> = Vec::new();
    let mut cell: Option<String> = None;
    for t in tokens {
        match t {
            Token::Start(n, _) if n == "td" => cell = Some(String::new()),
            Token::Text(s) => {
                if let Some(c) = &mut cell {
                    c.push_str(s);
                }
            }
            Token::End(n) if n == "td" => cells.extend(cell.take()),
            Token::End(n) if n == "tr" => {
                if let [id, message] = &cells[..] {
                    rows.push((id.clone(), message.clone()));
                }
                cells.clear();
            }
            _ => {}
        }
    }
    rows
}

/// The start of `text`, for a one-line detail.
pub(super) fn short(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Vec<(i32, String)> {
        let rows = [(1, "b & c"), (2, "<script>x(\"y\")</script>"), (3, "フ")];
        rows.iter().map(|(i, m)| (*i, m.to_string())).collect()
    }

    #[test]
    fn a_page_compares_by_its_tokens_not_its_spelling() {
        let want = tokens(&wanted(&table()));
        let spelt_otherwise = "<!doctype HTML>\n<html>\n <head><title>Fortunes</title></head>\n\
            <body><table>\n<tr><th>id</th><th>message</th></tr>\n\
            <tr><td>2</td><td>&#60;script&#x3E;x(\"y\")&lt;/script&gt;</td></tr>\n\
            <tr><td> 1 </td><td>b &amp; c</td></tr>\n<tr><td>3</td><td>&#12501;</td></tr>\n\
            </table></body></html>\n";
        assert_eq!(tokens(spelt_otherwise), want);
        let rows = rows(&want);
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[0],
            ("2".to_string(), "<script>x(\"y\")</script>".to_string())
        );
    }

    #[test]
    fn an_unescaped_script_is_a_tag_and_the_page_differs() {
        let page = wanted(&table()).replace("&lt;script&gt;", "<script>");
        let got = tokens(&page);
        assert!(got.contains(&Token::Start("script".into(), vec![])));
        assert_ne!(got, tokens(&wanted(&table())));
    }
}
