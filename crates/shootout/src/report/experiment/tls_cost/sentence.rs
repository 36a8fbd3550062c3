//! A row of the TLS table said in one sentence, for a reader who skips the columns:
//! `c-x spends 310 µs CPU per new client, 41 µs if the client resumes, 520 µs with an
//! RSA certificate; +6.0 µs per request over clear text`.

use super::figure::Figure;
use super::shown::{added, Shown};
use crate::contestant::catalog::TLS_CEILING;
use crate::report::experiment::marks::MARKED;

/// The sentence of `contestant` from its figures (each column's figure, `figures[i]`
/// paired with the request over TLS when it is the one in clear text), `percent` its share
/// of the TLS ceiling's capacity; None when it has no CPU figure.
pub fn sentence(
    contestant: &str,
    figures: &[(Figure, Shown, Option<Shown>)],
    percent: Option<String>,
) -> Option<String> {
    let clients: Vec<String> = (figures.iter())
        .filter_map(|(f, shown, _)| new_client(*f, *shown))
        .collect();
    let request = per_request(figures);
    let mut parts: Vec<String> = Vec::new();
    if !clients.is_empty() {
        parts.push(clients.join(", "));
    }
    parts.extend(request);
    // Said, not left out: a reader of the sentences should not miss that the new clients
    // went unmeasured (the notes say why: the server fell behind, ...).
    let unmeasured = clients.is_empty()
        && (figures.iter()).any(|(f, _, _)| matches!(f, Figure::NewClient { .. }));
    let subject = match unmeasured {
        true => format!("{contestant} has no figure per new client (see notes) and"),
        false => contestant.to_string(),
    };
    if parts.is_empty() {
        return None;
    }
    let of_ceiling = (percent.filter(|p| !p.is_empty() && contestant != TLS_CEILING))
        .map(|p| format!(" ({p} of {TLS_CEILING}'s keep-alive requests/s)"))
        .unwrap_or_default();
    Some(format!("{subject} spends {}{of_ceiling}", parts.join("; ")))
}

/// A new client's figure in words: `310 µs CPU per new client`, `41 µs if the client
/// resumes`, `no resumption (its clients could not resume)`.
fn new_client(figure: Figure, shown: Shown) -> Option<String> {
    let Figure::NewClient {
        certificate,
        resumed,
    } = figure
    else {
        return None;
    };
    let rsa = certificate == crate::store::Certificate::Rsa;
    let what = match (rsa, resumed) {
        (false, false) => "CPU per new client",
        (false, true) => "if the client resumes",
        (true, false) => "with an RSA certificate",
        (true, true) => "resumed with an RSA certificate",
    };
    match shown {
        Shown::Us { us, marked } => {
            Some(format!("{} µs{} {what}", figure.format(us), mark(marked)))
        }
        Shown::NoneResumed => Some(format!(
            "no resumption{} (no handshake resumed)",
            if rsa { " with an RSA certificate" } else { "" }
        )),
        Shown::Nothing => None,
    }
}

/// What TLS adds per request (`+6.0 µs per request over clear text`), or the request's
/// figure over TLS when clear text was not measured.
fn per_request(figures: &[(Figure, Shown, Option<Shown>)]) -> Option<String> {
    let more = (figures.iter())
        .find_map(|(_, clear, tls)| added((*tls)?, *clear))
        .map(|more| format!("{more} µs per request over clear text"));
    more.or_else(|| {
        figures.iter().find_map(|(f, shown, _)| match (f, shown) {
            (Figure::Request { tls: true }, Shown::Us { us, marked }) => Some(format!(
                "{} µs{} per request over TLS",
                f.format(*us),
                mark(*marked)
            )),
            _ => None,
        })
    })
}

fn mark(marked: bool) -> &'static str {
    if marked {
        MARKED
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Certificate::{Ecdsa, Rsa};

    fn us(us: f64) -> Shown {
        Shown::Us { us, marked: false }
    }

    #[test]
    fn a_row_reads_as_the_issue_says_it() {
        let tls = us(28.1);
        let figures = [
            (
                Figure::NewClient {
                    certificate: Ecdsa,
                    resumed: false,
                },
                us(310.2),
                None,
            ),
            (
                Figure::NewClient {
                    certificate: Ecdsa,
                    resumed: true,
                },
                us(41.0),
                None,
            ),
            (
                Figure::NewClient {
                    certificate: Rsa,
                    resumed: false,
                },
                us(520.0),
                None,
            ),
            (Figure::Request { tls: true }, tls, None),
            (Figure::Request { tls: false }, us(22.1), Some(tls)),
        ];
        assert_eq!(
            sentence("c-x", &figures, Some("61%".into())).as_deref(),
            Some(
                "c-x spends 310 µs CPU per new client, 41 µs if the client resumes, 520 µs \
                 with an RSA certificate; +6.0 µs per request over clear text (61% of \
                 c-epoll-tls's keep-alive requests/s)"
            )
        );
    }

    #[test]
    fn a_client_that_could_not_resume_is_said_so_and_nothing_measured_says_nothing() {
        let figures = [
            (
                Figure::NewClient {
                    certificate: Ecdsa,
                    resumed: false,
                },
                Shown::Us {
                    us: 300.0,
                    marked: true,
                },
                None,
            ),
            (
                Figure::NewClient {
                    certificate: Ecdsa,
                    resumed: true,
                },
                Shown::NoneResumed,
                None,
            ),
            (Figure::Request { tls: true }, us(9.5), None),
        ];
        assert_eq!(
            sentence("c-y", &figures, None).as_deref(),
            Some(
                "c-y spends 300 µs† CPU per new client, no resumption (no handshake \
                 resumed); 9.5 µs per request over TLS"
            )
        );
        let nothing = [(Figure::Request { tls: true }, Shown::Nothing, None)];
        assert_eq!(sentence("c-z", &nothing, None), None);
    }

    #[test]
    fn new_clients_that_went_unmeasured_are_said_so() {
        let full = Figure::NewClient {
            certificate: Ecdsa,
            resumed: false,
        };
        let figures = [
            (full, Shown::Nothing, None),
            (Figure::Request { tls: true }, us(9.5), None),
        ];
        assert_eq!(
            sentence("java", &figures, None).as_deref(),
            Some(
                "java has no figure per new client (see notes) and spends 9.5 µs per \
                 request over TLS"
            )
        );
    }
}
