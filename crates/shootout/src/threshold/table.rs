//! What the thresholds came to: a table of those crossed (threshold, measured, by how much
//! in the metric's unit and as a percentage of the limit), or one line when all held.

use super::gates::CellJudgement;
use super::judgement::Judgement;
use crate::report::table::columns::{Column, Design};

/// What the `by` columns mean, under every table of crossed thresholds.
const BY: &str = "by: the measured value minus the limit, in the metric's unit and in % of \
                  the limit; a threshold that nothing measured counts as crossed";

/// A load's thresholds: the crossed ones as a table, or one line saying that all held.
pub fn load_text(judged: &[Judgement]) -> String {
    let crossed: Vec<&Judgement> = judged.iter().filter(|j| !j.held()).collect();
    if crossed.is_empty() {
        return format!("thresholds: {} held\n", all(judged.len()));
    }
    let design = Design {
        title: format!("thresholds crossed: {} of {}", crossed.len(), judged.len()),
        columns: judgement_columns(|j: &&Judgement| *j),
        marks: vec![BY.into()],
    };
    design.draw(&crossed).text()
}

/// An experiment's thresholds, judged per contestant and cell: the crossed ones as a
/// table, or one line saying that all held.
pub fn experiment_text(judged: &[CellJudgement]) -> String {
    let crossed: Vec<&CellJudgement> = judged.iter().filter(|c| !c.judgement.held()).collect();
    if crossed.is_empty() {
        return format!(
            "thresholds: {} held (each contestant's, in every cell it ran in)\n",
            all(judged.len())
        );
    }
    let mut columns = vec![
        Column::name("contestant", |c: &&CellJudgement| c.contestant.to_string()),
        Column::name("cell", |c: &&CellJudgement| c.cell.title()),
    ];
    columns.extend(judgement_columns(|c: &&CellJudgement| &c.judgement));
    let design = Design {
        title: format!(
            "thresholds crossed: {} of {} (contestant × cell × threshold; medians over valid runs)",
            crossed.len(),
            judged.len()
        ),
        columns,
        marks: vec![BY.into()],
    };
    design.draw(&crossed).text()
}

/// `all 3` or `the 1`.
fn all(n: usize) -> String {
    match n {
        1 => "the 1".into(),
        n => format!("all {n}"),
    }
}

/// The columns of one judgement, for rows of type `R` that hold one.
fn judgement_columns<'a, R: 'a>(of: impl Fn(&R) -> &Judgement + Copy + 'a) -> Vec<Column<'a, R>> {
    vec![
        Column::name("threshold", move |r: &R| of(r).threshold.to_string()),
        Column::number("measured", move |r: &R| of(r).measured_text()),
        Column::number("by", move |r: &R| of(r).by_text()),
        Column::number("% of limit", move |r: &R| of(r).by_percent_text()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threshold::Threshold;

    #[test]
    fn crossed_thresholds_make_a_table_held_ones_a_line() {
        let p99: Threshold = "p99<5ms".parse().unwrap();
        let rps: Threshold = "rps > 1000".parse().unwrap();
        let judged = [
            Judgement::of(&p99, Some(7200.0), "no response"),
            Judgement::of(&rps, Some(5000.0), "no response"),
        ];
        let text = load_text(&judged);
        assert_eq!(
            text,
            format!(
                "thresholds crossed: 1 of 2\n  \
                 threshold  measured       by  % of limit\n  \
                 p99<5ms      7.20ms  +2.20ms      +44.0%\n  {BY}\n"
            )
        );
        assert_eq!(load_text(&judged[1..]), "thresholds: the 1 held\n");
    }
}
