//! An `https://` load's TLS settings as a saved load's header says them, in the words of
//! `shootout load`'s TLS flags: what it offered, whom it trusted, how it resumed.

use engine::{Resume, TlsSpec};

/// `TLS 1.2-1.3, ALPN http/1.1, trusting the system's CAs, groups X25519,secp256r1,
/// resume tickets`; suites only when chosen (the default list is the provider's, long).
pub fn line(tls: &TlsSpec) -> String {
    let mut out = vec![format!("TLS {}", tls.version)];
    out.push(match tls.alpn.is_empty() {
        true => "no ALPN".into(),
        false => format!("ALPN {}", joined(tls.alpn.iter().map(|a| a.as_str()))),
    });
    if let Some(sni) = &tls.sni {
        out.push(format!("SNI {}", sni.to_str()));
    }
    out.push(match (&tls.cacert, tls.insecure) {
        (_, true) => "insecure (any server certificate)".into(),
        (Some(certs), false) => format!("trusting --cacert ({})", certificates(certs.der().len())),
        (None, false) => "trusting the system's CAs".into(),
    });
    if tls.ciphers != TlsSpec::default().ciphers {
        out.push(format!(
            "ciphers {}",
            joined(tls.ciphers.iter().map(|c| c.name()))
        ));
    }
    out.push(format!(
        "groups {}",
        joined(tls.groups.iter().map(|g| g.name()))
    ));
    if tls.client.is_some() {
        out.push("a client certificate".into());
    }
    out.push(format!("resume {}", resume_word(tls.resume)));
    out.join(", ")
}

/// `1 certificate`, `2 certificates`.
pub fn certificates(n: usize) -> String {
    match n {
        1 => "1 certificate".into(),
        n => format!("{n} certificates"),
    }
}

fn joined<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(",")
}

/// `--tls-resume`'s word.
fn resume_word(resume: Resume) -> &'static str {
    match resume {
        Resume::Off => "off",
        Resume::Tickets => "tickets",
        Resume::Ids => "ids",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_chosen_settings_read_as_the_flags_set_them() {
        assert_eq!(
            line(&TlsSpec::default()),
            "TLS 1.2-1.3, ALPN http/1.1, trusting the system's CAs, groups X25519,secp256r1, \
             resume tickets"
        );
        let chosen: TlsSpec = serde_json::from_value(serde_json::json!({
            "version": "1.3", "alpn": [], "sni": "api.test", "insecure": true,
            "ciphers": ["TLS13_AES_128_GCM_SHA256"], "groups": ["X25519"], "resume": "off"
        }))
        .unwrap();
        assert_eq!(
            line(&chosen),
            "TLS 1.3, no ALPN, SNI api.test, insecure (any server certificate), ciphers \
             TLS13_AES_128_GCM_SHA256, groups X25519, resume off"
        );
    }
}
