//! The experiment's endpoints, checked: each `[endpoint.NAME]` table into an
//! [`Endpoint`] (its body file read here, once), and each name of `endpoints = [...]`
//! into the built-in or declared endpoint it names. A mistake is one line naming the
//! table and the field.

use super::file::{EndpointFile, ExpectFile};
use crate::model::endpoint::{BodyExpect, Endpoint, Expect};
use engine::SpecError;
use std::collections::BTreeMap;
use std::path::Path;

/// Every declared endpoint, by name; `dir` is the experiment file's folder.
pub(super) fn declared(
    files: &BTreeMap<String, EndpointFile>,
    dir: &Path,
) -> Result<BTreeMap<String, Endpoint>, String> {
    files
        .iter()
        .map(|(name, f)| {
            let endpoint = check(name, f, dir).map_err(|w| format!("endpoint.{name}: {w}"))?;
            Ok((name.clone(), endpoint))
        })
        .collect()
}

/// The endpoints `names` name, in order: built in, or declared.
pub(super) fn named(
    names: &[String],
    declared: &BTreeMap<String, Endpoint>,
) -> Result<Vec<Endpoint>, String> {
    names
        .iter()
        .map(|name| {
            Endpoint::builtin(name)
                .or_else(|| declared.get(name).cloned())
                .ok_or_else(|| {
                    format!(
                        "endpoints: unknown endpoint {name:?} (hello, app, or one declared as [endpoint.{name}])"
                    )
                })
        })
        .collect()
}

fn check(name: &str, f: &EndpointFile, dir: &Path) -> Result<Endpoint, String> {
    if Endpoint::builtin(name).is_some() {
        return Err(format!("{name} is built in: give yours another name"));
    }
    if !f.path.starts_with('/') {
        return Err(format!("path: {:?} does not start with /", f.path));
    }
    if f.path
        .contains(|c: char| c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "path: {:?} has a space or control character (percent-encode it)",
            f.path
        ));
    }
    let endpoint = Endpoint {
        name: name.to_string(),
        method: f.method.clone(),
        path: f.path.clone(),
        headers: f.headers.clone().into_iter().collect(),
        body: body(f, dir)?,
        expect: expect(&f.expect)?,
        builtin: None,
    };
    request_is_valid(&endpoint)?;
    Ok(endpoint)
}

/// `body`, or the bytes of `body_file`, or nothing.
fn body(f: &EndpointFile, dir: &Path) -> Result<Vec<u8>, String> {
    match (&f.body, &f.body_file) {
        (Some(_), Some(_)) => Err("body and body_file: give one or the other".into()),
        (Some(text), None) => Ok(text.clone().into_bytes()),
        (None, Some(file)) => {
            let path = dir.join(file);
            std::fs::read(&path).map_err(|e| format!("body_file: {}: {e}", path.display()))
        }
        (None, None) => Ok(Vec::new()),
    }
}

fn expect(e: &ExpectFile) -> Result<Expect, String> {
    if !(100..=599).contains(&e.status) {
        return Err(format!(
            "expect.status: {} is not an HTTP status (100 to 599)",
            e.status
        ));
    }
    let body = match (&e.body, &e.body_regex) {
        (Some(_), Some(_)) => {
            return Err("expect: body and body_regex: give one or the other".into())
        }
        (Some(exact), None) => BodyExpect::Exact(exact.clone().into_bytes()),
        (None, Some(pattern)) => {
            BodyExpect::Pattern(regex::bytes::Regex::new(pattern).map_err(|e| {
                format!(
                    "expect.body_regex: {pattern:?} is not a regular expression: {}",
                    regex_reason(&e)
                )
            })?)
        }
        (None, None) => BodyExpect::Any,
    };
    Ok(Expect {
        status: e.status,
        body,
    })
}

/// The regex crate's reason in one line (its syntax errors draw the pattern over lines).
fn regex_reason(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text.lines().rev().find(|l| !l.trim().is_empty());
    last.unwrap_or("invalid")
        .trim_start_matches("error: ")
        .to_string()
}

/// The method, headers and path as a run will send them: [`Endpoint::load_spec`] is the
/// one judge of what makes a well-formed request.
fn request_is_valid(e: &Endpoint) -> Result<(), String> {
    e.load_spec("127.0.0.1:1").map(drop).map_err(|w| match w {
        SpecError::Method(_) => format!("method: {w}"),
        SpecError::Header { .. } | SpecError::HeaderWithoutColon(_) => format!("headers: {w}"),
        _ => format!("path: {w}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> EndpointFile {
        EndpointFile {
            method: "POST".into(),
            path: path.into(),
            headers: BTreeMap::new(),
            body: None,
            body_file: None,
            expect: ExpectFile::default(),
        }
    }

    fn mistake(f: &EndpointFile) -> String {
        let files = BTreeMap::from([("up".to_string(), f.clone())]);
        declared(&files, Path::new(".")).unwrap_err()
    }

    #[test]
    fn each_mistake_names_the_table_and_the_field() {
        assert_eq!(
            mistake(&file("up")),
            "endpoint.up: path: \"up\" does not start with /"
        );
        let mut f = file("/up");
        f.method = "PO ST".into();
        assert!(
            mistake(&f).starts_with("endpoint.up: method: "),
            "{}",
            mistake(&f)
        );
        let mut f = file("/up");
        f.headers.insert("X-A".into(), "1\r\nX-B: 2".into());
        assert!(
            mistake(&f).starts_with("endpoint.up: headers: "),
            "{}",
            mistake(&f)
        );
        let mut f = file("/up");
        f.expect.body_regex = Some("(".into());
        assert_eq!(
            mistake(&f),
            "endpoint.up: expect.body_regex: \"(\" is not a regular expression: unclosed group"
        );
        let mut f = file("/up");
        f.expect.status = 42;
        assert!(mistake(&f).starts_with("endpoint.up: expect.status: 42"));
        let mut f = file("/up");
        f.body_file = Some("no-such-body.json".into());
        assert!(mistake(&f).starts_with("endpoint.up: body_file: ./no-such-body.json: "));
        let files = BTreeMap::from([("hello".to_string(), file("/x"))]);
        assert_eq!(
            declared(&files, Path::new(".")).unwrap_err(),
            "endpoint.hello: hello is built in: give yours another name"
        );
    }

    #[test]
    fn names_are_built_in_or_declared() {
        let files = BTreeMap::from([("up".to_string(), file("/up"))]);
        let declared = declared(&files, Path::new(".")).unwrap();
        let names = ["hello".to_string(), "up".to_string()];
        let found = named(&names, &declared).unwrap();
        assert_eq!(found[1].method, "POST");
        let unknown = named(&["down".to_string()], &declared).unwrap_err();
        assert!(
            unknown.starts_with("endpoints: unknown endpoint \"down\""),
            "{unknown}"
        );
    }
}
