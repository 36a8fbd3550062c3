//! `db`, `queries` and `updates`: World rows as JSON, each compared with the table as the
//! harness reads it once the requests are answered (and, for `updates`, before them too).

use super::count::{self, Needed, Selects};
use super::{Asker, Problem, Tables, Wrong};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The media type of every World answer.
const JSON: &str = "application/json";
/// Requests of the `db` check.
const DB_REQUESTS: usize = 16;
/// The most rows `q` asks for, as TechEmpower caps it.
const MOST_ROWS: usize = 500;
/// A World row's randomNumber is drawn from 1 to this.
const LARGEST_NUMBER: i32 = 10_000;

/// One row as a server answers it: exactly TechEmpower's two keys.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    id: i32,
    #[serde(rename = "randomNumber")]
    random_number: i32,
}

/// One answer: the path asked and the rows it held.
struct Answer {
    path: String,
    rows: Vec<Row>,
}

/// `GET /db` `DB_REQUESTS` times: one row each, as World holds it, the ids random.
pub(super) fn db(ask: &mut Asker, tables: &dyn Tables) -> Result<String, Wrong> {
    tables.reset_statements()?;
    let mut answers = Vec::new();
    for _ in 0..DB_REQUESTS {
        let path = ask.endpoint.path.clone();
        let body = ask.get(&path, JSON)?;
        let row = parse::<Row>(&body, "one JSON object {\"id\", \"randomNumber\"}");
        let rows = row.and_then(|row| in_range(vec![row]));
        let rows = rows.map_err(|problem| wrong(&path, problem))?;
        answers.push(Answer { path, rows });
    }
    let selects = queried(tables, &answers)?;
    as_world_holds(&answers, &tables.world()?)?;
    random(&answers)?;
    Ok(format!(
        "{DB_REQUESTS} random rows as World holds them; {}",
        counted(selects)
    ))
}

/// `GET /queries?q=N` for fresh and bad N: N rows each, as World holds them.
pub(super) fn queries(ask: &mut Asker, tables: &dyn Tables) -> Result<String, Wrong> {
    tables.reset_statements()?;
    let inputs = inputs();
    let answers = ask_rows(ask, &inputs)?;
    let selects = queried(tables, &answers)?;
    as_world_holds(&answers, &tables.world()?)?;
    random(&answers)?;
    Ok(format!(
        "{}: each row as World holds it; {}",
        said(&inputs),
        counted(selects)
    ))
}

/// `GET /updates?q=N` for fresh and bad N: N rows each, read and written back with new
/// numbers, which World then holds.
pub(super) fn updates(ask: &mut Asker, tables: &dyn Tables) -> Result<String, Wrong> {
    // Read before the count starts: the harness's own SELECT is not a server's.
    let mut known = tables.world()?;
    tables.reset_statements()?;
    let inputs = inputs();
    let answers = ask_rows(ask, &inputs)?;
    let selects = queried(tables, &answers)?;
    written(&answers, &tables.world()?)?;
    let rows: usize = answers.iter().map(|a| a.rows.len()).sum();
    let changed = changed(&answers, &mut known);
    if changed * 10 < rows * 9 {
        return Err(Wrong::NotUpdated { changed, rows });
    }
    Ok(format!(
        "{}: {changed} of {rows} rows changed, each as World then holds it; {}",
        said(&inputs),
        counted(selects)
    ))
}

/// A `q` to send (None: no `q` at all) and the rows it must bring, by TechEmpower's rule:
/// a `q` missing, not a number or below 1 counts as 1, above 500 as 500.
type Input = (Option<String>, usize);

/// Two fresh counts, then each kind of bad `q`.
fn inputs() -> Vec<Input> {
    let mut rng = fastrand::Rng::new();
    let mut fresh = || {
        let n = rng.usize(2..=20);
        (Some(n.to_string()), n)
    };
    let mut all = vec![fresh(), fresh()];
    all.extend([
        (Some("0".to_string()), 1),
        (None, 1),
        (Some("foo".to_string()), 1),
        (Some("501".to_string()), MOST_ROWS),
    ]);
    all
}

/// `(q = 7, 13, 0, none, foo, 501)`.
fn said(inputs: &[Input]) -> String {
    let each: Vec<&str> = inputs
        .iter()
        .map(|(q, _)| q.as_deref().unwrap_or("none"))
        .collect();
    format!("{} requests (q = {})", inputs.len(), each.join(", "))
}

/// The answers to the endpoint's path with each input's `q`, each with its rows' count.
fn ask_rows(ask: &mut Asker, inputs: &[Input]) -> Result<Vec<Answer>, Wrong> {
    let base = ask
        .endpoint
        .path
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    let mut answers = Vec::new();
    for (q, want) in inputs {
        let path = match q {
            Some(q) => format!("{base}?q={q}"),
            None => base.clone(),
        };
        let body = ask.get(&path, JSON)?;
        let rows = parse::<Vec<Row>>(&body, "a JSON array of {\"id\", \"randomNumber\"}")
            .and_then(in_range)
            .and_then(|rows| counts(rows, *want, q.as_deref()))
            .map_err(|problem| wrong(&path, problem))?;
        answers.push(Answer { path, rows });
    }
    Ok(answers)
}

/// `rows`, when there are `want` of them (`q` asked for them).
fn counts(rows: Vec<Row>, want: usize, q: Option<&str>) -> Result<Vec<Row>, Problem> {
    if rows.len() == want {
        return Ok(rows);
    }
    let why = match q.and_then(|q| q.parse::<usize>().ok()) {
        Some(n) if n > MOST_ROWS => ": a q above 500 counts as 500",
        Some(n) if n >= 1 => "",
        _ => ": a q missing, not a number or below 1 counts as 1",
    };
    Err(Problem::Rows {
        got: rows.len(),
        want,
        why,
    })
}

/// `body` as JSON of type `T` (`want` says what that is).
fn parse<T: serde::de::DeserializeOwned>(body: &[u8], want: &'static str) -> Result<T, Problem> {
    serde_json::from_slice(body).map_err(|e| Problem::Json {
        want,
        error: e.to_string(),
    })
}

/// `rows`, when each randomNumber is one World's rows can hold.
fn in_range(rows: Vec<Row>) -> Result<Vec<Row>, Problem> {
    let outside = rows
        .iter()
        .find(|r| !(1..=LARGEST_NUMBER).contains(&r.random_number));
    match outside {
        Some(r) => Err(Problem::OutOfRange {
            id: r.id,
            answered: r.random_number,
        }),
        None => Ok(rows),
    }
}

fn wrong(path: &str, problem: Problem) -> Wrong {
    Wrong::Answer {
        path: path.to_string(),
        problem,
    }
}

/// The SELECTs the answers needed, counted.
fn queried(tables: &dyn Tables, answers: &[Answer]) -> Result<Selects, Wrong> {
    let mut needed = Needed::default();
    for a in answers {
        needed.add(a.rows.iter().map(|r| r.id));
    }
    count::enough(tables, needed)
}

/// `20 SELECTs on World returned 20 rows`.
fn counted(s: Selects) -> String {
    format!("{} SELECTs on World returned {} rows", s.calls, s.rows)
}

/// Each answered row is as `world` holds it.
fn as_world_holds(answers: &[Answer], world: &BTreeMap<i32, i32>) -> Result<(), Wrong> {
    for a in answers {
        for r in &a.rows {
            let problem = match world.get(&r.id) {
                None => Problem::NoSuchRow(r.id),
                Some(&holds) if holds != r.random_number => Problem::Differs {
                    id: r.id,
                    answered: r.random_number,
                    holds,
                },
                Some(_) => continue,
            };
            return Err(wrong(&a.path, problem));
        }
    }
    Ok(())
}

/// More than one id among the rows (a handful of rows drawn from thousands are never all
/// one).
fn random(answers: &[Answer]) -> Result<(), Wrong> {
    let mut ids = answers.iter().flat_map(|a| a.rows.iter().map(|r| r.id));
    let Some(first) = ids.next() else {
        return Ok(());
    };
    let rows = 1 + ids.clone().count();
    match rows >= 8 && ids.all(|id| id == first) {
        true => Err(Wrong::NotRandom { rows, id: first }),
        false => Ok(()),
    }
}

/// Each row World holds now is one the last answer that held its id gave (an answer may
/// hold an id twice, and a server may write either).
fn written(answers: &[Answer], world: &BTreeMap<i32, i32>) -> Result<(), Wrong> {
    let mut last: BTreeMap<i32, (&str, Vec<i32>)> = BTreeMap::new();
    for a in answers {
        let mut this: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        for r in &a.rows {
            this.entry(r.id).or_default().push(r.random_number);
        }
        last.extend(this.into_iter().map(|(id, n)| (id, (a.path.as_str(), n))));
    }
    for (id, (path, numbers)) in last {
        let problem = match world.get(&id) {
            None => Problem::NoSuchRow(id),
            Some(holds) if !numbers.contains(holds) => Problem::NotWritten {
                id,
                answered: numbers.last().copied().unwrap_or_default(),
                holds: *holds,
            },
            Some(_) => continue,
        };
        return Err(wrong(path, problem));
    }
    Ok(())
}

/// How many answered rows have a randomNumber other than the one World held before their
/// request; `known` follows the answers.
fn changed(answers: &[Answer], known: &mut BTreeMap<i32, i32>) -> usize {
    let mut changed = 0;
    for a in answers {
        let before = |r: &Row| known.get(&r.id).copied();
        changed += (a.rows.iter())
            .filter(|r| before(r) != Some(r.random_number))
            .count();
        known.extend(a.rows.iter().map(|r| (r.id, r.random_number)));
    }
    changed
}
