//! One connection's varying HTTP/1.1 requests: the values drawn for each pending request
//! (a ring beside the loop's ring of start stamps, at the same places) and their bytes,
//! rendered as each starts into the connection's own buffer, which never moves (an
//! io_uring send reads it after the call that queued it returns).

use super::answer::Answer;
use super::compiled::Drawn;
use super::Vary;
use crate::h2::OutFrames;

/// A connection's varying requests.
#[derive(Debug)]
pub struct H1Requests {
    out: OutFrames,
    drawn: Box<[Drawn]>,
    /// The newest pending requests whose bytes are not in `out` yet (it had no room:
    /// bytes of answered requests may still wait there for their send to complete).
    unrendered: u32,
    /// How far the oldest pending request's answer matched.
    pub answer: Answer,
}

impl H1Requests {
    /// Room for `depth` pending requests of `vary`, twice over: the bytes of a send in
    /// flight, and as many requests started while it flies.
    pub fn new(depth: usize, vary: &Vary) -> H1Requests {
        H1Requests {
            out: OutFrames::new(2 * depth.max(1) * vary.max_request_len()),
            drawn: vec![Drawn::default(); depth.max(1)].into_boxed_slice(),
            unrendered: 0,
            answer: Answer::default(),
        }
    }

    /// The request at ring place `place` drew `drawn`; its bytes follow the others'.
    pub fn start(&mut self, place: usize, drawn: Drawn, end: u32, vary: &Vary) {
        self.drawn[place] = drawn;
        self.unrendered += 1;
        self.render(end, vary);
    }

    /// The values of the request at ring place `place`.
    pub fn drawn(&self, place: usize) -> Drawn {
        self.drawn[place]
    }

    /// The bytes to write.
    pub fn unsent(&self) -> &[u8] {
        self.out.pending()
    }

    /// `n` bytes were written (no send is in flight): requests that waited for room
    /// follow. `end` is the ring position after the newest pending request.
    pub fn wrote(&mut self, n: usize, end: u32, vary: &Vary) {
        self.out.wrote(n);
        self.render(end, vary);
    }

    /// Renders the requests that wait, oldest first, while there is room for the longest.
    fn render(&mut self, end: u32, vary: &Vary) {
        let depth = self.drawn.len() as u32;
        while self.unrendered > 0 && self.out.room() >= vary.max_request_len() {
            let place = ((end.wrapping_sub(self.unrendered)) % depth) as usize;
            let n = vary.render_h1(&self.drawn[place], self.out.spare());
            self.out.commit(n);
            self.unrendered -= 1;
        }
    }

    /// The oldest request was answered; `pending` are left. A server that answers a
    /// request it cannot have read yet (a second response to one) leaves no unrendered
    /// request behind the answered ones.
    pub fn answered(&mut self, pending: u32) {
        self.unrendered = self.unrendered.min(pending);
    }

    /// Nothing pending any more (failed, abandoned, or a new connection).
    pub fn clear(&mut self) {
        self.out.clear();
        self.unrendered = 0;
        self.answer = Answer::default();
    }
}
