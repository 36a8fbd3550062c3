//! How a workload's answer is wrong: the part of a detail line after the request it names.

/// How a workload's answer is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Wrong {
    #[error("Content-Type {got} (want {want})")]
    ContentType { got: String, want: String },
    #[error("Date {0:?} is not an HTTP date")]
    DateFormat(String),
    #[error("Date {date:?} is {seconds} s from now")]
    DateAway { date: String, seconds: i64 },
    #[error("Date stayed {date:?} for {seconds:.1} s of answers")]
    DateStuck { date: String, seconds: f64 },
    #[error("not the answer's JSON: {0}")]
    Json(String),
    #[error("{what} {got} (want {want})")]
    Value {
        what: String,
        got: String,
        want: String,
    },
    #[error("Content-Encoding {0:?}, which was not asked for")]
    Unasked(String),
    #[error("a {encoding} body that does not decode: {error}")]
    Undecodable {
        encoding: &'static str,
        error: String,
    },
    #[error("{got} bytes, first wrong at byte {at} (want the file's {want})")]
    FileBytes { got: usize, want: usize, at: usize },
    #[error("no gzip though gzip was accepted and {0}.gz exists")]
    NotPrecompressed(String),
    #[error("status {0} for a file that does not exist (want 404)")]
    NotMissing(u16),
}

impl Wrong {
    /// `what` is `got`, not `want`.
    pub fn value(what: impl Into<String>, got: impl ToString, want: impl ToString) -> Wrong {
        Wrong::Value {
            what: what.into(),
            got: got.to_string(),
            want: want.to_string(),
        }
    }
}
