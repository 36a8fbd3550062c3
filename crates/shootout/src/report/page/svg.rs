//! Hand-built SVG charts: lines over linear or logarithmic axes with an optional second
//! y axis, and horizontal bars. Hand-written rather than `plotters` because the page
//! must be self-contained text (no fonts or bitmaps to embed) and scale to a phone's
//! width; a chart here is a few dozen SVG elements.

use crate::report::page::colours::{self, Colours, Style};
use crate::report::table::escape;
use std::fmt::Write;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 380.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 48.0;
const LEFT: f64 = 72.0;

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
    pub series: Vec<Series>,
}

/// A value axis: its range, scale and ticks.
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
}

impl Axis {
    fn fit(values: impl Iterator<Item = f64>, log: bool) -> Axis {
        let v: Vec<f64> = values
            .filter(|x| x.is_finite() && (!log || *x > 0.0))
            .collect();
        let max = v.iter().cloned().fold(f64::MIN, f64::max);
        let min = v.iter().cloned().fold(f64::MAX, f64::min);
        if v.is_empty() {
            return Axis {
                lo: if log { 1.0 } else { 0.0 },
                hi: 1.0 + f64::from(log) * 9.0,
                log,
            };
        }
        if log {
            let lo = 10f64.powf(min.log10().floor());
            let hi = 10f64.powf(max.log10().ceil()).max(lo * 10.0);
            Axis { lo, hi, log }
        } else {
            let lo = 0.0_f64.min(min);
            let step = nice((max - lo).max(1e-9) / 5.0);
            Axis {
                lo,
                hi: lo + step * ((max - lo) / step).ceil().max(1.0),
                log,
            }
        }
    }

    /// 0..1 position of `v` along the axis.
    fn at(&self, v: f64) -> f64 {
        if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let (a, b) = (
                self.lo.log10().round() as i32,
                self.hi.log10().round() as i32,
            );
            return (a..=b).map(|e| 10f64.powi(e)).collect();
        }
        let step = nice((self.hi - self.lo) / 6.0);
        (0..=12)
            .map(|i| self.lo + step * i as f64)
            .filter(|t| *t <= self.hi * 1.0001)
            .collect()
    }
}

/// The smallest of 1, 2, 2.5, 5 × 10^k at or above `x`.
fn nice(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let base = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * base)
        .find(|v| *v >= x * 0.9999)
        .unwrap_or(10.0 * base)
}

/// `12k`, `1.5M`, `250`, `0.5`: short tick labels.
pub fn short(v: f64) -> String {
    let a = v.abs();
    let trim = |s: String| s.trim_end_matches(".0").to_string();
    if a >= 1e6 {
        trim(format!("{:.1}", v / 1e6)) + "M"
    } else if a >= 1e3 {
        trim(format!("{:.1}", v / 1e3)) + "k"
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        trim(format!("{v:.2}"))
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
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
        let x = Axis::fit(
            xs.chain(self.x_ticks.iter().flatten().map(|t| t.0)),
            self.x_log,
        );
        let y = Axis::fit(self.values(false), self.y_log);
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
        for (i, s) in self.series.iter().enumerate() {
            let style = style_of(s, i, colours);
            out += &line(&plot, &x, if s.right { &y2 } else { &y }, s, style);
        }
        out += &legend(&self.series, HEIGHT, colours);
        out + "</svg>\n"
    }

    fn values(&self, right: bool) -> impl Iterator<Item = f64> + '_ {
        self.series
            .iter()
            .filter(move |s| s.right == right)
            .flat_map(|s| s.points.iter().map(|p| p.1))
    }

    fn axes(&self, p: &Plot, x: &Axis, y: &Axis, y2: Option<&Axis>) -> String {
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

/// The plotting area in SVG units.
struct Plot {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Plot {
    fn x(&self, at: f64) -> f64 {
        self.x0 + at.clamp(0.0, 1.0) * (self.x1 - self.x0)
    }
    fn y(&self, at: f64) -> f64 {
        self.y1 - at.clamp(0.0, 1.0) * (self.y1 - self.y0)
    }
}

/// The style of series `i`: its contestant's on this page; else by position, and a
/// right-axis series grey and dashed, apart from the contestants.
fn style_of(s: &Series, i: usize, colours: &Colours) -> Style {
    match (&s.contestant, s.right) {
        (Some(name), _) => colours.style(name),
        (None, true) => Style {
            colour: "#777777",
            dash: "6 3",
        },
        (None, false) => colours::nth(i),
    }
}

/// ` data-contestant="NAME"` on a contestant's path or bar, so a test can check that it
/// keeps one style on every chart.
fn owner(contestant: Option<&str>) -> String {
    contestant.map_or(String::new(), |name| {
        format!(" data-contestant=\"{}\"", escape(name))
    })
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

/// One bar of [`bars`]: a name, its value, and the interval around it when there is one.
pub struct Bar {
    /// The bar's label (`c-epoll †`).
    pub name: String,
    /// Whose bar it is: its fill is that contestant's colour on the page.
    pub contestant: String,
    pub value: f64,
    pub interval: Option<(f64, f64)>,
}

/// Horizontal bars in the order given, each with its interval as a whisker when it has
/// one: a single-level cell's requests/s, or a fixed rate's CPU per response.
pub fn bars(title: &str, unit: &str, items: &[Bar], colours: &Colours) -> String {
    let row_h = 24.0;
    let height = TOP + row_h * items.len() as f64 + 30.0;
    let label_w = 200.0;
    let highest = |b: &Bar| b.interval.map_or(b.value, |(_, hi)| hi.max(b.value));
    let max = nice(items.iter().map(highest).fold(0.0, f64::max));
    let scale = (WIDTH - label_w - 90.0) / max;
    let mut out = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><title>{}</title>\n\
         <text x=\"{LEFT}\" y=\"20\" class=\"title\">{}</text>\n",
        escape(title),
        escape(title)
    );
    for (i, bar) in items.iter().enumerate() {
        let y = TOP + row_h * i as f64;
        let w = (bar.value * scale).max(1.0);
        let end = label_w + highest(bar) * scale;
        let _ = writeln!(
            out,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\
             <rect class=\"series\"{} data-points=\"1\" x=\"{label_w}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>\
             {}<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\">{} {unit}</text>",
            label_w - 6.0, y + 16.0, escape(&bar.name), owner(Some(&bar.contestant)), row_h - 6.0,
            colours.style(&bar.contestant).colour, escape(&bar.name),
            whisker(bar.interval, label_w, scale, y + (row_h - 6.0) / 2.0),
            end.max(label_w + w) + 6.0, y + 16.0, short(bar.value)
        );
    }
    out + "</svg>\n"
}

/// An interval drawn across a bar at height `y`: a line from low to high with end caps.
fn whisker(interval: Option<(f64, f64)>, x0: f64, scale: f64, y: f64) -> String {
    let Some((lo, hi)) = interval else {
        return String::new();
    };
    let (a, b) = (x0 + lo * scale, x0 + hi * scale);
    format!(
        "<path class=\"interval\" d=\"M{a:.1} {:.1}V{:.1}M{a:.1} {y:.1}H{b:.1}M{b:.1} {:.1}V{:.1}\" stroke=\"#222\" fill=\"none\"/>",
        y - 5.0, y + 5.0, y - 5.0, y + 5.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_numbers_and_short_labels() {
        assert_eq!(nice(23_746.0), 25_000.0);
        assert_eq!(nice(0.7), 1.0);
        assert_eq!(short(25_000.0), "25k");
        assert_eq!(short(1_500_000.0), "1.5M");
        assert_eq!(short(0.5), "0.5");
    }

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
                },
                Series {
                    name: "devices".into(),
                    points: vec![(0.0, 0.0), (60.0, 15_000.0)],
                    right: true,
                    contestant: None,
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
        assert_eq!(
            bars("t", "req/s", &[bar("x", 5.0, None)], &Colours::default())
                .matches("<rect")
                .count(),
            1
        );
    }

    fn bar(name: &str, value: f64, interval: Option<(f64, f64)>) -> Bar {
        Bar {
            name: name.into(),
            contestant: name.into(),
            value,
            interval,
        }
    }

    #[test]
    fn bars_draw_their_intervals_and_the_scale_holds_the_highest_end() {
        let svg = bars(
            "t",
            "µs",
            &[bar("a", 10.0, Some((8.0, 12.0))), bar("b", 20.0, None)],
            &Colours::in_order(["b", "a"]),
        );
        assert_eq!(svg.matches("class=\"interval\"").count(), 1);
        assert_eq!(svg.matches("<rect").count(), 2);
        let a = &svg[svg.find("data-contestant=\"a\"").unwrap()..];
        let fill = format!("fill=\"{}\"", colours::nth(1).colour);
        assert!(
            a[..a.find("/rect>").unwrap()].contains(&fill),
            "a bar is filled with its contestant's colour: {svg}"
        );
    }
}
