//! rust-hyper: the shootout server on hyper 1.x and tokio.
//!
//! GET /hello -> 200 "Hello World" (11 bytes)
//! GET /app   -> tokio::time::sleep for 100 ms ±5% (uniform), then 200 with 1024 bytes
//! the workloads (`workloads`): /baseline, /json/N, /upload, /static/NAME
//! GET /ws   -> a WebSocket echo (`websocket`, tokio-tungstenite), over HTTP/1.1
//! the database endpoints (`database`), when DATABASE_URL is set: /db, /queries, /fortunes,
//! /updates
//!
//! Usage: server --listen 127.0.0.1:PORT --threads N [--workloads DIR]
//! [--cert CERT --key KEY | --h2c] (N = tokio worker threads). HTTP/1.1 (hyper's http1
//! server). With a certificate and its key (PEM), the same server over TLS: tokio-rustls on
//! rustls's defaults (aws-lc-rs, TLS 1.2 and 1.3), ALPN h2 and http/1.1 (hyper's http2
//! server for a client that picks h2, its http1 server for any other), stateless session
//! tickets (rustls's ticketer) besides its in-memory session cache. With --h2c, cleartext
//! HTTP/2 with prior knowledge: hyper's http2 server on every connection (HTTP/2 only on
//! the port).

mod database;
mod websocket;
mod workloads;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::TlsAcceptor;

use database::Database;
use workloads::Workloads;

static HELLO: &[u8] = b"Hello World";
static APP: [u8; 1024] = [b'a'; 1024];

/// Every answer's body: whole bytes, or a file as tower-http's ServeDir streams it.
pub type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// `body` as `content_type`. A whole body has an exact size, so hyper writes
/// Content-Length; hyper adds Date itself.
pub fn full(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let body = Full::new(body.into()).map_err(|never| match never {});
    let mut res = Response::new(body.boxed_unsync());
    *res.status_mut() = status;
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    res
}

fn text(status: StatusCode, body: &'static [u8]) -> Response<Body> {
    full(status, "text/plain", Bytes::from_static(body))
}

/// What every connection's requests are answered from.
struct State {
    workloads: Workloads,
    database: Option<Database>,
}

/// What a request asks for.
enum Route {
    Hello,
    App,
    Baseline,
    Upload,
    Json,
    Static,
    Database,
    WebSocket,
    NotFound,
    NotAllowed,
}

fn route(method: &Method, path: &str) -> Route {
    match (method, path) {
        (&Method::GET, "/hello") => Route::Hello,
        (&Method::GET, "/app") => Route::App,
        (&Method::GET, "/ws") => Route::WebSocket,
        (&Method::GET | &Method::POST, "/baseline") => Route::Baseline,
        (&Method::POST, "/upload") => Route::Upload,
        (&Method::GET, "/db" | "/queries" | "/fortunes" | "/updates") => Route::Database,
        (&Method::GET, _) if path.starts_with("/json/") => Route::Json,
        (&Method::GET, _) if path.starts_with("/static/") => Route::Static,
        (&Method::GET, _) => Route::NotFound,
        _ => Route::NotAllowed,
    }
}

async fn handle(req: Request<Incoming>, state: Arc<State>) -> Result<Response<Body>, Infallible> {
    Ok(match route(req.method(), req.uri().path()) {
        Route::Hello => text(StatusCode::OK, HELLO),
        Route::App => {
            // 95..=105 ms, uniform; a timer, so the worker thread keeps serving others.
            let us = fastrand::u64(95_000..=105_000);
            tokio::time::sleep(Duration::from_micros(us)).await;
            text(StatusCode::OK, &APP)
        }
        Route::Baseline => workloads::baseline(req).await,
        Route::Upload => workloads::upload(req).await,
        Route::Json => state.workloads.json(&req),
        Route::Static => state.workloads.file(req).await,
        Route::Database => match &state.database {
            Some(db) => db.answer(&req).await,
            None => text(StatusCode::NOT_FOUND, b"Not Found: no DATABASE_URL"),
        },
        Route::WebSocket => websocket::upgrade(req),
        Route::NotFound => text(StatusCode::NOT_FOUND, b"Not Found"),
        Route::NotAllowed => text(StatusCode::METHOD_NOT_ALLOWED, b"Method Not Allowed"),
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

    let serving = match (arg(&args, "--cert"), arg(&args, "--key")) {
        (Some(cert), Some(key)) => Serving::Tls(acceptor(&cert, &key)),
        _ if args.iter().any(|a| a == "--h2c") => Serving::H2c,
        _ => Serving::Http1,
    };

    let workloads = Workloads::load(arg(&args, "--workloads").map(Into::into));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let database = runtime.block_on(Database::from_env());
    let state = Arc::new(State {
        workloads,
        database,
    });
    runtime.block_on(serve(listen, serving, state));
}

/// How every connection is served.
#[derive(Clone)]
enum Serving {
    Http1,
    /// HTTP/2 with prior knowledge, in clear text.
    H2c,
    /// TLS, then HTTP/2 or HTTP/1.1 as ALPN picked.
    Tls(TlsAcceptor),
}

/// The TLS side: the certificate chain and key from PEM files, HTTP/2 and HTTP/1.1 by
/// ALPN, and session tickets.
fn acceptor(cert: &str, key: &str) -> TlsAcceptor {
    let chain: Vec<CertificateDer> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect())
        .unwrap_or_else(|e| panic!("--cert {cert}: {e}"));
    let key = PrivateKeyDer::from_pem_file(key).unwrap_or_else(|e| panic!("--key {key}: {e}"));
    let mut config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("the certificate and its key");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    config.ticketer = rustls::crypto::aws_lc_rs::Ticketer::new().expect("a ticketer");
    TlsAcceptor::from(Arc::new(config))
}

/// Serves one connection as `serving` says.
async fn connection(stream: TcpStream, serving: Serving, state: Arc<State>) {
    match serving {
        Serving::Http1 => serve_http1(TokioIo::new(stream), state).await,
        Serving::H2c => serve_http2(TokioIo::new(stream), state).await,
        Serving::Tls(tls) => {
            let Ok(stream) = tls.accept(stream).await else {
                return;
            };
            let h2 = stream.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
            match h2 {
                true => serve_http2(TokioIo::new(stream), state).await,
                false => serve_http1(TokioIo::new(stream), state).await,
            }
        }
    }
}

async fn serve_http1<I>(io: I, state: Arc<State>)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let service = service_fn(move |req| handle(req, state.clone()));
    // with_upgrades: a WebSocket upgrade (GET /ws) takes the connection over.
    let _ = http1::Builder::new()
        .serve_connection(io, service)
        .with_upgrades()
        .await;
}

async fn serve_http2<I>(io: I, state: Arc<State>)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
{
    let service = service_fn(move |req| handle(req, state.clone()));
    let _ = http2::Builder::new(TokioExecutor::new())
        .serve_connection(io, service)
        .await;
}

async fn serve(listen: SocketAddr, serving: Serving, state: Arc<State>) {
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
        tokio::spawn(connection(stream, serving.clone(), state.clone()));
    }
}
