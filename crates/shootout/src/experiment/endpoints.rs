//! The experiment's endpoints, checked: each `[endpoint.NAME]` table into an
//! [`Endpoint`] (its method and headers parsed into the load spec's types and its body
//! file read here, once), and each name of `endpoints = [...]` into the built-in or
//! declared endpoint it names. A mistake is one line naming the table and the field.

use super::error::{at, under, FieldError, FieldProblem, Segment};
use super::file::{EndpointFile, ExpectFile};
use crate::model::endpoint::{BodyExpect, Endpoint, Expect};
use engine::Header;
use std::collections::BTreeMap;
use std::path::Path;

/// Every declared endpoint, by name; `dir` is the experiment file's folder.
pub(super) fn declared(
    files: &BTreeMap<String, EndpointFile>,
    dir: &Path,
) -> Result<BTreeMap<String, Endpoint>, FieldError> {
    files
        .iter()
        .map(|(name, f)| {
            let endpoint = check(name, f, dir).map_err(under(Segment::Endpoint(name.clone())))?;
            Ok((name.clone(), endpoint))
        })
        .collect()
}

/// The endpoints `names` name, in order: built in, or declared.
pub(super) fn named(
    names: &[String],
    declared: &BTreeMap<String, Endpoint>,
) -> Result<Vec<Endpoint>, FieldError> {
    names
        .iter()
        .map(|name| {
            Endpoint::builtin(name)
                .or_else(|| declared.get(name).cloned())
                .ok_or_else(|| FieldProblem::UnknownEndpoint(name.clone()).at("endpoints"))
        })
        .collect()
}

fn check(name: &str, f: &EndpointFile, dir: &Path) -> Result<Endpoint, FieldError> {
    if Endpoint::builtin(name).is_some() {
        return Err(FieldProblem::BuiltInName(name.to_string()).into());
    }
    path(&f.path).map_err(at("path"))?;
    let endpoint = Endpoint {
        name: name.to_string(),
        method: engine::parse_method(&f.method).map_err(at("method"))?,
        path: f.path.clone(),
        headers: headers(&f.headers).map_err(at("headers"))?,
        body: body(f, dir)?,
        expect: expect(&f.expect)?,
        builtin: None,
        vary: None,
    };
    // The URL the path makes, as a run will send it: the load spec is its one judge.
    endpoint.load_spec("127.0.0.1:1").map_err(at("path"))?;
    Ok(endpoint)
}

/// A path and query a request line can carry as written.
fn path(text: &str) -> Result<(), FieldProblem> {
    if !text.starts_with('/') {
        return Err(FieldProblem::NotAPath(text.to_string()));
    }
    match text.contains(|c: char| c.is_whitespace() || c.is_control()) {
        true => Err(FieldProblem::UnencodedPath(text.to_string())),
        false => Ok(()),
    }
}

/// `headers = { Name = "value" }`, each as the load spec reads `Name: value`.
fn headers(table: &BTreeMap<String, String>) -> Result<Vec<Header>, FieldProblem> {
    let header = |(name, value): (&String, &String)| {
        // `Name: value` splits at its first colon: a colon in the key would move the
        // rest of the name into the value.
        if name.contains(':') {
            return Err(FieldProblem::ColonInHeaderName(name.clone()));
        }
        Ok(format!("{name}: {value}").parse::<Header>()?)
    };
    table.iter().map(header).collect()
}

/// `body`, or the bytes of `body_file`, or nothing.
fn body(f: &EndpointFile, dir: &Path) -> Result<Vec<u8>, FieldError> {
    match (&f.body, &f.body_file) {
        (Some(_), Some(_)) => Err(FieldProblem::BothGiven("body", "body_file").into()),
        (Some(text), None) => Ok(text.clone().into_bytes()),
        (None, Some(file)) => {
            let path = dir.join(file);
            std::fs::read(&path)
                .map_err(|error| FieldProblem::Unreadable { path, error }.at("body_file"))
        }
        (None, None) => Ok(Vec::new()),
    }
}

fn expect(e: &ExpectFile) -> Result<Expect, FieldError> {
    if !(100..=599).contains(&e.status) {
        return Err(FieldProblem::Status(e.status).at("expect.status"));
    }
    let body = match (&e.body, &e.body_regex) {
        (Some(_), Some(_)) => {
            return Err(FieldProblem::BothGiven("body", "body_regex").at("expect"))
        }
        (Some(exact), None) => BodyExpect::Exact(exact.clone().into_bytes()),
        (None, Some(pattern)) => {
            BodyExpect::Pattern(regex::bytes::Regex::new(pattern).map_err(|error| {
                let pattern = pattern.clone();
                FieldProblem::Regex { pattern, error }.at("expect.body_regex")
            })?)
        }
        (None, None) => BodyExpect::Any,
    };
    Ok(Expect {
        status: e.status,
        body,
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
        declared(&files, Path::new(".")).unwrap_err().to_string()
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
            declared(&files, Path::new(".")).unwrap_err().to_string(),
            "endpoint.hello: hello is built in: give yours another name"
        );
    }

    #[test]
    fn method_and_headers_are_parsed_once_into_the_specs_types() {
        let mut f = file("/up");
        f.headers.insert("X-A".into(), " 1 ".into());
        let files = BTreeMap::from([("up".to_string(), f.clone())]);
        let up = &declared(&files, Path::new(".")).unwrap()["up"];
        assert_eq!(up.method, http::Method::POST);
        assert_eq!(up.headers, ["X-A: 1".parse::<Header>().unwrap()]);
        // A colon in the key would split into another name and value: refused.
        f.headers = BTreeMap::from([("X:A".into(), "1".into())]);
        assert_eq!(
            mistake(&f),
            "endpoint.up: headers: header name \"X:A\" has a ':'"
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
            matches!(&unknown.problem, FieldProblem::UnknownEndpoint(n) if n == "down"),
            "{unknown}"
        );
        assert!(
            unknown
                .to_string()
                .starts_with("endpoints: unknown endpoint \"down\""),
            "{unknown}"
        );
    }
}
