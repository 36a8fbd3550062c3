//! HTTP/2's error codes (RFC 9113 section 7), as RST_STREAM and GOAWAY carry them.

use std::fmt;

/// An error code: one of the RFC's fourteen, or another value a peer sent (which the RFC
/// says to treat as INTERNAL_ERROR, but which is kept as sent so a report can show it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ErrorCode(pub u32);

impl ErrorCode {
    pub const NO_ERROR: ErrorCode = ErrorCode(0x0);
    pub const PROTOCOL_ERROR: ErrorCode = ErrorCode(0x1);
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(0x2);
    pub const FLOW_CONTROL_ERROR: ErrorCode = ErrorCode(0x3);
    pub const SETTINGS_TIMEOUT: ErrorCode = ErrorCode(0x4);
    pub const STREAM_CLOSED: ErrorCode = ErrorCode(0x5);
    pub const FRAME_SIZE_ERROR: ErrorCode = ErrorCode(0x6);
    pub const REFUSED_STREAM: ErrorCode = ErrorCode(0x7);
    pub const CANCEL: ErrorCode = ErrorCode(0x8);
    pub const COMPRESSION_ERROR: ErrorCode = ErrorCode(0x9);
    pub const CONNECT_ERROR: ErrorCode = ErrorCode(0xa);
    pub const ENHANCE_YOUR_CALM: ErrorCode = ErrorCode(0xb);
    pub const INADEQUATE_SECURITY: ErrorCode = ErrorCode(0xc);
    pub const HTTP_1_1_REQUIRED: ErrorCode = ErrorCode(0xd);

    const NAMES: [&'static str; 14] = [
        "NO_ERROR",
        "PROTOCOL_ERROR",
        "INTERNAL_ERROR",
        "FLOW_CONTROL_ERROR",
        "SETTINGS_TIMEOUT",
        "STREAM_CLOSED",
        "FRAME_SIZE_ERROR",
        "REFUSED_STREAM",
        "CANCEL",
        "COMPRESSION_ERROR",
        "CONNECT_ERROR",
        "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY",
        "HTTP_1_1_REQUIRED",
    ];

    /// The RFC's name, or None for a code it does not define.
    pub fn name(self) -> Option<&'static str> {
        ErrorCode::NAMES.get(self.0 as usize).copied()
    }

    /// The code a name (as [`ErrorCode::name`] gives, or `0x..` for an undefined one) stands for.
    pub fn parse(text: &str) -> Option<ErrorCode> {
        if let Some(hex) = text.strip_prefix("0x") {
            return u32::from_str_radix(hex, 16).ok().map(ErrorCode);
        }
        let i = ErrorCode::NAMES.iter().position(|n| *n == text)?;
        Some(ErrorCode(i as u32))
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "0x{:x}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_codes_show_in_hex() {
        for code in 0..14 {
            let c = ErrorCode(code);
            assert_eq!(ErrorCode::parse(&c.to_string()), Some(c));
        }
        assert_eq!(ErrorCode(0x1f).to_string(), "0x1f");
        assert_eq!(ErrorCode::parse("0x1f"), Some(ErrorCode(0x1f)));
        assert_eq!(ErrorCode::parse("NOPE"), None);
    }
}
