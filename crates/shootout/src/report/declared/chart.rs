//! The chart a declared table has on the page: one column's figures as bars, a bar per
//! contestant in the table's order, each labelled with its mark.

use super::drawn::Drawn;
use super::figure::Mark;
use crate::report::page::colours::Colours;
use crate::report::page::figure::{slug, Figure as Chart};
use crate::report::page::svg::{self, Bar};

/// Column `column` of `drawn` as bars: `header — /hello, layout split`.
pub fn bars(drawn: &Drawn, column: usize, colours: &Colours) -> Chart {
    let header = &drawn.declared.columns[column].header;
    let title = format!("{header} — {}", drawn.place_title());
    let items: Vec<Bar> = (drawn.lines.iter())
        .filter_map(|l| {
            let figure = l.figures[column];
            let mark = match figure.mark() {
                Mark::Counted => String::new(),
                mark => format!(" {}", mark.on(String::new()).trim()),
            };
            Some(Bar {
                name: format!("{}{mark}", l.contestant),
                contestant: l.contestant.to_string(),
                value: figure.value()?,
                interval: None,
            })
        })
        .collect();
    Chart {
        id: slug(&format!("{} {title}", drawn.declared.title)),
        svg: svg::bars(&title, header, &items, colours),
    }
}
