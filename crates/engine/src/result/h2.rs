//! What an HTTP/2 load adds to its result: what the server's SETTINGS said, streams per
//! connection, requests retried after a GOAWAY, and resets, GOAWAYs and connection errors
//! by error code.

use crate::h2::{H2Books, PeerSettings};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An HTTP/2 load's books (absent from an HTTP/1.1 load's result).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct H2Summary {
    /// What the server's first SETTINGS said (of the first loop, or shard, that got one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<PeerSettings>,
    /// Requests sent again because the server did not process them: left above a GOAWAY
    /// (sent on a new connection), or refused once with REFUSED_STREAM (sent again on the
    /// same one). Each is counted once, by how it ended in the end.
    pub retried: u64,
    /// RST_STREAM frames the server sent, by error code (their requests are `reset`, but
    /// for a first REFUSED_STREAM, whose request is sent again).
    #[serde(default)]
    pub resets: BTreeMap<String, u64>,
    /// GOAWAY frames the server sent, by error code.
    #[serde(default)]
    pub goaways: BTreeMap<String, u64>,
    /// Connections the client ended because the server broke HTTP/2, by the error code
    /// the client sent (their requests are `h2`).
    #[serde(default)]
    pub errors: BTreeMap<String, u64>,
    /// What the first of those errors was, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// PINGs the server sent, each answered.
    pub pings: u64,
}

impl H2Summary {
    /// The summary of a loop's (or merged loops') books.
    pub fn of(books: &H2Books) -> H2Summary {
        H2Summary {
            settings: books.settings,
            retried: books.retried,
            resets: books.resets.named(),
            goaways: books.goaways.named(),
            errors: books.errors.named(),
            first_error: books.first_error.map(str::to_string),
            pings: books.pings,
        }
    }

    /// The summaries of shards merged: counts add; the first settings and error stand.
    pub fn merged<'a>(parts: impl IntoIterator<Item = &'a H2Summary>) -> H2Summary {
        let mut merged = H2Summary::default();
        let add = |into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>| {
            for (code, n) in from {
                *into.entry(code.clone()).or_default() += n;
            }
        };
        for p in parts {
            merged.settings = merged.settings.or(p.settings);
            merged.retried += p.retried;
            add(&mut merged.resets, &p.resets);
            add(&mut merged.goaways, &p.goaways);
            add(&mut merged.errors, &p.errors);
            merged.first_error = merged.first_error.or_else(|| p.first_error.clone());
            merged.pings += p.pings;
        }
        merged
    }
}
