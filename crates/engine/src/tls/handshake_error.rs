//! Why the pre-flight handshake failed, in one line that names the reason and the flag
//! that changes it: `certificate not valid for name "127.0.0.1", only for "localhost"
//! (use --sni NAME, or --insecure to skip verification)`.

use rustls::pki_types::UnixTime;
use rustls::{AlertDescription, CertificateError};
use std::io;
use std::time::Duration;

/// A TLS handshake that did not complete, or completed on terms the load cannot use.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("{}", certificate_text(.0))]
    Certificate(CertificateError),
    #[error("the server refused the TLS handshake: alert {}{}", alert_name(*.0), alert_hint(*.0))]
    Alert(AlertDescription),
    #[error("the server does not answer in TLS (is the URL http://?)")]
    NotTls,
    #[error("no TLS handshake within {} (--timeout)", crate::spec::format_duration(*.0))]
    TimedOut(Duration),
    #[error("the server closed the connection during the TLS handshake")]
    Closed,
    #[error("the server chose ALPN {chosen:?}; {}", alpn_hint(expected))]
    Alpn {
        chosen: String,
        expected: &'static str,
    },
    #[error("the server chose no ALPN protocol: it does not offer HTTP/2 over TLS (h2)")]
    NoH2,
    #[error("TLS handshake failed: {0}")]
    Tls(rustls::Error),
    #[error("TLS handshake failed: {0}")]
    Io(io::Error),
}

/// What to do when the server chose another protocol than the load's `expected` one.
fn alpn_hint(expected: &str) -> &'static str {
    match expected {
        "h2" => "the load speaks HTTP/2 (--alpn h2, or drop --http2)",
        _ => "the load speaks HTTP/1.1 (--alpn http/1.1, or --http2 to load it over HTTP/2)",
    }
}

impl HandshakeError {
    pub(super) fn of(e: rustls::Error) -> HandshakeError {
        match e {
            rustls::Error::InvalidCertificate(e) => HandshakeError::Certificate(e),
            rustls::Error::AlertReceived(alert) => HandshakeError::Alert(alert),
            rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
                HandshakeError::NotTls
            }
            e => HandshakeError::Tls(e),
        }
    }

    /// An error of a socket read or write, or of rustls wrapped in one by `complete_io`.
    pub(super) fn of_io(e: io::Error, timeout: Duration) -> HandshakeError {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                return HandshakeError::TimedOut(timeout)
            }
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe => return HandshakeError::Closed,
            _ => {}
        }
        let tls = e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>());
        match tls {
            Some(tls) => HandshakeError::of(tls.clone()),
            None => HandshakeError::Io(e),
        }
    }
}

/// The reason, then the flag that changes it.
fn certificate_text(e: &CertificateError) -> String {
    const SKIP: &str = "--insecure to skip verification";
    match e {
        CertificateError::NotValidForNameContext {
            expected,
            presented,
        } => format!(
            "certificate not valid for name {:?}{} (use --sni NAME, or {SKIP})",
            expected.to_str(),
            only_for(presented)
        ),
        CertificateError::NotValidForName => {
            format!("certificate not valid for the name asked (use --sni NAME, or {SKIP})")
        }
        CertificateError::ExpiredContext { not_after, .. } => {
            format!("certificate expired on {} (use {SKIP})", utc(*not_after))
        }
        CertificateError::Expired => format!("certificate expired (use {SKIP})"),
        CertificateError::NotValidYetContext { not_before, .. } => format!(
            "certificate not valid until {} (check the clock, or use {SKIP})",
            utc(*not_before)
        ),
        CertificateError::NotValidYet => {
            format!("certificate not valid yet (check the clock, or use {SKIP})")
        }
        CertificateError::UnknownIssuer => format!(
            "certificate issued by an unknown CA, or self-signed (use --cacert FILE with its \
             CA, or {SKIP})"
        ),
        e => format!("certificate rejected: {e} (use {SKIP})"),
    }
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
        [] => ", which names none".to_string(),
        names => {
            let quoted: Vec<String> = names.iter().map(bare).collect();
            format!(", only for {}", quoted.join(", "))
        }
    }
}

/// `handshake_failure`: the alert as RFC 8446 names it.
fn alert_name(alert: AlertDescription) -> String {
    let Some(name) = alert.as_str() else {
        return format!("{}", u8::from(alert));
    };
    let mut snake = String::new();
    for (i, c) in name.char_indices() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

/// Which settings an alert points at.
fn alert_hint(alert: AlertDescription) -> &'static str {
    use AlertDescription as A;
    match alert {
        A::HandshakeFailure | A::InsufficientSecurity | A::ProtocolVersion => {
            " (no version, cipher suite or group in common: see --tls-version, --ciphers, \
             --tls-groups)"
        }
        A::CertificateRequired => " (it wants a client certificate: --cert FILE --key FILE)",
        A::BadCertificate
        | A::UnsupportedCertificate
        | A::CertificateRevoked
        | A::CertificateExpired
        | A::CertificateUnknown
        | A::UnknownCA
        | A::AccessDenied => " (it refused the client certificate: see --cert, --key)",
        A::NoApplicationProtocol => " (no ALPN protocol in common: see --alpn)",
        A::UnrecognisedName => " (it does not know the name sent: see --sni)",
        _ => "",
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
