//! `baseline`: the sum of `a` and `b`, as text, whether they come in the query of a GET or
//! in the body of a POST framed by its length or chunked; fresh numbers each request.

use super::super::{Probe, VerifyError};
use super::{number, Ask};

/// The largest number asked: sums stay well inside any integer type.
const MOST: u64 = 1_000_000;

/// Two GETs (a server that caches one answer fails the second), a POST with a
/// Content-Length body and a chunked one.
pub(super) fn check(p: &Probe, rng: &mut fastrand::Rng) -> Result<String, VerifyError> {
    let pairs: [(u64, u64); 4] = std::array::from_fn(|_| (rng.u64(1..=MOST), rng.u64(1..=MOST)));
    let form = |(a, b): (u64, u64)| format!("a={a}&b={b}");
    let post = |ab| Ask::post("/baseline", FORM, form(ab).into_bytes());
    let asks = [
        Ask::get(format!("/baseline?{}", form(pairs[0]))),
        Ask::get(format!("/baseline?{}", form(pairs[1]))),
        post(pairs[2]),
        post(pairs[3]).chunked(rng),
    ];
    for (ask, (a, b)) in asks.iter().zip(pairs) {
        number(p, ask, a + b)?;
    }
    Ok("4 sums right: 2 GETs, a POST with Content-Length, a chunked POST".into())
}

/// How the POSTs' bodies are typed: a form, as a browser sends one.
const FORM: &str = "application/x-www-form-urlencoded";
