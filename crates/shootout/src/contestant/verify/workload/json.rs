//! `json`: the dataset's first `count` items, each with `total = price * quantity * m`,
//! as `{"count": N, "items": [...]}`; parsed and compared by value (numbers within a
//! rounding error, whatever a server's float printing), for a fresh count and `m` each
//! request, `m` never 1 (a server that ignores it fails).

use super::super::{Probe, VerifyError};
use super::{answered, Ask, Wrong};
use crate::workload::dataset::{self, JsonAnswer, Priced, ITEMS};

/// Two requests, each its own count and multiplier.
pub(super) fn check(p: &Probe, rng: &mut fastrand::Rng) -> Result<String, VerifyError> {
    let items = dataset::items();
    let mut asked = Vec::new();
    for _ in 0..2 {
        let (count, m) = (rng.usize(1..=ITEMS), rng.u64(2..=10));
        let want = dataset::answer(&items, count, m);
        let ask = Ask::get(format!("/json/{count}?m={m}"));
        answered(p, &ask, &["application/json"], |r| {
            if r.status != 200 {
                return Err(Wrong::value("status", r.status, 200).into());
            }
            let got: JsonAnswer =
                serde_json::from_slice(&r.body).map_err(|e| Wrong::Json(e.to_string()))?;
            Ok(compare(&got, &want)?)
        })?;
        asked.push(format!("{count} items at m={m}"));
    }
    Ok(format!("values right: {}", asked.join(", ")))
}

/// The first difference between `got` and `want`.
fn compare(got: &JsonAnswer, want: &JsonAnswer) -> Result<(), Wrong> {
    if got.count != want.count {
        return Err(Wrong::value("count", got.count, want.count));
    }
    if got.items.len() != want.items.len() {
        return Err(Wrong::value("items", got.items.len(), want.items.len()));
    }
    for (i, (g, w)) in got.items.iter().zip(&want.items).enumerate() {
        item(g, w).map_err(|(field, got, want)| {
            Wrong::value(format!("item {i} (id {}): {field}", w.id), got, want)
        })?;
    }
    Ok(())
}

/// The first field of `g` that differs from `w`'s: its name and both values.
fn item(g: &Priced, w: &Priced) -> Result<(), (&'static str, String, String)> {
    let differs = |field, got: &dyn ToString, want: &dyn ToString| {
        Err((field, got.to_string(), want.to_string()))
    };
    if g.id != w.id {
        return differs("id", &g.id, &w.id);
    }
    if g.name != w.name {
        return differs("name", &format!("{:?}", g.name), &format!("{:?}", w.name));
    }
    if g.quantity != w.quantity {
        return differs("quantity", &g.quantity, &w.quantity);
    }
    if !close(g.price, w.price) {
        return differs("price", &g.price, &w.price);
    }
    if !close(g.total, w.total) {
        return differs("total", &g.total, &w.total);
    }
    Ok(())
}

/// Equal within a rounding error: a cent of a total printed with two decimals is a
/// thousand times more.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_compared_not_bytes() {
        let items = dataset::items();
        let want = dataset::answer(&items, 3, 4);
        let mut got = want.clone();
        assert_eq!(compare(&got, &want), Ok(()));
        // Printed with two decimals and read back: the same values.
        got.items[1].total = format!("{:.2}", want.items[1].total).parse().unwrap();
        assert_eq!(compare(&got, &want), Ok(()));
        got.items[2].total = want.items[2].total / 4.0;
        let e = compare(&got, &want).unwrap_err().to_string();
        assert!(e.starts_with("item 2 (id 3): total "), "{e}");
        let ignoring_m = dataset::answer(&items, 3, 1);
        assert!(compare(&ignoring_m, &want).is_err());
    }
}
