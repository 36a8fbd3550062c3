//! Numbers with units, formatted the way wrk prints them.

/// A duration given in microseconds: `250.00us`, `1.25ms`, `3.10s`.
pub fn micros(us: f64) -> String {
    if us < 1000.0 {
        format!("{us:.2}us")
    } else if us < 1_000_000.0 {
        format!("{:.2}ms", us / 1e3)
    } else {
        format!("{:.2}s", us / 1e6)
    }
}

/// A byte count with binary prefixes: `512.00B`, `1.50KB`, `17.76GB`.
pub fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.2}{}", UNITS[i])
}

/// A count with metric prefixes: `950.00`, `56.20k`, `1.20M`.
pub fn metric(n: f64) -> String {
    if n < 1e3 {
        format!("{n:.2}")
    } else if n < 1e6 {
        format!("{:.2}k", n / 1e3)
    } else {
        format!("{:.2}M", n / 1e6)
    }
}

/// A whole number with thousands separated by commas: `25,809`.
pub fn grouped(n: f64) -> String {
    let digits = format!("{:.0}", n.abs());
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    if n < -0.5 {
        out.insert(0, '-');
    }
    out
}

/// `2026-11-22 04:31 UTC` from Unix milliseconds (times before 1970 read as 1970).
pub fn utc(unix_ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(unix_ms.max(0) as u64);
    // RFC 3339, `2026-11-22T04:31:05Z`, cut to the minute.
    let text = humantime::format_rfc3339_seconds(at).to_string();
    format!("{} {} UTC", &text[..10], &text[11..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_wrk() {
        assert_eq!(micros(250.0), "250.00us");
        assert_eq!(micros(1250.0), "1.25ms");
        assert_eq!(micros(3_100_000.0), "3.10s");
        assert_eq!(bytes(512.0), "512.00B");
        assert_eq!(bytes(1536.0), "1.50KB");
        assert_eq!(metric(56_200.0), "56.20k");
        assert_eq!(metric(12.0), "12.00");
        assert_eq!(grouped(25_809.4), "25,809");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(1_234_567.0), "1,234,567");
        assert_eq!(grouped(-1500.0), "-1,500");
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(1_795_321_405_936), "2026-11-22 04:23 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00 UTC");
    }
}
