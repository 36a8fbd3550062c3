//! Frames as written: each appended to a connection's output, sent when it flushes.

use super::error_code::ErrorCode;
use super::frame::{Kind, ACK};

/// Appends a frame of `kind` with `flags` on `stream` carrying `payload`.
pub(crate) fn frame(out: &mut Vec<u8>, kind: Kind, flags: u8, stream: u32, payload: &[u8]) {
    let len = u32::try_from(payload.len())
        .unwrap_or(u32::MAX)
        .to_be_bytes();
    out.extend_from_slice(&len[1..]);
    out.push(kind.octet());
    out.push(flags);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

/// SETTINGS with these (identifier, value) pairs.
pub(crate) fn settings(out: &mut Vec<u8>, pairs: &[(u16, u32)]) {
    let mut payload = Vec::with_capacity(pairs.len() * 6);
    for (id, value) in pairs {
        payload.extend_from_slice(&id.to_be_bytes());
        payload.extend_from_slice(&value.to_be_bytes());
    }
    frame(out, Kind::Settings, 0, 0, &payload);
}

/// The ack of the client's SETTINGS.
pub(crate) fn settings_ack(out: &mut Vec<u8>) {
    frame(out, Kind::Settings, ACK, 0, &[]);
}

/// A PING with `data`, or its ack.
pub(crate) fn ping(out: &mut Vec<u8>, ack: bool, data: [u8; 8]) {
    frame(out, Kind::Ping, if ack { ACK } else { 0 }, 0, &data);
}

/// GOAWAY naming the last stream the server processes, and why.
pub(crate) fn goaway(out: &mut Vec<u8>, last_stream: u32, code: ErrorCode) {
    let mut payload = last_stream.to_be_bytes().to_vec();
    payload.extend_from_slice(&code.number().to_be_bytes());
    frame(out, Kind::GoAway, 0, 0, &payload);
}

/// RST_STREAM on `stream` with `code`.
pub(crate) fn rst_stream(out: &mut Vec<u8>, stream: u32, code: ErrorCode) {
    frame(
        out,
        Kind::RstStream,
        0,
        stream,
        &code.number().to_be_bytes(),
    );
}

/// WINDOW_UPDATE granting `increment` octets on `stream` (0: the connection).
pub(crate) fn window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    frame(out, Kind::WindowUpdate, 0, stream, &increment.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_exact() {
        let mut out = Vec::new();
        goaway(&mut out, 7, ErrorCode::Protocol);
        assert_eq!(out, [0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1]);
        out.clear();
        settings(&mut out, &[(3, 100)]);
        assert_eq!(out, [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100]);
        out.clear();
        rst_stream(&mut out, 3, ErrorCode::Refused);
        assert_eq!(out, [0, 0, 4, 3, 0, 0, 0, 0, 3, 0, 0, 0, 7]);
    }
}
