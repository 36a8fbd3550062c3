//! The request bytes, built once per loop and written from a shared buffer; over HTTP/2,
//! the request's header block (HPACK, once per connection, then indexed) and its body.
//! A load whose requests vary (crate::vary) draws each request's values here instead, and
//! its connections render them.

use crate::config::LoadConfig;
use crate::hpack::RequestBlock;
use crate::spec::Header;
use crate::vary::{Drawer, Drawn, Place, Vary};
use crate::ws::WsRequest;

/// One request's bytes repeated `pipeline` times, so that any number of requests up to
/// the pipeline depth is a single slice (a tail) of one buffer.
#[derive(Debug, Clone)]
pub struct RequestBytes {
    buf: Vec<u8>,
    one: usize,
    head: bool,
    /// An HTTP/2 load's header block (None over HTTP/1.1), and the body its DATA carries.
    h2: Option<RequestBlock>,
    body: Vec<u8>,
    /// Varying requests: the shapes, and this loop's draws.
    vary: Option<(Vary, Drawer)>,
    /// A WebSocket load's upgrade request and message (None over HTTP).
    ws: Option<WsRequest>,
}

impl RequestBytes {
    /// Builds the request that `config` describes, for the loop numbered `loop_index`.
    pub fn new(config: &LoadConfig, loop_index: usize) -> RequestBytes {
        if let Some(vary) = config.vary.as_ref() {
            return RequestBytes::varying(config, vary, loop_index);
        }
        let one = encode(config);
        let len = one.len();
        // Each loop builds its own: a 20 MB body is copied no more than it must be (a
        // copy is memory to fault in and fill, which counts in a large upload's cost).
        let buf = match config.pipeline {
            0 | 1 => one,
            depth => one.repeat(depth),
        };
        RequestBytes {
            buf,
            one: len,
            head: config.method.as_str().eq_ignore_ascii_case("HEAD"),
            h2: config.http2.then(|| h2_block(config)),
            // Over HTTP/1.1 the body is in `buf`; over HTTP/2 it goes in DATA frames.
            body: match config.http2 {
                true => config.body.clone(),
                false => Vec::new(),
            },
            vary: None,
            ws: WsRequest::of(config),
        }
    }

    /// Requests that vary: nothing is shared but the shapes; an HTTP/2 connection's block
    /// carries only the table size updates it owes, its fields are rendered per request.
    fn varying(config: &LoadConfig, vary: &Vary, loop_index: usize) -> RequestBytes {
        let place = Place {
            shard: config.shard.index,
            shards: config.shard.count,
            loop_index: loop_index as u64,
            loops: config.threads as u64,
        };
        RequestBytes {
            buf: Vec::new(),
            one: vary.max_request_len(),
            head: false,
            h2: config.http2.then(|| RequestBlock::new(&[])),
            body: Vec::new(),
            vary: Some((vary.clone(), Drawer::new(vary, place))),
            ws: None,
        }
    }

    /// The varying requests' shapes (None: every request is the same).
    #[inline]
    pub fn vary(&self) -> Option<&Vary> {
        self.vary.as_ref().map(|(vary, _)| vary)
    }

    /// The next varying request's values (None: every request is the same).
    #[inline]
    pub fn draw(&mut self) -> Option<Drawn> {
        let (vary, drawer) = self.vary.as_mut()?;
        Some(drawer.draw(vary))
    }

    /// A WebSocket load's upgrade request and message (None over HTTP).
    #[inline]
    pub fn ws(&self) -> Option<&WsRequest> {
        self.ws.as_ref()
    }

    /// The most request bytes one connection has to write at once.
    pub fn most_unsent(&self, depth: usize) -> usize {
        match (self.vary(), self.ws()) {
            (Some(vary), _) => 2 * depth.max(1) * vary.max_request_len(),
            (None, Some(ws)) => ws.upgrade.len() + depth.max(1) * (ws.payload.len() + 14),
            (None, None) => self.buf.len(),
        }
    }

    /// The HTTP/2 header block (None over HTTP/1.1).
    #[inline]
    pub fn h2_block(&self) -> Option<&RequestBlock> {
        self.h2.as_ref()
    }

    /// The request body over HTTP/2, sent in DATA frames (empty over HTTP/1.1).
    #[inline]
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The whole buffer: the pipeline depth's worth of requests.
    #[inline]
    pub fn all(&self) -> &[u8] {
        &self.buf
    }

    /// Length of one request in bytes.
    #[inline]
    pub fn request_len(&self) -> usize {
        self.one
    }

    /// True for HEAD requests, whose responses carry no body.
    pub fn is_head(&self) -> bool {
        self.head
    }
}

/// Header fields HTTP/2 forbids (RFC 9113 section 8.2.2): HTTP/1.1's connection handling.
const CONNECTION_SPECIFIC: [&str; 5] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
];

/// The HTTP/2 request's fields: pseudo-headers, then the load's headers as HTTP/2 allows
/// them (Host becomes :authority), then content-length for a body.
fn h2_block(config: &LoadConfig) -> RequestBlock {
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let t = &config.target;
    let mut fields: Vec<(&[u8], &[u8])> = vec![
        (b":method", config.method.as_str().as_bytes()),
        (b":scheme", scheme.as_bytes()),
        (b":path", t.path.as_bytes()),
        (b":authority", t.host_header.as_bytes()),
    ];
    for h in config.headers.iter().filter(|h| h2_allows(h)) {
        fields.push((h.name.as_str().as_bytes(), h.value.as_bytes()));
    }
    let length = config.body.len().to_string();
    let has_length = config
        .headers
        .iter()
        .any(|h| h.name == http::header::CONTENT_LENGTH);
    if !config.body.is_empty() && !has_length {
        fields.push((b"content-length", length.as_bytes()));
    }
    RequestBlock::new(&fields)
}

/// True for a header HTTP/2 sends as it is (Host becomes :authority; connection-specific
/// fields are not sent).
pub fn h2_allows(h: &Header) -> bool {
    let name = h.name.as_str();
    name != "host"
        && !CONNECTION_SPECIFIC.contains(&name)
        && (name != "te" || h.value.as_bytes().eq_ignore_ascii_case(b"trailers"))
}

fn encode(config: &LoadConfig) -> Vec<u8> {
    let version = if config.http10 {
        "HTTP/1.0"
    } else {
        "HTTP/1.1"
    };
    let mut s = format!(
        "{} {} {}\r\nHost: {}\r\n",
        config.method, config.target.path, version, config.target.host_header
    );
    let has = |name: &str| config.headers.iter().any(|h| h.is(name));
    for h in config.headers.iter().filter(|h| !h.is("host")) {
        // `Name: value` as the user wrote it, the name's case kept (Header's text form).
        s.push_str(&format!("{h}\r\n"));
    }
    if !has("connection") {
        // HTTP/1.0 closes by default and HTTP/1.1 keeps alive by default: say so only
        // when the wanted behaviour is not the version's default.
        match (config.http10, config.keepalive) {
            (true, true) => s.push_str("Connection: keep-alive\r\n"),
            (false, false) => s.push_str("Connection: close\r\n"),
            _ => {}
        }
    }
    if !config.body.is_empty() && !has("content-length") {
        s.push_str(&format!("Content-Length: {}\r\n", config.body.len()));
    }
    s.push_str("\r\n");
    let mut bytes = s.into_bytes();
    bytes.extend_from_slice(&config.body);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Target;

    fn config() -> LoadConfig {
        LoadConfig::new(Target::parse("http://127.0.0.1:8080/hello").unwrap())
    }

    #[test]
    fn keepalive_get_is_minimal() {
        let r = RequestBytes::new(&config(), 0);
        assert_eq!(
            r.all(),
            b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
        );
    }

    #[test]
    fn pipelined_requests_are_one_slice() {
        let mut c = config();
        c.pipeline = 3;
        let r = RequestBytes::new(&c, 0);
        let one = &r.all()[..r.request_len()];
        assert_eq!(r.all(), one.repeat(3));
    }

    #[test]
    fn no_keepalive_and_http10_say_so_and_body_gets_a_length() {
        let mut c = config();
        c.keepalive = false;
        c.method = http::Method::POST;
        c.body = b"abc".to_vec();
        c.headers.push("X-A: 1".parse().unwrap());
        let s = String::from_utf8(RequestBytes::new(&c, 0).all().to_vec()).unwrap();
        assert!(s.starts_with("POST /hello HTTP/1.1\r\n"), "{s}");
        assert!(s.contains("X-A: 1\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc"));
        c.http10 = true;
        c.keepalive = true;
        let s = String::from_utf8(RequestBytes::new(&c, 0).all().to_vec()).unwrap();
        assert!(s.contains("HTTP/1.0\r\n") && s.contains("Connection: keep-alive\r\n"));
    }

    /// A spec's custom method and headers, resolved, make these exact bytes: names and
    /// values as written, a Host header left to the URL's.
    #[test]
    fn a_specs_method_and_headers_are_sent_as_written() {
        let url = crate::parse_url("http://127.0.0.1:8080/p?q=1").unwrap();
        let mut s = crate::LoadSpec::new(url);
        s.method = crate::parse_method("M-SEARCH").unwrap();
        s.headers = [
            "X-A: b: c",
            "accept:  */* ",
            "x-MiXeD: 1",
            "Host: elsewhere",
        ]
        .map(|h| h.parse().unwrap())
        .to_vec();
        s.body = b"abc".to_vec();
        s.keepalive = false;
        let c = s.resolve().unwrap();
        assert_eq!(
            String::from_utf8(RequestBytes::new(&c, 0).all().to_vec()).unwrap(),
            "M-SEARCH /p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-A: b: c\r\naccept: */*\r\nx-MiXeD: 1\r\n\
             Connection: close\r\nContent-Length: 3\r\n\r\nabc"
        );
    }

    /// HTTP/2 sends every name in lowercase, as RFC 9113 §8.2.1 requires, whatever the
    /// user wrote; HTTP/1.1 sends it as written (above).
    #[test]
    fn http2_lowercases_the_names_it_sends() {
        let mut c = config();
        c.http2 = true;
        c.headers.push("X-MiXeD-Case: V".parse().unwrap());
        let r = RequestBytes::new(&c, 0);
        let mut block = r.h2_block().expect("an HTTP/2 block").clone();
        let mut names = Vec::new();
        crate::hpack::Decoder::new(4096)
            .decode(block.block(), |name, value| {
                names.push((name.to_vec(), value.to_vec()));
            })
            .expect("the block decodes");
        assert!(
            names.contains(&(b"x-mixed-case".to_vec(), b"V".to_vec())),
            "{names:?}"
        );
    }
}
