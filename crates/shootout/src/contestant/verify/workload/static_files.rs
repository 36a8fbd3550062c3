//! `static`: files of the corpus (three text files and one binary, drawn afresh each
//! time) asked for as they are and with `Accept-Encoding: gzip` and `br`; each answer's
//! body, decoded as its `Content-Encoding` says, must be the file, and its `Content-Type`
//! one of its extension's. A text file has precompressed siblings, so gzip asked is gzip
//! served; brotli not served is flagged, not failed (Debian's nginx has no brotli). A
//! file that does not exist is a 404.

use super::super::exchange::Reply;
use super::super::{Probe, VerifyError};
use super::{answered, send, Ask, Passed, Wrong};
use crate::workload::corpus::{self, File};
use std::io::Read;

/// What a request accepts, in the order asked.
const ENCODINGS: [Option<&str>; 3] = [None, Some("gzip"), Some("br")];

/// The drawn files in each encoding, then a missing one.
pub(super) fn check(p: &Probe, rng: &mut fastrand::Rng) -> Result<Passed, VerifyError> {
    let files = corpus::files();
    let (mut text, mut binary): (Vec<&File>, Vec<&File>) =
        files.iter().partition(|f| f.declared.kind.compressible());
    rng.shuffle(&mut text);
    rng.shuffle(&mut binary);
    let picked: Vec<&File> = text
        .into_iter()
        .take(3)
        .chain(binary.into_iter().take(1))
        .collect();
    let mut no_br = false;
    for f in &picked {
        for accepted in ENCODINGS {
            let served = one(p, f, accepted)?;
            let precompressed = f.declared.kind.compressible();
            no_br |= precompressed && accepted == Some("br") && served.is_none();
        }
    }
    let missing = format!("/static/missing-{}.txt", rng.u32(..));
    let r = send(p, &Ask::get(missing.clone()))?;
    if r.status != 404 {
        return Err(Wrong::NotMissing(r.status).into());
    }
    let names: Vec<&str> = picked.iter().map(|f| f.declared.name).collect();
    Ok(Passed {
        detail: format!(
            "{} right with no encoding, gzip and br accepted; 404 for {missing}",
            names.join(", ")
        ),
        note: no_br.then(|| "br asked, not served (identity instead)".to_string()),
    })
}

/// `f` asked for accepting `accepted`; the encoding it was served in.
fn one(p: &Probe, f: &File, accepted: Option<&str>) -> Result<Option<&'static str>, VerifyError> {
    let mut ask = Ask::get(format!("/static/{}", f.declared.name));
    if let Some(e) = accepted {
        ask = ask.with(format!("Accept-Encoding: {e}"));
    }
    let types = f.declared.kind.content_types();
    answered(p, &ask, types, |r| {
        if r.status != 200 {
            return Err(Wrong::value("status", r.status, 200).into());
        }
        let (served, plain) = decoded(r, accepted)?;
        let precompressed = f.declared.kind.compressible();
        if accepted == Some("gzip") && served.is_none() && precompressed {
            return Err(Wrong::NotPrecompressed(f.declared.name.to_string()).into());
        }
        same(&plain, &f.bytes)?;
        Ok(served)
    })
}

/// The body of `r` decoded as its Content-Encoding says, and that encoding (None for
/// identity); an encoding that was not `accepted` is wrong.
fn decoded(r: &Reply, accepted: Option<&str>) -> Result<(Option<&'static str>, Vec<u8>), Wrong> {
    let encoding = r.header("content-encoding").unwrap_or("identity");
    let served = match encoding.to_ascii_lowercase().as_str() {
        "identity" => return Ok((None, r.body.clone())),
        "gzip" => "gzip",
        "br" => "br",
        _ => return Err(Wrong::Unasked(encoding.to_string())),
    };
    if accepted != Some(served) {
        return Err(Wrong::Unasked(encoding.to_string()));
    }
    let mut plain = Vec::new();
    let read = match served {
        "gzip" => flate2::read::GzDecoder::new(&r.body[..]).read_to_end(&mut plain),
        _ => brotli::Decompressor::new(&r.body[..], 4096).read_to_end(&mut plain),
    };
    read.map_err(|e| Wrong::Undecodable {
        encoding: served,
        error: e.to_string(),
    })?;
    Ok((Some(served), plain))
}

/// `got` is the file `want`, or where it first differs.
fn same(got: &[u8], want: &[u8]) -> Result<(), Wrong> {
    if got == want {
        return Ok(());
    }
    let at = (got.iter().zip(want))
        .position(|(g, w)| g != w)
        .unwrap_or(got.len().min(want.len()));
    Err(Wrong::FileBytes {
        got: got.len(),
        want: want.len(),
        at,
    })
}
