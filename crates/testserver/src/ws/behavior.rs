//! What a WebSocket connection of the test server does with each message, and how to
//! name it on a command line (`ws:NAME`).

use crate::BehaviorError;
use std::fmt;
use std::str::FromStr;

/// How the server answers the upgrade and each message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsBehavior {
    /// Echoes each text or binary message, answers pings and the client's close.
    Echo,
    /// As `Echo`, and sends a ping before every Nth echo (the pongs are counted).
    PingEvery(u32),
    /// As `Echo`, each echo in three fragments with a ping between the first two.
    Fragmented,
    /// Answers the upgrade with 101 and an Accept that is not the key's.
    WrongAccept,
    /// Answers the upgrade with `400 Bad Request` (a server without WebSocket there).
    Refuse,
    /// Echoes with the mask bit set (a server must never mask).
    MaskedFrame,
    /// Echoes a text message with its first octet 0xFF: not UTF-8.
    InvalidUtf8,
    /// Echoes with RSV1 set, no extension negotiated.
    ReservedBits,
    /// Echoes, and never answers the client's close (it waits for the client to go).
    IgnoreClose,
    /// Echoes N messages per connection, then sends close 1011 instead of the next echo.
    CloseAfter(u32),
    /// Answers each message with a frame header announcing 2^40 octets (past any limit).
    TooLong,
    /// Answers each message with the first fragment of its echo, then close 1001.
    CloseMidMessage,
    /// Sends N pings before each echo (the pongs are counted).
    PingFlood(u32),
}

impl fmt::Display for WsBehavior {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WsBehavior::Echo => write!(f, "ws:echo"),
            WsBehavior::PingEvery(n) => write!(f, "ws:ping-every:{n}"),
            WsBehavior::Fragmented => write!(f, "ws:fragmented"),
            WsBehavior::WrongAccept => write!(f, "ws:wrong-accept"),
            WsBehavior::Refuse => write!(f, "ws:refuse"),
            WsBehavior::MaskedFrame => write!(f, "ws:masked-frame"),
            WsBehavior::InvalidUtf8 => write!(f, "ws:invalid-utf8"),
            WsBehavior::ReservedBits => write!(f, "ws:reserved-bits"),
            WsBehavior::IgnoreClose => write!(f, "ws:ignore-close"),
            WsBehavior::CloseAfter(n) => write!(f, "ws:close-after:{n}"),
            WsBehavior::TooLong => write!(f, "ws:too-long"),
            WsBehavior::CloseMidMessage => write!(f, "ws:close-mid-message"),
            WsBehavior::PingFlood(n) => write!(f, "ws:ping-flood:{n}"),
        }
    }
}

impl FromStr for WsBehavior {
    type Err = BehaviorError;

    fn from_str(text: &str) -> Result<WsBehavior, BehaviorError> {
        let bad = || BehaviorError::Unknown(text.to_string());
        let name = text.strip_prefix("ws:").ok_or_else(bad)?;
        let (name, arg) = name.split_once(':').unwrap_or((name, ""));
        let number = || arg.parse::<u32>().map_err(|_| bad());
        Ok(match (name, arg.is_empty()) {
            ("echo", true) => WsBehavior::Echo,
            ("ping-every", false) => WsBehavior::PingEvery(number()?.max(1)),
            ("fragmented", true) => WsBehavior::Fragmented,
            ("wrong-accept", true) => WsBehavior::WrongAccept,
            ("refuse", true) => WsBehavior::Refuse,
            ("masked-frame", true) => WsBehavior::MaskedFrame,
            ("invalid-utf8", true) => WsBehavior::InvalidUtf8,
            ("reserved-bits", true) => WsBehavior::ReservedBits,
            ("ignore-close", true) => WsBehavior::IgnoreClose,
            ("close-after", false) => WsBehavior::CloseAfter(number()?),
            ("too-long", true) => WsBehavior::TooLong,
            ("close-mid-message", true) => WsBehavior::CloseMidMessage,
            ("ping-flood", false) => WsBehavior::PingFlood(number()?.max(1)),
            _ => return Err(bad()),
        })
    }
}
