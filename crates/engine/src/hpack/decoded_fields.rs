//! For the tests: blocks written as the RFC prints them (hex), and the fields a decoder
//! makes of them, as text.

use super::{Decoder, HpackError};

/// `"8286 8441"` as octets; spaces are ignored.
pub(super) fn from_hex(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let digit = |d: u8| (d as char).to_digit(16).expect("a hex digit") as u8;
    digits
        .chunks(2)
        .map(|pair| digit(pair[0]) << 4 | digit(pair[1]))
        .collect()
}

/// The fields `decoder` decodes from `block`, in order.
pub(super) fn decoded_fields(
    decoder: &mut Decoder,
    block: &[u8],
) -> Result<Vec<(String, String)>, HpackError> {
    let mut fields = Vec::new();
    let text = |octets: &[u8]| String::from_utf8_lossy(octets).into_owned();
    decoder.decode(block, |name, value| fields.push((text(name), text(value))))?;
    Ok(fields)
}

/// `[("a", "b")]` as owned text, to compare with [`decoded_fields`].
pub(super) fn owned(fields: &[(&str, &str)]) -> Vec<(String, String)> {
    let owned = fields.iter().map(|&(n, v)| (n.to_owned(), v.to_owned()));
    owned.collect()
}
