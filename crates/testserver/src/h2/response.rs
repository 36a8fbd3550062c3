//! A response's header block, encoded by hand: `:status`, content-length and date as
//! literal fields that never touch the dynamic table (RFC 7541 §6.2.2), or broken on
//! purpose.

use std::time::SystemTime;

use crate::reply::http_date;

/// Static table indices (RFC 7541 Appendix A) of the fields a response uses.
const STATUS: usize = 8;
const CONTENT_LENGTH: usize = 28;
const DATE: usize = 33;
/// An indexed field past the static table's 61 entries and an empty dynamic table (the
/// server's blocks never add to it): what no decoder can resolve.
const PAST_THE_TABLES: u8 = 0x80 | 126;

/// What a response's header block says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Block {
    /// `:status`, content-length (when there is a body), date.
    Valid {
        status: u16,
        content_length: Option<usize>,
    },
    /// The same without `:status`: a malformed response.
    NoStatus { content_length: usize },
    /// `:status 200` then an index past the tables: no valid HPACK.
    Garbage,
}

impl Block {
    /// The encoded block.
    pub(crate) fn encode(self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Block::Valid {
                status,
                content_length,
            } => {
                status_field(&mut out, status);
                if let Some(len) = content_length {
                    literal(&mut out, CONTENT_LENGTH, len.to_string().as_bytes());
                }
                literal(&mut out, DATE, http_date(SystemTime::now()).as_bytes());
            }
            Block::NoStatus { content_length } => {
                literal(
                    &mut out,
                    CONTENT_LENGTH,
                    content_length.to_string().as_bytes(),
                );
                literal(&mut out, DATE, http_date(SystemTime::now()).as_bytes());
            }
            Block::Garbage => {
                status_field(&mut out, 200);
                out.push(PAST_THE_TABLES);
            }
        }
        out
    }
}

/// `:status`: 200 as the static table's indexed field (what servers send), others as a
/// literal with the table's `:status` name.
fn status_field(out: &mut Vec<u8>, status: u16) {
    if status == 200 {
        integer(out, 0x80, 7, STATUS);
    } else {
        literal(out, STATUS, status.to_string().as_bytes());
    }
}

/// A literal field without indexing, its name from the static table, its value raw
/// (no Huffman).
fn literal(out: &mut Vec<u8>, name_index: usize, value: &[u8]) {
    integer(out, 0x00, 4, name_index);
    integer(out, 0x00, 7, value.len());
    out.extend_from_slice(value);
}

/// An HPACK integer (RFC 7541 §5.1) in a `prefix_bits` prefix, after the `flags` bits.
fn integer(out: &mut Vec<u8>, flags: u8, prefix_bits: u32, value: usize) {
    let max = (1usize << prefix_bits) - 1;
    if value < max {
        out.push(flags | value as u8);
        return;
    }
    out.push(flags | max as u8);
    let mut rest = value - max;
    while rest >= 0x80 {
        out.push(0x80 | (rest & 0x7f) as u8);
        rest >>= 7;
    }
    out.push(rest as u8);
}

#[cfg(test)]
mod tests {
    use super::*;
    use loona_hpack::Decoder;

    fn decode(block: Block) -> Result<Vec<(String, String)>, loona_hpack::decoder::DecoderError> {
        let fields = Decoder::new().decode(&block.encode())?;
        Ok(fields
            .into_iter()
            .map(|(n, v)| {
                let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
                (text(n), text(v))
            })
            .collect())
    }

    #[test]
    fn a_decoder_reads_each_block_as_meant() {
        let ok = decode(Block::Valid {
            status: 200,
            content_length: Some(100_000),
        })
        .unwrap();
        assert_eq!(ok[0], (":status".into(), "200".into()));
        assert_eq!(ok[1], ("content-length".into(), "100000".into()));
        assert_eq!(ok[2].0, "date");
        let bodyless = decode(Block::Valid {
            status: 204,
            content_length: None,
        })
        .unwrap();
        assert_eq!(bodyless[0], (":status".into(), "204".into()));
        assert_eq!(bodyless.len(), 2);
        let no_status = decode(Block::NoStatus { content_length: 11 }).unwrap();
        assert_eq!(no_status[0], ("content-length".into(), "11".into()));
        assert!(decode(Block::Garbage).is_err());
    }

    #[test]
    fn integers_follow_rfc_7541_c1() {
        let mut out = Vec::new();
        integer(&mut out, 0, 5, 10);
        integer(&mut out, 0, 5, 1337);
        assert_eq!(out, [10, 31, 154, 10]);
    }
}
