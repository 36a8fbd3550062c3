//! A template bound to its request's values: literal bytes, and value numbers into the
//! values drawn for the request. Rendering writes into a buffer the caller lends, through
//! a stack buffer for numbers: nothing is allocated per request.

use super::braced::{digits, Source, MAX_VALUES};

/// The values drawn for one request: which shape, and each value (a list's: the index of
/// its item).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Drawn {
    pub shape: u16,
    pub values: [u64; MAX_VALUES],
}

/// One part of a compiled template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(Vec<u8>),
    /// The request's value number `n`.
    Value(u8),
    /// The sum of the request's values with these numbers.
    Sum(Vec<u8>),
}

/// A template ready to render against a request's values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Compiled {
    pub(super) parts: Vec<Part>,
}

impl Compiled {
    /// Literal bytes only.
    pub fn text(bytes: &[u8]) -> Compiled {
        let mut c = Compiled::default();
        c.push_text(bytes);
        c
    }

    /// Appends literal bytes, joined to the text before them.
    pub fn push_text(&mut self, bytes: &[u8]) {
        match self.parts.last_mut() {
            Some(Part::Text(text)) => text.extend_from_slice(bytes),
            _ if bytes.is_empty() => {}
            _ => self.parts.push(Part::Text(bytes.to_vec())),
        }
    }

    /// Appends another compiled template's parts.
    pub fn extend(&mut self, other: &Compiled) {
        for part in &other.parts {
            match part {
                Part::Text(text) => self.push_text(text),
                part => self.parts.push(part.clone()),
            }
        }
    }

    /// True when it always renders nothing.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The length it renders to for `drawn`.
    pub fn len(&self, sources: &[Source], drawn: &Drawn) -> usize {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.len(),
                Part::Value(n) => match &sources[*n as usize] {
                    Source::List(items) => items[drawn.values[*n as usize] as usize].text.len(),
                    _ => digits(drawn.values[*n as usize]),
                },
                Part::Sum(ns) => digits(sum(sources, drawn, ns)),
            })
            .sum()
    }

    /// The longest it can render to.
    pub fn max_len(&self, sources: &[Source]) -> usize {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.len(),
                Part::Value(n) => sources[*n as usize].max_len(),
                Part::Sum(_) => 20,
            })
            .sum()
    }

    /// Writes it for `drawn` at the start of `out`, which holds at least
    /// [`len`](Self::len) bytes; returns that length.
    pub fn render(&self, sources: &[Source], drawn: &Drawn, out: &mut [u8]) -> usize {
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            out[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        let mut number = itoa::Buffer::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => put(text),
                Part::Value(n) => {
                    let value = drawn.values[*n as usize];
                    match &sources[*n as usize] {
                        Source::List(items) => put(&items[value as usize].text),
                        _ => put(number.format(value).as_bytes()),
                    }
                }
                Part::Sum(ns) => put(number.format(sum(sources, drawn, ns)).as_bytes()),
            }
        }
        at
    }
}

/// The value number `n` of `drawn` as a number (a list's item's number; checked to be
/// one when the template was compiled).
fn number(sources: &[Source], drawn: &Drawn, n: u8) -> u64 {
    let value = drawn.values[n as usize];
    match &sources[n as usize] {
        Source::List(items) => items[value as usize].number.unwrap_or(0),
        _ => value,
    }
}

/// The sum of the values numbered `ns` (saturating: a sum past 2^64 is no answer a
/// server could give either).
fn sum(sources: &[Source], drawn: &Drawn, ns: &[u8]) -> u64 {
    ns.iter()
        .fold(0u64, |s, &n| s.saturating_add(number(sources, drawn, n)))
}
