//! The opening handshake (RFC 6455 section 4.1): the upgrade request, built once per loop
//! but for each connection's key, and the server's answer checked: a 101 that agrees to
//! `websocket`, with the Accept the key calls for and no extension or subprotocol the
//! client did not offer. Anything else is a [`Refusal`], named in the result.

use crate::config::LoadConfig;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// The GUID the Accept hash appends to the key (section 1.3).
const GUID: &[u8] = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// A key: 16 random octets in base64.
pub const KEY_LEN: usize = 24;

/// An Accept: a SHA-1 in base64.
pub const ACCEPT_LEN: usize = 28;

/// The longest answer head the client reads before it gives up.
pub const MAX_HEAD: usize = 8 * 1024;

/// Why the server's answer to the upgrade is not a WebSocket connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not 101 Switching Protocols (its status is counted in `status_codes`).
    Status,
    /// No `Upgrade: websocket`.
    NoUpgrade,
    /// No `upgrade` in Connection.
    NoConnectionUpgrade,
    NoAccept,
    /// A Sec-WebSocket-Accept that is not the key's.
    WrongAccept,
    /// An extension or a subprotocol the client did not offer.
    Unoffered,
    /// Not an HTTP/1.1 response head.
    Malformed,
    /// A head longer than [`MAX_HEAD`].
    HeadTooLong,
    /// No answer within the timeout.
    Timeout,
}

impl Refusal {
    pub const ALL: [Refusal; 9] = [
        Refusal::Status,
        Refusal::NoUpgrade,
        Refusal::NoConnectionUpgrade,
        Refusal::NoAccept,
        Refusal::WrongAccept,
        Refusal::Unoffered,
        Refusal::Malformed,
        Refusal::HeadTooLong,
        Refusal::Timeout,
    ];

    /// Its name in a result.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::Status => "status",
            Refusal::NoUpgrade => "no_upgrade",
            Refusal::NoConnectionUpgrade => "no_connection_upgrade",
            Refusal::NoAccept => "no_accept",
            Refusal::WrongAccept => "wrong_accept",
            Refusal::Unoffered => "unoffered_extension",
            Refusal::Malformed => "malformed",
            Refusal::HeadTooLong => "head_too_long",
            Refusal::Timeout => "timeout",
        }
    }
}

/// The upgrade request of a load, split where each connection's key goes.
#[derive(Debug, Clone)]
pub struct UpgradeRequest {
    pub before_key: Vec<u8>,
    pub after_key: Vec<u8>,
}

impl UpgradeRequest {
    /// The request `config` describes: its path, Host and headers.
    pub fn new(config: &LoadConfig) -> UpgradeRequest {
        let t = &config.target;
        let before = format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ",
            t.path, t.host_header
        );
        let mut after = String::from("\r\n");
        for h in config.headers.iter().filter(|h| !h.is("host")) {
            after.push_str(&format!("{h}\r\n"));
        }
        after.push_str("\r\n");
        UpgradeRequest {
            before_key: before.into_bytes(),
            after_key: after.into_bytes(),
        }
    }

    /// Its length with a key.
    pub fn len(&self) -> usize {
        self.before_key.len() + KEY_LEN + self.after_key.len()
    }
}

/// A key from 16 random octets, and the Accept the server must answer it with.
pub fn key_and_accept(random: [u8; 16]) -> ([u8; KEY_LEN], [u8; ACCEPT_LEN]) {
    let mut key = [0; KEY_LEN];
    let _ = STANDARD.encode_slice(random, &mut key);
    (key, accept_of(&key))
}

/// The Accept for `key` (section 4.2.2): base64 of SHA-1 of the key and the GUID.
pub fn accept_of(key: &[u8]) -> [u8; ACCEPT_LEN] {
    let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(key);
    ctx.update(GUID);
    let mut accept = [0; ACCEPT_LEN];
    let _ = STANDARD.encode_slice(ctx.finish().as_ref(), &mut accept);
    accept
}

/// The server's answer, if its head is complete in `head`: its length, or why it is no
/// WebSocket connection (with the status when it is not 101).
pub fn check_answer(
    head: &[u8],
    accept: &[u8; ACCEPT_LEN],
) -> Result<Option<usize>, (Refusal, u16)> {
    let mut fields = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut fields);
    let len = match response.parse(head) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) if head.len() > MAX_HEAD => {
            return Err((Refusal::HeadTooLong, 0))
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err((Refusal::Malformed, 0)),
    };
    let status = response.code.unwrap_or(0);
    if status != 101 {
        return Err((Refusal::Status, status));
    }
    let field = |name: &str| {
        let found = response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name));
        found.map(|h| h.value)
    };
    let refusal = if !field("upgrade").is_some_and(|v| v.eq_ignore_ascii_case(b"websocket")) {
        Some(Refusal::NoUpgrade)
    } else if !field("connection").is_some_and(has_upgrade_token) {
        Some(Refusal::NoConnectionUpgrade)
    } else if field("sec-websocket-extensions").is_some()
        || field("sec-websocket-protocol").is_some()
    {
        Some(Refusal::Unoffered)
    } else {
        match field("sec-websocket-accept").map(<[u8]>::trim_ascii) {
            None => Some(Refusal::NoAccept),
            Some(value) if value != accept => Some(Refusal::WrongAccept),
            Some(_) => None,
        }
    };
    match refusal {
        Some(r) => Err((r, status)),
        None => Ok(Some(len)),
    }
}

/// True when a Connection value lists `upgrade`.
fn has_upgrade_token(value: &[u8]) -> bool {
    value
        .split(|&b| b == b',')
        .any(|token| token.trim_ascii().eq_ignore_ascii_case(b"upgrade"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfcs_sample_key_gets_its_accept() {
        assert_eq!(
            &accept_of(b"dGhlIHNhbXBsZSBub25jZQ=="),
            b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn answers_are_checked_field_by_field() {
        let accept = accept_of(b"dGhlIHNhbXBsZSBub25jZQ==");
        let answer = |fields: &str| {
            let head = format!("HTTP/1.1 101 Switching Protocols\r\n{fields}\r\n");
            check_answer(head.as_bytes(), &accept).map_err(|(r, _)| r)
        };
        let good = "Upgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n\
                    Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n";
        assert_eq!(answer(good), Ok(Some(good.len() + 36)));
        let wrong = good.replace("xOo=", "xOp=");
        assert_eq!(answer(&wrong), Err(Refusal::WrongAccept));
        assert_eq!(
            answer("Upgrade: websocket\r\n"),
            Err(Refusal::NoConnectionUpgrade)
        );
        assert_eq!(answer("Connection: upgrade\r\n"), Err(Refusal::NoUpgrade));
        let ext = format!("{good}Sec-WebSocket-Extensions: permessage-deflate\r\n");
        assert_eq!(answer(&ext), Err(Refusal::Unoffered));
        let ok = check_answer(b"HTTP/1.1 200 OK\r\n\r\n", &accept);
        assert_eq!(ok, Err((Refusal::Status, 200)));
        assert_eq!(check_answer(b"HTTP/1.1 101 Swi", &accept), Ok(None));
        assert_eq!(
            check_answer(b"garbage\r\n\r\n", &accept).map_err(|e| e.0),
            Err(Refusal::Malformed)
        );
    }
}
