//! rust-hyper: the shootout hello/app server on hyper 1.x (HTTP/1.1 server) and tokio.
//!
//! GET /hello -> 200 "Hello World" (11 bytes)
//! GET /app   -> tokio::time::sleep for 100 ms ±5% (uniform), then 200 with 1024 bytes
//!
//! Usage: server --listen 127.0.0.1:PORT --threads N   (N = tokio worker threads)

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpSocket;

static HELLO: &[u8] = b"Hello World";
static APP: [u8; 1024] = [b'a'; 1024];

fn text(status: StatusCode, body: &'static [u8]) -> Response<Full<Bytes>> {
    // Full<Bytes> has an exact size, so hyper writes Content-Length; hyper adds Date itself.
    let mut res = Response::new(Full::new(Bytes::from_static(body)));
    *res.status_mut() = status;
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    res
}

async fn handle(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    if req.method() != Method::GET {
        return Ok(text(StatusCode::METHOD_NOT_ALLOWED, b"Method Not Allowed"));
    }
    Ok(match req.uri().path() {
        "/hello" => text(StatusCode::OK, HELLO),
        "/app" => {
            // 95..=105 ms, uniform; a timer, so the worker thread keeps serving others.
            let us = fastrand::u64(95_000..=105_000);
            tokio::time::sleep(Duration::from_micros(us)).await;
            text(StatusCode::OK, &APP)
        }
        _ => text(StatusCode::NOT_FOUND, b"Not Found"),
    })
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let listen: SocketAddr = arg(&args, "--listen")
        .unwrap_or_else(|| "127.0.0.1:8080".into())
        .parse()
        .expect("--listen must be an address like 127.0.0.1:8080");
    let threads: usize = arg(&args, "--threads")
        .map(|t| t.parse().expect("--threads must be a positive integer"))
        .unwrap_or(1)
        .max(1);

    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(serve(listen));
}

async fn serve(listen: SocketAddr) {
    // TcpListener::bind would listen with a backlog of 128 (std's value, which mio 1.x
    // copies); a burst of connections beyond it gets SYNs dropped and retried after 1 s.
    // 1024 is the backlog tokio used before.
    let socket = if listen.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .expect("socket");
    socket.set_reuseaddr(true).expect("SO_REUSEADDR");
    socket.bind(listen).expect("bind");
    let listener = socket.listen(1024).expect("listen");
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(s) => s,
            Err(_) => {
                // EMFILE and the like: back off briefly instead of spinning.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(handle))
                .await;
        });
    }
}
