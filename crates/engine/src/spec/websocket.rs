//! A WebSocket load's own settings (`LoadSpec.websocket`), for `ws://` and `wss://` URLs:
//! the message each connection sends and expects echoed, how many it keeps in flight, and
//! how many a connection carries before it closes and a new one upgrades (handshake churn).

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
    /// Messages a connection carries before it closes (the close handshake) and a new
    /// one upgrades in its place; None: a connection is kept for the whole load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_per_connection: Option<u32>,
}

impl Default for WebSocketSpec {
    fn default() -> Self {
        WebSocketSpec {
            message_size: defaults::message_size(),
            binary: false,
            in_flight: defaults::in_flight(),
            messages_per_connection: None,
        }
    }
}

impl WebSocketSpec {
    pub fn is_default(&self) -> bool {
        *self == WebSocketSpec::default()
    }
}
