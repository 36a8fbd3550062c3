//! The request bytes, built once per loop and written from a shared buffer.

use crate::config::LoadConfig;

/// One request's bytes repeated `pipeline` times, so that any number of requests up to
/// the pipeline depth is a single slice (a tail) of one buffer.
#[derive(Debug, Clone)]
pub struct RequestBytes {
    buf: Vec<u8>,
    one: usize,
    head: bool,
}

impl RequestBytes {
    /// Builds the request that `config` describes.
    pub fn new(config: &LoadConfig) -> RequestBytes {
        let one = encode(config);
        let len = one.len();
        RequestBytes {
            buf: one.repeat(config.pipeline.max(1)),
            one: len,
            head: config.method.eq_ignore_ascii_case("HEAD"),
        }
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
    let has = |name: &str| {
        config
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name))
    };
    for (k, v) in &config.headers {
        if !k.eq_ignore_ascii_case("host") {
            s.push_str(&format!("{k}: {v}\r\n"));
        }
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
        let r = RequestBytes::new(&config());
        assert_eq!(
            r.all(),
            b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
        );
    }

    #[test]
    fn pipelined_requests_are_one_slice() {
        let mut c = config();
        c.pipeline = 3;
        let r = RequestBytes::new(&c);
        let one = &r.all()[..r.request_len()];
        assert_eq!(r.all(), one.repeat(3));
    }

    #[test]
    fn no_keepalive_and_http10_say_so_and_body_gets_a_length() {
        let mut c = config();
        c.keepalive = false;
        c.method = "POST".into();
        c.body = b"abc".to_vec();
        c.headers.push(("X-A".into(), "1".into()));
        let s = String::from_utf8(RequestBytes::new(&c).all().to_vec()).unwrap();
        assert!(s.starts_with("POST /hello HTTP/1.1\r\n"), "{s}");
        assert!(s.contains("X-A: 1\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc"));
        c.http10 = true;
        c.keepalive = true;
        let s = String::from_utf8(RequestBytes::new(&c).all().to_vec()).unwrap();
        assert!(s.contains("HTTP/1.0\r\n") && s.contains("Connection: keep-alive\r\n"));
    }
}
