//! Why a server's certificate was refused, as a user reads it: the problem in words (with
//! the names and dates that tell which certificate), never rustls's or webpki's variant
//! names, and what helps, which each caller words in its own settings ([`Remedy`]).

use rustls::pki_types::UnixTime;

/// A refused server certificate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertificateRefusal {
    /// It signed itself and is not itself trusted.
    #[error("self-signed certificate{}, not a trusted one", quoted(.subject))]
    SelfSigned { subject: Option<String> },
    /// No trusted CA signed it, nor any CA the server sent that one signed.
    #[error(
        "certificate issued by {}, and the server sent no chain from it to a trusted CA",
        issuer.as_deref().map_or("a CA that is not trusted".into(), |i| format!("{i:?}, which is not trusted"))
    )]
    UnknownIssuer { issuer: Option<String> },
    /// A CA's certificate (`basicConstraints CA:TRUE`) served as the server's own, and not
    /// itself trusted: webpki refuses a CA as an end entity even under a trusted root.
    #[error("certificate{} says CA:TRUE, and a CA's certificate is trusted as a server's \
             only when it is itself a trusted one", quoted(.subject))]
    CaAsServer { subject: Option<String> },
    /// Not for the name asked; `presented`: the names it has.
    #[error("certificate not valid for name {expected:?}{}", only_for(.presented))]
    WrongName {
        expected: String,
        presented: Vec<String>,
    },
    /// Names no host at all: no subjectAltName (a subject CN alone is not checked, as
    /// browsers, Go and rustls do not).
    #[error("certificate names no host in a subjectAltName, and its subject's CN is not checked")]
    NoNames,
    #[error("certificate expired{}", on(.not_after))]
    Expired { not_after: Option<UnixTime> },
    #[error("certificate not valid until {}", not_before.map_or("later".into(), utc))]
    NotValidYet { not_before: Option<UnixTime> },
    /// Its extended key usage does not include serving TLS (serverAuth).
    #[error("certificate not for a TLS server: its extendedKeyUsage lacks serverAuth")]
    NotForServers,
    /// A certificate the server sent as an intermediate is not a CA's.
    #[error("the server sent a certificate as an intermediate CA that is not a CA's")]
    NotACa,
    /// A CA of the chain may not issue it: a path length or name constraint.
    #[error("certificate issued against a {0} constraint of a CA in its chain")]
    Constrained(&'static str),
    #[error("certificate revoked")]
    Revoked,
    #[error("certificate signature does not verify with its issuer's key")]
    BadSignature,
    #[error("certificate signed with an algorithm this build does not verify")]
    UnsupportedAlgorithm,
    /// Version 1 or 2: no extensions, so no names and no constraints.
    #[error("certificate of X.509 version 1 or 2, which cannot name a host as version 3 can")]
    OldVersion,
    #[error("certificate has a critical extension that is not understood")]
    CriticalExtension,
    /// Bytes that are no well-formed certificate; `what`: which part.
    #[error("certificate malformed in {what}")]
    Malformed { what: &'static str },
    /// A chain too long or tangled to check.
    #[error("certificate chain too long or complex to check")]
    TooComplex,
    /// What no other variant says, in words (never a type's debug text).
    #[error("certificate refused: {0}")]
    Other(String),
}

/// What helps: each caller names its own settings for these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// Trust the certificate itself (`--cacert` with it).
    TrustIt,
    /// Trust the CA that issued it (`--cacert` with that CA).
    TrustItsCa,
    /// Ask for a name it has (`--sni`).
    AnotherName,
    /// Make the certificate anew (nothing asked of the client changes it), as this says:
    /// `with -addext subjectAltName=DNS:NAME`.
    Remake(&'static str),
    /// Check the clock.
    Clock,
    /// Only skipping verification does.
    Skip,
}

impl CertificateRefusal {
    /// What helps with this refusal.
    pub fn remedy(&self) -> Remedy {
        use CertificateRefusal as R;
        match self {
            R::SelfSigned { .. } | R::CaAsServer { .. } => Remedy::TrustIt,
            R::UnknownIssuer { .. } => Remedy::TrustItsCa,
            R::WrongName { .. } => Remedy::AnotherName,
            R::NoNames => Remedy::Remake("with -addext subjectAltName=DNS:NAME"),
            R::OldVersion => Remedy::Remake("as X.509 version 3 (with extensions)"),
            R::NotForServers => Remedy::Remake("with extendedKeyUsage=serverAuth, or none"),
            R::NotValidYet { .. } => Remedy::Clock,
            _ => Remedy::Skip,
        }
    }
}

fn quoted(subject: &Option<String>) -> String {
    subject
        .as_deref()
        .map_or(String::new(), |s| format!(" {s:?}"))
}

fn on(time: &Option<UnixTime>) -> String {
    time.map_or(String::new(), |t| format!(" on {}", utc(t)))
}

/// `, only for "a", "b"`: the names the certificate has (webpki writes them as
/// `DnsName("a")` and `IpAddress(127.0.0.1)`).
fn only_for(presented: &[String]) -> String {
    let bare = |name: &String| {
        let inner = ["DnsName(", "IpAddress("]
            .iter()
            .find_map(|kind| name.strip_prefix(kind)?.strip_suffix(')'));
        let inner = inner.unwrap_or(name);
        format!("\"{}\"", inner.trim_matches('"'))
    };
    match presented {
        [] => String::new(),
        names => {
            let quoted: Vec<String> = names.iter().map(bare).collect();
            format!(", only for {}", quoted.join(", "))
        }
    }
}

/// `2024-01-31 23:59:59 UTC` (days to a civil date: Howard Hinnant's algorithm).
fn utc(time: UnixTime) -> String {
    let secs = time.as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s) = (rest / 3600, rest % 3600 / 60, rest % 60);
    format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02}:{s:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn refusals_read_as_one_line_with_their_names_and_dates() {
        let wrong = CertificateRefusal::WrongName {
            expected: "127.0.0.1".into(),
            presented: vec!["DnsName(\"localhost\")".into(), "IpAddress(::1)".into()],
        };
        assert_eq!(
            wrong.to_string(),
            "certificate not valid for name \"127.0.0.1\", only for \"localhost\", \"::1\""
        );
        let at = UnixTime::since_unix_epoch(Duration::from_secs(1_580_515_200));
        let expired = CertificateRefusal::Expired {
            not_after: Some(at),
        };
        assert_eq!(
            expired.to_string(),
            "certificate expired on 2020-02-01 00:00:00 UTC"
        );
        let unknown = CertificateRefusal::UnknownIssuer {
            issuer: Some("CN=intermediate".into()),
        };
        assert_eq!(
            unknown.to_string(),
            "certificate issued by \"CN=intermediate\", which is not trusted, and the server \
             sent no chain from it to a trusted CA"
        );
        let selfsigned = CertificateRefusal::SelfSigned { subject: None };
        assert_eq!(
            selfsigned.to_string(),
            "self-signed certificate, not a trusted one"
        );
    }
}
