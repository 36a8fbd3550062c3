//! WebSocket verification: does the server's echo endpoint (its manifest's `[websocket]`)
//! speak RFC 6455 as HttpArena's echo-ws validator asks? The upgrade answered 101, the
//! Accept the key's, a text and a binary message echoed, several echoed in order, the
//! client's close answered with 1000, and a plain GET of the path (no Upgrade) refused
//! with a 4xx. Each is one check on its own connection, so that what a server lacks is
//! a row naming it while the others still run.

mod client;

use super::connection::Connection;
use super::exchange::{connect, exchange};
use super::{Check, VerifyError};
use client::{Fault, Target, WsClient};
use engine::websocket::{opcode, Event, Expected, Refusal};
use std::net::SocketAddr;

/// A text message with characters of two, three and four octets in UTF-8.
const TEXT: &str = "shootout: héllo, wörld ✓ 🚀";

/// Messages the ordering check sends in one write.
const IN_ORDER: usize = 16;

/// Runs the WebSocket checks against the endpoint at `path` of the server at `addr`,
/// named `host` in the Host header.
pub fn run_websocket(addr: SocketAddr, host: &str, path: &str) -> Vec<Check> {
    let target = Target { addr, host, path };
    let opened = WsClient::open(&target).map(|_| ());
    let mut checks = vec![upgrade(&opened), accept(&opened)];
    checks.extend([
        row("ws text", echo(&target, opcode::TEXT, TEXT.as_bytes())),
        row("ws binary", echo(&target, opcode::BINARY, &binary())),
        row("ws ordering", ordering(&target)),
        row("ws close", close(&target)),
        row("ws no-upgrade", no_upgrade(&target)),
    ]);
    checks
}

/// 1,000 octets, every value from 0 to 255: a 16-bit length, and octets text could not hold.
fn binary() -> Vec<u8> {
    (0..1000).map(|i| (i % 256) as u8).collect()
}

/// The upgrade answered 101 with `Upgrade: websocket` and `upgrade` in Connection (the
/// Accept is the next check's).
fn upgrade(opened: &Result<(), Fault>) -> Check {
    let result = match opened {
        Ok(()) | Err(Fault::Refused(Refusal::WrongAccept | Refusal::NoAccept, _)) => {
            Ok("101 Switching Protocols, Upgrade: websocket, Connection: Upgrade".to_string())
        }
        Err(fault) => Err(fault.to_string()),
    };
    row("ws upgrade", result)
}

/// The 101's Sec-WebSocket-Accept is the SHA-1 of the key and RFC 6455's GUID.
fn accept(opened: &Result<(), Fault>) -> Check {
    let result = match opened {
        Ok(()) => Ok("Sec-WebSocket-Accept is the key's (RFC 6455 §4.2.2)".to_string()),
        Err(f @ Fault::Refused(Refusal::WrongAccept | Refusal::NoAccept, _)) => Err(f.to_string()),
        Err(fault) => Err(format!("not checked: {fault}")),
    };
    row("ws accept", result)
}

fn row(name: &str, result: Result<String, String>) -> Check {
    Check {
        name: name.to_string(),
        passed: result.is_ok(),
        flagged: false,
        detail: result.unwrap_or_else(|e| e),
    }
}

/// A message of `kind` comes back as sent.
fn echo(target: &Target, kind: u8, payload: &[u8]) -> Result<String, String> {
    let mut ws = WsClient::open(target).map_err(no_connection)?;
    ws.send(kind, &[payload]).map_err(fault)?;
    let binary = kind == opcode::BINARY;
    let expected = Expected { payload, binary };
    let word = if binary { "binary" } else { "text" };
    match ws.next(&expected).map_err(fault)? {
        Event::Message { right: true } => {
            Ok(format!("a {}-octet {word} message echoed", payload.len()))
        }
        other => Err(unexpected(other)),
    }
}

/// Messages sent together come back in the order sent.
fn ordering(target: &Target) -> Result<String, String> {
    let mut ws = WsClient::open(target).map_err(no_connection)?;
    let messages: Vec<String> = (1..=IN_ORDER)
        .map(|i| format!("message {i} of {IN_ORDER}"))
        .collect();
    let payloads: Vec<&[u8]> = messages.iter().map(|m| m.as_bytes()).collect();
    ws.send(opcode::TEXT, &payloads).map_err(fault)?;
    for (i, payload) in payloads.iter().enumerate() {
        let expected = Expected {
            payload,
            binary: false,
        };
        match ws.next(&expected) {
            Ok(Event::Message { right: true }) => {}
            Ok(Event::Message { right: false }) => {
                return Err(format!(
                    "echo {} of {IN_ORDER} is not message {} (out of order, or changed)",
                    i + 1,
                    i + 1
                ))
            }
            Ok(other) => return Err(format!("after {i} echoes, {}", said(other))),
            Err(f) => return Err(format!("after {i} echoes: {f}")),
        }
    }
    Ok(format!(
        "{IN_ORDER} text messages sent in one write echoed in order"
    ))
}

/// The client's close 1000 is answered with a close 1000.
fn close(target: &Target) -> Result<String, String> {
    let mut ws = WsClient::open(target).map_err(no_connection)?;
    ws.close(1000).map_err(fault)?;
    let nothing = Expected {
        payload: &[],
        binary: false,
    };
    match ws.next(&nothing) {
        Ok(Event::Close(Some(1000))) => Ok("close 1000 answered with close 1000".to_string()),
        Ok(Event::Close(code)) => Err(format!(
            "answered close 1000 with {}",
            match code {
                Some(code) => format!("close {code}"),
                None => "a close without a code".to_string(),
            }
        )),
        Ok(other) => Err(format!("answered close 1000 with {}", said(other))),
        Err(f @ (Fault::Timeout | Fault::Eof)) => Err(format!("close 1000 not answered: {f}")),
        Err(f) => Err(fault(f)),
    }
}

/// A GET of the path without Upgrade is refused with a 4xx.
fn no_upgrade(target: &Target) -> Result<String, String> {
    let text = |e: VerifyError| e.to_string();
    let mut s = Connection::Plain(connect(target.addr).map_err(text)?);
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\n\r\n",
        target.path, target.host
    );
    let reply = exchange(&mut s, request.as_bytes(), false).map_err(text)?;
    match reply.status {
        400..=499 => Ok(format!("a GET without Upgrade answered {}", reply.status)),
        status => Err(format!(
            "a GET without Upgrade answered {status} (want a 4xx: it is no WebSocket request)"
        )),
    }
}

/// An event that was not the echo awaited, in words.
fn said(event: Event) -> String {
    match event {
        Event::Message { .. } => "a message that is not the one sent".to_string(),
        Event::Close(Some(code)) => format!("closed the WebSocket with close {code}"),
        Event::Close(None) => "closed the WebSocket with a close without a code".to_string(),
        Event::Ping | Event::Pong => "a control frame".to_string(),
    }
}

fn unexpected(event: Event) -> String {
    match event {
        Event::Message { .. } => {
            "the echo is not the message sent (its kind, length or octets differ)".to_string()
        }
        other => said(other),
    }
}

#[cfg(test)]
mod tests;

fn no_connection(f: Fault) -> String {
    format!("no WebSocket connection: {f}")
}

fn fault(f: Fault) -> String {
    f.to_string()
}
