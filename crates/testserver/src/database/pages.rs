//! The database endpoints' bodies: World rows as TechEmpower's JSON, and the fortunes page
//! as its template writes it (sorted and escaped, unless a cheat says otherwise).

use super::session::Row;
use super::Database;

/// `{"id":1,"randomNumber":2}`.
pub(super) fn row((id, number): Row) -> String {
    format!(r#"{{"id":{id},"randomNumber":{number}}}"#)
}

/// `[{"id":1,"randomNumber":2},...]`.
pub(super) fn rows(rows: &[Row]) -> String {
    let each: Vec<String> = rows.iter().map(|r| row(*r)).collect();
    format!("[{}]", each.join(","))
}

/// The page of `fortunes` and the one added at request time, as `served` writes it.
pub(super) fn fortunes(mut fortunes: Vec<(i32, String)>, served: Database) -> String {
    fortunes.push((0, "Additional fortune added at request time.".to_string()));
    match served {
        Database::UnsortedFortunes => fortunes.sort_by_key(|f| f.0),
        _ => fortunes.sort_by(|a, b| a.1.cmp(&b.1)),
    }
    let mut page = String::from(
        "<!DOCTYPE html>\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n\
         <tr><th>id</th><th>message</th></tr>\n",
    );
    for (id, message) in &fortunes {
        let message = match served {
            Database::UnescapedFortunes => message.clone(),
            _ => html_escape::encode_text(message).into_owned(),
        };
        page.push_str(&format!("<tr><td>{id}</td><td>{message}</td></tr>\n"));
    }
    page.push_str("</table>\n</body>\n</html>\n");
    page
}
