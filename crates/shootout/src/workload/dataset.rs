//! The `json` workload's dataset: 100 items (id, name, price, quantity), shipped in the
//! repository as `contestants/_data/items.json` and built into the harness, which writes
//! it where contestants read it (`{workloads}/items.json`) and computes from it the answer
//! every request must get.

use serde::{Deserialize, Serialize};

/// The dataset as shipped: the one copy, read by contestants and by the checks.
pub const ITEMS_JSON: &str = include_str!("../../../../contestants/_data/items.json");

/// The most items `GET /json/{count}` asks for: all of them.
pub const ITEMS: usize = 100;

/// One item of the dataset.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Item {
    pub id: u64,
    pub name: String,
    pub price: f64,
    pub quantity: u64,
}

/// One item of an answer: the item and its computed `total = price * quantity * m`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Priced {
    pub id: u64,
    pub name: String,
    pub price: f64,
    pub quantity: u64,
    pub total: f64,
}

/// The body of `GET /json/{count}?m=M`: `{"count": N, "items": [...]}`. Fields beyond
/// these are let through; the order of the items is the dataset's.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct JsonAnswer {
    pub count: usize,
    pub items: Vec<Priced>,
}

/// The dataset, parsed. It is built in, so a mistake in it is the build's, caught by a
/// test of this module.
pub fn items() -> Vec<Item> {
    serde_json::from_str(ITEMS_JSON).expect("contestants/_data/items.json is a list of items")
}

/// The right answer to `GET /json/{count}?m={m}`.
pub fn answer(items: &[Item], count: usize, m: u64) -> JsonAnswer {
    let priced = items.iter().take(count).map(|i| Priced {
        id: i.id,
        name: i.name.clone(),
        price: i.price,
        quantity: i.quantity,
        total: i.price * i.quantity as f64 * m as f64,
    });
    JsonAnswer {
        count: count.min(items.len()),
        items: priced.collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dataset_has_its_hundred_items_in_order() {
        let items = items();
        assert_eq!(items.len(), ITEMS);
        assert!(items
            .iter()
            .enumerate()
            .all(|(i, it)| it.id == i as u64 + 1));
        // Two decimals: a total is exact in cents, whatever a contestant's float printing.
        let cents = |p: f64| p * 100.0;
        assert!(items
            .iter()
            .all(|i| (cents(i.price).round() - cents(i.price)).abs() < 1e-6));
    }

    #[test]
    fn an_answer_takes_the_first_items_and_prices_them() {
        let items = items();
        let a = answer(&items, 3, 4);
        assert_eq!((a.count, a.items.len()), (3, 3));
        let first = &a.items[0];
        assert_eq!(first.total, items[0].price * items[0].quantity as f64 * 4.0);
    }
}
