//! Histograms as text: HdrHistogram's compressed V2 encoding in base64, the form its log
//! files use, so results can be stored, exported and merged again exactly.

use base64::Engine;
use hdrhistogram::serialization::{
    DeserializeError, Deserializer, Serializer, V2DeflateSerializer,
};
use hdrhistogram::{Counter, Histogram};
use serde::{Deserialize, Serialize};

/// Why a text is not an encoded histogram.
#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    #[error("histogram is not base64: {0}")]
    NotBase64(#[from] base64::DecodeError),
    #[error("histogram does not decode: {0:?}")]
    Undecodable(#[from] DeserializeError),
}

/// A histogram kept encoded (compressed V2, base64; empty text: no samples). A type of
/// its own, not a `String`, so that the only way to its samples is [`Self::decode`]:
/// nobody reads an encoded histogram as an empty one by forgetting to decode it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EncodedHistogram(String);

impl EncodedHistogram {
    /// Encodes `h`.
    pub fn encode<T: Counter>(h: &Histogram<T>) -> EncodedHistogram {
        EncodedHistogram(encode_histogram(h))
    }

    /// The histogram, or None when the text is empty (a result made by hand may carry
    /// none: it has no samples).
    pub fn decode<T: Counter>(&self) -> Result<Option<Histogram<T>>, HistogramError> {
        match self.0.is_empty() {
            true => Ok(None),
            false => decode_histogram(&self.0).map(Some),
        }
    }

    /// The encoded text.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// True for the empty text: no histogram (none was kept, so no samples).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Encodes a histogram (compressed V2, base64).
pub fn encode_histogram<T: Counter>(h: &Histogram<T>) -> String {
    let mut bytes = Vec::new();
    // Serializing into a Vec cannot fail for histograms built by this crate.
    if V2DeflateSerializer::new().serialize(h, &mut bytes).is_err() {
        return String::new();
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Decodes what [`encode_histogram`] wrote.
pub fn decode_histogram<T: Counter>(text: &str) -> Result<Histogram<T>, HistogramError> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(text.trim())?;
    Ok(Deserializer::new().deserialize(&mut bytes.as_slice())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_exactly() {
        let mut h = crate::stats::latency_histogram();
        for v in [1_000u64, 20_000_000, 20_100_000, 3_000_000_000] {
            h.record(v).unwrap();
        }
        let back: Histogram<u64> = decode_histogram(&encode_histogram(&h)).unwrap();
        assert_eq!(back, h);
        assert!(decode_histogram::<u64>("not base64!").is_err());
        let typed = EncodedHistogram::encode(&h);
        assert_eq!(typed.decode::<u64>().unwrap(), Some(h));
        assert_eq!(EncodedHistogram::default().decode::<u64>().unwrap(), None);
    }
}
