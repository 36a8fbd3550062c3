//! Hand-built SVG charts: lines over linear or logarithmic axes with an optional second
//! y axis, and horizontal bars. Hand-written rather than `plotters` because the page
//! must be self-contained text (no fonts or bitmaps to embed) and scale to a phone's
//! width; a chart here is a few dozen SVG elements.
//!
//! `scale` maps values to positions (an axis' range and ticks, the plotting area),
//! `axes` draws a line chart's axes and grid, `line_chart` its lines and legend, `marks`
//! what it marks beside them (a level, a position, a span), and `bars` the horizontal
//! bar chart.

mod axes;
mod bars;
mod line_chart;
mod marks;
mod scale;

pub use bars::{bars, Bar};
pub use line_chart::{Chart, Series};
pub use marks::Mark;
pub use scale::short;

use crate::report::table::escape;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 380.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 48.0;
const LEFT: f64 = 72.0;

/// ` data-contestant="NAME"` on a contestant's path or bar, so a test can check that it
/// keeps one style on every chart.
fn owner(contestant: Option<&str>) -> String {
    contestant.map_or(String::new(), |name| {
        format!(" data-contestant=\"{}\"", escape(name))
    })
}
