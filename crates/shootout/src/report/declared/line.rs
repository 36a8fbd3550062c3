//! One contestant's row of a declared table: its summarised runs in each column's cell
//! and the figure each column shows, and the order of the rows.

use super::column::Column;
use super::figure::Figure;
use super::Order;
use crate::report::experiment::ranking::RankedCell;
use crate::report::experiment::row::Row;
use std::cmp::Ordering;

/// One contestant's rows in the cells of the table's columns, and its figures there.
pub struct Line<'r, 'a> {
    pub contestant: &'r str,
    pub rows: Vec<Option<&'r Row<'a>>>,
    pub figures: Vec<Figure>,
}

impl<'r, 'a> Line<'r, 'a> {
    /// Each of `contestants` in the cells `at` (one per column; None where a column's
    /// cell has no runs), in `order`.
    pub fn all(
        contestants: &'r [String],
        columns: &[Column],
        at: &[Option<&'r RankedCell<'a>>],
        order: Order,
    ) -> Vec<Line<'r, 'a>> {
        let row = |cell: &Option<&'r RankedCell<'a>>, name: &str| {
            cell.and_then(|(_, rows)| rows.iter().find(|r| r.contestant == name))
        };
        let mut lines: Vec<Line> = (contestants.iter())
            .map(|name| {
                let rows: Vec<Option<&Row>> = at.iter().map(|cell| row(cell, name)).collect();
                let figures = (columns.iter().zip(&rows))
                    .map(|(c, r)| Figure::of(c, *r))
                    .collect();
                Line {
                    contestant: name,
                    rows,
                    figures,
                }
            })
            .collect();
        lines.sort_by(|a, b| order.compare(a, b));
        lines
    }
}

impl Order {
    /// Which of two lines comes first: by the order's figure, those without one last.
    fn compare(&self, a: &Line, b: &Line) -> Ordering {
        let value = |l: &Line| l.figures.get(self.column).and_then(|f| f.value());
        match (value(a), value(b)) {
            (Some(x), Some(y)) if self.highest_first => y.total_cmp(&x),
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }
}
