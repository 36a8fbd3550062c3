//! What one `{...}` of a template says: a value drawn per request (a counter, a seeded
//! random number, a pick from a list), possibly named; a reference to a named value; or,
//! in an expected answer, the sum of named values.

use super::VaryError;

/// The most values one request shape draws: each is kept per pending request.
pub const MAX_VALUES: usize = 8;

/// The most items a `{list:...}` may have.
const MAX_ITEMS: usize = 4096;

/// Where a drawn value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `{seq}` or `{seq:START}`: a counter, distinct across the load's loops and shards.
    Seq { start: u64 },
    /// `{rand:LO-HI}`: an integer drawn uniformly from LO..=HI with the load's seed.
    Rand { lo: u64, hi: u64 },
    /// `{list:a,b,c}`: one of the items, drawn uniformly with the load's seed.
    List(Vec<Item>),
}

/// One item of a list: its text, and its number when it is one (for `{sum:...}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub text: Vec<u8>,
    pub number: Option<u64>,
}

/// One `{...}` of a template, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placeholder {
    /// A value drawn per request, named when written `{name=source}`.
    Draw {
        name: Option<String>,
        source: Source,
    },
    /// `{name}`: the value drawn as `name` in the same request.
    Refer(String),
    /// `{sum:a,b}`: the sum of the named values (numbers).
    Sum(Vec<String>),
}

impl Placeholder {
    /// Parses the text between the braces.
    pub fn parse(text: &str) -> Result<Placeholder, VaryError> {
        let bad = |reason: &str| VaryError::placeholder(text, reason);
        if let Some(names) = text.strip_prefix("sum:") {
            let names: Vec<String> = names.split(',').map(|n| n.trim().to_string()).collect();
            if let Some(n) = names.iter().find(|n| !is_name(n)) {
                return Err(bad(&format!("{n:?} is not a value's name")));
            }
            return Ok(Placeholder::Sum(names));
        }
        let (name, source) = match text.split_once('=') {
            Some((name, source)) if is_name(name) => (Some(name.to_string()), source),
            Some(_) => return Err(bad("the name before '=' is not letters, digits or '_'")),
            None if is_name(text) && !is_source(text) => {
                return Ok(Placeholder::Refer(text.to_string()))
            }
            None => (None, text),
        };
        let source = Source::parse(source).map_err(|reason| bad(&reason))?;
        Ok(Placeholder::Draw { name, source })
    }
}

/// A value's name: letters, digits and `_`, not starting with a digit.
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// True for the sources written without an argument (`seq`), which are not names.
fn is_source(text: &str) -> bool {
    text == "seq"
}

impl Source {
    fn parse(text: &str) -> Result<Source, String> {
        let (kind, arg) = text.split_once(':').unwrap_or((text, ""));
        match kind {
            "seq" if arg.is_empty() => Ok(Source::Seq { start: 0 }),
            "seq" => number(arg).map(|start| Source::Seq { start }),
            "rand" => {
                let (lo, hi) = arg
                    .split_once('-')
                    .ok_or("rand wants a range LO-HI (rand:1-1000)")?;
                let (lo, hi) = (number(lo)?, number(hi)?);
                if lo > hi {
                    return Err(format!("the range {lo}-{hi} is empty"));
                }
                Ok(Source::Rand { lo, hi })
            }
            "list" => {
                let items: Vec<Item> = arg.split(',').map(Item::new).collect();
                if arg.is_empty() || items.len() > MAX_ITEMS {
                    return Err(format!("a list has 1 to {MAX_ITEMS} items (list:a,b,c)"));
                }
                Ok(Source::List(items))
            }
            _ => Err(
                "expected seq, seq:START, rand:LO-HI, list:A,B,..., sum:NAME,... \
                      or a value's name"
                    .to_string(),
            ),
        }
    }

    /// The longest text a value of this source renders as.
    pub fn max_len(&self) -> usize {
        match self {
            Source::Seq { .. } => 20,
            Source::Rand { hi, .. } => digits(*hi),
            Source::List(items) => items.iter().map(|i| i.text.len()).max().unwrap_or(0),
        }
    }

    /// The largest number a value of this source is (None: a list item is no number).
    pub fn max_number(&self) -> Option<u64> {
        match self {
            Source::Seq { .. } => Some(u64::MAX),
            Source::Rand { hi, .. } => Some(*hi),
            Source::List(items) => items
                .iter()
                .map(|i| i.number)
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .max(),
        }
    }
}

impl Item {
    fn new(text: &str) -> Item {
        Item {
            text: text.as_bytes().to_vec(),
            number: text.parse().ok(),
        }
    }
}

fn number(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number from 0 to {}", u64::MAX))
}

/// Decimal digits of `n`.
pub fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_parses() {
        assert_eq!(
            Placeholder::parse("seq"),
            Ok(Placeholder::Draw {
                name: None,
                source: Source::Seq { start: 0 }
            })
        );
        assert_eq!(
            Placeholder::parse("a=rand:1-1000"),
            Ok(Placeholder::Draw {
                name: Some("a".into()),
                source: Source::Rand { lo: 1, hi: 1000 }
            })
        );
        assert_eq!(Placeholder::parse("a"), Ok(Placeholder::Refer("a".into())));
        assert_eq!(
            Placeholder::parse("sum:a,b"),
            Ok(Placeholder::Sum(vec!["a".into(), "b".into()]))
        );
        let Ok(Placeholder::Draw {
            source: Source::List(items),
            ..
        }) = Placeholder::parse("list:x,7")
        else {
            panic!("a list")
        };
        assert_eq!(items[1].number, Some(7));
    }

    #[test]
    fn mistakes_are_named() {
        for (text, says) in [
            ("rand:9-1", "empty"),
            ("rand:1", "LO-HI"),
            ("rand:a-b", "whole number"),
            ("1a=seq", "name"),
            ("nope:1", "expected"),
            ("sum:a,", "name"),
        ] {
            let e = Placeholder::parse(text).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains(text), "{text}: {e}");
        }
    }

    #[test]
    fn digits_counts() {
        assert_eq!(
            (digits(0), digits(9), digits(10), digits(u64::MAX)),
            (1, 1, 2, 20)
        );
    }
}
