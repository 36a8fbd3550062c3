//! Why a header block could not be decoded. Each is a COMPRESSION_ERROR to HTTP/2 (RFC 9113
//! section 4.3): the decoder's table may no longer match the peer's, so the connection ends.

use super::integer::MAX_CONTINUATION_OCTETS;

/// One variant per way a header block is bad, so that a test or a count can name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HpackError {
    #[error("HPACK: the header block ends inside an integer")]
    IntegerTruncated,
    #[error("HPACK: an integer needs more than {MAX_CONTINUATION_OCTETS} continuation octets")]
    IntegerOverflow,
    #[error("HPACK: a string of {length} octets runs past the end of the header block")]
    StringTruncated { length: usize },
    #[error("HPACK: an indexed field refers to index 0")]
    IndexZero,
    #[error("HPACK: index {index} is past the end of the table ({entries} entries)")]
    IndexOutOfRange { index: usize, entries: usize },
    #[error("HPACK: a Huffman-coded string contains EOS")]
    HuffmanEos,
    #[error("HPACK: a Huffman-coded string's padding is longer than 7 bits")]
    HuffmanPaddingTooLong,
    #[error("HPACK: a Huffman-coded string's padding is not the start of EOS (all ones)")]
    HuffmanPaddingNotEos,
    #[error(
        "HPACK: a dynamic table size update to {size} is over our SETTINGS_HEADER_TABLE_SIZE of {limit}"
    )]
    SizeUpdateOverLimit { size: usize, limit: usize },
    #[error("HPACK: a dynamic table size update after the first field of a header block")]
    SizeUpdateAfterField,
}
