//! The Huffman code of RFC 7541 (section 5.2, Appendix B): strings are decoded 4 bits at a
//! time by a state machine built at compile time (no table is built at run time, nothing is
//! allocated), and encoded for the request block.

mod code;
mod machine;

use super::HpackError;
use code::CODES;
use machine::{Ending, EMIT, EOS_FOUND, MACHINE};

/// Appends the decoding of `encoded` to `out`.
pub(super) fn decode(encoded: &[u8], out: &mut Vec<u8>) -> Result<(), HpackError> {
    // At most one symbol per 5 bits: reserving it once keeps `push` from reallocating.
    out.reserve(encoded.len() * 8 / 5);
    let mut state = 0;
    for &octet in encoded {
        for nibble in [octet >> 4, octet & 0x0f] {
            let step = MACHINE.steps[state][nibble as usize];
            if step.outcome == EMIT {
                out.push(step.symbol);
            } else if step.outcome == EOS_FOUND {
                return Err(HpackError::HuffmanEos);
            }
            state = step.next as usize;
        }
    }
    match MACHINE.endings[state] {
        Ending::Padded => Ok(()),
        Ending::TooLong => Err(HpackError::HuffmanPaddingTooLong),
        Ending::NotEos => Err(HpackError::HuffmanPaddingNotEos),
    }
}

/// The length in octets of `text` Huffman-encoded.
pub(super) fn encoded_len(text: &[u8]) -> usize {
    let bits: usize = text.iter().map(|&b| CODES[b as usize].1 as usize).sum();
    bits.div_ceil(8)
}

/// Appends `text` Huffman-encoded, padded with the most significant bits of EOS (ones).
pub(super) fn encode(text: &[u8], out: &mut Vec<u8>) {
    // Pending bits, right-aligned; never more than 7 + 30 of them.
    let mut pending: u64 = 0;
    let mut count = 0;
    for &b in text {
        let (code, bits) = CODES[b as usize];
        pending = (pending << bits) | u64::from(code);
        count += u32::from(bits);
        while count >= 8 {
            count -= 8;
            out.push((pending >> count) as u8);
        }
    }
    if count > 0 {
        let padding = 8 - count;
        out.push(((pending << padding) | ((1 << padding) - 1)) as u8);
    }
}

#[cfg(test)]
mod tests;
