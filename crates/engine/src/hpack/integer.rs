//! Integers with an N-bit prefix (RFC 7541 section 5.1): the value in the low bits of the
//! first octet, or, when those bits are all ones, continued 7 bits per octet, least
//! significant group first.

use super::HpackError;

/// Our limit on continuation octets (section 5.1 lets a decoder set one): 4 of them carry
/// values up to 2^28 + 254, more than any string, index or table size a block can hold.
/// A longer integer is refused rather than summed past what it can mean.
pub(super) const MAX_CONTINUATION_OCTETS: usize = 4;

/// Decodes the integer starting at `bytes[0]` with a `prefix`-bit prefix (1 to 8 bits): its
/// value and the octets it took.
pub(super) fn decode(bytes: &[u8], prefix: u32) -> Result<(usize, usize), HpackError> {
    let max_prefix = (1usize << prefix) - 1;
    let first = *bytes.first().ok_or(HpackError::IntegerTruncated)?;
    let mut value = usize::from(first) & max_prefix;
    if value < max_prefix {
        return Ok((value, 1));
    }
    for (i, &octet) in bytes[1..].iter().enumerate() {
        value += usize::from(octet & 0x7f) << (7 * i);
        if octet & 0x80 == 0 {
            return Ok((value, i + 2));
        }
        if i + 1 == MAX_CONTINUATION_OCTETS {
            return Err(HpackError::IntegerOverflow);
        }
    }
    Err(HpackError::IntegerTruncated)
}

/// Appends `value` with a `prefix`-bit prefix; `flags` are the first octet's bits above it.
pub(super) fn encode(value: usize, prefix: u32, flags: u8, out: &mut Vec<u8>) {
    let at = out.len();
    out.resize(at + encoded_len(value, prefix), 0);
    encode_into(value, prefix, flags, &mut out[at..]);
}

/// Writes `value` as [`encode`] does into `out`, which is [`encoded_len`] octets long.
pub(super) fn encode_into(value: usize, prefix: u32, flags: u8, out: &mut [u8]) {
    let max_prefix = (1usize << prefix) - 1;
    if value < max_prefix {
        out[0] = flags | value as u8;
        return;
    }
    out[0] = flags | max_prefix as u8;
    let mut rest = value - max_prefix;
    for octet in &mut out[1..] {
        let more = if rest >= 0x80 { 0x80 } else { 0 };
        *octet = more | (rest & 0x7f) as u8;
        rest >>= 7;
    }
}

/// The octets [`encode`] takes for `value` with a `prefix`-bit prefix.
pub(super) fn encoded_len(value: usize, prefix: u32) -> usize {
    let max_prefix = (1usize << prefix) - 1;
    if value < max_prefix {
        return 1;
    }
    let mut len = 2;
    let mut rest = (value - max_prefix) >> 7;
    while rest > 0 {
        len += 1;
        rest >>= 7;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(value: usize, prefix: u32) -> Vec<u8> {
        let mut out = Vec::new();
        encode(value, prefix, 0, &mut out);
        assert_eq!(out.len(), encoded_len(value, prefix));
        out
    }

    #[test]
    fn rfc7541_c1_examples() {
        // C.1.1: 10 with a 5-bit prefix; C.1.2: 1337 with a 5-bit prefix; C.1.3: 42 at an
        // octet boundary.
        assert_eq!(encoded(10, 5), [0x0a]);
        assert_eq!(decode(&[0xea], 5), Ok((10, 1)));
        assert_eq!(encoded(1337, 5), [0x1f, 0x9a, 0x0a]);
        assert_eq!(decode(&[0x1f, 0x9a, 0x0a, 0xff], 5), Ok((1337, 3)));
        assert_eq!(encoded(42, 8), [0x2a]);
        assert_eq!(decode(&[0x2a], 8), Ok((42, 1)));
    }

    #[test]
    fn every_prefix_round_trips_at_its_edges() {
        for prefix in 1..=8 {
            let max_prefix = (1usize << prefix) - 1;
            let largest = max_prefix + (1 << (7 * MAX_CONTINUATION_OCTETS)) - 1;
            for value in [
                0,
                max_prefix - 1,
                max_prefix,
                max_prefix + 127,
                max_prefix + 128,
            ]
            .into_iter()
            .chain([largest - 1, largest])
            {
                let bytes = encoded(value, prefix);
                assert_eq!(
                    decode(&bytes, prefix),
                    Ok((value, bytes.len())),
                    "{value}/{prefix}"
                );
            }
        }
    }

    #[test]
    fn the_bits_above_the_prefix_are_not_part_of_the_value() {
        for prefix in [4, 5, 6, 7] {
            assert_eq!(
                decode(&[0xff ^ (1 << prefix), 0], prefix),
                Ok(((1 << prefix) - 1, 2))
            );
            assert_eq!(
                decode(&[0xf0 & !((1 << prefix) - 1) as u8], prefix),
                Ok((0, 1))
            );
        }
    }

    #[test]
    fn a_block_that_ends_inside_an_integer_is_truncated() {
        for prefix in [4, 5, 6, 7] {
            let all_ones = (1u8 << prefix) - 1;
            assert_eq!(decode(&[], prefix), Err(HpackError::IntegerTruncated));
            assert_eq!(
                decode(&[all_ones], prefix),
                Err(HpackError::IntegerTruncated)
            );
            assert_eq!(
                decode(&[all_ones, 0x80, 0xff], prefix),
                Err(HpackError::IntegerTruncated)
            );
        }
    }

    #[test]
    fn a_fifth_continuation_octet_overflows() {
        for prefix in [4, 5, 6, 7] {
            let all_ones = (1u8 << prefix) - 1;
            // 2^32 - 1 and above need 5 continuation octets; so do redundant zero groups.
            let mut big = vec![all_ones];
            big.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
            assert_eq!(decode(&big, prefix), Err(HpackError::IntegerOverflow));
            let padded = [all_ones, 0x80, 0x80, 0x80, 0x80, 0x00];
            assert_eq!(decode(&padded, prefix), Err(HpackError::IntegerOverflow));
            // A 4th continuation octet that asks for a 5th overflows, whatever follows.
            assert_eq!(
                decode(&padded[..5], prefix),
                Err(HpackError::IntegerOverflow)
            );
        }
    }
}
