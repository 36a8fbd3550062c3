//! Percentages as an experiment file writes them: `"5%"` (repeats' target, `[verdict]`'s
//! lines).

/// Why a text is not the percentage a field wants; each message quotes the text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PercentError {
    #[error("{0:?} is not a percentage like \"5%\"")]
    NotAPercentage(String),
    #[error("{0:?} must be above 0%")]
    NotAboveZero(String),
    #[error("{0:?} is above 100%")]
    AboveAll(String),
}

/// `"5%"` → 5: a number above 0, then `%`.
pub(super) fn parse(text: &str) -> Result<f64, PercentError> {
    let number = text.trim().strip_suffix('%');
    match number.map(|n| n.trim().parse::<f64>()) {
        Some(Ok(p)) if p.is_finite() && p > 0.0 => Ok(p),
        Some(Ok(_)) => Err(PercentError::NotAboveZero(text.to_string())),
        _ => Err(PercentError::NotAPercentage(text.to_string())),
    }
}

/// `"25%"` → 0.25: a share of a whole, within (0, 100%].
pub(super) fn share(text: &str) -> Result<f64, PercentError> {
    match parse(text)? {
        p if p <= 100.0 => Ok(p / 100.0),
        _ => Err(PercentError::AboveAll(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_numbers_above_zero_then_a_percent_sign() {
        assert_eq!(parse("5%"), Ok(5.0));
        assert_eq!(parse(" 0.5 % "), Ok(0.5));
        assert_eq!(
            parse("x%").unwrap_err().to_string(),
            "\"x%\" is not a percentage like \"5%\""
        );
        assert_eq!(parse("5"), Err(PercentError::NotAPercentage("5".into())));
        assert_eq!(
            parse("0%").unwrap_err().to_string(),
            "\"0%\" must be above 0%"
        );
    }

    #[test]
    fn a_share_is_at_most_the_whole() {
        assert_eq!(share("25%"), Ok(0.25));
        assert_eq!(share("100%"), Ok(1.0));
        assert_eq!(
            share("150%").unwrap_err().to_string(),
            "\"150%\" is above 100%"
        );
    }
}
