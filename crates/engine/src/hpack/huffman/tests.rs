use super::code::{CODES, EOS};
use super::{decode, encode, encoded_len};
use crate::hpack::HpackError;

fn decoded(encoded: &[u8]) -> Result<Vec<u8>, HpackError> {
    let mut out = Vec::new();
    decode(encoded, &mut out).map(|()| out)
}

fn encoded(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    encode(text, &mut out);
    assert_eq!(out.len(), encoded_len(text), "encoded_len of {text:?}");
    out
}

#[test]
fn the_code_is_canonical_and_complete() {
    // Canonical: ordered by (length, symbol), each code is the previous one plus one,
    // shifted left by the difference in length; the first is all zeros.
    let mut order: Vec<usize> = (0..CODES.len()).collect();
    order.sort_by_key(|&symbol| (CODES[symbol].1, symbol));
    assert_eq!(CODES[order[0]], (0, 5));
    for pair in order.windows(2) {
        let ((code, bits), (next, next_bits)) = (CODES[pair[0]], CODES[pair[1]]);
        assert_eq!(next, (code + 1) << (next_bits - bits), "symbol {}", pair[1]);
    }
    // Complete: the lengths fill the code space exactly (Kraft's sum is 1).
    let kraft: u64 = CODES.iter().map(|&(_, bits)| 1u64 << (30 - bits)).sum();
    assert_eq!(kraft, 1 << 30);
    assert_eq!(CODES[EOS], (0x3fff_ffff, 30));
}

#[test]
fn every_symbol_round_trips_alone_and_together() {
    for symbol in 0..=255u8 {
        assert_eq!(
            decoded(&encoded(&[symbol])),
            Ok(vec![symbol]),
            "symbol {symbol}"
        );
    }
    let all: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
    assert_eq!(decoded(&encoded(&all)), Ok(all));
    assert_eq!(decoded(&[]), Ok(Vec::new()));
}

#[test]
fn rfc7541_c4_1_authority_encodes_as_the_rfc_prints_it() {
    let rfc = [
        0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff,
    ];
    assert_eq!(encoded(b"www.example.com"), rfc);
    assert_eq!(decoded(&rfc), Ok(b"www.example.com".to_vec()));
}

#[test]
fn eos_inside_a_string_is_refused() {
    // 30 ones are EOS, whatever follows; also after a symbol ('a' is 00011).
    assert_eq!(
        decoded(&[0xff, 0xff, 0xff, 0xff]),
        Err(HpackError::HuffmanEos)
    );
    assert_eq!(
        decoded(&[0x1f, 0xff, 0xff, 0xff, 0xff]),
        Err(HpackError::HuffmanEos)
    );
}

#[test]
fn padding_longer_than_7_bits_is_refused() {
    // 'a' then 3 + 8 ones; a lone octet of ones.
    assert_eq!(
        decoded(&[0x1f, 0xff]),
        Err(HpackError::HuffmanPaddingTooLong)
    );
    assert_eq!(decoded(&[0xff]), Err(HpackError::HuffmanPaddingTooLong));
    // 'a' then 3 ones, and 'a' 'a' then 6 ones, are padded well.
    assert_eq!(decoded(&[0x1f]), Ok(b"a".to_vec()));
    assert_eq!(decoded(&[0x18, 0xff]), Ok(b"aa".to_vec()));
}

#[test]
fn padding_that_is_not_ones_is_refused() {
    // 'a' then 000; 'a' then 101 (the 3 bits start a longer code).
    assert_eq!(decoded(&[0x18]), Err(HpackError::HuffmanPaddingNotEos));
    assert_eq!(decoded(&[0x1d]), Err(HpackError::HuffmanPaddingNotEos));
}
