//! The line chart: its series, each a line (with its points when they are few) in its
//! contestant's style, over the axes, and the legend under it.

use super::marks::Mark;
use super::scale::{Axis, Plot};
use super::{escape, owner, BOTTOM, HEIGHT, LEFT, TOP, WIDTH};
use crate::report::page::colours::{self, Colours, Style};
use std::fmt::Write;

/// One line of a chart.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn against the right-hand axis (e.g. the device count of a ramp).
    pub right: bool,
    /// Whose line it is, when a contestant's: it keeps that contestant's style on every
    /// chart of the page. Other lines (a core, the devices) are styled by position.
    pub contestant: Option<String>,
    /// A dash of its own, over its style's: one contestant's lines for two loads.
    pub dash: Option<&'static str>,
}

/// A line chart.
#[derive(Debug, Clone, Default)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The right-hand axis' label; series with `right` use it.
    pub y2_label: Option<String>,
    pub x_log: bool,
    pub y_log: bool,
    /// Labelled x positions instead of computed ticks (concurrency levels, percentiles).
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// Logarithmic axes end at the 1, 2, 5 × 10^k around the values, with a tick at each,
    /// instead of at whole decades: for values within a decade or two (rates).
    pub fine_log: bool,
    pub series: Vec<Series>,
    /// Levels, positions and spans marked beside the series.
    pub marks: Vec<Mark>,
}

impl Chart {
    /// The chart as an `<svg>` element (with a `<title>` for screen readers), each
    /// contestant's line in its style of the page's `colours`.
    pub fn svg(&self, colours: &Colours) -> String {
        let right_used = self.series.iter().any(|s| s.right);
        let right_margin = if right_used { 72.0 } else { 24.0 };
        let legend_rows = self.series.len().div_ceil(3) as f64;
        let height = HEIGHT + legend_rows * 18.0;
        let plot = Plot {
            x0: LEFT,
            x1: WIDTH - right_margin,
            y0: TOP,
            y1: HEIGHT - BOTTOM,
        };
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let marked_xs = self.marks.iter().flat_map(Mark::xs);
        let x = self.axis(
            xs.chain(self.x_ticks.iter().flatten().map(|t| t.0))
                .chain(marked_xs),
            self.x_log,
        );
        let marked_ys = self.marks.iter().flat_map(Mark::ys);
        let y = self.axis(self.values(false).chain(marked_ys), self.y_log);
        let y2 = Axis::fit(self.values(true), false);
        let mut out = format!(
            "<svg class=\"chart\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\
             <title>{}</title>\n",
            escape(&self.title)
        );
        let _ = writeln!(
            out,
            "<text x=\"{LEFT}\" y=\"20\" class=\"title\">{}</text>",
            escape(&self.title)
        );
        out += &self.axes(&plot, &x, &y, right_used.then_some(&y2));
        // Spans under the lines, levels and positions over them.
        let (spans, over): (Vec<&Mark>, Vec<&Mark>) = self
            .marks
            .iter()
            .partition(|m| matches!(m, Mark::Span { .. }));
        for m in spans {
            out += &m.svg(&plot, &x, &y);
        }
        for (i, s) in self.series.iter().enumerate() {
            let style = style_of(s, i, colours);
            out += &line(&plot, &x, if s.right { &y2 } else { &y }, s, style);
        }
        for m in over {
            out += &m.svg(&plot, &x, &y);
        }
        out += &legend(&self.series, HEIGHT, colours);
        out + "</svg>\n"
    }

    /// An axis fitted to `values`, logarithmic when `log`, fine when the chart asks.
    fn axis(&self, values: impl Iterator<Item = f64>, log: bool) -> Axis {
        match log && self.fine_log {
            true => Axis::fit_fine_log(values),
            false => Axis::fit(values, log),
        }
    }

    fn values(&self, right: bool) -> impl Iterator<Item = f64> + '_ {
        self.series
            .iter()
            .filter(move |s| s.right == right)
            .flat_map(|s| s.points.iter().map(|p| p.1))
    }
}

/// The style of series `i`: its contestant's on this page; else by position, and a
/// right-axis series grey and dashed, apart from the contestants.
fn style_of(s: &Series, i: usize, colours: &Colours) -> Style {
    let style = match (&s.contestant, s.right) {
        (Some(name), _) => colours.style(name),
        (None, true) => Style {
            colour: "#777777",
            dash: "6 3",
        },
        (None, false) => colours::nth(i),
    };
    Style {
        dash: s.dash.unwrap_or(style.dash),
        ..style
    }
}

fn line(p: &Plot, x: &Axis, y: &Axis, s: &Series, style: Style) -> String {
    if s.points.is_empty() {
        return String::new();
    }
    let Style { colour, dash } = style;
    let d: Vec<String> = s
        .points
        .iter()
        .enumerate()
        .map(|(k, (a, b))| {
            format!(
                "{}{:.1},{:.1}",
                if k == 0 { 'M' } else { 'L' },
                p.x(x.at(*a)),
                p.y(y.at(*b))
            )
        })
        .collect();
    let mut out = format!(
        "<path class=\"series\"{} data-points=\"{}\" d=\"{}\" stroke=\"{colour}\" stroke-dasharray=\"{dash}\"><title>{}</title></path>\n",
        owner(s.contestant.as_deref()),
        s.points.len(),
        d.join(""),
        escape(&s.name)
    );
    if s.points.len() <= 24 {
        for (a, b) in &s.points {
            let _ = write!(
                out,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>",
                p.x(x.at(*a)),
                p.y(y.at(*b))
            );
        }
        out.push('\n');
    }
    out
}

fn legend(series: &[Series], top: f64, colours: &Colours) -> String {
    let mut out = String::new();
    for (i, s) in series.iter().enumerate() {
        let Style { colour, dash } = style_of(s, i, colours);
        let (col, row) = ((i % 3) as f64, (i / 3) as f64);
        let (x, y) = (LEFT + col * 210.0, top + row * 18.0);
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{colour}\" stroke-width=\"3\" stroke-dasharray=\"{dash}\"/>\
             <text class=\"legend\" x=\"{}\" y=\"{}\">{}</text>",
            x + 24.0, x + 30.0, y + 4.0, escape(&s.name)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_draws_every_series_with_its_points() {
        let c = Chart {
            title: "req/s <by> c".into(),
            series: vec![
                Series {
                    name: "a".into(),
                    points: vec![(30.0, 100.0), (100.0, 200.0)],
                    right: false,
                    contestant: Some("a".into()),
                    dash: None,
                },
                Series {
                    name: "devices".into(),
                    points: vec![(0.0, 0.0), (60.0, 15_000.0)],
                    right: true,
                    contestant: None,
                    dash: None,
                },
            ],
            x_log: true,
            y2_label: Some("devices".into()),
            ..Chart::default()
        };
        let svg = c.svg(&Colours::default());
        assert_eq!(svg.matches("<path class=\"series\"").count(), 2);
        assert!(svg.contains("req/s &lt;by&gt; c"));
        assert!(
            svg.contains("stroke-dasharray=\"6 3\""),
            "the right-axis series is dashed"
        );
    }
}
