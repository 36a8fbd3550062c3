//! One colour per contestant on every chart of a page, so that a reader who learnt
//! "c-epoll is black" in the first chart need not read the legend of the next.
//!
//! Colours are assigned once per page, in the order contestants first appear in its
//! experiments' runs (the harness interleaves them in the experiment's order, so this is
//! the order the experiment file lists them): Okabe–Ito colours, which stay apart under
//! the common colour-vision deficiencies, yellow left out for contrast on white. Black is
//! the ceiling's (the reference every table measures against). Past six contestants the
//! colours repeat with a dash pattern (lines, legends); bars are labelled by name, so a
//! repeated fill there is still told apart.

use crate::contestant::catalog::CEILING;
use crate::report::document::Document;

/// How one series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Style {
    pub colour: &'static str,
    /// An SVG `stroke-dasharray`; empty for a solid line.
    pub dash: &'static str,
}

/// Okabe–Ito without yellow and black.
const PALETTE: [&str; 6] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
];
const DASHES: [&str; 3] = ["", "6 3", "2 3"];
const CEILING_STYLE: Style = Style {
    colour: "#000000",
    dash: "",
};

/// The `i`th style: the palette's colours solid, then again dashed, then dotted.
pub fn nth(i: usize) -> Style {
    Style {
        colour: PALETTE[i % PALETTE.len()],
        dash: DASHES[(i / PALETTE.len()) % DASHES.len()],
    }
}

/// Each contestant's style on one page.
#[derive(Debug, Clone, Default)]
pub struct Colours {
    /// The contestants other than the ceiling, in the order they get their style.
    order: Vec<String>,
}

impl Colours {
    /// Styles for every contestant of `docs`, in the order they first appear.
    pub fn of(docs: &[Document]) -> Colours {
        let runs = docs.iter().flat_map(|d| d.runs.iter());
        Colours::in_order(runs.map(|r| r.coordinates.contestant.as_str()))
    }

    /// Styles for `names` in the order given (repeats and the ceiling take none).
    pub fn in_order<'n>(names: impl IntoIterator<Item = &'n str>) -> Colours {
        let mut order: Vec<String> = Vec::new();
        for name in names {
            if name != CEILING && !order.iter().any(|n| n == name) {
                order.push(name.to_string());
            }
        }
        Colours { order }
    }

    /// The style of `contestant`; one the page did not list comes after all it did.
    pub fn style(&self, contestant: &str) -> Style {
        if contestant == CEILING {
            return CEILING_STYLE;
        }
        let at = self.order.iter().position(|n| n == contestant);
        nth(at.unwrap_or(self.order.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_contestant_keeps_its_style_and_no_two_share_one() {
        let names = ["go", "node", "c-epoll", "go", "py", "a", "b", "c", "d"];
        let colours = Colours::in_order(names);
        assert_eq!(colours.style("go"), nth(0));
        assert_eq!(colours.style("node"), nth(1));
        assert_eq!(colours.style(CEILING), CEILING_STYLE);
        let styles: std::collections::HashSet<Style> =
            names.iter().map(|n| colours.style(n)).collect();
        assert_eq!(styles.len(), 8, "eight contestants, eight styles");
        assert_eq!(colours.style("d").dash, "6 3", "the seventh repeats dashed");
        assert_eq!(colours.style("d").colour, colours.style("go").colour);
    }
}
