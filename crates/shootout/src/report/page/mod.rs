//! The web page of `shootout report --html`: the page itself, the SVG primitives it
//! draws with, and the figures of an experiment.

pub mod figures;
pub mod html;
pub mod svg;
