//! Where HTTP/2 broke down in a row's runs: the requests that got no response and why
//! (streams reset, connections ended in a protocol error, timeouts), the RST_STREAM and
//! GOAWAY frames the server sent by error code, the errors the client found, and the
//! requests sent again (left above a GOAWAY, or refused once).

use crate::report::experiment::row::Row;
use crate::units;
use engine::{Counts, H2Summary};
use std::collections::BTreeMap;

/// What the runs of a row that measured something add up to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Breakdown {
    pub requests: Counts,
    pub h2: H2Summary,
}

impl Breakdown {
    /// The sums over `row`'s runs with a result (any label: a run that broke down may be
    /// the one that did not count).
    pub fn of(row: &Row) -> Breakdown {
        let results: Vec<_> = row.runs.iter().filter_map(|r| r.result()).collect();
        let mut requests = Counts::default();
        for r in &results {
            requests.merge(&r.requests);
        }
        Breakdown {
            requests,
            h2: H2Summary::merged(results.iter().filter_map(|r| r.h2.as_ref())),
        }
    }

    /// True when nothing went wrong and nothing was sent again.
    pub fn is_clean(&self) -> bool {
        self.what_went_wrong().is_empty()
    }

    /// `3.1% of requests failed (1,234 reset, 20 h2); RST_STREAM REFUSED_STREAM ×1,234;
    /// GOAWAY NO_ERROR ×12; 300 sent again`; empty when nothing did.
    pub fn text(&self) -> String {
        self.what_went_wrong().join("; ")
    }

    fn what_went_wrong(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(failed) = self.failed() {
            out.push(failed);
        }
        out.extend(frames("RST_STREAM", &self.h2.resets));
        out.extend(frames("GOAWAY", &self.h2.goaways));
        if !self.h2.errors.is_empty() {
            let first = (self.h2.first_error.as_deref())
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default();
            out.push(format!(
                "the client ended connections with {}{first}",
                counted(&self.h2.errors)
            ));
        }
        if self.h2.retried > 0 {
            out.push(format!(
                "{} sent again",
                units::grouped(self.h2.retried as f64)
            ));
        }
        out
    }

    /// `3.1% of requests failed (1,234 reset, 20 h2)`, None when none did.
    fn failed(&self) -> Option<String> {
        let c = &self.requests;
        let errors = c.errors();
        if errors == 0 {
            return None;
        }
        let classes = [
            ("reset", c.reset),
            ("h2", c.h2),
            ("timeout", c.timeout),
            ("connect", c.connect),
            ("read", c.read),
            ("write", c.write),
            ("parse", c.parse),
            ("tls", c.tls),
            ("wrong", c.wrong),
            ("dropped", c.dropped),
        ];
        let each: Vec<String> = (classes.iter())
            .filter(|(_, n)| *n > 0)
            .map(|(class, n)| format!("{} {class}", units::grouped(*n as f64)))
            .collect();
        let share = 100.0 * errors as f64 / c.total().max(1) as f64;
        Some(format!(
            "{} of requests failed ({})",
            percent(share),
            each.join(", ")
        ))
    }
}

/// `0.02%`, `3.1%`, `45%`: enough digits that a few failures out of millions show, and
/// never a share that reads as none.
fn percent(share: f64) -> String {
    match share {
        s if s >= 10.0 => format!("{s:.0}%"),
        s if s >= 0.1 => format!("{s:.1}%"),
        s if s >= 0.01 => format!("{s:.2}%"),
        _ => "<0.01%".into(),
    }
}

/// `GOAWAY NO_ERROR ×12, PROTOCOL_ERROR ×1`, None without any.
fn frames(kind: &str, by_code: &BTreeMap<String, u64>) -> Option<String> {
    (!by_code.is_empty()).then(|| format!("{kind} {}", counted(by_code)))
}

/// `NO_ERROR ×12, PROTOCOL_ERROR ×1`
fn counted(by_code: &BTreeMap<String, u64>) -> String {
    let each: Vec<String> = (by_code.iter())
        .map(|(code, n)| format!("{code} ×{}", units::grouped(*n as f64)))
        .collect();
    each.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_broke_down_is_said_by_class_and_code() {
        let mut b = Breakdown::default();
        b.requests.ok = 96_000;
        assert!(b.is_clean());
        assert_eq!(b.text(), "");
        b.requests.reset = 3_000;
        b.requests.h2 = 1_000;
        b.h2.resets.insert("REFUSED_STREAM".into(), 3_000);
        b.h2.goaways.insert("NO_ERROR".into(), 12);
        b.h2.errors.insert("PROTOCOL_ERROR".into(), 2);
        b.h2.first_error = Some("a HEADERS frame on stream 0".into());
        b.h2.retried = 300;
        assert!(!b.is_clean());
        assert_eq!(
            b.text(),
            "4.0% of requests failed (3,000 reset, 1,000 h2); RST_STREAM REFUSED_STREAM \
             ×3,000; GOAWAY NO_ERROR ×12; the client ended connections with PROTOCOL_ERROR \
             ×2 (first: a HEADERS frame on stream 0); 300 sent again"
        );
    }

    #[test]
    fn a_few_failures_out_of_many_still_show() {
        assert_eq!(percent(0.004), "<0.01%");
        assert_eq!(percent(0.02), "0.02%");
        assert_eq!(percent(45.2), "45%");
    }
}
