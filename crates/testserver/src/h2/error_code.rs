//! The error codes of RST_STREAM and GOAWAY frames this server sends (RFC 9113 §7).

/// An HTTP/2 error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorCode {
    NoError,
    Protocol,
    Internal,
    FlowControl,
    FrameSize,
    Refused,
    Compression,
}

impl ErrorCode {
    /// The code's number on the wire.
    pub(crate) fn number(self) -> u32 {
        match self {
            ErrorCode::NoError => 0x0,
            ErrorCode::Protocol => 0x1,
            ErrorCode::Internal => 0x2,
            ErrorCode::FlowControl => 0x3,
            ErrorCode::FrameSize => 0x6,
            ErrorCode::Refused => 0x7,
            ErrorCode::Compression => 0x9,
        }
    }
}
