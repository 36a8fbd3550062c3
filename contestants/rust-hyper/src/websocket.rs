//! GET /ws: a WebSocket echo on tokio-tungstenite, the tokio WebSocket crate most hyper and
//! axum users pick, over hyper's own upgrade (as axum does it): the 101 answered here with
//! the key's Accept, then each text or binary message sent back as it came. tungstenite
//! answers pings and the client's close (with its code) by itself. A GET without Upgrade
//! gets a 400.

use futures_util::{SinkExt, StreamExt};
use hyper::body::Incoming;
use hyper::header::{
    HeaderMap, HeaderValue, CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY,
    SEC_WEBSOCKET_VERSION, UPGRADE,
};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::{full, Body};

/// Answers an upgrade to WebSocket and echoes on the connection once hyper hands it over.
pub fn upgrade(mut req: Request<Incoming>) -> Response<Body> {
    let Some(accept) = accept(req.headers()) else {
        return full(
            StatusCode::BAD_REQUEST,
            "text/plain",
            &b"Bad Request: not a WebSocket upgrade"[..],
        );
    };
    let upgrading = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        if let Ok(upgraded) = upgrading.await {
            let io = TokioIo::new(upgraded);
            echo(WebSocketStream::from_raw_socket(io, Role::Server, None).await).await;
        }
    });
    let mut res = full(StatusCode::SWITCHING_PROTOCOLS, "text/plain", &b""[..]);
    let h = res.headers_mut();
    h.remove(hyper::header::CONTENT_TYPE);
    h.insert(UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(SEC_WEBSOCKET_ACCEPT, accept);
    res
}

/// The Accept for a request that asks for WebSocket 13 with a key; None for any other.
fn accept(h: &HeaderMap) -> Option<HeaderValue> {
    let has = |name, token: &str| {
        h.get_all(name).iter().any(|v| {
            let v = v.to_str().unwrap_or_default();
            v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token))
        })
    };
    let version = h.get(SEC_WEBSOCKET_VERSION).is_some_and(|v| v == "13");
    if !(has(UPGRADE, "websocket") && has(CONNECTION, "upgrade") && version) {
        return None;
    }
    let key = h.get(SEC_WEBSOCKET_KEY)?;
    HeaderValue::from_str(&derive_accept_key(key.as_bytes())).ok()
}

async fn echo<S>(mut ws: WebSocketStream<S>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    while let Some(Ok(message)) = ws.next().await {
        let data = matches!(message, Message::Text(_) | Message::Binary(_));
        if data && ws.send(message).await.is_err() {
            return;
        }
    }
}
