//! The header rules every workload answer is held to when strict: `Content-Type` exact
//! for its kind (a parameter such as `charset` is let through), and a `Date` that parses
//! as an HTTP date and is now, within a generous window; and, once per verify, a Date
//! that changes from one answer to a later one (a server that stamps a date once fails).

use super::super::exchange::Reply;
use super::super::{check, Check, Probe, VerifyError};
use super::Wrong;
use std::time::{Duration, Instant, SystemTime};

/// How far from now a Date may be: a second's resolution and a busy machine's delays
/// are well inside it, a date stamped at start and never again soon is not.
const WINDOW: Duration = Duration::from_secs(120);

/// How long `date_changes` waits for a new Date: a second's resolution, and slack.
const CHANGE_PATIENCE: Duration = Duration::from_secs(4);

/// How often `date_changes` asks again.
const POLL: Duration = Duration::from_millis(100);

/// `reply`'s Content-Type is one of `want` and its Date is now.
pub(super) fn hold(reply: &Reply, want: &[&str]) -> Result<(), VerifyError> {
    let got = reply.header("content-type");
    let media = got.map(|v| v.split(';').next().unwrap_or(v).trim().to_ascii_lowercase());
    if !media.is_some_and(|m| want.contains(&m.as_str())) {
        return Err(Wrong::ContentType {
            got: got.map_or("none".to_string(), |g| format!("{g:?}")),
            want: want.join(" or "),
        }
        .into());
    }
    let date = reply.header("date").ok_or(VerifyError::NoDate)?;
    now(date)?;
    Ok(())
}

/// `date` parses as an HTTP date within [`WINDOW`] of now.
fn now(date: &str) -> Result<(), Wrong> {
    let at = httpdate::parse_http_date(date).map_err(|_| Wrong::DateFormat(date.into()))?;
    let now = SystemTime::now();
    let seconds = match at.duration_since(now) {
        Ok(ahead) => ahead.as_secs() as i64,
        Err(behind) => -(behind.duration().as_secs() as i64),
    };
    match seconds.unsigned_abs() <= WINDOW.as_secs() {
        true => Ok(()),
        false => Err(Wrong::DateAway {
            date: date.into(),
            seconds,
        }),
    }
}

/// The framing endpoint's Date changes: asked again every [`POLL`] until it differs
/// from the first answer's, for at most [`CHANGE_PATIENCE`].
pub(in super::super) fn date_changes(p: &Probe) -> Check {
    let dated = || -> Result<String, VerifyError> {
        let mut s = p.connect()?;
        let r = p.exchange(&mut s, p.endpoint, "HTTP/1.1", "")?;
        let date = r.header("date").ok_or(VerifyError::NoDate)?;
        now(date)?;
        Ok(date.to_string())
    };
    let result = (|| {
        let first = dated()?;
        let t0 = Instant::now();
        loop {
            std::thread::sleep(POLL);
            let next = dated()?;
            let waited = t0.elapsed();
            if next != first {
                return Ok(format!(
                    "{first:?} became {next:?} after {:.1} s",
                    waited.as_secs_f64()
                ));
            }
            if waited >= CHANGE_PATIENCE {
                let seconds = waited.as_secs_f64();
                return Err(Wrong::DateStuck {
                    date: first,
                    seconds,
                }
                .into());
            }
        }
    })();
    check("date", result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(headers: &[(&str, &str)]) -> Reply {
        Reply {
            headers: (headers.iter())
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            ..Reply::default()
        }
    }

    #[test]
    fn the_media_type_must_be_exact_and_the_date_now() {
        let date = httpdate::fmt_http_date(SystemTime::now());
        let ok = reply(&[
            ("content-type", "text/plain; charset=utf-8"),
            ("date", &date),
        ]);
        assert!(hold(&ok, &["text/plain"]).is_ok());
        let html = reply(&[("content-type", "text/html"), ("date", &date)]);
        let e = hold(&html, &["text/plain"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Content-Type \"text/html\" (want text/plain)"
        );
        let none = reply(&[("date", &date)]);
        let e = hold(&none, &["application/json"]).unwrap_err();
        assert_eq!(e.to_string(), "Content-Type none (want application/json)");
        let dateless = reply(&[("content-type", "text/plain")]);
        assert_eq!(
            hold(&dateless, &["text/plain"]).unwrap_err().to_string(),
            "no Date header"
        );
        let old = "Thu, 01 Jan 1970 00:00:00 GMT";
        assert!(matches!(now(old), Err(Wrong::DateAway { .. })));
        assert_eq!(now("yesterday"), Err(Wrong::DateFormat("yesterday".into())));
    }
}
