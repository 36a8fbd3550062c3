//! The client's frames, one at a time: streams opened and completed, windows granted
//! and received, settings and pings answered. An `Err` is a connection error.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use super::conn::{Conn, Partial};
use super::error_code::ErrorCode;
use super::frame::{u31_at, Frame, Kind, ACK, END_HEADERS, END_STREAM, PRIORITY};
use super::settings::MAX_WINDOW;
use super::stream::{State, Stream};
use super::write;
use super::H2Behavior;

/// Octets of stream dependency and weight before a HEADERS block with PRIORITY.
const PRIORITY_LEN: usize = 5;

impl Conn<'_> {
    /// Handles one frame.
    pub(super) fn on_frame(&mut self, frame: Frame) -> Result<(), ErrorCode> {
        // Nothing may come between a HEADERS and its CONTINUATIONs (RFC 9113 §6.10).
        let continues = |p: &Partial| frame.kind == Kind::Continuation && frame.stream == p.stream;
        if self.continuing.as_ref().is_some_and(|p| !continues(p)) {
            return Err(ErrorCode::Protocol);
        }
        if !self.settings_seen && frame.kind != Kind::Settings {
            return Err(ErrorCode::Protocol);
        }
        match frame.kind {
            Kind::Data => self.on_data(&frame),
            Kind::Headers => self.on_headers(&frame),
            Kind::Continuation => self.on_continuation(frame),
            Kind::Settings => self.on_settings(&frame),
            Kind::Ping => self.on_ping(&frame),
            Kind::WindowUpdate => self.on_window_update(&frame),
            Kind::RstStream => self.on_rst_stream(&frame),
            Kind::GoAway => {
                self.peer_gone = true;
                Ok(())
            }
            // A client never pushes (RFC 9113 §8.4).
            Kind::PushPromise => Err(ErrorCode::Protocol),
            Kind::Priority | Kind::Unknown(_) => Ok(()),
        }
    }

    /// HEADERS: a block, whole or to be continued.
    fn on_headers(&mut self, frame: &Frame) -> Result<(), ErrorCode> {
        if frame.stream == 0 {
            return Err(ErrorCode::Protocol);
        }
        let mut block = frame.unpadded()?;
        if frame.has(PRIORITY) {
            block = block.get(PRIORITY_LEN..).ok_or(ErrorCode::FrameSize)?;
        }
        let partial = Partial {
            stream: frame.stream,
            end_stream: frame.has(END_STREAM),
            block: block.to_vec(),
        };
        if frame.has(END_HEADERS) {
            self.on_block(partial)
        } else {
            self.continuing = Some(partial);
            Ok(())
        }
    }

    /// CONTINUATION: more of the block under way.
    fn on_continuation(&mut self, frame: Frame) -> Result<(), ErrorCode> {
        let mut partial = self.continuing.take().ok_or(ErrorCode::Protocol)?;
        partial.block.extend_from_slice(&frame.payload);
        if frame.has(END_HEADERS) {
            self.on_block(partial)
        } else {
            self.continuing = Some(partial);
            Ok(())
        }
    }

    /// A whole header block: a request's trailers, or a new stream to take on, refuse or
    /// ignore (past the server's GOAWAY).
    fn on_block(&mut self, block: Partial) -> Result<(), ErrorCode> {
        let request = self.fields.decode(&block.block)?;
        let id = block.stream;
        if let Some(stream) = self.streams.get(&id) {
            // Trailers: only on a request still receiving, and they end it.
            if !matches!(stream.state, State::Receiving) || !block.end_stream {
                return Err(ErrorCode::Protocol);
            }
            self.complete(id);
            return Ok(());
        }
        // Client streams are odd, each above the last (RFC 9113 §5.1.1).
        if id.is_multiple_of(2) || id <= self.last_stream {
            return Err(ErrorCode::Protocol);
        }
        self.last_stream = id;
        if self.goaway_last.is_some_and(|last| id > last) {
            return Ok(());
        }
        if self.streams.len() >= self.behavior.max_concurrent() as usize {
            self.reset(id, ErrorCode::Refused);
            return Ok(());
        }
        self.opened += 1;
        self.shared.requests.fetch_add(1, Relaxed);
        let stream = Stream::new(
            self.opened,
            self.peer.initial_window,
            request.head,
            request.seen,
        );
        self.streams.insert(id, stream);
        if self.behavior.goaway_at() == Some(self.opened) {
            self.goaway(id, ErrorCode::NoError);
            self.goaway_last = Some(id);
        }
        if block.end_stream {
            self.complete(id);
        }
        Ok(())
    }

    /// The request on `id` is complete: its answer is due after the behavior's delay.
    fn complete(&mut self, id: u32) {
        if let Some(stream) = self.streams.get_mut(&id) {
            stream.state = State::Due(Instant::now() + self.behavior.delay());
            self.ready.push_back(id);
        }
    }

    /// DATA: a request body's octets, their window granted back as the behavior allows;
    /// on a stream refused, reset or ignored, only the connection's.
    fn on_data(&mut self, frame: &Frame) -> Result<(), ErrorCode> {
        if frame.stream == 0 {
            return Err(ErrorCode::Protocol);
        }
        let data = frame.unpadded()?;
        // Flow control counts the whole payload, padding included (RFC 9113 §6.1).
        let len = frame.payload.len() as u32;
        if len > 0 && self.behavior.grants_connection_window(self.body_received) {
            write::window_update(&mut self.out, 0, len);
        }
        self.body_received += u64::from(len);
        let receiving = self
            .streams
            .get(&frame.stream)
            .is_some_and(|s| matches!(s.state, State::Receiving));
        if !receiving {
            return Ok(());
        }
        if let (H2Behavior::Sum, Some(stream)) =
            (&self.behavior, self.streams.get_mut(&frame.stream))
        {
            stream.seen.body.extend_from_slice(data);
        }
        if frame.has(END_STREAM) {
            self.complete(frame.stream);
        } else if len > 0 && self.behavior.grants_stream_window() {
            write::window_update(&mut self.out, frame.stream, len);
        }
        Ok(())
    }

    /// SETTINGS: the client's applied (a new initial window moves every stream's window
    /// by the difference, RFC 9113 §6.9.2) and acked.
    fn on_settings(&mut self, frame: &Frame) -> Result<(), ErrorCode> {
        if frame.stream != 0 {
            return Err(ErrorCode::Protocol);
        }
        if frame.has(ACK) {
            return match frame.payload.is_empty() {
                true => Ok(()),
                false => Err(ErrorCode::FrameSize),
            };
        }
        let before = i64::from(self.peer.initial_window);
        self.peer.apply(&frame.payload)?;
        let change = i64::from(self.peer.initial_window) - before;
        for stream in self.streams.values_mut() {
            stream.window += change;
            if stream.window > MAX_WINDOW {
                return Err(ErrorCode::FlowControl);
            }
        }
        self.settings_seen = true;
        write::settings_ack(&mut self.out);
        Ok(())
    }

    /// PING: acked, or an ack of the server's counted.
    fn on_ping(&mut self, frame: &Frame) -> Result<(), ErrorCode> {
        if frame.stream != 0 {
            return Err(ErrorCode::Protocol);
        }
        let data: [u8; 8] = frame
            .payload
            .as_slice()
            .try_into()
            .map_err(|_| ErrorCode::FrameSize)?;
        if frame.has(ACK) {
            self.shared.h2.ping_acks.fetch_add(1, Relaxed);
        } else {
            write::ping(&mut self.out, true, data);
        }
        Ok(())
    }

    /// WINDOW_UPDATE: more room to send, on the connection or a stream.
    fn on_window_update(&mut self, frame: &Frame) -> Result<(), ErrorCode> {
        if frame.payload.len() != 4 {
            return Err(ErrorCode::FrameSize);
        }
        let increment = i64::from(u31_at(&frame.payload, 0)?);
        if increment == 0 {
            return Err(ErrorCode::Protocol);
        }
        let window = match frame.stream {
            0 => &mut self.window,
            id => match self.streams.get_mut(&id) {
                Some(stream) => &mut stream.window,
                None => return Ok(()), // answered or reset already
            },
        };
        *window += increment;
        match *window > MAX_WINDOW {
            true => Err(ErrorCode::FlowControl),
            false => Ok(()),
        }
    }

    /// RST_STREAM: the client gave up on a stream; it gets no answer.
    fn on_rst_stream(&mut self, frame: &Frame) -> Result<(), ErrorCode> {
        if frame.stream == 0 {
            return Err(ErrorCode::Protocol);
        }
        if frame.payload.len() != 4 {
            return Err(ErrorCode::FrameSize);
        }
        self.streams.remove(&frame.stream);
        self.ready.retain(|id| *id != frame.stream);
        Ok(())
    }

    /// Resets stream `id` with `code`, and counts it.
    pub(super) fn reset(&mut self, id: u32, code: ErrorCode) {
        write::rst_stream(&mut self.out, id, code);
        self.shared.h2.resets.fetch_add(1, Relaxed);
        if code == ErrorCode::Refused {
            self.shared.h2.refused.fetch_add(1, Relaxed);
        }
    }
}
