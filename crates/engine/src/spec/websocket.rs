//! A WebSocket load's own settings (`LoadSpec.websocket`), for `ws://` and `wss://` URLs:
//! the message each connection sends and expects echoed, and how many it keeps in flight.

use super::defaults;
use serde::{Deserialize, Serialize};

/// What a WebSocket load sends. An `http[s]://` load must leave it at its default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSocketSpec {
    /// Octets of each message.
    #[serde(default = "defaults::message_size")]
    pub message_size: usize,
    /// Binary messages (else text).
    #[serde(default)]
    pub binary: bool,
    /// Messages in flight per connection, each awaiting its echo.
    #[serde(default = "defaults::in_flight")]
    pub in_flight: usize,
}

impl Default for WebSocketSpec {
    fn default() -> Self {
        WebSocketSpec {
            message_size: defaults::message_size(),
            binary: false,
            in_flight: defaults::in_flight(),
        }
    }
}

impl WebSocketSpec {
    pub fn is_default(&self) -> bool {
        *self == WebSocketSpec::default()
    }
}
