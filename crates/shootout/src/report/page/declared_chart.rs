//! The charts a declared table has on the page (`Declared::charts`): a column's figures
//! as bars, a bar per contestant in the table's order, each labelled with its mark.

use super::colours::Colours;
use super::figure::{slug, Figure as Chart};
use super::svg::{self, Bar};
use crate::model::RunRecord;
use crate::report::declared::drawn::Drawn;
use crate::report::declared::{Declared, Mark};
use crate::report::experiment::ranking;
use crate::store::Plan;

/// The charts of each place's table of `declared`: a bar chart per column it draws.
pub fn charts(
    declared: &Declared,
    plan: &Plan,
    runs: &[RunRecord],
    colours: &Colours,
) -> Vec<Chart> {
    if declared.charts.is_empty() {
        return Vec::new();
    }
    let cells = ranking::cells(runs);
    (declared.places(plan).into_iter())
        .flat_map(|place| {
            let drawn = Drawn::of(declared, &plan.contestants, &cells, place);
            (declared.charts.iter())
                .map(|&column| bars(&drawn, column, colours))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Column `column` of `drawn` as bars: `header — /hello, layout split`.
fn bars(drawn: &Drawn, column: usize, colours: &Colours) -> Chart {
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
