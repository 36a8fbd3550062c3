//! A connection's requests as HTTP/2 sees them: each holds one of the connection's
//! `depth` places (its start stamp is at the same place in the loop's stamp slab), first
//! queued, then open as a stream, until its response ends or it fails. Places are reused;
//! nothing here allocates after the connection slot is made.

use std::collections::VecDeque;

/// What one place holds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stream {
    /// The stream's identifier once open; 0 while queued or free.
    pub id: u32,
    /// The final response's :status, once its HEADERS came.
    pub status: u16,
    /// DATA octets received since the last WINDOW_UPDATE for this stream.
    pub unacked: u32,
    /// Octets of request body the server lets this stream send now (may go below zero
    /// when the server shrinks the initial window).
    pub send_window: i64,
    /// Octets of the request body sent so far.
    pub body_sent: usize,
    /// A GOAWAY left this request unprocessed: it is queued again for a new connection.
    pub retry: bool,
}

/// The places of one connection.
#[derive(Debug)]
pub struct Streams {
    places: Vec<Stream>,
    /// Places taken (queued or open).
    taken: Vec<bool>,
    /// Queued places in the order their requests started.
    queue: VecDeque<usize>,
    /// Places that are open streams.
    open: usize,
}

impl Streams {
    /// `depth` places, all free.
    pub fn new(depth: usize) -> Streams {
        Streams {
            places: vec![Stream::default(); depth],
            taken: vec![false; depth],
            queue: VecDeque::with_capacity(depth),
            open: 0,
        }
    }

    /// Requests queued or open.
    pub fn pending(&self) -> usize {
        self.queue.len() + self.open
    }

    /// Open streams.
    pub fn open(&self) -> usize {
        self.open
    }

    /// Requests queued for a stream.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Takes a free place for a new request and queues it; None when all are taken.
    pub fn enqueue(&mut self) -> Option<usize> {
        let place = self.taken.iter().position(|t| !t)?;
        self.taken[place] = true;
        self.places[place] = Stream::default();
        self.queue.push_back(place);
        Some(place)
    }

    /// The place of the oldest queued request, the next to open.
    pub fn next_queued(&self) -> Option<usize> {
        self.queue.front().copied()
    }

    /// The oldest queued request, made the open stream `id` with `send_window`.
    pub fn open_next(&mut self, id: u32, send_window: i64) -> Option<usize> {
        let place = self.queue.pop_front()?;
        let retry = self.places[place].retry;
        self.places[place] = Stream {
            id,
            send_window,
            retry,
            ..Stream::default()
        };
        self.open += 1;
        Some(place)
    }

    /// The place of open stream `id`.
    pub fn find(&self, id: u32) -> Option<usize> {
        match id {
            0 => None,
            _ => self.places.iter().position(|s| s.id == id),
        }
    }

    /// How many places there are (the depth).
    pub fn places(&self) -> usize {
        self.places.len()
    }

    pub fn get_mut(&mut self, place: usize) -> &mut Stream {
        &mut self.places[place]
    }

    /// The request at `place` is over (answered or failed): the place is free.
    pub fn release(&mut self, place: usize) {
        if self.places[place].id != 0 {
            self.open -= 1;
        } else if let Some(i) = self.queue.iter().position(|&q| q == place) {
            self.queue.remove(i);
        }
        self.places[place] = Stream::default();
        self.taken[place] = false;
    }

    /// The open stream at `place` was refused: queued again, marked as retried.
    pub fn requeue(&mut self, place: usize) {
        self.places[place] = Stream {
            retry: true,
            ..Stream::default()
        };
        self.open -= 1;
        self.queue.push_back(place);
    }

    /// Open streams above `last` were not processed (GOAWAY): queued again, marked as
    /// retried; how many.
    pub fn requeue_above(&mut self, last: u32) -> u64 {
        let mut n = 0;
        for place in 0..self.places.len() {
            if self.places[place].id > last {
                self.places[place] = Stream {
                    retry: true,
                    ..Stream::default()
                };
                self.open -= 1;
                self.queue.push_back(place);
                n += 1;
            }
        }
        n
    }

    /// True when `place` holds a request (queued or open).
    pub fn is_taken(&self, place: usize) -> bool {
        self.taken[place]
    }

    /// True when `place` is queued for a retry after a GOAWAY.
    pub fn is_retry(&self, place: usize) -> bool {
        self.places[place].id == 0 && self.places[place].retry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_go_from_queued_to_open_to_free_in_start_order() {
        let mut s = Streams::new(3);
        let (a, b) = (s.enqueue().unwrap(), s.enqueue().unwrap());
        assert_eq!(s.open_next(1, 10), Some(a));
        assert_eq!((s.pending(), s.open(), s.queued()), (2, 1, 1));
        assert_eq!(s.open_next(3, 10), Some(b));
        assert_eq!(s.find(3), Some(b));
        s.release(a);
        assert_eq!(s.enqueue(), Some(a), "a freed place is reused");
        assert!(s.enqueue().is_some());
        assert_eq!(s.enqueue(), None, "all three taken");
    }

    #[test]
    fn a_goaway_requeues_only_streams_above_its_last_id() {
        let mut s = Streams::new(4);
        for id in [1, 3, 5] {
            s.enqueue();
            s.open_next(id, 0);
        }
        assert_eq!(s.requeue_above(1), 2);
        assert_eq!((s.open(), s.queued()), (1, 2));
        let p = s.open_next(7, 0).unwrap();
        assert!(
            s.get_mut(p).retry,
            "a retried request stays marked once open again"
        );
    }
}
