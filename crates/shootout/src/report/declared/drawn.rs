//! A declared table at one place (endpoint and layout): each column's cell, the rows in
//! order, and the table drawn from them: title, columns (a comparison in its own column
//! after both it compares), legend, notes, and a sentence per row.

use super::column::{Baseline, Reference, Shown};
use super::line::Line;
use super::negotiated::Said;
use super::{resumption, Declared};
use crate::report::experiment::ceiling;
use crate::report::experiment::efficiency::why_not_counted;
use crate::report::experiment::ranking::RankedCell;
use crate::report::experiment::row::Row;
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;

/// A declared table at one place, with its rows.
pub struct Drawn<'d, 'r, 'a> {
    pub declared: &'d Declared,
    place: (&'r str, &'r str),
    pub lines: Vec<Line<'r, 'a>>,
    /// The ceiling's row in each column's cell, where it measured there.
    tops: Vec<Option<&'r Row<'a>>>,
    /// What the TLS runs of its cells negotiated, when the table says it.
    said: Option<Said>,
}

impl<'d, 'r, 'a> Drawn<'d, 'r, 'a> {
    /// `declared` at `place` among `cells`, a row for each of `contestants`.
    pub fn of(
        declared: &'d Declared,
        contestants: &'r [String],
        cells: &'r [RankedCell<'a>],
        place: (&'r str, &'r str),
    ) -> Self {
        let at: Vec<Option<&RankedCell>> = (declared.columns.iter())
            .map(|c| cells.iter().find(|(k, _)| *k == c.take.key(place)))
            .collect();
        let tops = (at.iter())
            .map(|cell| cell.and_then(|(_, rows)| ceiling::find(rows)))
            .collect();
        let runs = at.iter().flatten().flat_map(|(_, rows)| rows.iter());
        let said =
            (declared.negotiated.as_ref()).map(|_| Said::of(runs.flat_map(|r| r.runs.clone())));
        Drawn {
            declared,
            place,
            lines: Line::all(contestants, &declared.columns, &at, declared.order),
            tops,
            said,
        }
    }

    /// The table, the legend then each row's sentence under it.
    pub fn table(&self) -> Table {
        let design = Design {
            title: self.title(),
            columns: self.columns(),
            marks: self.marks(),
        };
        let mut t = design.draw(&self.lines);
        let sentences = (self.lines.iter()).filter_map(|l| self.declared.sentence.said(self, l));
        t.notes.extend(sentences);
        t
    }

    /// `What TLS costs each server — /hello, layout split[: server CPU µs (TLS 1.3, …;
    /// certificate ECDSA P-256)]`.
    pub fn title(&self) -> String {
        let negotiated = (self.declared.negotiated.as_ref()).zip(self.said.as_ref());
        let caption = negotiated.map_or(String::new(), |((unit, then), said)| {
            format!(": {unit} ({}; {then})", said.caption())
        });
        format!("{} — {}{caption}", self.declared.title, self.place_title())
    }

    /// `/hello, layout split`; the layout alone when every column names its endpoint.
    pub fn place_title(&self) -> String {
        let (endpoint, layout) = self.place;
        let named = (self.declared.columns.iter()).all(|c| c.take.endpoint.is_some());
        match named {
            true => format!("layout {layout}"),
            false => format!("/{endpoint}, layout {layout}"),
        }
    }

    /// What the marks mean, and who negotiated otherwise.
    fn marks(&self) -> Vec<String> {
        let meanings = self.declared.marks.iter().map(|m| m.meaning().to_string());
        meanings
            .chain(self.said.as_ref().and_then(Said::otherwise))
            .collect()
    }

    /// The contestant, each column's figures (a comparison shown in a column of its own
    /// after both columns it compares), and the notes.
    fn columns(&self) -> Vec<Column<'_, Line<'r, 'a>>> {
        let mut out = vec![Column::name("contestant", |l: &Line| l.contestant.into())];
        for (i, c) in self.declared.columns.iter().enumerate() {
            let cell = move |l: &Line| self.cell(i, l);
            out.push(Column::number(c.header.clone(), cell).meaning(c.meaning.clone()));
            let placed = |(j, b): &(usize, &Baseline)| placed_after(*j, b) == i;
            for (j, b) in self.own_columns().filter(placed) {
                let Shown::Column { header, meaning } = &b.shown else {
                    continue;
                };
                let compared = move |l: &Line| self.compared(j, l, true).unwrap_or_default();
                out.push(Column::number(header.clone(), compared).meaning(meaning.clone()));
            }
        }
        out.push(Column::name("notes", move |l: &Line| self.notes(l)));
        out
    }

    /// The columns whose comparison has a column of its own, with their baselines; one
    /// set against the ceiling only where the ceiling measured.
    fn own_columns(&self) -> impl Iterator<Item = (usize, &Baseline)> {
        (self.declared.columns.iter().enumerate())
            .filter_map(|(j, c)| Some((j, c.baseline.as_ref()?)))
            .filter(|(_, b)| matches!(b.shown, Shown::Column { .. }))
            .filter(|(j, b)| b.of != Reference::Ceiling || self.tops[*j].is_some())
    }

    /// Column `i`'s cell: the figure, with its comparison after it when shown there.
    fn cell(&self, i: usize, line: &Line) -> String {
        let figure = line.figures[i].cell(self.declared.columns[i].digits);
        let in_cell = (self.declared.columns[i].baseline.as_ref())
            .filter(|b| b.shown == Shown::InCell)
            .and_then(|_| self.compared(i, line, false));
        match in_cell {
            Some(change) => format!("{figure} ({change})"),
            None => figure,
        }
    }

    /// Column `j`'s figure set against its baseline (`marked`: with the mark of the less
    /// certain of the two); None without both.
    pub fn compared(&self, j: usize, line: &Line, marked: bool) -> Option<String> {
        let baseline = self.declared.columns[j].baseline.as_ref()?;
        let figure = line.figures[j];
        match baseline.of {
            Reference::Column(k) if marked => {
                figure.marked_against(line.figures[k], baseline.against)
            }
            Reference::Column(k) => figure.against(line.figures[k], baseline.against),
            Reference::Ceiling => {
                Some(ceiling::percent_of(line.rows[j]?, self.tops[j]?)).filter(|p| !p.is_empty())
            }
        }
    }

    /// Whether `line` is the ceiling's in column `j`'s cell.
    pub fn is_ceiling(&self, j: usize, line: &Line) -> bool {
        self.tops[j].is_some_and(|top| top.contestant == line.contestant)
    }

    /// Why figures are missing or rest on runs that do not count (each reason once,
    /// after the columns it concerns), and how many new clients resumed where not all
    /// did.
    fn notes(&self, line: &Line) -> String {
        let columns = &self.declared.columns;
        let mut why: Vec<(String, Vec<&str>)> = Vec::new();
        for (i, c) in columns.iter().enumerate() {
            let Some(text) = (line.rows[i])
                .filter(|_| !line.figures[i].counts())
                .map(why_not_counted)
                .filter(|t| !t.is_empty())
            else {
                continue;
            };
            match why.iter_mut().find(|(t, _)| *t == text) {
                Some((_, headers)) => headers.push(&c.header),
                None => why.push((text, vec![&c.header])),
            }
        }
        let partly =
            (columns.iter().zip(&line.rows)).filter_map(|(c, r)| resumption::partly(c, *r));
        (why.into_iter())
            .map(|(text, headers)| format!("{}: {text}", headers.join(", ")))
            .chain(partly)
            .collect::<Vec<String>>()
            .join("; ")
    }
}

/// The column a comparison of column `j` is drawn after: the later of the two it
/// compares.
fn placed_after(j: usize, baseline: &Baseline) -> usize {
    match baseline.of {
        Reference::Column(k) => j.max(k),
        Reference::Ceiling => j,
    }
}
