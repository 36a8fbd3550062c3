//! One HTTP/2 connection's varying requests: the values drawn for each of its places (a
//! request keeps its place from start to end, a refused one too, so a retry sends the
//! same values), how far each answer matched, and the buffers its header block and body
//! are rendered into when its stream opens and as its DATA goes: made once per slot.

use super::answer::Answer;
use super::compiled::Drawn;
use super::{Shape, Vary};
use crate::hpack;

/// A connection's varying HTTP/2 requests.
#[derive(Debug)]
pub struct H2Requests {
    drawn: Box<[Drawn]>,
    answers: Box<[Answer]>,
    block: Vec<u8>,
    value: Vec<u8>,
    body: Vec<u8>,
}

impl H2Requests {
    /// For `depth` places of requests from `vary`.
    pub fn new(depth: usize, vary: &Vary) -> H2Requests {
        let value = (vary.shapes.iter())
            .flat_map(|s| s.fields.iter().map(|(_, v)| v.max_len(&s.sources)))
            .max()
            .unwrap_or(0)
            .max(20);
        H2Requests {
            drawn: vec![Drawn::default(); depth].into_boxed_slice(),
            answers: vec![Answer::default(); depth].into_boxed_slice(),
            block: Vec::with_capacity(vary.max_h2_block()),
            value: vec![0; value],
            body: vec![0; vary.max_body_len()],
        }
    }

    /// The request at `place` drew `drawn`.
    pub fn start(&mut self, place: usize, drawn: Drawn) {
        self.drawn[place] = drawn;
    }

    /// The header block of the request at `place` (its answer's check starts over: its
    /// stream opens). Fields are literals without indexing, their names indexed where
    /// the static table has them.
    pub fn block(&mut self, vary: &Vary, place: usize) -> &[u8] {
        self.answers[place] = Answer::default();
        let drawn = &self.drawn[place];
        let shape = &vary.shapes[drawn.shape as usize];
        self.block.clear();
        for (name, value) in &shape.fields {
            let n = value.render(&shape.sources, drawn, &mut self.value);
            hpack::literal_field(name, &self.value[..n], &mut self.block);
        }
        if shape.length {
            let mut digits = itoa::Buffer::new();
            let len = digits.format(shape.body.len(&shape.sources, drawn));
            hpack::literal_field(b"content-length", len.as_bytes(), &mut self.block);
        }
        &self.block
    }

    /// True when the request at `place` has a body.
    pub fn has_body(&self, vary: &Vary, place: usize) -> bool {
        !vary.shapes[self.drawn[place].shape as usize]
            .body
            .is_empty()
    }

    /// The body of the request at `place`.
    pub fn body(&mut self, vary: &Vary, place: usize) -> &[u8] {
        let drawn = &self.drawn[place];
        let shape = &vary.shapes[drawn.shape as usize];
        let n = shape.body.render(&shape.sources, drawn, &mut self.body);
        &self.body[..n]
    }

    /// The length of the body of the request at `place`.
    pub fn body_len(&self, vary: &Vary, place: usize) -> usize {
        let drawn = &self.drawn[place];
        let shape = &vary.shapes[drawn.shape as usize];
        shape.body.len(&shape.sources, drawn)
    }

    /// The next bytes of the answer to the request at `place`.
    pub fn answered(&mut self, vary: &Vary, place: usize, bytes: &[u8]) {
        self.answers[place].feed(vary, &self.drawn[place], bytes);
    }

    /// True when the answer to the request at `place` was the one expected.
    pub fn right(&self, vary: &Vary, place: usize) -> bool {
        self.answers[place].right(vary, &self.drawn[place])
    }
}

/// The longest header block `shape` renders: every field a literal with its name
/// written out, each integer at most 5 octets, content-length's 20 digits.
pub fn max_block(shape: &Shape) -> usize {
    let fields: usize = (shape.fields.iter())
        .map(|(n, v)| 12 + n.len() + v.max_len(&shape.sources))
        .sum();
    fields + 12 + 14 + 20
}
