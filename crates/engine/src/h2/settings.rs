//! SETTINGS (RFC 9113 section 6.5): what the client asks for, and what the server said.

use super::error_code::ErrorCode;
use super::frame::Violation;
use serde::{Deserialize, Serialize};

/// The flow-control window the client gives each stream and the connection: 2^30 - 1,
/// h2load's default (`-w 30 -W 30`), so that a server is never held back by the client.
pub const CLIENT_WINDOW: u32 = (1 << 30) - 1;

/// The window every stream and the connection start with, before SETTINGS say otherwise.
pub const DEFAULT_WINDOW: u32 = 65_535;

/// The largest frame payload either side may send until told more.
pub const DEFAULT_MAX_FRAME: usize = 16_384;

/// The HPACK table each side's decoder keeps until told otherwise.
pub const DEFAULT_HEADER_TABLE: usize = 4_096;

const HEADER_TABLE_SIZE: u16 = 0x1;
const ENABLE_PUSH: u16 = 0x2;
const MAX_CONCURRENT_STREAMS: u16 = 0x3;
const INITIAL_WINDOW_SIZE: u16 = 0x4;
const MAX_FRAME_SIZE: u16 = 0x5;
const MAX_HEADER_LIST_SIZE: u16 = 0x6;

/// The client's SETTINGS payload: no server push, the client's window for every stream.
pub fn client_settings() -> [u8; 12] {
    let mut p = [0; 12];
    p[..2].copy_from_slice(&ENABLE_PUSH.to_be_bytes());
    p[6..8].copy_from_slice(&INITIAL_WINDOW_SIZE.to_be_bytes());
    p[8..].copy_from_slice(&CLIENT_WINDOW.to_be_bytes());
    p
}

/// What the server's SETTINGS said (the RFC's defaults until it says otherwise); what a
/// load stores of the first connection's, as what was negotiated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerSettings {
    pub header_table_size: u32,
    /// None: no limit was given.
    pub max_concurrent_streams: Option<u32>,
    pub initial_window_size: u32,
    pub max_frame_size: u32,
    /// None: no limit was given.
    pub max_header_list_size: Option<u32>,
}

impl Default for PeerSettings {
    fn default() -> PeerSettings {
        PeerSettings {
            header_table_size: DEFAULT_HEADER_TABLE as u32,
            max_concurrent_streams: None,
            initial_window_size: DEFAULT_WINDOW,
            max_frame_size: DEFAULT_MAX_FRAME as u32,
            max_header_list_size: None,
        }
    }
}

impl PeerSettings {
    /// Applies a SETTINGS payload (whole 6-octet parameters, checked by the frame
    /// parser); unknown parameters are ignored, as the RFC says.
    pub fn apply(&mut self, params: &[u8]) -> Result<(), Violation> {
        for p in params.chunks_exact(6) {
            let id = u16::from_be_bytes([p[0], p[1]]);
            let value = u32::from_be_bytes([p[2], p[3], p[4], p[5]]);
            self.set(id, value)?;
        }
        Ok(())
    }

    fn set(&mut self, id: u16, value: u32) -> Result<(), Violation> {
        match id {
            HEADER_TABLE_SIZE => self.header_table_size = value,
            ENABLE_PUSH if value > 1 => {
                return Err(Violation::protocol("SETTINGS_ENABLE_PUSH not 0 or 1"))
            }
            MAX_CONCURRENT_STREAMS => self.max_concurrent_streams = Some(value),
            INITIAL_WINDOW_SIZE if value > i32::MAX as u32 => {
                return Err(Violation {
                    code: ErrorCode::FLOW_CONTROL_ERROR,
                    what: "SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1",
                })
            }
            INITIAL_WINDOW_SIZE => self.initial_window_size = value,
            MAX_FRAME_SIZE if !(16_384..=16_777_215).contains(&value) => {
                return Err(Violation::protocol("SETTINGS_MAX_FRAME_SIZE out of range"))
            }
            MAX_FRAME_SIZE => self.max_frame_size = value,
            MAX_HEADER_LIST_SIZE => self.max_header_list_size = Some(value),
            _ => {}
        }
        Ok(())
    }

    /// Streams the server lets the client open at once (None: no limit).
    pub fn stream_limit(&self) -> Option<usize> {
        self.max_concurrent_streams.map(|n| n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(id: u16, value: u32) -> Vec<u8> {
        [&id.to_be_bytes()[..], &value.to_be_bytes()].concat()
    }

    #[test]
    fn known_parameters_are_kept_and_unknown_ones_ignored() {
        let mut s = PeerSettings::default();
        let params = [
            param(3, 100),
            param(4, 1 << 20),
            param(5, 1 << 15),
            param(0x99, 7),
        ];
        s.apply(&params.concat()).unwrap();
        assert_eq!(s.max_concurrent_streams, Some(100));
        assert_eq!(s.initial_window_size, 1 << 20);
        assert_eq!(s.max_frame_size, 1 << 15);
    }

    #[test]
    fn values_out_of_range_are_errors_with_the_rfcs_codes() {
        let mut s = PeerSettings::default();
        let code = |s: &mut PeerSettings, id, v| s.apply(&param(id, v)).unwrap_err().code;
        assert_eq!(code(&mut s, 4, 1 << 31), ErrorCode::FLOW_CONTROL_ERROR);
        assert_eq!(code(&mut s, 5, 100), ErrorCode::PROTOCOL_ERROR);
        assert_eq!(code(&mut s, 2, 2), ErrorCode::PROTOCOL_ERROR);
    }
}
