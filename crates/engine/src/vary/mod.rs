//! Requests that vary: a load may send, per request, a path, query, headers and body
//! whose values come from a counter, a seeded random range or a list, over several
//! request shapes in a weighted rotation, and check each answer against one computed
//! from the request's values (`{sum:a,b}`). The syntax is in docs/varying-requests.md.
//!
//! - `braced` (one `{...}`), `template`, `request_line`: the text, parsed once (the spec's types);
//! - `shape`, `compiled`: a shape bound to its values, for HTTP/1.1 and HTTP/2;
//! - `draw`: each loop's draws (its own seed, its own sequence numbers);
//! - `h1`: a connection's varying HTTP/1.1 requests, rendered into its own buffer;
//! - `h2`: a connection's varying HTTP/2 requests: header blocks of literals, bodies;
//! - `answer`: a response's body checked against the expected answer, as it arrives.
//!
//! Nothing here allocates per request: values are numbers kept per pending request,
//! rendered into buffers made once per connection.

mod answer;
mod braced;
mod compiled;
mod draw;
mod error;
mod h1;
mod h2;
mod request_line;
mod shape;
mod template;

pub use answer::Checking;
pub use compiled::Drawn;
pub use draw::{Drawer, Place};
pub use error::VaryError;
pub use h1::H1Requests;
pub use h2::H2Requests;
pub use request_line::RequestLine;
pub use shape::{Context, Shape, Written};
pub use template::Template;

use serde::{Deserialize, Serialize};

/// A load's varying requests as a spec gives them (`"vary"` in JSON).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VarySpec {
    /// The seed of the random values; None: a new one each run (from the clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The shapes; none: the load's own method, URL path and body, as templates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<RequestLine>,
    /// The exact body of a right answer, from the request's values (`{sum:a,b}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Template>,
}

/// A load's varying requests, compiled: what the loops draw from.
#[derive(Debug, Clone)]
pub struct Vary {
    pub seed: u64,
    pub shapes: Vec<Shape>,
    pub(crate) total_weight: u64,
    /// The longest HTTP/1.1 request, body and HTTP/2 header block any shape renders:
    /// worked out once, read per request.
    max_request: usize,
    max_body: usize,
    max_block: usize,
}

impl Vary {
    /// The shapes `written` sent as `cx` says, with `seed`.
    pub fn compile(written: &[Written], cx: Context, seed: u64) -> Result<Vary, VaryError> {
        let shapes: Vec<Shape> = (written.iter())
            .map(|w| Shape::compile(*w, cx))
            .collect::<Result<_, _>>()?;
        let longest = |len: &dyn Fn(&Shape) -> usize| shapes.iter().map(len).max().unwrap_or(0);
        let max_request = longest(&|s| {
            let body = s.body.max_len(&s.sources);
            s.head.max_len(&s.sources) + body + if s.length { 24 } else { 0 }
        });
        let max_body = longest(&|s| s.body.max_len(&s.sources));
        let max_block = longest(&h2::max_block);
        Ok(Vary {
            seed,
            total_weight: shapes.iter().map(|s| s.weight as u64).sum(),
            shapes,
            max_request,
            max_body,
            max_block,
        })
    }

    /// The longest HTTP/1.1 request any shape renders.
    #[inline]
    pub fn max_request_len(&self) -> usize {
        self.max_request
    }

    /// The longest body any shape renders.
    pub fn max_body_len(&self) -> usize {
        self.max_body
    }

    /// The longest HTTP/2 header block any shape renders.
    #[inline]
    pub fn max_h2_block(&self) -> usize {
        self.max_block
    }

    /// Renders the HTTP/1.1 request `drawn` into `out` (at least
    /// [`max_request_len`](Self::max_request_len) long); its length.
    pub fn render_h1(&self, drawn: &Drawn, out: &mut [u8]) -> usize {
        let s = &self.shapes[drawn.shape as usize];
        let mut at = s.head.render(&s.sources, drawn, out);
        if s.length {
            let len = s.body.len(&s.sources, drawn);
            let mut digits = itoa::Buffer::new();
            for part in [digits.format(len).as_bytes(), b"\r\n\r\n"] {
                out[at..at + part.len()].copy_from_slice(part);
                at += part.len();
            }
        }
        at + s.body.render(&s.sources, drawn, &mut out[at..])
    }
}

#[cfg(test)]
mod tests;
