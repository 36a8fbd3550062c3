//! Reading a header block's primitives in order: integers and string literals (RFC 7541
//! section 5), each checked against the end of the block.

use super::{integer, HpackError};

/// A string literal as it is on the wire (section 5.2).
pub(super) enum StringLiteral<'a> {
    Raw(&'a [u8]),
    Huffman(&'a [u8]),
}

pub(super) struct BlockReader<'a> {
    block: &'a [u8],
    at: usize,
}

impl<'a> BlockReader<'a> {
    pub(super) fn new(block: &'a [u8]) -> BlockReader<'a> {
        BlockReader { block, at: 0 }
    }

    /// The first octet of the next representation, or `None` at the end of the block.
    pub(super) fn peek(&self) -> Option<u8> {
        self.block.get(self.at).copied()
    }

    pub(super) fn integer(&mut self, prefix: u32) -> Result<usize, HpackError> {
        let (value, octets) = integer::decode(&self.block[self.at..], prefix)?;
        self.at += octets;
        Ok(value)
    }

    pub(super) fn string(&mut self) -> Result<StringLiteral<'a>, HpackError> {
        let huffman = self.peek().is_some_and(|first| first & 0x80 != 0);
        let length = self.integer(7)?;
        let octets = self
            .block
            .get(self.at..)
            .and_then(|rest| rest.get(..length))
            .ok_or(HpackError::StringTruncated { length })?;
        self.at += length;
        Ok(if huffman {
            StringLiteral::Huffman(octets)
        } else {
            StringLiteral::Raw(octets)
        })
    }
}
