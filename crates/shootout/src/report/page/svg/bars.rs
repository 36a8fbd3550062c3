//! The bar chart: horizontal bars, each in its contestant's colour, with its interval as
//! a whisker.

use super::scale::{nice, short};
use super::{escape, owner, LEFT, TOP, WIDTH};
use crate::report::page::colours::Colours;
use std::fmt::Write;

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
    use crate::report::page::colours;

    fn bar(name: &str, value: f64, interval: Option<(f64, f64)>) -> Bar {
        Bar {
            name: name.into(),
            contestant: name.into(),
            value,
            interval,
        }
    }

    #[test]
    fn a_bar_is_one_rect() {
        assert_eq!(
            bars("t", "req/s", &[bar("x", 5.0, None)], &Colours::default())
                .matches("<rect")
                .count(),
            1
        );
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
