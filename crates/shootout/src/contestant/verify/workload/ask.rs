//! One request of a workload check, as it goes on the wire and as a detail line names it:
//! a method and target, header lines, and a body framed by Content-Length or chunked.

use std::fmt;

/// One request of a workload check.
#[derive(Debug, Clone)]
pub(super) struct Ask {
    pub method: &'static str,
    /// Path and query.
    pub target: String,
    /// Header lines, `Name: value`, after Host.
    pub headers: Vec<String>,
    pub body: Vec<u8>,
    /// Chunks' sizes when the body goes chunked (their sum is its length); empty: it
    /// goes with a Content-Length (none for a GET without a body).
    pub chunks: Vec<usize>,
}

impl Ask {
    /// `GET target`.
    pub fn get(target: String) -> Ask {
        Ask {
            method: "GET",
            target,
            headers: Vec::new(),
            body: Vec::new(),
            chunks: Vec::new(),
        }
    }

    /// `POST target` with `body` of `content_type`, framed by its length.
    pub fn post(target: &str, content_type: &str, body: Vec<u8>) -> Ask {
        Ask {
            method: "POST",
            headers: vec![format!("Content-Type: {content_type}")],
            body,
            ..Ask::get(target.to_string())
        }
    }

    /// The same body sent chunked, in chunks of random sizes up to 64 KiB, and at least
    /// two: a server must join them before it reads the body.
    pub fn chunked(mut self, rng: &mut fastrand::Rng) -> Ask {
        let mut left = self.body.len();
        let most = left.div_ceil(2).clamp(1, 64 * 1024);
        self.chunks.clear();
        while left > 0 {
            let size = rng.usize(1..=most).min(left);
            self.chunks.push(size);
            left -= size;
        }
        self
    }

    /// With one more header line.
    pub fn with(mut self, line: String) -> Ask {
        self.headers.push(line);
        self
    }

    /// The request's bytes, naming the server `host`.
    pub fn bytes(&self, host: &str) -> Vec<u8> {
        let mut head = format!(
            "{} {} HTTP/1.1\r\nHost: {host}\r\n",
            self.method, self.target
        );
        for h in &self.headers {
            head += &format!("{h}\r\n");
        }
        match (self.chunks.is_empty(), self.body.is_empty()) {
            (false, _) => head += "Transfer-Encoding: chunked\r\n",
            (true, false) => head += &format!("Content-Length: {}\r\n", self.body.len()),
            (true, true) => {}
        }
        head += "\r\n";
        let mut bytes = head.into_bytes();
        if self.chunks.is_empty() {
            bytes.extend_from_slice(&self.body);
            return bytes;
        }
        let mut at = 0;
        for &size in &self.chunks {
            bytes.extend_from_slice(format!("{size:x}\r\n").as_bytes());
            bytes.extend_from_slice(&self.body[at..at + size]);
            bytes.extend_from_slice(b"\r\n");
            at += size;
        }
        bytes.extend_from_slice(b"0\r\n\r\n");
        bytes
    }
}

impl fmt::Display for Ask {
    /// `GET /baseline?a=1&b=2`, `POST /upload (500123 bytes, chunked)`, and the header
    /// lines that matter to the answer (`Accept-Encoding`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.target)?;
        let framing = if self.chunks.is_empty() {
            ""
        } else {
            ", chunked"
        };
        match self.body.len() {
            0 => {}
            n if n <= 32 => write!(f, " ({:?}{framing})", String::from_utf8_lossy(&self.body))?,
            n => write!(f, " ({n} bytes{framing})")?,
        }
        let mut said = self
            .headers
            .iter()
            .filter(|h| h.starts_with("Accept-Encoding"));
        said.try_for_each(|h| write!(f, " [{h}]"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunked_body_is_framed_in_chunks_that_add_up() {
        let mut rng = fastrand::Rng::with_seed(1);
        let ask =
            Ask::post("/upload", "application/octet-stream", vec![7; 200_000]).chunked(&mut rng);
        assert_eq!(ask.chunks.iter().sum::<usize>(), 200_000);
        let bytes = ask.bytes("h");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("Transfer-Encoding: chunked\r\n") && !text.contains("Content-Length")
        );
        assert!(text.ends_with("\r\n0\r\n\r\n"));
        assert_eq!(ask.to_string(), "POST /upload (200000 bytes, chunked)");
        let small = Ask::post(
            "/baseline",
            "application/x-www-form-urlencoded",
            b"a=1&b=2".to_vec(),
        );
        assert_eq!(small.to_string(), "POST /baseline (\"a=1&b=2\")");
        assert!(String::from_utf8(small.bytes("h"))
            .unwrap()
            .contains("Content-Length: 7\r\n"));
    }
}
