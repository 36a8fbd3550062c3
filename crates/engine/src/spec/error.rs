//! Why a load spec is not one: each message names the setting and quotes its text.

use crate::config::ConfigError;

/// A setting of a load that cannot be sent, found before any request is.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    #[error("method {0:?} is not a valid HTTP method token")]
    Method(String),
    #[error("header {0:?} has no ':' (expected \"Name: value\")")]
    HeaderWithoutColon(String),
    #[error("header {text:?} is not a valid HTTP header: {reason}")]
    Header { text: String, reason: String },
    #[error("the warm-up is as long as the stages: nothing would be measured")]
    WarmupCoversStages,
    /// The resolved load did not check out (a host that does not resolve).
    #[error(transparent)]
    Config(#[from] ConfigError),
}
