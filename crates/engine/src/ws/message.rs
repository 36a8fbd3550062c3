//! What a loop's connections send: the upgrade request, and the message each of them
//! sends and expects echoed (the same octets every time; each frame masked anew).

use super::handshake::UpgradeRequest;
use crate::config::LoadConfig;

/// A WebSocket load's bytes, made once per loop.
#[derive(Debug, Clone)]
pub struct WsRequest {
    pub upgrade: UpgradeRequest,
    pub payload: Vec<u8>,
    pub binary: bool,
}

impl WsRequest {
    /// The bytes of `config`'s WebSocket load (None: not one).
    pub fn of(config: &LoadConfig) -> Option<WsRequest> {
        let ws = config.websocket.as_ref()?;
        let payload = match ws.binary {
            // Every octet value, so that an echo that mangles any shows.
            true => (0..ws.message_size).map(|i| (i % 256) as u8).collect(),
            false => {
                let text = b"abcdefghijklmnopqrstuvwxyz0123456789";
                (0..ws.message_size).map(|i| text[i % text.len()]).collect()
            }
        };
        Some(WsRequest {
            upgrade: UpgradeRequest::new(config),
            payload,
            binary: ws.binary,
        })
    }
}
