//! The `static` workload's corpus: a dozen files of several sizes and types, made by a
//! generator with a fixed seed (so never committed as blobs), the text ones with
//! precompressed `.gz` and `.br` siblings. The files' bytes are a function of this code
//! alone: the checks make them again in memory to compare a server's answers with.

/// The seed of every file's bytes.
const SEED: u64 = 0x5307_0034;

/// What a file is: its type decides its content, its `Content-Type` and whether it has
/// precompressed siblings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Html,
    Css,
    Js,
    Json,
    Text,
    Svg,
    Png,
    Jpeg,
    Woff2,
}

/// One file of the corpus as declared: its name (under `/static/`), kind and about how
/// many bytes (text ends at a whole line).
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    pub name: &'static str,
    pub kind: Kind,
    pub size: usize,
}

/// The corpus: small pages to a 400 KB script, text and binary.
pub const FILES: &[Declared] = &[
    Declared::of("index.html", Kind::Html, 4_000),
    Declared::of("about.html", Kind::Html, 18_000),
    Declared::of("style.css", Kind::Css, 12_000),
    Declared::of("app.js", Kind::Js, 60_000),
    Declared::of("vendor.js", Kind::Js, 400_000),
    Declared::of("data.json", Kind::Json, 25_000),
    Declared::of("readme.txt", Kind::Text, 1_000),
    Declared::of("logo.svg", Kind::Svg, 3_000),
    Declared::of("icon.png", Kind::Png, 8_000),
    Declared::of("photo.jpg", Kind::Jpeg, 150_000),
    Declared::of("font.woff2", Kind::Woff2, 40_000),
];

/// One file, made.
#[derive(Debug, Clone)]
pub struct File {
    pub declared: Declared,
    pub bytes: Vec<u8>,
}

impl Declared {
    const fn of(name: &'static str, kind: Kind, size: usize) -> Declared {
        Declared { name, kind, size }
    }
}

impl Kind {
    /// The media types a server may label it with (the first is the registered one;
    /// nginx's mime.types says `application/javascript` for scripts).
    pub fn content_types(self) -> &'static [&'static str] {
        match self {
            Kind::Html => &["text/html"],
            Kind::Css => &["text/css"],
            Kind::Js => &["text/javascript", "application/javascript"],
            Kind::Json => &["application/json"],
            Kind::Text => &["text/plain"],
            Kind::Svg => &["image/svg+xml"],
            Kind::Png => &["image/png"],
            Kind::Jpeg => &["image/jpeg"],
            Kind::Woff2 => &["font/woff2"],
        }
    }

    /// Whether it has `.gz` and `.br` siblings: text does; images and fonts are
    /// compressed already.
    pub fn compressible(self) -> bool {
        !matches!(self, Kind::Png | Kind::Jpeg | Kind::Woff2)
    }

    /// What binary files start with, so that they look like what they are named.
    fn magic(self) -> &'static [u8] {
        match self {
            Kind::Png => b"\x89PNG\r\n\x1a\n",
            Kind::Jpeg => b"\xff\xd8\xff\xe0",
            _ => b"wOF2",
        }
    }
}

/// Every file of the corpus, made.
pub fn files() -> Vec<File> {
    FILES
        .iter()
        .enumerate()
        .map(|(i, d)| File {
            declared: *d,
            bytes: make(d, &mut fastrand::Rng::with_seed(SEED ^ i as u64)),
        })
        .collect()
}

/// The bytes of `d`, drawn from `rng`.
fn make(d: &Declared, rng: &mut fastrand::Rng) -> Vec<u8> {
    if !d.kind.compressible() {
        let mut bytes = d.kind.magic().to_vec();
        bytes.extend((bytes.len()..d.size).map(|_| rng.u8(..)));
        return bytes;
    }
    let (open, close) = frame(d.kind);
    let mut text = String::from(open);
    let mut n = 0;
    while text.len() + close.len() < d.size {
        text += &line(d.kind, rng, n);
        n += 1;
    }
    text += close;
    text.into_bytes()
}

/// What a text file starts and ends with.
fn frame(kind: Kind) -> (&'static str, &'static str) {
    match kind {
        Kind::Html => (
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>shootout</title>\
             <link rel=\"stylesheet\" href=\"style.css\"></head><body>\n",
            "</body></html>\n",
        ),
        Kind::Json => ("[\n", "{\"end\": true}\n]\n"),
        Kind::Svg => (
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 100 100\">\n",
            "</svg>\n",
        ),
        _ => ("", ""),
    }
}

/// Line `n` of a text file of `kind`.
fn line(kind: Kind, rng: &mut fastrand::Rng, n: usize) -> String {
    let words = sentence(rng);
    let k = rng.u32(0..1000);
    match kind {
        Kind::Html => format!("<p class=\"c{k}\">{words}</p>\n"),
        Kind::Css => format!(
            ".c{n} {{ margin: {}px; color: #{:06x}; }}\n",
            k % 40,
            k * 997
        ),
        Kind::Js => format!("function f{n}(a, b) {{ return a * {k} + b; }} // {words}\n"),
        Kind::Json => format!("{{\"id\": {n}, \"score\": {k}, \"words\": \"{words}\"}},\n"),
        Kind::Svg => format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"3\" fill=\"#{:06x}\"/>\n",
            k % 97,
            n % 100,
            k % 13 + 1,
            k * 4099
        ),
        _ => format!("{words}\n"),
    }
}

/// A few words from a small vocabulary: text that compresses as text does.
fn sentence(rng: &mut fastrand::Rng) -> String {
    const WORDS: &[&str] = &[
        "server", "request", "answer", "socket", "header", "body", "load", "core", "latency",
        "the", "of", "and", "a", "to", "fast", "slow", "queue", "buffer", "epoll", "thread",
    ];
    let count = rng.usize(4..12);
    let picked: Vec<&str> = (0..count)
        .map(|_| WORDS[rng.usize(..WORDS.len())])
        .collect();
    picked.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_the_same_every_time_and_about_its_declared_sizes() {
        let (a, b) = (files(), files());
        assert_eq!(a.len(), FILES.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.bytes, y.bytes, "{}", x.declared.name);
            let (got, want) = (x.bytes.len(), x.declared.size);
            assert!(
                got >= want && got < want + 200,
                "{}: {got}",
                x.declared.name
            );
        }
    }
}
