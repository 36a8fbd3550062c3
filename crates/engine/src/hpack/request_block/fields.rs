//! A request's fields as HTTP/2 sends them (RFC 9113 section 8.2 and 8.3): pseudo-headers
//! first, in the order h2load and curl send them, then the regular fields in their order,
//! names in lowercase, without the connection-specific fields HTTP/2 forbids.

/// Fields that HTTP/1.1 uses for the connection, not the request: an HTTP/2 request that
/// carries one is malformed (RFC 9113 section 8.2.2).
const CONNECTION_SPECIFIC: [&[u8]; 5] = [
    b"connection",
    b"keep-alive",
    b"proxy-connection",
    b"transfer-encoding",
    b"upgrade",
];

/// The pseudo-headers in the order they are sent; any other pseudo-header follows them.
const PSEUDO_ORDER: [&[u8]; 4] = [b":method", b":scheme", b":path", b":authority"];

/// `fields` normalised: lowercase names, pseudo-headers first, connection-specific fields
/// dropped, and `te` kept only as "trailers" (the one value HTTP/2 allows).
pub(super) fn http2_fields(fields: &[(&[u8], &[u8])]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out: Vec<(Vec<u8>, Vec<u8>)> = fields
        .iter()
        .map(|&(name, value)| (name.to_ascii_lowercase(), value.to_vec()))
        .filter(|(name, value)| allowed(name, value))
        .collect();
    out.sort_by_key(|(name, _)| rank(name));
    out
}

fn allowed(name: &[u8], value: &[u8]) -> bool {
    if name == b"te" {
        return value.trim_ascii().eq_ignore_ascii_case(b"trailers");
    }
    !CONNECTION_SPECIFIC.contains(&name)
}

/// Where a field goes: the known pseudo-headers in their order, other pseudo-headers, then
/// regular fields (a stable sort keeps each group's own order).
fn rank(name: &[u8]) -> usize {
    match PSEUDO_ORDER.iter().position(|&pseudo| pseudo == name) {
        Some(position) => position,
        None if name.starts_with(b":") => PSEUDO_ORDER.len(),
        None => PSEUDO_ORDER.len() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::http2_fields;

    fn text(fields: Vec<(Vec<u8>, Vec<u8>)>) -> Vec<(String, String)> {
        let text = |octets: Vec<u8>| String::from_utf8(octets).unwrap();
        fields
            .into_iter()
            .map(|(n, v)| (text(n), text(v)))
            .collect()
    }

    #[test]
    fn pseudo_headers_go_first_in_order_and_regular_fields_keep_theirs() {
        let fields: [(&[u8], &[u8]); 7] = [
            (b"User-Agent", b"shootout"),
            (b":authority", b"localhost"),
            (b"Accept", b"*/*"),
            (b":path", b"/hello"),
            (b":protocol", b"websocket"),
            (b":scheme", b"http"),
            (b":method", b"GET"),
        ];
        let want = [
            (":method", "GET"),
            (":scheme", "http"),
            (":path", "/hello"),
            (":authority", "localhost"),
            (":protocol", "websocket"),
            ("user-agent", "shootout"),
            ("accept", "*/*"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|&(n, v)| (n.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(text(http2_fields(&fields)), want);
    }

    #[test]
    fn connection_specific_fields_are_dropped_and_te_kept_only_as_trailers() {
        let fields: [(&[u8], &[u8]); 8] = [
            (b"Connection", b"keep-alive"),
            (b"keep-alive", b"timeout=5"),
            (b"Proxy-Connection", b"close"),
            (b"Transfer-Encoding", b"chunked"),
            (b"Upgrade", b"h2c"),
            (b"TE", b"gzip"),
            (b"te", b" Trailers "),
            (b"x-kept", b"1"),
        ];
        let want = vec![
            ("te".to_owned(), " Trailers ".to_owned()),
            ("x-kept".to_owned(), "1".to_owned()),
        ];
        assert_eq!(text(http2_fields(&fields)), want);
    }
}
