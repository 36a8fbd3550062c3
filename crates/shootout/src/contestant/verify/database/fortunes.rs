//! `fortunes`: the Fortune table and the fortune added at request time as an HTML table,
//! sorted by message, HTML-escaped, in UTF-8, compared as normalised HTML with the page
//! the harness builds from the table (`page`); what differs is said in words.

use super::page::{self, Token, ADDED};
use super::{Asker, Problem, Tables, Wrong};

/// The media type TechEmpower's fortunes test wants.
const HTML: &str = "text/html; charset=utf-8";

/// `GET /fortunes`, compared with the page the table makes.
pub(super) fn fortunes(ask: &mut Asker, tables: &dyn Tables) -> Result<String, Wrong> {
    let mut table = tables.fortunes()?;
    let stored = table.len();
    table.push((ADDED.0, ADDED.1.to_string()));
    let path = ask.endpoint.path.clone();
    let body = ask.get(&path, HTML)?;
    let wrong = |problem| Wrong::Answer {
        path: path.clone(),
        problem,
    };
    let text = std::str::from_utf8(&body).map_err(|e| wrong(Problem::NotUtf8(e.valid_up_to())))?;
    let want = page::tokens(&page::wanted(&table));
    let got = page::tokens(text);
    match got == want {
        true => Ok(format!(
            "{stored} rows and the added one, sorted by message, escaped, in UTF-8"
        )),
        false => Err(wrong(Problem::Page(differs(&got, &want)))),
    }
}

/// How the page `got` differs from the one wanted, in words: an unescaped message, rows
/// out of order, a row missing or not the table's, or else the first token that differs.
fn differs(got: &[Token], want: &[Token]) -> String {
    let markup = got.iter().find_map(|t| match t {
        Token::Start(name, _) if !page::ELEMENTS.contains(&name.as_str()) => Some(name),
        _ => None,
    });
    if let Some(name) = markup {
        return format!("a <{name}> element in the page: a message is not HTML-escaped");
    }
    let (got_rows, want_rows) = (page::rows(got), page::rows(want));
    let mut in_order = (got_rows.clone(), want_rows.clone());
    in_order.0.sort();
    in_order.1.sort();
    let misplaced = (got_rows.iter().zip(&want_rows)).position(|(g, w)| g != w);
    if let (true, Some(i)) = (in_order.0 == in_order.1, misplaced) {
        let (g, w) = (&got_rows[i].0, &want_rows[i].0);
        return format!(
            "not sorted by message: row {} is id {g} (want id {w})",
            i + 1
        );
    }
    if let Some((id, m)) = got_rows.iter().find(|r| !want_rows.contains(r)) {
        return format!("row id {id} {:?} is not Fortune's", page::short(m));
    }
    if let Some((id, m)) = want_rows.iter().find(|r| !got_rows.contains(r)) {
        return format!("no row id {id} {:?}", page::short(m));
    }
    let i = (0..).find(|&i| got.get(i) != want.get(i)).unwrap_or(0);
    let say = |t: Option<&Token>| t.map_or("the end".to_string(), Token::to_string);
    format!(
        "token {} is {} (want {})",
        i + 1,
        say(got.get(i)),
        say(want.get(i))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i32, message: &str) -> (i32, String) {
        (id, message.to_string())
    }

    fn table() -> Vec<(i32, String)> {
        vec![
            row(1, "b"),
            row(2, "<a>"),
            row(3, "c"),
            row(ADDED.0, ADDED.1),
        ]
    }

    fn said(page: &str) -> String {
        differs(&page::tokens(page), &page::tokens(&page::wanted(&table())))
    }

    #[test]
    fn each_difference_is_said_in_words() {
        let good = page::wanted(&table());
        let unescaped = good.replace("&lt;a&gt;", "<a>");
        assert_eq!(
            said(&unescaped),
            "a <a> element in the page: a message is not HTML-escaped"
        );
        assert_eq!(
            said(&page::table(&table())),
            "not sorted by message: row 1 is id 1 (want id 2)"
        );
        let mut fewer = table();
        fewer.pop();
        assert_eq!(
            said(&page::wanted(&fewer)),
            "no row id 0 \"Additional fortune added at request time.\""
        );
        let mut other = table();
        other[0].1 = "ã".into();
        assert_eq!(
            said(&page::wanted(&other)),
            "row id 1 \"ã\" is not Fortune's"
        );
        let untitled = good.replace("Fortunes", "Fortune");
        assert_eq!(
            said(&untitled),
            "token 5 is \"Fortune\" (want \"Fortunes\")"
        );
    }
}
