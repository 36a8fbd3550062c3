//! Why a TLS connection failed, in a fixed set of reasons, and their counts: a loop counts
//! into fixed slots on its hot path and names them only once, in its result.

use super::certificate::CertificateRefusal;
use rustls::{AlertDescription, CertificateError, Error, InvalidMessage};
use std::collections::BTreeMap;

/// Why a TLS connection failed: its requests end as [`crate::Outcome::Tls`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The server sent this fatal alert.
    Alert(AlertDescription),
    /// The server's certificate was rejected.
    Certificate(CertificateProblem),
    /// Bytes that are no TLS record, or a malformed message (a clear-text server answers
    /// a ClientHello with those).
    BadRecord,
    /// A record that did not decrypt (its authentication tag did not match).
    DecryptError,
    /// A message the protocol does not allow at that point.
    UnexpectedMessage,
    /// Nothing in common: version, cipher suite, key exchange group or signature scheme.
    Incompatible,
    /// The server broke the protocol in another way rustls names.
    PeerMisbehaved,
    /// A record longer than TLS allows.
    RecordOverflow,
    /// The server closed without close_notify while the response's body ran to the close:
    /// a truncation is indistinguishable from the end.
    Truncated,
    /// The server closed the connection during the handshake.
    ClosedInHandshake,
    /// The handshake did not finish within the load's timeout: its requests are
    /// [`crate::Outcome::Timeout`], as any other wait that outlasts it; this names where.
    HandshakeTimeout,
    /// Anything else rustls reports.
    Other,
    /// An HTTP/2 load's server did not choose h2 by ALPN.
    NoH2,
}

/// What was wrong with a rejected certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CertificateProblem {
    UnknownIssuer,
    NotValidForName,
    Expired,
    NotValidYet,
    Revoked,
    BadSignature,
    InvalidPurpose,
    BadEncoding,
    Other,
}

impl From<&CertificateError> for CertificateProblem {
    fn from(e: &CertificateError) -> CertificateProblem {
        use CertificateError as E;
        match e {
            E::UnknownIssuer => CertificateProblem::UnknownIssuer,
            E::NotValidForName | E::NotValidForNameContext { .. } => {
                CertificateProblem::NotValidForName
            }
            E::Expired | E::ExpiredContext { .. } => CertificateProblem::Expired,
            E::NotValidYet | E::NotValidYetContext { .. } => CertificateProblem::NotValidYet,
            E::Revoked => CertificateProblem::Revoked,
            E::BadSignature => CertificateProblem::BadSignature,
            E::InvalidPurpose | E::InvalidPurposeContext { .. } => {
                CertificateProblem::InvalidPurpose
            }
            E::BadEncoding => CertificateProblem::BadEncoding,
            E::Other(other) => match other.0.downcast_ref::<CertificateRefusal>() {
                Some(refusal) => refusal.into(),
                None => CertificateProblem::Other,
            },
            _ => CertificateProblem::Other,
        }
    }
}

/// The refusals certificate::PartialChain words itself.
impl From<&CertificateRefusal> for CertificateProblem {
    fn from(refusal: &CertificateRefusal) -> CertificateProblem {
        use CertificateRefusal as R;
        match refusal {
            R::SelfSigned { .. } | R::UnknownIssuer { .. } | R::CaAsServer { .. } => {
                CertificateProblem::UnknownIssuer
            }
            R::WrongName { .. } | R::NoNames => CertificateProblem::NotValidForName,
            R::Expired { .. } => CertificateProblem::Expired,
            R::NotValidYet { .. } => CertificateProblem::NotValidYet,
            R::Revoked => CertificateProblem::Revoked,
            R::BadSignature => CertificateProblem::BadSignature,
            R::NotForServers => CertificateProblem::InvalidPurpose,
            R::Malformed { .. } => CertificateProblem::BadEncoding,
            _ => CertificateProblem::Other,
        }
    }
}

impl From<&Error> for Failure {
    fn from(e: &Error) -> Failure {
        match e {
            Error::AlertReceived(alert) => Failure::Alert(*alert),
            Error::InvalidCertificate(c) => Failure::Certificate(c.into()),
            // A record header naming more than any TLS version allows (RFC 8446 §5.2 calls
            // that record_overflow; rustls reports it while deframing).
            Error::InvalidMessage(InvalidMessage::MessageTooLarge) => Failure::RecordOverflow,
            Error::InvalidMessage(_) => Failure::BadRecord,
            Error::DecryptError => Failure::DecryptError,
            Error::InappropriateMessage { .. } | Error::InappropriateHandshakeMessage { .. } => {
                Failure::UnexpectedMessage
            }
            Error::PeerIncompatible(_) => Failure::Incompatible,
            Error::PeerMisbehaved(_) => Failure::PeerMisbehaved,
            Error::PeerSentOversizedRecord => Failure::RecordOverflow,
            _ => Failure::Other,
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::from(&e)
    }
}

/// Alert descriptions are one byte: a counter for each.
const ALERTS: usize = 256;
/// The certificate problems, in [`CertificateProblem`] order.
const CERTIFICATE: [&str; 9] = [
    "unknown_issuer",
    "not_valid_for_name",
    "expired",
    "not_valid_yet",
    "revoked",
    "bad_signature",
    "invalid_purpose",
    "bad_encoding",
    "other",
];
/// The other reasons, in [`Failure`] order after `Certificate`.
const OTHER: [&str; 11] = [
    "bad_record",
    "decrypt_error",
    "unexpected_message",
    "incompatible",
    "peer_misbehaved",
    "record_overflow",
    "truncated",
    "closed_in_handshake",
    "handshake_timeout",
    "other",
    "no_h2",
];
const SLOTS: usize = ALERTS + CERTIFICATE.len() + OTHER.len();

/// How many TLS connections failed for each reason: fixed counters, so counting one costs
/// no allocation; [`Failures::named`] gives the table a result shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failures(Box<[u64; SLOTS]>);

impl Default for Failures {
    fn default() -> Self {
        Failures(Box::new([0; SLOTS]))
    }
}

impl Failures {
    /// Counts one failure.
    pub fn add(&mut self, failure: Failure) {
        self.0[slot(failure)] += 1;
    }

    /// Adds another loop's counts.
    pub fn merge(&mut self, other: &Failures) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a += b;
        }
    }

    /// The reasons that occurred, by name: `alert:handshake_failure`,
    /// `certificate:unknown_issuer`, `bad_record`, `truncated`, ...
    pub fn named(&self) -> BTreeMap<String, u64> {
        (self.0.iter().enumerate())
            .filter(|(_, &n)| n > 0)
            .map(|(i, &n)| (name(i), n))
            .collect()
    }
}

/// The counter of `failure`.
fn slot(failure: Failure) -> usize {
    let other = |i: usize| ALERTS + CERTIFICATE.len() + i;
    match failure {
        Failure::Alert(alert) => usize::from(u8::from(alert)),
        Failure::Certificate(c) => ALERTS + c as usize,
        Failure::BadRecord => other(0),
        Failure::DecryptError => other(1),
        Failure::UnexpectedMessage => other(2),
        Failure::Incompatible => other(3),
        Failure::PeerMisbehaved => other(4),
        Failure::RecordOverflow => other(5),
        Failure::Truncated => other(6),
        Failure::ClosedInHandshake => other(7),
        Failure::HandshakeTimeout => other(8),
        Failure::Other => other(9),
        Failure::NoH2 => other(10),
    }
}

/// The name of counter `i`.
fn name(i: usize) -> String {
    if i < ALERTS {
        let alert = AlertDescription::from(i as u8);
        return match alert.as_str() {
            Some(known) => format!("alert:{}", snake_case(known)),
            None => format!("alert:{i}"),
        };
    }
    let i = i - ALERTS;
    match CERTIFICATE.get(i) {
        Some(problem) => format!("certificate:{problem}"),
        None => OTHER[i - CERTIFICATE.len()].to_string(),
    }
}

/// `HandshakeFailure` as the RFCs write it: `handshake_failure` (`UnknownCA`: `unknown_ca`).
fn snake_case(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    let chars: Vec<char> = camel.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let word_start = c.is_ascii_uppercase()
            && i > 0
            && (chars[i - 1].is_ascii_lowercase()
                || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()));
        if word_start {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_its_own_named_counter() {
        let mut f = Failures::default();
        f.add(Failure::Alert(AlertDescription::HandshakeFailure));
        f.add(Failure::Alert(AlertDescription::UnknownCA));
        f.add(Failure::Alert(AlertDescription::from(0xfe)));
        f.add(Failure::Certificate(CertificateProblem::Other));
        f.add(Failure::Certificate(CertificateProblem::UnknownIssuer));
        f.add(Failure::BadRecord);
        f.add(Failure::HandshakeTimeout);
        f.add(Failure::Other);
        f.add(Failure::Other);
        let mut g = f.clone();
        g.merge(&f);
        let named = g.named();
        let want = [
            ("alert:254", 2),
            ("alert:handshake_failure", 2),
            ("alert:unknown_ca", 2),
            ("bad_record", 2),
            ("certificate:other", 2),
            ("certificate:unknown_issuer", 2),
            ("handshake_timeout", 2),
            ("other", 4),
        ];
        let got: Vec<(&str, u64)> = named.iter().map(|(k, &v)| (k.as_str(), v)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn rustls_errors_map_to_reasons() {
        let bad = Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType);
        assert_eq!(Failure::from(bad), Failure::BadRecord);
        let cert = Error::InvalidCertificate(CertificateError::UnknownIssuer);
        assert_eq!(
            Failure::from(cert),
            Failure::Certificate(CertificateProblem::UnknownIssuer)
        );
        assert_eq!(Failure::from(Error::DecryptError), Failure::DecryptError);
        let too_long = Error::InvalidMessage(InvalidMessage::MessageTooLarge);
        assert_eq!(Failure::from(too_long), Failure::RecordOverflow);
        let oversized = Error::PeerSentOversizedRecord;
        assert_eq!(Failure::from(oversized), Failure::RecordOverflow);
        assert_eq!(snake_case("BadRecordMac"), "bad_record_mac");
        assert_eq!(snake_case("UnknownPSKIdentity"), "unknown_psk_identity");
    }
}
