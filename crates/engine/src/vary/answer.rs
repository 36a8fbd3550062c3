//! A response's body checked against the answer its request's values call for, as the
//! body arrives (in any number of pieces): the expected bytes are rendered on the stack
//! for each piece, nothing is kept but how far the body matched.

use super::compiled::Drawn;
use super::Vary;
use crate::response::ResponseSink;

/// The longest expected answer: it is rendered on the stack.
pub const MAX_ANSWER: usize = 512;

/// How far one response's body has matched its expected answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Answer {
    at: u32,
    wrong: bool,
}

impl Answer {
    /// The next `bytes` of the body of the answer to `drawn`.
    pub fn feed(&mut self, vary: &Vary, drawn: &Drawn, bytes: &[u8]) {
        let shape = &vary.shapes[drawn.shape as usize];
        let Some(expect) = shape.expect.as_ref() else {
            return;
        };
        if self.wrong || bytes.is_empty() {
            return;
        }
        let mut want = [0u8; MAX_ANSWER];
        let len = expect.render(&shape.sources, drawn, &mut want);
        let at = self.at as usize;
        let matches = want[..len]
            .get(at..at + bytes.len())
            .is_some_and(|w| w == bytes);
        self.wrong = !matches;
        self.at = (at + bytes.len()).min(u32::MAX as usize) as u32;
    }

    /// True when the whole body was the answer `drawn` expects (or none is expected).
    pub fn right(&self, vary: &Vary, drawn: &Drawn) -> bool {
        let shape = &vary.shapes[drawn.shape as usize];
        let Some(expect) = shape.expect.as_ref() else {
            return true;
        };
        !self.wrong && self.at as usize == expect.len(&shape.sources, drawn)
    }
}

/// A response sink that checks the body against `drawn`'s expected answer.
pub struct Checking<'a> {
    pub vary: &'a Vary,
    pub drawn: &'a Drawn,
    pub answer: &'a mut Answer,
}

impl ResponseSink for Checking<'_> {
    fn body(&mut self, bytes: &[u8]) {
        self.answer.feed(self.vary, self.drawn, bytes);
    }
}
