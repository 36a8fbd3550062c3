//! The web page of `shootout report --html`: the page itself, its first screen (what the
//! experiment found), the SVG primitives it draws with, one colour per contestant, the
//! figures of an experiment (those of capacity searches apart), and the warnings folded
//! after the results.

pub mod capacity_charts;
pub mod colours;
pub mod declared_chart;
pub mod figure;
pub mod figures;
pub mod first_screen;
pub mod html;
pub mod svg;
pub mod warnings;
