//! How strictly a contestant is checked for HTTP before it is loaded.

use serde::Deserialize;

/// The checks a contestant must pass before it is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifyLevel {
    /// Every check, with the catalog's exact body and headers (the catalog's default).
    #[default]
    Strict,
    /// HTTP framing, keep-alive, `Connection: close`, HTTP/1.0, and the endpoint's
    /// expected status and body.
    Http,
    /// No checks: shown as a warning wherever its results appear.
    None,
}
