//! A chart as the page places it: its SVG and an id a reader can link to or save it as.

/// A chart with a file-name-safe id.
pub struct Figure {
    pub id: String,
    pub svg: String,
}

/// `text` as an id: lower-case letters and digits, words joined by `-`.
pub fn slug(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}
