//! Minimal request-head parsing: just what the server needs to frame and answer.

/// Largest request head accepted; a longer one closes the connection.
pub(crate) const MAX_HEAD: usize = 64 * 1024;

/// What the server needs to know about one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// HEAD: the response carries no body.
    pub head: bool,
    /// The request was HTTP/1.0.
    pub http10: bool,
    /// The connection may stay open after the response.
    pub keep_alive: bool,
    /// Bytes of body to skip after the head.
    pub content_length: u64,
    /// The request line's method and target.
    pub method: String,
    pub target: String,
    /// The header lines, as sent.
    pub headers: Vec<(String, String)>,
    /// The body, when the behavior keeps it (`Sum`, `Workloads`).
    pub body: Vec<u8>,
    /// The body comes chunked (`Transfer-Encoding: chunked`).
    pub chunked: bool,
}

impl Request {
    /// The value of the header `name` (any case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        let found = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name));
        found.map(|(_, v)| v.as_str())
    }
}

/// Why a request cannot be served; the connection is closed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BadRequest {
    TooLarge,
    Malformed,
}

/// Finds a complete head at the start of `buf`: the request and the head's length.
pub(crate) fn parse(buf: &[u8]) -> Result<Option<(Request, usize)>, BadRequest> {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        return if buf.len() > MAX_HEAD {
            Err(BadRequest::TooLarge)
        } else {
            Ok(None)
        };
    };
    let len = end + 4;
    if len > MAX_HEAD {
        return Err(BadRequest::TooLarge);
    }
    let text = std::str::from_utf8(&buf[..end]).map_err(|_| BadRequest::Malformed)?;
    Ok(Some((parse_head(text)?, len)))
}

/// Parses the request line and the Connection, Content-Length and Transfer-Encoding headers.
fn parse_head(text: &str) -> Result<Request, BadRequest> {
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut words = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(BadRequest::Malformed);
    };
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        _ => return Err(BadRequest::Malformed),
    };
    let mut req = Request {
        head: method == "HEAD",
        http10,
        keep_alive: !http10,
        content_length: 0,
        method: method.to_string(),
        target: target.to_string(),
        headers: Vec::new(),
        body: Vec::new(),
        chunked: false,
    };
    for line in lines {
        let (name, value) = line.split_once(':').ok_or(BadRequest::Malformed)?;
        header(&mut req, name.trim(), value.trim())?;
        req.headers
            .push((name.trim().to_string(), value.trim().to_string()));
    }
    Ok(req)
}

/// Applies one header to the request.
fn header(req: &mut Request, name: &str, value: &str) -> Result<(), BadRequest> {
    if name.eq_ignore_ascii_case("connection") {
        for token in value.split(',').map(str::trim) {
            if token.eq_ignore_ascii_case("close") {
                req.keep_alive = false;
            } else if token.eq_ignore_ascii_case("keep-alive") && req.http10 {
                req.keep_alive = true;
            }
        }
    } else if name.eq_ignore_ascii_case("content-length") {
        req.content_length = value.parse().map_err(|_| BadRequest::Malformed)?;
    } else if name.eq_ignore_ascii_case("transfer-encoding") {
        // Only chunked, alone: what the workload checks send.
        match value.eq_ignore_ascii_case("chunked") {
            true => req.chunked = true,
            false => return Err(BadRequest::Malformed),
        }
    }
    Ok(())
}

/// A whole chunked body at the start of `buf` (chunk extensions ignored, no trailer):
/// the body and the bytes it took; None while it is not all there.
pub(crate) fn dechunk(buf: &[u8]) -> Result<Option<(Vec<u8>, usize)>, BadRequest> {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let Some(eol) = find(&buf[at..], b"\r\n") else {
            return Ok(None);
        };
        let line = std::str::from_utf8(&buf[at..at + eol]).map_err(|_| BadRequest::Malformed)?;
        let digits = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(digits, 16).map_err(|_| BadRequest::Malformed)?;
        let data = at + eol + 2;
        let end = data.checked_add(size).ok_or(BadRequest::TooLarge)?;
        if buf.len() < end + 2 {
            return Ok(None);
        }
        if &buf[end..end + 2] != b"\r\n" {
            return Err(BadRequest::Malformed);
        }
        if size == 0 {
            return Ok(Some((body, end + 2)));
        }
        body.extend_from_slice(&buf[data..end]);
        at = end + 2;
    }
}

/// Position of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(text: &str) -> Request {
        parse(text.as_bytes()).unwrap().unwrap().0
    }

    #[test]
    fn waits_for_the_end_of_the_head() {
        assert_eq!(parse(b"GET / HTTP/1.1\r\nHost: x\r\n"), Ok(None));
        let (_, len) = parse(b"GET / HTTP/1.1\r\n\r\nGET").unwrap().unwrap();
        assert_eq!(len, 18);
    }

    #[test]
    fn keep_alive_rules() {
        assert!(req("GET / HTTP/1.1\r\nHost: x\r\n\r\n").keep_alive);
        assert!(!req("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keep_alive);
        assert!(!req("GET / HTTP/1.0\r\n\r\n").keep_alive);
        assert!(req("GET / HTTP/1.0\r\nconnection: keep-alive\r\n\r\n").keep_alive);
        assert!(!req("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n").keep_alive);
    }

    #[test]
    fn reads_method_and_length() {
        let r = req("POST / HTTP/1.1\r\ncontent-length: 5\r\n\r\n");
        assert_eq!((r.head, r.content_length), (false, 5));
        assert!(req("HEAD / HTTP/1.1\r\n\r\n").head);
    }

    #[test]
    fn a_chunked_body_is_read_whole_or_waited_for() {
        assert!(req("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").chunked);
        let body = b"3;x=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\nNEXT";
        assert_eq!(dechunk(body), Ok(Some((b"abcde".to_vec(), body.len() - 4))));
        assert_eq!(dechunk(&body[..12]), Ok(None));
        assert_eq!(dechunk(b"zz\r\n"), Err(BadRequest::Malformed));
    }

    #[test]
    fn rejects_garbage_and_huge_heads() {
        for bad in [
            "GET /\r\n\r\n",
            "GET / HTTP/2\r\n\r\n",
            "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        ] {
            assert_eq!(parse(bad.as_bytes()), Err(BadRequest::Malformed), "{bad}");
        }
        let gzip = "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n";
        assert_eq!(parse(gzip.as_bytes()), Err(BadRequest::Malformed));
        assert_eq!(parse(&vec![b'a'; MAX_HEAD + 1]), Err(BadRequest::TooLarge));
    }
}
