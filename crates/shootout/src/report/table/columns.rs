//! Tables declared as lists of columns: each column's header, alignment, how its cell is
//! computed from a row, and what it means. A table's legend is drawn from its columns'
//! meanings, so a column and its explanation are written side by side and cannot drift
//! apart, and no table is tied together by column positions.

use super::{Align, Table};

/// One column: its header, alignment, cell and meaning.
pub struct Column<'a, R> {
    header: String,
    align: Align,
    cell: Box<dyn Fn(&R) -> String + 'a>,
    meaning: Option<String>,
}

impl<'a, R> Column<'a, R> {
    /// A column of names (aligned left).
    pub fn name(header: impl Into<String>, cell: impl Fn(&R) -> String + 'a) -> Self {
        Column {
            header: header.into(),
            align: Align::Left,
            cell: Box::new(cell),
            meaning: None,
        }
    }

    /// A column of numbers (aligned right).
    pub fn number(header: impl Into<String>, cell: impl Fn(&R) -> String + 'a) -> Self {
        Column {
            align: Align::Right,
            ..Column::name(header, cell)
        }
    }

    /// What the column's cells mean, for the table's legend.
    pub fn meaning(self, text: impl Into<String>) -> Self {
        Column {
            meaning: Some(text.into()),
            ..self
        }
    }
}

/// A table by design: its title, its columns, and the marks its cells may carry.
pub struct Design<'a, R> {
    pub title: String,
    pub columns: Vec<Column<'a, R>>,
    /// What marks in the cells mean (`*` ...), said after the columns' meanings.
    pub marks: Vec<String>,
}

impl<R> Design<'_, R> {
    /// The legend: the columns' meanings, then the marks, joined by `; `; None when
    /// there is nothing to explain.
    pub fn legend(&self) -> Option<String> {
        let meanings = self.columns.iter().filter_map(|c| c.meaning.clone());
        let all: Vec<String> = meanings.chain(self.marks.iter().cloned()).collect();
        (!all.is_empty()).then(|| all.join("; "))
    }

    /// `rows` drawn as a table, the legend as its first note.
    pub fn draw<'r>(&self, rows: impl IntoIterator<Item = &'r R>) -> Table
    where
        R: 'r,
    {
        Table {
            title: self.title.clone(),
            headers: self.columns.iter().map(|c| c.header.clone()).collect(),
            align: self.columns.iter().map(|c| c.align).collect(),
            rows: rows
                .into_iter()
                .map(|r| self.columns.iter().map(|c| (c.cell)(r)).collect())
                .collect(),
            notes: self.legend().into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_compute_their_cells_and_explain_themselves() {
        let design = Design {
            title: "squares".into(),
            columns: vec![
                Column::name("n", |n: &u32| n.to_string()),
                Column::number("n²", |n: &u32| (n * n).to_string()).meaning("n²: n times n"),
                Column::name("notes", |n: &u32| if *n > 2 { "big" } else { "" }.into()),
            ],
            marks: vec!["* none here".into()],
        };
        let t = design.draw(&[1, 3]);
        assert_eq!(t.headers, ["n", "n²", "notes"]);
        assert_eq!(t.align, [Align::Left, Align::Right, Align::Left]);
        assert_eq!(t.rows, [["1", "1", ""], ["3", "9", "big"]]);
        assert_eq!(t.notes, ["n²: n times n; * none here"]);
        let bare = Design::<u32> {
            title: String::new(),
            columns: vec![Column::name("n", |n: &u32| n.to_string())],
            marks: Vec::new(),
        };
        assert!(bare.draw(&[1]).notes.is_empty(), "nothing to explain");
    }
}
