//! A request's header block, decoded: what the server needs of it.

use loona_hpack::Decoder;

use super::error_code::ErrorCode;

/// The dynamic table size this server allows (SETTINGS_HEADER_TABLE_SIZE's default,
/// which it never changes).
const TABLE_SIZE: usize = 4096;

/// A connection's HPACK decoder: its dynamic table lives as long as the connection.
pub(crate) struct Fields(Decoder<'static>);

/// What the server needs to know about one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// HEAD: the response carries no body.
    pub head: bool,
    /// What it was, to keep under `Sum` (its body comes after).
    pub seen: crate::Seen,
}

impl Fields {
    pub(crate) fn new() -> Fields {
        let mut decoder = Decoder::new();
        decoder.set_max_allowed_table_size(TABLE_SIZE);
        Fields(decoder)
    }

    /// Decodes one whole header block (HEADERS and its CONTINUATIONs); a block that is no
    /// valid HPACK is a connection error (COMPRESSION_ERROR, RFC 9113 §4.3). Every block is
    /// decoded, even one the server then ignores, to keep the table in step.
    pub(crate) fn decode(&mut self, block: &[u8]) -> Result<Request, ErrorCode> {
        let mut head = false;
        let mut seen = crate::Seen::default();
        self.0
            .decode_with_cb(block, |name, value| {
                head |= &*name == b":method" && &*value == b"HEAD";
                let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                match &*name {
                    b":method" => seen.method = text(&value),
                    b":path" => seen.target = text(&value),
                    _ => seen.headers.push((text(&name), text(&value))),
                }
            })
            .map_err(|_| ErrorCode::Compression)?;
        Ok(Request { head, seen })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_rfc_7541_c3_requests_in_sequence_keeping_the_table() {
        let mut fields = Fields::new();
        // C.3.1: GET, with `:authority` added to the table; C.3.2 indexes it.
        let first = b"\x82\x86\x84\x41\x0fwww.example.com";
        let second = b"\x82\x86\x84\xbe\x58\x08no-cache";
        for block in [&first[..], &second[..]] {
            let r = fields.decode(block).unwrap();
            assert!(!r.head);
            assert_eq!(
                (r.seen.method.as_str(), r.seen.target.as_str()),
                ("GET", "/")
            );
            assert_eq!(r.seen.header(":authority"), Some("www.example.com"));
        }
        // `:method HEAD` as a literal with a static name (index 2).
        assert!(fields.decode(b"\x02\x04HEAD\x84").unwrap().head);
    }

    #[test]
    fn an_index_past_the_tables_is_a_compression_error() {
        assert_eq!(Fields::new().decode(&[0xfe]), Err(ErrorCode::Compression));
    }
}
