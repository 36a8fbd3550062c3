//! A row of a declared table said in one sentence, for a reader who skips the columns:
//! the declaration lists its clauses (figures in words, comparisons with a baseline, a
//! series of comparisons, where HTTP/2 broke down) and the model says them for each row:
//! `nginx-static spends 310 µs CPU per new client, 41 µs if the client resumes; +6.0 µs
//! per request over clear text (60% of c-epoll-tls's keep-alive requests/s)`.

use super::breakdown::Breakdown;
use super::drawn::Drawn;
use super::figure::Figure;
use super::line::Line;

/// The clauses of a row's sentence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sentence {
    /// The verb after the subject (`spends`), when the clauses need one.
    pub verb: Option<String>,
    pub clauses: Vec<Clause>,
    /// A column's comparison with the ceiling, said last in brackets: `(60% of
    /// c-epoll-tls's keep-alive requests/s)`.
    pub share: Option<Worded>,
}

/// One clause of a sentence.
#[derive(Debug, Clone, PartialEq)]
pub enum Clause {
    /// Each column's figure in words, joined by `, `: `310 µs CPU per new client`;
    /// `unmeasured` (unless empty) joins the subject when none of them has a figure.
    Figures {
        each: Vec<Worded>,
        unit: String,
        unmeasured: String,
    },
    /// Each column's comparison with its baseline, a clause each: `+6.0 µs per request
    /// over clear text`; when there is none, `or_figure`'s own figure.
    Changes {
        each: Vec<Worded>,
        unit: String,
        or_figure: Option<Worded>,
    },
    /// Comparisons listed in groups after `lead`: `answers 90% of its HTTP/1.1
    /// requests/s over h2c with 1 stream per connection, 180% with 10, and 150% over TLS
    /// (h2) with 10`.
    Series {
        lead: String,
        groups: Vec<Vec<Listed>>,
    },
    /// Where HTTP/2 broke down in each column's runs (`breakdown`): `h2c ×100, 50
    /// connections: 3.6% of requests failed (3,000 reset)`.
    Breakdown(Vec<Worded>),
}

/// A column said in words: `CPU per new client`, and what is said when its figure is
/// withheld.
#[derive(Debug, Clone, PartialEq)]
pub struct Worded {
    pub column: usize,
    pub words: String,
    pub withheld: String,
}

impl Worded {
    pub fn new(column: usize, words: impl Into<String>) -> Worded {
        Worded {
            column,
            words: words.into(),
            withheld: String::new(),
        }
    }
}

/// A column of a [`Clause::Series`]: its words first in the sentence, after another in
/// its group, and first in a group after another group.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub column: usize,
    pub first: String,
    pub then: String,
    pub after: String,
}

impl Sentence {
    /// `line`'s sentence in `drawn`; None when no clause says anything.
    pub fn said(&self, drawn: &Drawn, line: &Line) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        let mut unmeasured = None;
        for clause in &self.clauses {
            let said = clause.said(drawn, line);
            if said.is_empty() {
                if let Clause::Figures {
                    each,
                    unmeasured: words,
                    ..
                } = clause
                {
                    if !each.is_empty() && !words.is_empty() {
                        unmeasured = Some(words);
                    }
                }
            }
            parts.extend(said);
        }
        if parts.is_empty() {
            return None;
        }
        let subject = match unmeasured {
            Some(words) => format!("{} {words} and", line.contestant),
            None => line.contestant.to_string(),
        };
        let verb = self
            .verb
            .as_ref()
            .map_or(String::new(), |v| format!(" {v}"));
        let share = (self.share.as_ref())
            .filter(|w| !drawn.is_ceiling(w.column, line))
            .and_then(|w| {
                Some(format!(
                    " ({} {})",
                    drawn.compared(w.column, line, true)?,
                    w.words
                ))
            })
            .unwrap_or_default();
        Some(format!("{subject}{verb} {}{share}", parts.join("; ")))
    }
}

impl Clause {
    /// What the clause says of `line`: none, one or several parts.
    fn said(&self, drawn: &Drawn, line: &Line) -> Vec<String> {
        match self {
            Clause::Figures { each, unit, .. } => {
                let said: Vec<String> = (each.iter())
                    .filter_map(|w| figure(drawn, line, w, unit))
                    .collect();
                (!said.is_empty())
                    .then(|| said.join(", "))
                    .into_iter()
                    .collect()
            }
            Clause::Changes {
                each,
                unit,
                or_figure,
            } => {
                let changes: Vec<String> = (each.iter())
                    .filter_map(|w| {
                        let change = drawn.compared(w.column, line, true)?;
                        Some(spaced(&[&change, unit, &w.words]))
                    })
                    .collect();
                match changes.is_empty() {
                    true => (or_figure.iter())
                        .filter(|w| line.figures[w.column].value().is_some())
                        .filter_map(|w| figure(drawn, line, w, unit))
                        .collect(),
                    false => changes,
                }
            }
            Clause::Series { lead, groups } => series(drawn, line, groups)
                .map(|text| format!("{lead} {text}"))
                .into_iter()
                .collect(),
            Clause::Breakdown(each) => (each.iter())
                .filter_map(|w| {
                    let b = Breakdown::of(line.rows[w.column]?);
                    (!b.is_clean()).then(|| format!("{}: {}", w.words, b.text()))
                })
                .collect(),
        }
    }
}

/// `310 µs CPU per new client`, `300† µs …`, or the words of a withheld figure.
fn figure(drawn: &Drawn, line: &Line, w: &Worded, unit: &str) -> Option<String> {
    let digits = drawn.declared.columns[w.column].digits;
    match line.figures[w.column] {
        Figure::Value { value, mark } => Some(format!(
            "{} {unit} {}",
            mark.on(Figure::number(value, digits)),
            w.words
        )),
        Figure::Withheld(_) => Some(w.withheld.clone()),
        Figure::Nothing => None,
    }
}

/// The groups of a series, each the comparisons it has: the first of the sentence in
/// its `first` words, the first of a later group in its `after` words, the others in
/// their `then` words, the last of a group after `and`.
fn series(drawn: &Drawn, line: &Line, groups: &[Vec<Listed>]) -> Option<String> {
    let mut said: Vec<String> = Vec::new();
    for group in groups {
        let changes: Vec<(&Listed, String)> = (group.iter())
            .filter_map(|l| Some((l, drawn.compared(l.column, line, true)?)))
            .collect();
        let Some(((head, change), tail)) = changes.split_first() else {
            continue;
        };
        let lead = if said.is_empty() {
            &head.first
        } else {
            &head.after
        };
        let rest = tail
            .iter()
            .map(|(l, change)| format!("{change} {}", l.then));
        said.push(listed(format!("{change} {lead}"), rest.collect()));
    }
    (!said.is_empty()).then(|| said.join(", and "))
}

/// `a, b and c`: `head` then `tail`, the last joined by `and`.
fn listed(head: String, tail: Vec<String>) -> String {
    match tail.split_last() {
        None => head,
        Some((last, middle)) => {
            let mut all = vec![head];
            all.extend(middle.iter().cloned());
            format!("{} and {last}", all.join(", "))
        }
    }
}

/// `parts` joined by spaces, the empty ones left out.
fn spaced(parts: &[&str]) -> String {
    let said: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    said.join(" ")
}
