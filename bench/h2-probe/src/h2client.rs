//! A minimal sans-IO HTTP/2 client connection (prior knowledge), written for the probe:
//! bytes in (`read_space` + `received`), bytes out (`outgoing` + `sent`), buffers it owns.
//! The request header block is HPACK-encoded once per connection with incremental
//! indexing and then sent as five indexed fields; responses are decoded by
//! `hpack_own::Decoder` or loona-hpack's `decode_with_cb`. Closed loop: the connection
//! keeps `m` streams in flight (fewer if the server's MAX_CONCURRENT_STREAMS says so); a
//! stream counts when it ends (END_STREAM) with a 2xx :status.
//! Not complete: no request bodies, no PRIORITY, no CONTINUATION on the send side, a peer
//! header table under 256 octets is refused, GOAWAY just stops new streams.

use crate::hpack_own;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const WINDOW: u32 = (1 << 30) - 1; // h2load's defaults: -w 30 -W 30
const DEFAULT_WINDOW: u32 = 65_535;
const MAX_STREAMS: usize = 128;
const RBUF: usize = 256 * 1024;

const DATA: u8 = 0;
const HEADERS: u8 = 1;
const RST_STREAM: u8 = 3;
const SETTINGS: u8 = 4;
const PING: u8 = 6;
const GOAWAY: u8 = 7;
const WINDOW_UPDATE: u8 = 8;
const CONTINUATION: u8 = 9;

const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;

enum Hpack {
    Own(hpack_own::Decoder),
    Loona(loona_hpack::Decoder<'static>),
}

#[derive(Clone, Copy, Default)]
struct Stream {
    id: u32,
    status: u16,
    unacked: u32, // DATA bytes since this stream's last WINDOW_UPDATE
}

#[derive(Default)]
pub struct Counts {
    pub ok: u64,
    pub non2xx: u64,
    pub reset: u64,
    pub goaway: u64,
    pub errors: u64,
}

pub struct Client {
    rbuf: Box<[u8]>,
    rlen: usize,
    wbuf: Vec<u8>,
    wpos: usize,
    streams: [Stream; MAX_STREAMS],
    pub active: usize,
    limit: usize,
    next_id: u32,
    conn_unacked: u32,
    hpack: Hpack,
    hblock: Vec<u8>, // a header block split over CONTINUATION
    hblock_stream: u32,
    first_block: Vec<u8>,
    next_block: Vec<u8>,
    first_sent: bool,
    going_away: bool,
    pub dead: bool,
}

fn put_frame_header(w: &mut Vec<u8>, len: usize, typ: u8, flags: u8, sid: u32) {
    w.extend_from_slice(&[(len >> 16) as u8, (len >> 8) as u8, len as u8, typ, flags]);
    w.extend_from_slice(&sid.to_be_bytes());
}

fn put_window_update(w: &mut Vec<u8>, sid: u32, inc: u32) {
    put_frame_header(w, 4, WINDOW_UPDATE, 0, sid);
    w.extend_from_slice(&inc.to_be_bytes());
}

fn lit_inc(buf: &mut Vec<u8>, name_index: u8, value: &[u8]) {
    assert!(name_index < 63 && value.len() < 127);
    buf.push(0x40 | name_index);
    buf.push(value.len() as u8);
    buf.extend_from_slice(value);
}

impl Client {
    /// `authority` is sent as :authority. The preface, SETTINGS and the connection's
    /// WINDOW_UPDATE are queued at once (`outgoing`).
    pub fn new(authority: &str, path: &str, m: usize, use_loona: bool) -> Client {
        // Request header block, once per connection: :method GET and :scheme http from the
        // static table, then :path, :authority and user-agent with incremental indexing
        // (they land at dynamic indexes 64, 63, 62); every later request is 5 octets.
        let mut first_block = vec![0x82, 0x86];
        lit_inc(&mut first_block, 4, path.as_bytes());
        lit_inc(&mut first_block, 1, authority.as_bytes());
        lit_inc(&mut first_block, 58, b"h2probe");
        let next_block = vec![0x82, 0x86, 0x80 | 64, 0x80 | 63, 0x80 | 62];
        let mut c = Client {
            rbuf: vec![0u8; RBUF].into_boxed_slice(),
            rlen: 0,
            wbuf: Vec::with_capacity(64 * 1024),
            wpos: 0,
            streams: [Stream::default(); MAX_STREAMS],
            active: 0,
            limit: m.min(MAX_STREAMS),
            next_id: 1,
            conn_unacked: 0,
            hpack: if use_loona {
                Hpack::Loona(loona_hpack::Decoder::new())
            } else {
                Hpack::Own(hpack_own::Decoder::new())
            },
            hblock: Vec::with_capacity(16 * 1024),
            hblock_stream: 0,
            first_block,
            next_block,
            first_sent: false,
            going_away: false,
            dead: false,
        };
        c.wbuf.extend_from_slice(PREFACE);
        // SETTINGS: ENABLE_PUSH 0, INITIAL_WINDOW_SIZE 2^30-1; then open the connection window.
        put_frame_header(&mut c.wbuf, 12, SETTINGS, 0, 0);
        c.wbuf.extend_from_slice(&[0, 2, 0, 0, 0, 0]);
        c.wbuf.extend_from_slice(&[0, 4]);
        c.wbuf.extend_from_slice(&WINDOW.to_be_bytes());
        put_window_update(&mut c.wbuf, 0, WINDOW - DEFAULT_WINDOW);
        c
    }

    pub fn start_streams(&mut self) {
        while !self.going_away && self.active < self.limit {
            let id = self.next_id;
            self.next_id += 2;
            let slot = self.streams.iter_mut().find(|s| s.id == 0).expect("a free slot");
            *slot = Stream { id, status: 0, unacked: 0 };
            self.active += 1;
            let block = if self.first_sent { &self.next_block } else { &self.first_block };
            put_frame_header(&mut self.wbuf, block.len(), HEADERS, END_STREAM | END_HEADERS, id);
            self.wbuf.extend_from_slice(block);
            self.first_sent = true;
        }
    }

    fn finish(&mut self, idx: usize, counts: &mut Counts) {
        let s = self.streams[idx];
        if (200..300).contains(&s.status) {
            counts.ok += 1;
        } else {
            counts.non2xx += 1;
        }
        self.streams[idx].id = 0;
        self.active -= 1;
    }

    fn stream_index(&self, sid: u32) -> Option<usize> {
        self.streams.iter().position(|s| s.id == sid && sid != 0)
    }

    fn decode_headers(&mut self, sid: u32, block_in_hblock: bool, block: &[u8], end_stream: bool, counts: &mut Counts, dump: &mut u32) {
        let block: &[u8] = if block_in_hblock { &self.hblock } else { block };
        if *dump > 0 {
            *dump -= 1;
            let hex: String = block.iter().map(|b| format!("{b:02x}")).collect();
            eprintln!("headers block sid={sid} len={} hex={hex}", block.len());
        }
        let mut status: u16 = 0;
        let on_field = |name: &[u8], value: &[u8]| {
            if name == b":status" && value.len() == 3 {
                status = value.iter().fold(0u16, |a, d| a * 10 + (d.wrapping_sub(b'0') as u16));
            }
        };
        let res = match &mut self.hpack {
            Hpack::Own(d) => d.decode(block, on_field).map_err(|_| ()),
            Hpack::Loona(d) => {
                let mut on_field = on_field;
                d.decode_with_cb(block, |n, v| on_field(&n, &v)).map_err(|_| ())
            }
        };
        if res.is_err() {
            counts.errors += 1;
            self.dead = true; // COMPRESSION_ERROR: the connection is gone
            return;
        }
        let Some(idx) = self.stream_index(sid) else { return };
        if self.streams[idx].status == 0 {
            self.streams[idx].status = status;
        }
        if end_stream {
            self.finish(idx, counts);
        }
    }

    /// Where the next read lands.
    pub fn read_space(&mut self) -> &mut [u8] {
        &mut self.rbuf[self.rlen..]
    }

    /// `n` bytes landed in `read_space`: handle every complete frame, queue what answers
    /// them and, if `running`, the streams that replace finished ones.
    pub fn received(&mut self, n: usize, counts: &mut Counts, running: bool, dump: &mut u32) {
        self.rlen += n;
        let mut pos = 0;
        // Take the buffer out so frames can borrow it while `self` changes.
        let rbuf = std::mem::take(&mut self.rbuf);
        while self.rlen - pos >= 9 {
            let h = &rbuf[pos..pos + 9];
            let len = (h[0] as usize) << 16 | (h[1] as usize) << 8 | h[2] as usize;
            let (typ, flags) = (h[3], h[4]);
            let sid = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
            if len + 9 > RBUF {
                self.dead = true;
                counts.errors += 1;
                break;
            }
            if self.rlen - pos < 9 + len {
                break;
            }
            let payload = &rbuf[pos + 9..pos + 9 + len];
            pos += 9 + len;
            match typ {
                DATA => {
                    self.conn_unacked += len as u32;
                    if self.conn_unacked >= WINDOW / 2 {
                        put_window_update(&mut self.wbuf, 0, self.conn_unacked);
                        self.conn_unacked = 0;
                    }
                    if let Some(idx) = self.stream_index(sid) {
                        if flags & END_STREAM != 0 {
                            self.finish(idx, counts);
                        } else {
                            let s = &mut self.streams[idx];
                            s.unacked += len as u32;
                            if s.unacked >= WINDOW / 2 {
                                put_window_update(&mut self.wbuf, sid, s.unacked);
                                s.unacked = 0;
                            }
                        }
                    }
                }
                HEADERS => {
                    let mut p = payload;
                    if flags & PADDED != 0 {
                        let pad = p[0] as usize;
                        p = &p[1..p.len() - pad];
                    }
                    if flags & PRIORITY != 0 {
                        p = &p[5..];
                    }
                    if flags & END_HEADERS != 0 {
                        self.decode_headers(sid, false, p, flags & END_STREAM != 0, counts, dump);
                    } else {
                        self.hblock.clear();
                        self.hblock.extend_from_slice(p);
                        // Remember END_STREAM in the top bit of the stream id.
                        self.hblock_stream = sid | if flags & END_STREAM != 0 { 0x8000_0000 } else { 0 };
                    }
                }
                CONTINUATION => {
                    self.hblock.extend_from_slice(payload);
                    if flags & END_HEADERS != 0 {
                        let s = self.hblock_stream;
                        self.decode_headers(s & 0x7fff_ffff, true, &[], s & 0x8000_0000 != 0, counts, dump);
                    }
                }
                RST_STREAM => {
                    if let Some(idx) = self.stream_index(sid) {
                        counts.reset += 1;
                        self.streams[idx].id = 0;
                        self.active -= 1;
                    }
                }
                SETTINGS => {
                    if flags & ACK == 0 {
                        for e in payload.chunks_exact(6) {
                            let id = u16::from_be_bytes([e[0], e[1]]);
                            let v = u32::from_be_bytes([e[2], e[3], e[4], e[5]]);
                            match id {
                                // Our encoder's table holds 3 entries (~150 octets); a
                                // smaller table would need literals: not handled here.
                                1 => assert!(v >= 256, "peer header table too small for the probe"),
                                3 => self.limit = self.limit.min(v as usize),
                                _ => {}
                            }
                        }
                        put_frame_header(&mut self.wbuf, 0, SETTINGS, ACK, 0);
                    }
                }
                PING => {
                    if flags & ACK == 0 {
                        put_frame_header(&mut self.wbuf, 8, PING, ACK, 0);
                        self.wbuf.extend_from_slice(payload);
                    }
                }
                GOAWAY => {
                    counts.goaway += 1;
                    self.going_away = true;
                }
                _ => {} // WINDOW_UPDATE, PRIORITY, PUSH_PROMISE (disabled), unknown: ignored
            }
        }
        self.rbuf = rbuf;
        self.rbuf.copy_within(pos..self.rlen, 0);
        self.rlen -= pos;
        if running {
            self.start_streams();
        }
        if self.going_away && self.active == 0 {
            self.dead = true;
        }
    }

    /// Streams opened so far.
    pub fn opened(&self) -> u64 {
        (self.next_id as u64 - 1) / 2
    }

    /// What is queued to send.
    pub fn outgoing(&self) -> &[u8] {
        &self.wbuf[self.wpos..]
    }

    /// `n` bytes of `outgoing` were sent.
    pub fn sent(&mut self, n: usize) {
        self.wpos += n;
        if self.wpos == self.wbuf.len() {
            self.wbuf.clear();
            self.wpos = 0;
        }
    }
}
