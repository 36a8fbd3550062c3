//! A line chart's axes: the left axis' grid and ticks, the right axis' ticks when a
//! series uses it, the x axis' ticks or labelled positions, and the axes' labels.

use super::line_chart::Chart;
use super::scale::{short, Axis, Plot};
use super::{escape, WIDTH};
use std::fmt::Write;

impl Chart {
    /// The grid, both axes with their ticks and labels, and the right axis when it is used.
    pub(super) fn axes(&self, p: &Plot, x: &Axis, y: &Axis, y2: Option<&Axis>) -> String {
        let mut out = y_grid(p, y);
        if let Some(a) = y2 {
            out += &right_ticks(p, a);
        }
        out += &self.x_ticks(p, x);
        out += &self.axis_lines(p);
        if let (Some(label), Some(_)) = (&self.y2_label, y2) {
            let _ = writeln!(
                out,
                "<text class=\"label\" transform=\"translate({:.1} {:.1}) rotate(90)\" text-anchor=\"middle\">{}</text>",
                WIDTH - 12.0, (p.y0 + p.y1) / 2.0, escape(label)
            );
        }
        out
    }

    /// The x axis' labelled positions, or its computed ticks.
    fn x_ticks(&self, p: &Plot, x: &Axis) -> String {
        let ticks: Vec<(f64, String)> = match &self.x_ticks {
            Some(t) => t.clone(),
            None => x.ticks().into_iter().map(|t| (t, short(t))).collect(),
        };
        let mut out = String::new();
        for (t, label) in ticks {
            let px = p.x(x.at(t));
            let _ = writeln!(
                out,
                "<text class=\"tick\" x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                p.y1 + 16.0,
                escape(&label)
            );
        }
        out
    }

    /// Both axes' lines and their labels.
    fn axis_lines(&self, p: &Plot) -> String {
        format!(
            "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\
             <line class=\"axis\" x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\"/>\n\
             <text class=\"label\" x=\"{4:.1}\" y=\"{5}\" text-anchor=\"middle\">{6}</text>\n\
             <text class=\"label\" transform=\"translate(16 {7:.1}) rotate(-90)\" text-anchor=\"middle\">{8}</text>\n",
            p.x0, p.y1, p.x1, p.y0, (p.x0 + p.x1) / 2.0, p.y1 + 36.0, escape(&self.x_label),
            (p.y0 + p.y1) / 2.0, escape(&self.y_label)
        )
    }
}

/// The left axis' grid lines and tick labels.
fn y_grid(p: &Plot, y: &Axis) -> String {
    let mut out = String::new();
    for t in y.ticks() {
        let py = p.y(y.at(t));
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{}\" y1=\"{py:.1}\" x2=\"{}\" y2=\"{py:.1}\"/>\
             <text class=\"tick\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            p.x0,
            p.x1,
            p.x0 - 6.0,
            py + 4.0,
            short(t)
        );
    }
    out
}

/// The right axis' tick labels.
fn right_ticks(p: &Plot, a: &Axis) -> String {
    let mut out = String::new();
    for t in a.ticks() {
        let py = p.y(a.at(t));
        let _ = writeln!(
            out,
            "<text class=\"tick\" x=\"{}\" y=\"{:.1}\">{}</text>",
            p.x1 + 6.0,
            py + 4.0,
            short(t)
        );
    }
    out
}
