//! Every way rustls and webpki say a certificate was refused, read into a
//! [`CertificateRefusal`]. rustls names some itself and passes the rest on wrapped
//! (`CertificateError::Other`): webpki's own errors, whose text is their debug form
//! (`Other(OtherError(CaUsedAsEndEntity))`), and the refusals partial_chain makes.

use super::CertificateRefusal as R;
use rustls::{CertificateError, OtherError};

impl R {
    /// The refusal `e` is, if it is one.
    pub fn of(e: &rustls::Error) -> Option<R> {
        match e {
            rustls::Error::InvalidCertificate(e) => Some(e.into()),
            _ => None,
        }
    }

    /// The refusal in an error of a rustls stream (`complete_io` wraps rustls's in one),
    /// if there is one.
    pub fn of_io(e: &std::io::Error) -> Option<R> {
        let tls = e.get_ref()?.downcast_ref::<rustls::Error>()?;
        R::of(tls)
    }
}

impl From<&CertificateError> for R {
    fn from(e: &CertificateError) -> R {
        use CertificateError as E;
        match e {
            E::NotValidForNameContext {
                expected,
                presented,
            } => match presented.is_empty() {
                true => R::NoNames,
                false => R::WrongName {
                    expected: expected.to_str().into_owned(),
                    presented: presented.clone(),
                },
            },
            E::NotValidForName => R::Other("not valid for the name asked".into()),
            E::ExpiredContext { not_after, .. } => R::Expired {
                not_after: Some(*not_after),
            },
            E::Expired => R::Expired { not_after: None },
            E::NotValidYetContext { not_before, .. } => R::NotValidYet {
                not_before: Some(*not_before),
            },
            E::NotValidYet => R::NotValidYet { not_before: None },
            E::UnknownIssuer => R::UnknownIssuer { issuer: None },
            E::Revoked => R::Revoked,
            E::BadSignature => R::BadSignature,
            E::BadEncoding => R::Malformed { what: "encoding" },
            E::UnhandledCriticalExtension => R::CriticalExtension,
            E::InvalidPurpose | E::InvalidPurposeContext { .. } => R::NotForServers,
            E::Other(other) => of_other(other),
            e => of_rest(e),
        }
    }
}

/// What no setting of shootout's brings about (revocation lists, OCSP, an application's
/// own check), and signature algorithms.
fn of_rest(e: &CertificateError) -> R {
    use CertificateError as E;
    match e {
        E::UnknownRevocationStatus
        | E::ExpiredRevocationList
        | E::ExpiredRevocationListContext { .. } => {
            R::Other("its revocation status is unknown".into())
        }
        E::InvalidOcspResponse => R::Other("the OCSP response stapled is not valid".into()),
        E::ApplicationVerificationFailure => R::Other("the application's check failed".into()),
        _ if is_unsupported_algorithm(e) => R::UnsupportedAlgorithm,
        _ => R::Other("no reason given".into()),
    }
}

#[allow(deprecated)] // UnsupportedSignatureAlgorithm: older rustls still makes it.
fn is_unsupported_algorithm(e: &CertificateError) -> bool {
    matches!(
        e,
        CertificateError::UnsupportedSignatureAlgorithm
            | CertificateError::UnsupportedSignatureAlgorithmContext { .. }
            | CertificateError::UnsupportedSignatureAlgorithmForPublicKeyContext { .. }
    )
}

/// A refusal of partial_chain's, or one of webpki's that rustls did not name.
fn of_other(other: &OtherError) -> R {
    if let Some(refusal) = other.0.downcast_ref::<R>() {
        return refusal.clone();
    }
    match other.0.downcast_ref::<webpki::Error>() {
        Some(e) => of_webpki(e),
        None => R::Other(other.0.to_string()),
    }
}

/// webpki's errors that rustls passes on as they are.
fn of_webpki(e: &webpki::Error) -> R {
    use webpki::Error as W;
    match e {
        W::CaUsedAsEndEntity => R::CaAsServer { subject: None },
        W::EndEntityUsedAsCa => R::NotACa,
        W::PathLenConstraintViolated => R::Constrained("path length"),
        W::NameConstraintViolation => R::Constrained("name"),
        W::UnsupportedCertVersion => R::OldVersion,
        W::UnsupportedCriticalExtension => R::CriticalExtension,
        W::EmptyEkuExtension => R::NotForServers,
        W::SignatureAlgorithmMismatch => R::BadSignature,
        W::UnsupportedNameType => R::Other("the name asked is of a kind it cannot be for".into()),
        W::MaximumNameConstraintComparisonsExceeded
        | W::MaximumPathBuildCallsExceeded
        | W::MaximumPathDepthExceeded
        | W::MaximumSignatureChecksExceeded => R::TooComplex,
        e => R::Malformed {
            what: malformed_part(e),
        },
    }
}

/// Which part of a malformed certificate webpki could not read.
fn malformed_part(e: &webpki::Error) -> &'static str {
    use webpki::Error as W;
    match e {
        W::BadDerTime | W::InvalidCertValidity => "its validity dates",
        W::InvalidSerialNumber => "its serial number",
        W::MalformedDnsIdentifier => "a DNS name in it",
        W::MalformedNameConstraint | W::InvalidNetworkMaskConstraint => "a name constraint",
        W::MalformedExtensions | W::ExtensionValueInvalid => "its extensions",
        _ => "its encoding",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn webpki(e: webpki::Error) -> CertificateError {
        CertificateError::Other(OtherError(Arc::new(e)))
    }

    #[test]
    fn webpki_errors_that_rustls_passes_on_wrapped_are_named_in_words() {
        let ca = R::from(&webpki(webpki::Error::CaUsedAsEndEntity));
        assert_eq!(ca, R::CaAsServer { subject: None });
        assert_eq!(
            ca.to_string(),
            "certificate says CA:TRUE, and a CA's certificate is trusted as a server's only \
             when it is itself a trusted one"
        );
        let v1 = R::from(&webpki(webpki::Error::UnsupportedCertVersion));
        assert_eq!(v1, R::OldVersion);
        let bad = R::from(&webpki(webpki::Error::BadDer));
        assert_eq!(bad.to_string(), "certificate malformed in its encoding");
    }

    #[test]
    fn a_refusal_of_partial_chain_comes_back_as_it_went() {
        let made = R::SelfSigned {
            subject: Some("CN=localhost".into()),
        };
        let wrapped = CertificateError::Other(OtherError(Arc::new(made.clone())));
        assert_eq!(R::from(&wrapped), made);
    }

    #[test]
    fn no_refusal_reads_as_debug_text() {
        #[allow(deprecated)]
        let all = [
            CertificateError::BadEncoding,
            CertificateError::Expired,
            CertificateError::NotValidYet,
            CertificateError::Revoked,
            CertificateError::UnhandledCriticalExtension,
            CertificateError::UnknownIssuer,
            CertificateError::UnknownRevocationStatus,
            CertificateError::ExpiredRevocationList,
            CertificateError::BadSignature,
            CertificateError::UnsupportedSignatureAlgorithm,
            CertificateError::NotValidForName,
            CertificateError::InvalidPurpose,
            CertificateError::InvalidOcspResponse,
            CertificateError::ApplicationVerificationFailure,
            webpki(webpki::Error::EndEntityUsedAsCa),
            webpki(webpki::Error::MaximumPathDepthExceeded),
            webpki(webpki::Error::TrailingData(webpki::DerTypeId::Certificate)),
            webpki(webpki::Error::MalformedExtensions),
        ];
        for e in all {
            let text = R::from(&e).to_string();
            assert!(!looks_like_debug_text(&text), "{e:?}: {text}");
        }
    }

    /// A Rust type's debug form: `Other(OtherError(CaUsedAsEndEntity))`, `Foo { .. }`.
    fn looks_like_debug_text(text: &str) -> bool {
        let camel_case = |word: &str| {
            let mut chars = word.chars();
            chars.next().is_some_and(|c| c.is_ascii_uppercase())
                && chars.clone().next().is_some_and(|c| c.is_ascii_lowercase())
                && chars.any(|c| c.is_ascii_uppercase())
        };
        let mut words = text.split(|c: char| !c.is_ascii_alphanumeric());
        text.contains("Other") || text.contains(['{', '}', '_']) || words.any(camel_case)
    }
}
