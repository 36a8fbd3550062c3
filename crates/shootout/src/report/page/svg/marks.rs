//! What a line chart marks beside its series: a level across the plot (an objective's
//! limit), a position along it (the capacity found), and a span shaded under the lines
//! (the interval around it).

use super::escape;
use super::scale::{Axis, Plot};
use std::fmt::Write;

/// One mark of a chart, with the words that say what it is.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A horizontal line at `y`.
    Level { y: f64, label: String },
    /// A vertical line at `x`.
    At { x: f64, label: String },
    /// The x values from `from` to `to`, shaded.
    Span { from: f64, to: f64, label: String },
}

/// Levels in red and dashed, positions in dark grey, spans a light blue under the lines.
const LEVEL: &str = "#C0392B";
const AT: &str = "#333333";
const SPAN: &str = "#56B4E9";

impl Mark {
    /// The x values it needs the axis to show.
    pub(super) fn xs(&self) -> Vec<f64> {
        match self {
            Mark::Level { .. } => Vec::new(),
            Mark::At { x, .. } => vec![*x],
            Mark::Span { from, to, .. } => vec![*from, *to],
        }
    }

    /// The y values it needs the axis to show.
    pub(super) fn ys(&self) -> Vec<f64> {
        match self {
            Mark::Level { y, .. } => vec![*y],
            Mark::At { .. } | Mark::Span { .. } => Vec::new(),
        }
    }

    /// The mark over `p`, with its label (a `<title>` too, for a reader who hovers).
    pub(super) fn svg(&self, p: &Plot, x: &Axis, y: &Axis) -> String {
        let mut out = String::new();
        match self {
            Mark::Level { y: at, label } => {
                let py = p.y(y.at(*at));
                let _ = writeln!(
                    out,
                    "<line class=\"mark level\" x1=\"{}\" y1=\"{py:.1}\" x2=\"{}\" y2=\"{py:.1}\" stroke=\"{LEVEL}\" stroke-width=\"1.5\" stroke-dasharray=\"8 4\"><title>{}</title></line>\
                     <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" fill=\"{LEVEL}\">{}</text>",
                    p.x0, p.x1, escape(label), p.x0 + 4.0, py - 4.0, escape(label)
                );
            }
            Mark::At { x: at, label } => {
                let px = p.x(x.at(*at));
                // The label on the side with room: right of the line in the plot's left
                // half, left of it in the right half.
                let (tx, anchor) = match px < (p.x0 + p.x1) / 2.0 {
                    true => (px + 4.0, "start"),
                    false => (px - 4.0, "end"),
                };
                let _ = writeln!(
                    out,
                    "<line class=\"mark at\" x1=\"{px:.1}\" y1=\"{}\" x2=\"{px:.1}\" y2=\"{}\" stroke=\"{AT}\" stroke-width=\"1.5\"><title>{}</title></line>\
                     <text class=\"tick\" x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"{AT}\">{}</text>",
                    p.y0, p.y1, escape(label), p.y0 + 12.0, escape(label)
                );
            }
            Mark::Span { from, to, label } => {
                let (a, b) = (p.x(x.at(*from)), p.x(x.at(*to)));
                let _ = writeln!(
                    out,
                    "<rect class=\"mark span\" x=\"{a:.1}\" y=\"{}\" width=\"{:.1}\" height=\"{}\" fill=\"{SPAN}\" fill-opacity=\"0.25\"><title>{}</title></rect>",
                    p.y0, (b - a).max(1.5), p.y1 - p.y0, escape(label)
                );
            }
        }
        out
    }
}
