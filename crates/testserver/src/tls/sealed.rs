//! A record sealed by hand with a connection's sending key: for what rustls never sends on
//! request (an alert of our choosing, a record longer than TLS allows).

use rustls::crypto::cipher::{OutboundChunks, OutboundPlainMessage};
use rustls::{
    ConnectionTrafficSecrets, ContentType, ProtocolVersion, ServerConnection, SupportedCipherSuite,
};

/// Why a record could not be sealed by hand.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SealError {
    #[error("sealing a record by hand needs TLS 1.3, the connection has {0:?}")]
    NotTls13(Option<ProtocolVersion>),
    #[error("sealing a record by hand: {0}")]
    Rustls(#[from] rustls::Error),
    #[error("sealing a record by hand: a cipher rustls did not name when this was written")]
    UnknownCipher,
}

/// Seals `payload` as one record of `typ` with `conn`'s sending key and next sequence
/// number; rustls must have sent every record it made (see [`ServerConnection::wants_write`]),
/// or the client would read this one out of sequence.
pub(crate) fn seal(
    conn: ServerConnection,
    typ: ContentType,
    payload: &[u8],
) -> Result<Vec<u8>, SealError> {
    let Some(SupportedCipherSuite::Tls13(suite)) = conn.negotiated_cipher_suite() else {
        return Err(SealError::NotTls13(conn.protocol_version()));
    };
    let (seq, secrets) = conn.dangerous_extract_secrets()?.tx;
    let (key, iv) = match secrets {
        ConnectionTrafficSecrets::Aes128Gcm { key, iv }
        | ConnectionTrafficSecrets::Aes256Gcm { key, iv }
        | ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv } => (key, iv),
        _ => return Err(SealError::UnknownCipher),
    };
    let plain = OutboundPlainMessage {
        typ,
        // TLS 1.3 records name 1.2 in their header (RFC 8446 §5.1); the encrypter writes it.
        version: ProtocolVersion::TLSv1_2,
        payload: OutboundChunks::Single(payload),
    };
    let record = suite.aead_alg.encrypter(key, iv).encrypt(plain, seq)?;
    Ok(record.encode())
}
