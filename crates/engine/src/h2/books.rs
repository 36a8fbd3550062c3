//! What an HTTP/2 load counts besides its requests' outcomes: what the server's SETTINGS
//! said, streams retried after a GOAWAY, resets, GOAWAYs and connection errors by error
//! code, PINGs answered. A loop counts into fixed slots; codes are named in its result.

use super::error_code::ErrorCode;
use super::settings::PeerSettings;
use std::collections::BTreeMap;

/// Counts by error code: the RFC's fourteen, and one slot for any other value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeCounts([u64; 15]);

impl CodeCounts {
    pub fn add(&mut self, code: ErrorCode) {
        self.0[(code.0 as usize).min(14)] += 1;
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    pub fn merge(&mut self, other: &CodeCounts) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            *mine += theirs;
        }
    }

    /// The non-zero counts by the code's name (`other` for codes the RFC does not define).
    pub fn named(&self) -> BTreeMap<String, u64> {
        let name = |i: usize| ErrorCode(i as u32).name().unwrap_or("other").to_string();
        (0..15)
            .filter(|&i| self.0[i] > 0)
            .map(|i| (name(i), self.0[i]))
            .collect()
    }
}

/// One loop's HTTP/2 books (measured connections and streams only, as every count).
#[derive(Debug, Clone, Default)]
pub struct H2Books {
    /// What the first server SETTINGS of the loop said (warm-up included).
    pub settings: Option<PeerSettings>,
    /// Streams opened.
    pub streams: u64,
    /// Requests sent again because the server did not process them: left above a GOAWAY
    /// (on a new connection), or refused once with REFUSED_STREAM (on the same one).
    pub retried: u64,
    /// RST_STREAM frames the server sent, by code (their requests are `reset`).
    pub resets: CodeCounts,
    /// GOAWAY frames the server sent, by code.
    pub goaways: CodeCounts,
    /// Connections the client ended because the server broke HTTP/2, by the code of the
    /// client's GOAWAY (their requests are `h2`), and what the first one was.
    pub errors: CodeCounts,
    pub first_error: Option<&'static str>,
    /// PINGs the server sent (each answered).
    pub pings: u64,
}

impl H2Books {
    pub fn merge(&mut self, other: &H2Books) {
        self.settings = self.settings.or(other.settings);
        self.streams += other.streams;
        self.retried += other.retried;
        self.resets.merge(&other.resets);
        self.goaways.merge(&other.goaways);
        self.errors.merge(&other.errors);
        self.first_error = self.first_error.or(other.first_error);
        self.pings += other.pings;
    }
}
