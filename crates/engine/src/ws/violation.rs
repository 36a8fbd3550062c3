//! How a server can break WebSocket framing (RFC 6455), each with the close code the
//! client answers it with: its books count them by name.

/// A server's frame (or message) the client cannot accept: the connection is failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Violation {
    /// RSV1-3 set, with no extension negotiated.
    ReservedBits,
    /// A server frame with the mask bit set (section 5.1: a client must fail it).
    MaskedFrame,
    /// An opcode RFC 6455 does not define.
    UnknownOpcode,
    /// A control frame fragmented or longer than 125 octets.
    BadControlFrame,
    /// A continuation frame with no message begun.
    UnexpectedContinuation,
    /// A new text or binary frame while a fragmented message is unfinished.
    InterleavedMessage,
    /// A frame longer than the client accepts (past the message size by far).
    TooLong,
    /// A text message (or a close reason) that is not UTF-8.
    InvalidUtf8,
    /// A close frame of one octet, or with a code no endpoint may send.
    BadClose,
}

impl Violation {
    pub const ALL: [Violation; 9] = [
        Violation::ReservedBits,
        Violation::MaskedFrame,
        Violation::UnknownOpcode,
        Violation::BadControlFrame,
        Violation::UnexpectedContinuation,
        Violation::InterleavedMessage,
        Violation::TooLong,
        Violation::InvalidUtf8,
        Violation::BadClose,
    ];

    /// Its name in a result.
    pub fn name(self) -> &'static str {
        match self {
            Violation::ReservedBits => "reserved_bits",
            Violation::MaskedFrame => "masked_frame",
            Violation::UnknownOpcode => "unknown_opcode",
            Violation::BadControlFrame => "bad_control_frame",
            Violation::UnexpectedContinuation => "unexpected_continuation",
            Violation::InterleavedMessage => "interleaved_message",
            Violation::TooLong => "too_long",
            Violation::InvalidUtf8 => "invalid_utf8",
            Violation::BadClose => "bad_close",
        }
    }

    /// The code of the close frame the client sends for it (section 7.4.1).
    pub fn close_code(self) -> u16 {
        match self {
            Violation::InvalidUtf8 => 1007,
            Violation::TooLong => 1009,
            _ => 1002,
        }
    }
}

/// Whether a server may send close code `code` (section 7.4).
pub fn valid_close_code(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999)
}
