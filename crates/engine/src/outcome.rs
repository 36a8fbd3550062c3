//! How every request ends: exactly one outcome each, so the counts add up. An open loop's
//! request that came due and was never sent (dropped) ends too: the schedule's every
//! request is accounted for.

use serde::ser::{Serialize, SerializeStruct, Serializer};

/// The single way a started request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A well-framed response with a 1xx/2xx/3xx final status.
    Ok,
    /// A well-framed response with a 4xx/5xx status.
    Status,
    /// No complete response within the per-request timeout.
    Timeout,
    /// The connection for the request could not be established.
    Connect,
    /// Reading failed: reset, or the server closed before the response ended.
    Read,
    /// Writing the request failed.
    Write,
    /// The response was malformed (status line, headers, framing).
    Parse,
    /// TLS failed: the handshake (a rejected certificate too), an alert, a bad record, or a
    /// close without close_notify that cut a close-delimited body short.
    Tls,
    /// HTTP/2: the server reset the request's stream (RST_STREAM).
    Reset,
    /// HTTP/2: the connection ended in a protocol error, the server's (a GOAWAY with an
    /// error code) or one the client found (it sent GOAWAY).
    H2,
    /// A well-framed 1xx/2xx/3xx response whose body is not the answer the request's
    /// values call for (a varying load's expected answer).
    Wrong,
    /// Open loop: the request came due and no connection was free or open to take it
    /// within the timeout; it was never sent (k6's dropped iterations).
    Dropped,
    /// WebSocket: the upgrade was refused, the server closed the connection with a close
    /// frame, or it broke the protocol (the result's `ws` books say which).
    Ws,
}

/// Request counts by outcome. `total()` is their sum plus those still in flight: every
/// request sent, and in an open loop those dropped unsent. (Read back from JSON, `total`
/// is derived again, not trusted.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Counts {
    pub ok: u64,
    pub status: u64,
    pub timeout: u64,
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    pub parse: u64,
    /// Absent from results written before TLS.
    #[serde(default)]
    pub tls: u64,
    /// Absent from results written before HTTP/2.
    #[serde(default)]
    pub reset: u64,
    #[serde(default)]
    pub h2: u64,
    /// Answered, but not with the expected answer (varying requests). Absent from results
    /// written before answers were checked.
    #[serde(default)]
    pub wrong: u64,
    /// Open loop: due, and never sent for want of a connection within the timeout.
    /// Absent from results written before it was counted.
    #[serde(default)]
    pub dropped: u64,
    /// WebSocket messages failed by the connection's upgrade, close or protocol error.
    /// Absent from results written before WebSocket.
    #[serde(default)]
    pub ws: u64,
    /// Started but neither answered nor failed when the load stopped.
    pub in_flight: u64,
}

impl Counts {
    /// Adds one request that ended with `outcome`.
    #[inline]
    pub fn add(&mut self, outcome: Outcome) {
        let slot = match outcome {
            Outcome::Ok => &mut self.ok,
            Outcome::Status => &mut self.status,
            Outcome::Timeout => &mut self.timeout,
            Outcome::Connect => &mut self.connect,
            Outcome::Read => &mut self.read,
            Outcome::Write => &mut self.write,
            Outcome::Parse => &mut self.parse,
            Outcome::Tls => &mut self.tls,
            Outcome::Reset => &mut self.reset,
            Outcome::H2 => &mut self.h2,
            Outcome::Wrong => &mut self.wrong,
            Outcome::Dropped => &mut self.dropped,
            Outcome::Ws => &mut self.ws,
        };
        *slot += 1;
    }

    /// Every request measured: the finished ones (the dropped among them) and those in
    /// flight. With `-n N`, N once the load has ended by itself.
    pub fn total(&self) -> u64 {
        self.finished() + self.in_flight
    }

    /// Requests that ended, well or badly (dropped ones too: they will never be sent).
    pub fn finished(&self) -> u64 {
        self.ok + self.status + self.errors()
    }

    /// Requests that got no well-framed response (everything but ok, status and
    /// in-flight): those sent that failed, and those dropped unsent. A request the
    /// schedule asked for and nobody answered failed, whichever side of the socket it
    /// stopped on.
    pub fn errors(&self) -> u64 {
        self.failed_sent() + self.dropped
    }

    /// Requests sent (a connect begun for them, or their bytes queued) that got no
    /// well-framed response: wrk's socket errors, and TLS's, HTTP/2's and WebSocket's.
    pub fn failed_sent(&self) -> u64 {
        let h1 = self.timeout + self.connect + self.read + self.write + self.parse;
        h1 + self.tls + self.reset + self.h2 + self.wrong + self.ws
    }

    /// Requests that went out: all but the dropped.
    pub fn sent(&self) -> u64 {
        self.total() - self.dropped
    }

    /// Adds another set of counts to this one.
    pub fn merge(&mut self, other: &Counts) {
        self.ok += other.ok;
        self.status += other.status;
        self.timeout += other.timeout;
        self.connect += other.connect;
        self.read += other.read;
        self.write += other.write;
        self.parse += other.parse;
        self.tls += other.tls;
        self.reset += other.reset;
        self.h2 += other.h2;
        self.wrong += other.wrong;
        self.dropped += other.dropped;
        self.ws += other.ws;
        self.in_flight += other.in_flight;
    }
}

impl Serialize for Counts {
    /// As JSON with `total` first, so readers need not add the classes up themselves.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Counts", 15)?;
        s.serialize_field("total", &self.total())?;
        s.serialize_field("ok", &self.ok)?;
        s.serialize_field("status", &self.status)?;
        s.serialize_field("timeout", &self.timeout)?;
        s.serialize_field("connect", &self.connect)?;
        s.serialize_field("read", &self.read)?;
        s.serialize_field("write", &self.write)?;
        s.serialize_field("parse", &self.parse)?;
        s.serialize_field("tls", &self.tls)?;
        s.serialize_field("reset", &self.reset)?;
        s.serialize_field("h2", &self.h2)?;
        s.serialize_field("wrong", &self.wrong)?;
        s.serialize_field("dropped", &self.dropped)?;
        s.serialize_field("ws", &self.ws)?;
        s.serialize_field("in_flight", &self.in_flight)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_is_the_sum_of_every_class() {
        let mut c = Counts::default();
        for o in [
            Outcome::Ok,
            Outcome::Status,
            Outcome::Timeout,
            Outcome::Connect,
            Outcome::Read,
            Outcome::Write,
            Outcome::Parse,
            Outcome::Tls,
            Outcome::Reset,
            Outcome::H2,
            Outcome::Wrong,
            Outcome::Dropped,
            Outcome::Ws,
        ] {
            c.add(o);
        }
        c.in_flight = 3;
        assert_eq!(c.total(), 16);
        assert_eq!((c.errors(), c.failed_sent(), c.dropped), (11, 10, 1));
        assert_eq!(c.sent(), 15);
        let mut d = c;
        d.merge(&c);
        assert_eq!((d.total(), d.dropped, d.wrong, d.ws), (32, 2, 2, 2));
    }
}
