//! What the TLS runs of a table negotiated, for its caption: the version, cipher suite
//! and key exchange group most contestants settled on, and each contestant that settled
//! on something else (a server chooses the suite among those the client offers; the
//! client offers the same to all).

use crate::model::RunRecord;
use engine::Negotiated;

/// What most contestants negotiated, and who negotiated otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    /// Version, suite and group, each the most common among contestants.
    typical: Option<[String; 3]>,
    /// Each contestant that differs, with its values that differ.
    otherwise: Vec<(String, Vec<String>)>,
}

impl Said {
    /// What `runs` (over TLS; others are passed over) negotiated.
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Said {
        let mut each: Vec<(&str, Vec<&Negotiated>)> = Vec::new();
        for r in runs {
            let Some(n) = (r.result()).and_then(|x| x.tls.as_ref()?.negotiated.as_ref()) else {
                continue;
            };
            let name = r.coordinates.contestant.as_str();
            match each.iter_mut().find(|(c, _)| *c == name) {
                Some((_, all)) => all.push(n),
                None => each.push((name, vec![n])),
            }
        }
        let merged: Vec<(&str, [String; 3])> = (each.into_iter())
            .filter_map(|(c, all)| Some((c, fields(&Negotiated::merged(all)?))))
            .collect();
        let values: Vec<&[String; 3]> = merged.iter().map(|(_, v)| v).collect();
        let Some(typical) = most_common(&values) else {
            return Said {
                typical: None,
                otherwise: Vec::new(),
            };
        };
        let otherwise = (merged.iter())
            .map(|(c, v)| {
                let differ = (0..3).filter(|&i| v[i] != typical[i]).map(|i| v[i].clone());
                (c.to_string(), differ.collect::<Vec<String>>())
            })
            .filter(|(_, differ)| !differ.is_empty())
            .collect();
        Said {
            typical: Some(typical),
            otherwise,
        }
    }

    /// `TLS 1.3, TLS13_AES_128_GCM_SHA256, key exchange X25519`, or that nothing was.
    pub fn caption(&self) -> String {
        match &self.typical {
            Some([version, suite, group]) => {
                format!("{version}, {suite}, key exchange {group}")
            }
            None => "no TLS handshake was measured".into(),
        }
    }

    /// `negotiated otherwise: c-x: TLS13_AES_256_GCM_SHA384`, when a contestant did.
    pub fn otherwise(&self) -> Option<String> {
        let each: Vec<String> = (self.otherwise.iter())
            .map(|(c, differ)| format!("{c}: {}", differ.join(", ")))
            .collect();
        (!each.is_empty()).then(|| format!("negotiated otherwise: {}", each.join("; ")))
    }
}

/// Version, suite and group as shown (`none` for no group: a resumed TLS 1.2 session).
fn fields(n: &Negotiated) -> [String; 3] {
    let group = n.group.clone().unwrap_or_else(|| "none".into());
    [n.version.clone(), n.suite.clone(), group]
}

/// Each field's most common value (the first seen among equals).
fn most_common(values: &[&[String; 3]]) -> Option<[String; 3]> {
    let field = |i: usize| {
        let count = |x: &String| values.iter().filter(|v| v[i] == *x).count();
        let mut best: Option<&String> = None;
        for v in values {
            if best.is_none_or(|b| count(&v[i]) > count(b)) {
                best = Some(&v[i]);
            }
        }
        best.cloned()
    };
    Some([field(0)?, field(1)?, field(2)?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;
    use crate::report::fixture::{hello_run, over_tls};

    fn run(contestant: &str, suite: &str) -> RunRecord {
        let mut r = hello_run(contestant, Label::Ok, 1000.0, 1.0);
        over_tls(&mut r, suite, 100, 0);
        r
    }

    #[test]
    fn the_caption_says_what_most_negotiated_and_names_the_others() {
        let runs = [
            run("go", "TLS13_AES_128_GCM_SHA256"),
            run("ossl", "TLS13_AES_256_GCM_SHA384"),
            run("hyper", "TLS13_AES_128_GCM_SHA256"),
            hello_run("clear", Label::Ok, 1000.0, 1.0),
        ];
        let said = Said::of(&runs);
        assert_eq!(
            said.caption(),
            "TLS 1.3, TLS13_AES_128_GCM_SHA256, key exchange X25519"
        );
        assert_eq!(
            said.otherwise().as_deref(),
            Some("negotiated otherwise: ossl: TLS13_AES_256_GCM_SHA384")
        );
        let none = Said::of(&runs[3..]);
        assert_eq!(none.caption(), "no TLS handshake was measured");
        assert_eq!(none.otherwise(), None);
    }
}
