//! SETTINGS (RFC 9113 §6.5): what the client's say that the server's sending obeys.

use super::error_code::ErrorCode;
use super::frame::{DEFAULT_MAX_FRAME, LARGEST_FRAME};

/// Setting identifiers this server sends or reads.
pub(crate) const MAX_CONCURRENT_STREAMS: u16 = 0x3;
pub(crate) const INITIAL_WINDOW_SIZE: u16 = 0x4;
const MAX_FRAME_SIZE: u16 = 0x5;

/// A window's size before any SETTINGS or WINDOW_UPDATE (RFC 9113 §6.9.2).
pub(crate) const DEFAULT_WINDOW: u32 = 65_535;
/// The largest a window may grow (RFC 9113 §6.9.1).
pub(crate) const MAX_WINDOW: i64 = (1 << 31) - 1;

/// The client's settings that bind what the server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PeerSettings {
    /// A new stream's send window.
    pub initial_window: u32,
    /// The largest frame payload the client takes.
    pub max_frame: u32,
}

impl Default for PeerSettings {
    fn default() -> Self {
        PeerSettings {
            initial_window: DEFAULT_WINDOW,
            max_frame: DEFAULT_MAX_FRAME,
        }
    }
}

impl PeerSettings {
    /// Applies a SETTINGS payload (not an ack); the others' settings are not ours to obey
    /// (this server never pushes, nor indexes its response fields).
    pub(crate) fn apply(&mut self, payload: &[u8]) -> Result<(), ErrorCode> {
        if !payload.len().is_multiple_of(6) {
            return Err(ErrorCode::FrameSize);
        }
        for pair in payload.chunks_exact(6) {
            let id = u16::from_be_bytes([pair[0], pair[1]]);
            let value = u32::from_be_bytes([pair[2], pair[3], pair[4], pair[5]]);
            match id {
                INITIAL_WINDOW_SIZE if i64::from(value) > MAX_WINDOW => {
                    return Err(ErrorCode::FlowControl)
                }
                INITIAL_WINDOW_SIZE => self.initial_window = value,
                MAX_FRAME_SIZE if !(DEFAULT_MAX_FRAME..=LARGEST_FRAME).contains(&value) => {
                    return Err(ErrorCode::Protocol)
                }
                MAX_FRAME_SIZE => self.max_frame = value,
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(id: u16, value: u32) -> Vec<u8> {
        let mut v = id.to_be_bytes().to_vec();
        v.extend_from_slice(&value.to_be_bytes());
        v
    }

    #[test]
    fn reads_window_and_frame_size_and_checks_them() {
        let mut s = PeerSettings::default();
        let mut payload = pair(INITIAL_WINDOW_SIZE, 1 << 20);
        payload.extend(pair(MAX_FRAME_SIZE, 1 << 15));
        payload.extend(pair(0x1, 0));
        assert_eq!(s.apply(&payload), Ok(()));
        assert_eq!((s.initial_window, s.max_frame), (1 << 20, 1 << 15));
        let bad = [
            (pair(INITIAL_WINDOW_SIZE, 1 << 31), ErrorCode::FlowControl),
            (pair(MAX_FRAME_SIZE, 100), ErrorCode::Protocol),
            (vec![0; 5], ErrorCode::FrameSize),
        ];
        for (payload, want) in bad {
            assert_eq!(s.apply(&payload), Err(want));
        }
    }
}
