//! `upload`: the number of body bytes read, as text, for bodies of about 1 KB, 500 KB,
//! 2 MB and 20 MB, each a random few hundred bytes longer than its round size. The 500 KB
//! one goes chunked, with no Content-Length to echo; it and the 2 MB one are random bytes
//! (NULs, invalid UTF-8), which a server that reads text would miscount.

use super::super::{Probe, VerifyError};
use super::{number, Ask};

/// The round sizes, and how each goes: chunked, random bytes.
const BODIES: [(usize, bool, bool); 4] = [
    (1_000, false, false),
    (500_000, true, true),
    (2_000_000, false, true),
    (20_000_000, false, false),
];

const OCTETS: &str = "application/octet-stream";

/// Each body once, on a connection of its own.
pub(super) fn check(p: &Probe, rng: &mut fastrand::Rng) -> Result<String, VerifyError> {
    let mut sent = Vec::new();
    for (round, chunked, random) in BODIES {
        let len = round + rng.usize(1..1000);
        let body = match random {
            true => (0..len).map(|_| rng.u8(..)).collect(),
            false => vec![b'x'; len],
        };
        let mut ask = Ask::post("/upload", OCTETS, body);
        if chunked {
            ask = ask.chunked(rng);
        }
        number(p, &ask, len as u64)?;
        sent.push(format!("{len}{}", if chunked { " chunked" } else { "" }));
    }
    Ok(format!("bytes counted right: {}", sent.join(", ")))
}
