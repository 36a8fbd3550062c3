//! Answering: each complete request, once due, gets HEADERS and then DATA as the
//! client's windows and MAX_FRAME_SIZE allow (or the RST_STREAM the behavior says), in
//! the order the requests completed; a stream waiting for its window does not hold up
//! the ones behind it.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use super::conn::Conn;
use super::frame::{Kind, END_HEADERS, END_STREAM};
use super::response::Block;
use super::stream::{Body, State};
use super::write;
use super::H2Behavior;

/// What became of a stream's turn.
enum Turn {
    /// Its answer is all written: the stream is over.
    Done,
    /// Not yet due, or waiting for a window.
    Waiting,
}

impl Conn<'_> {
    /// Writes what is due on every ready stream, as far as the windows allow.
    pub(super) fn answer_due(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while let Some(&id) = self.ready.get(i) {
            // A connection that ends after N answers gives no more than N.
            if self.behavior.ending(self.answered).is_some() {
                return;
            }
            match self.turn(id, now) {
                Turn::Done => {
                    self.ready.remove(i);
                    self.streams.remove(&id);
                }
                Turn::Waiting => i += 1,
            }
        }
    }

    /// Moves stream `id`'s answer on as far as it can go now.
    fn turn(&mut self, id: u32, now: Instant) -> Turn {
        let Some(stream) = self.streams.get(&id) else {
            return Turn::Done;
        };
        if let State::Due(at) = stream.state {
            if at > now {
                return Turn::Waiting;
            }
            if let Some(code) = self.behavior.reset(stream.nth) {
                self.reset(id, code);
                return Turn::Done;
            }
            if !self.begin(id) {
                return self.finish(id);
            }
        }
        self.send_body(id)
    }

    /// Writes the response's HEADERS; false if that was all of it (END_STREAM on it).
    fn begin(&mut self, id: u32) -> bool {
        let Some(stream) = self.streams.get_mut(&id) else {
            return false;
        };
        let mut plan = self
            .behavior
            .plan(self.begun, stream.head, self.peer.max_frame);
        if *self.behavior == H2Behavior::Sum {
            let seen = std::mem::take(&mut stream.seen);
            plan.body = crate::reply::sum_of(&seen.target, &seen.body)
                .to_string()
                .into_bytes();
            plan.block = Block::Valid {
                status: 200,
                content_length: Some(plan.body.len()),
            };
            self.shared.keep(seen);
        }
        self.begun += 1;
        let has_body = !plan.body.is_empty();
        let flags = END_HEADERS | if has_body { 0 } else { END_STREAM };
        // A response's block is a few dozen octets: one frame, never a CONTINUATION.
        write::frame(
            &mut self.out,
            Kind::Headers,
            flags,
            id,
            &plan.block.encode(),
        );
        stream.state = State::Sending(Body {
            octets: plan.body,
            sent: 0,
            one_frame: plan.one_frame,
        });
        has_body
    }

    /// Writes DATA frames of the body while both windows have room; the last one ends
    /// the stream.
    fn send_body(&mut self, id: u32) -> Turn {
        let Some(stream) = self.streams.get_mut(&id) else {
            return Turn::Done;
        };
        let State::Sending(body) = &mut stream.state else {
            return Turn::Waiting;
        };
        let max_frame = self.peer.max_frame as usize;
        while body.sent < body.octets.len() {
            let left = body.octets.len() - body.sent;
            let room = self.window.min(stream.window).max(0) as usize;
            let len = match body.one_frame {
                true if room < left => return Turn::Waiting,
                true => left,
                false => left.min(room).min(max_frame),
            };
            if len == 0 {
                return Turn::Waiting;
            }
            let end = body.sent + len;
            let flags = if end == body.octets.len() {
                END_STREAM
            } else {
                0
            };
            let octets = &body.octets[body.sent..end];
            write::frame(&mut self.out, Kind::Data, flags, id, octets);
            body.sent = end;
            self.window -= len as i64;
            stream.window -= len as i64;
        }
        self.finish(id)
    }

    /// The response on `id` is all written: count it (once sent), then the PINGs the
    /// behavior sends after each response.
    fn finish(&mut self, id: u32) -> Turn {
        self.answered += 1;
        self.unsent_responses += 1;
        self.last_answered = self.last_answered.max(id);
        for _ in 0..self.behavior.pings_per_response() {
            let sent = self.shared.h2.pings.fetch_add(1, Relaxed);
            write::ping(&mut self.out, false, sent.to_be_bytes());
        }
        Turn::Done
    }
}
