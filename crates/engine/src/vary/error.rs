//! Why a varying request is not one: each message quotes the template or placeholder.

/// A template, placeholder or request line that cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VaryError {
    #[error("template {text:?}: {reason}")]
    Template { text: String, reason: String },
    #[error("placeholder {{{text}}}: {reason}")]
    Placeholder { text: String, reason: String },
    #[error("request {text:?}: {reason}")]
    RequestLine { text: String, reason: String },
    #[error("request {shape}: {reason}")]
    Shape { shape: String, reason: String },
}

impl VaryError {
    pub(super) fn placeholder(text: &str, reason: impl Into<String>) -> VaryError {
        VaryError::Placeholder {
            text: text.to_string(),
            reason: reason.into(),
        }
    }
}
