//! Durations as users type them: `10s`, `500ms`, `2m`, `1h`, or plain seconds.

use std::time::Duration;

/// Why a text is not a duration; each message quotes the text as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("{text:?} is not a duration (try 10s, 500ms, 2m)")]
    NotANumber { text: String },
    #[error("{text:?}: unknown unit {unit:?} (use us, ms, s, m or h)")]
    UnknownUnit { text: String, unit: String },
    #[error("{text:?} is too long")]
    TooLong { text: String },
}

/// Parses `10s`, `500ms`, `250us`, `2m`, `1h`, `1.5s` or a plain number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| DurationError::NotANumber {
        text: text.to_string(),
    })?;
    let seconds = match unit {
        "" | "s" => value,
        "ms" => value / 1e3,
        "us" | "µs" => value / 1e6,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => {
            return Err(DurationError::UnknownUnit {
                text: text.to_string(),
                unit: unit.to_string(),
            })
        }
    };
    if !seconds.is_finite() || seconds > 1e9 {
        return Err(DurationError::TooLong {
            text: text.to_string(),
        });
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("ten").is_err());
        let unknown = parse_duration("5x").unwrap_err().to_string();
        assert_eq!(unknown, r#""5x": unknown unit "x" (use us, ms, s, m or h)"#);
        let ten = parse_duration("ten").unwrap_err().to_string();
        assert_eq!(ten, r#""ten" is not a duration (try 10s, 500ms, 2m)"#);
        let long = parse_duration("9999999999h").unwrap_err().to_string();
        assert_eq!(long, r#""9999999999h" is too long"#);
    }
}
