//! UTF-8 checked as a text message arrives in pieces: a character split across frames
//! or reads is carried (at most 3 octets), nothing else is kept.

/// The state of one text message's check.
#[derive(Debug, Clone, Copy, Default)]
pub struct Utf8 {
    carry: [u8; 4],
    len: usize,
}

impl Utf8 {
    /// Checks the next piece; false when the text is not UTF-8.
    pub fn feed(&mut self, mut data: &[u8]) -> bool {
        while self.len > 0 {
            let Some((&octet, rest)) = data.split_first() else {
                return true;
            };
            data = rest;
            self.carry[self.len] = octet;
            self.len += 1;
            match std::str::from_utf8(&self.carry[..self.len]) {
                Ok(_) => self.len = 0,
                Err(e) if e.error_len().is_some() => return false,
                Err(_) => {}
            }
        }
        match std::str::from_utf8(data) {
            Ok(_) => true,
            Err(e) if e.error_len().is_some() => false,
            Err(e) => {
                let tail = &data[e.valid_up_to()..];
                self.carry[..tail.len()].copy_from_slice(tail);
                self.len = tail.len();
                true
            }
        }
    }

    /// True when the text ended on a whole character; the check starts over.
    pub fn finish(&mut self) -> bool {
        std::mem::take(&mut self.len) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_pieces(text: &[u8], piece: usize) -> bool {
        let mut u = Utf8::default();
        text.chunks(piece).all(|c| u.feed(c)) && u.finish()
    }

    #[test]
    fn characters_split_anywhere_are_whole_and_broken_ones_are_not() {
        let good = "añ€𝄞 ok".as_bytes();
        for piece in 1..good.len() {
            assert!(in_pieces(good, piece), "pieces of {piece}");
        }
        for bad in [&b"a\xff"[..], b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80"] {
            for piece in 1..=bad.len() {
                assert!(!in_pieces(bad, piece), "{bad:?} in pieces of {piece}");
            }
        }
    }
}
