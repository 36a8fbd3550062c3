//! `shootout report` from a real stored experiment: the tables in the articles' layouts,
//! and the web page opened in a real headless Chromium, whose screenshot must show the
//! charts and whose console must stay silent; at 1280 × 800 its first screen holds the
//! summary and each table's leaders, no table scrolls sideways, and a contestant keeps
//! one colour on every chart. Loads go to 127.0.0.1 only.

use crate::checkout;

use checkout::shootout;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

/// A checkout with two small contestants and an experiment at two levels, twice, run.
/// The second is named as the ceiling (contestants/c-epoll), so tables compare to it; a
/// third dies at start (its port is no number), so the page has runs that are not ok.
fn measured_checkout() -> TempDir {
    let folder = checkout::temp_folder("report");
    let root = folder.path();
    for (name, port) in [
        ("py-one", "{port}"),
        ("c-epoll", "{port}"),
        ("py-broken", "no-port"),
    ] {
        let dir = root.join("contestants").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("server.py"), checkout::HELLO_SERVER).unwrap();
        let manifest = format!(
            "name = \"{name}\"\nlanguage = \"Python\"\nframework = \"http.server\"\nversion = \"stdlib\"\n\
             toolchain = \"python3 --version\"\nendpoints = [\"hello\"]\n[requires]\ncommands = [\"python3\"]\n\
             [start]\ncommand = \"exec python3 server.py {port} --nodelay\"\n"
        );
        std::fs::write(dir.join("contestant.toml"), manifest).unwrap();
        assert!(shootout(root, &["setup", name]).status.success());
    }
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::write(
        root.join("experiments/two.toml"),
        "name = \"two\"\ncontestants = [\"py-one\", \"c-epoll\", \"py-broken\"]\nlayouts = [\"shared\"]\nrepeats = 2\n\
         warmup = \"0.2s\"\nduration = \"1s\"\nseed = 3\n[[loads]]\nname = \"ka\"\nconnections = [2, 8]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
    )
    .unwrap();
    let out = shootout(root, &["run", "two"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    folder
}

#[test]
fn report_tables_and_a_page_that_renders_in_chromium() {
    let folder = measured_checkout();
    let root = folder.path();
    let out = shootout(root, &["report", "two", "--format", "markdown"]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{md}");
    assert!(md.contains("**Requests per second — /hello, ka**"), "{md}");
    assert!(md.contains("| server | 2 | 8 |"), "the 2009 matrix: {md}");
    assert!(
        md.contains("**99% of requests within (ms) — /hello, ka**"),
        "{md}"
    );
    assert!(
        md.contains("| server | avg latency | stdev latency | avg req/s (thread) |"),
        "{md}"
    );
    assert!(md.contains("py-one: Python 3."), "versions: {md}");
    assert!(md.contains("| % of ceiling | CPU/req vs ceiling |"), "{md}");
    assert!(
        md.contains("| 100% | ×1.00 |"),
        "the ceiling against itself: {md}"
    );
    let missing = shootout(root, &["report", "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    let page = root.join("page.html");
    let out = shootout(root, &["report", "two", "--html", page.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    for outside in ["<script", "src=\"http", "href=\"http", "@import", "url("] {
        assert!(
            !html.contains(outside),
            "the page must be self-contained: {outside}"
        );
    }
    check_in_chromium(&page);
    check_the_first_screen_and_widths(&page);
    check_one_colour_per_contestant(&html);
    let same = shootout(root, &["compare", "1", "two", "--fail-above", "5"]);
    let text = String::from_utf8_lossy(&same.stdout);
    assert_eq!(same.status.code(), Some(0), "{text}");
    assert!(text.contains("+0.0% (p=1.000)"), "{text}");
    assert!(
        text.contains("no significant regression beyond 5%"),
        "{text}"
    );
    assert_eq!(
        shootout(root, &["compare", "1", "9"]).status.code(),
        Some(2)
    );
}

/// The installed Chromium's command.
fn chromium() -> &'static str {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("chromium is installed by scripts/install-test-deps")
}

/// Headless, and no scrollbar taking width from the page.
const HEADLESS: [&str; 4] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
];

/// Chromium with `args` on `page`, given at most a minute.
fn chromium_on(page: &Path, args: &[&str]) -> std::process::Output {
    Command::new("timeout")
        .arg("60")
        .arg(chromium())
        .args(HEADLESS)
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("timeout and chromium run")
}

/// Opens the page in headless Chromium: the rendered DOM has charts with data, the
/// console says nothing, and the screenshot is not blank.
fn check_in_chromium(page: &Path) {
    let dom = chromium_on(page, &["--enable-logging=stderr", "--v=0", "--dump-dom"]);
    let text = String::from_utf8_lossy(&dom.stdout);
    let console: Vec<&str> = std::str::from_utf8(&dom.stderr)
        .unwrap_or("")
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    let charts = text.matches("<svg class=\"chart\"").count();
    let drawn = text.matches("data-points=\"2\"").count();
    assert!(charts >= 4, "{charts} charts in the rendered page");
    assert!(drawn >= 2, "lines with both levels: {drawn}");
    let shot = page.with_extension("png");
    let out = chromium_on(
        page,
        &[
            "--window-size=1280,2400",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    assert!(shot.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        coloured_pixels(&shot) > 2_000,
        "the screenshot shows the charts' colours"
    );
}

/// Pixels that are neither grey nor white: chart lines and bars (text is black).
fn coloured_pixels(path: &Path) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    buf[..info.buffer_size()]
        .chunks(step)
        .filter(|p| step >= 3 && (p[0].abs_diff(p[1]) > 40 || p[1].abs_diff(p[2]) > 40))
        .count()
}

/// What the test's copy of the page reports of its own layout (the page itself has no
/// script): a line per fact, fields separated by tabs, in a `<pre id="layout">`.
const LAYOUT_SCRIPT: &str = r#"<script>{
const out = [];
const put = (...fields) => out.push(fields.join("\t"));
const topOf = e => e ? Math.floor(e.getBoundingClientRect().top + scrollY) : -1;
put("viewport", innerWidth, innerHeight);
for (const e of document.querySelectorAll(".summary, .findings li")) {
  put("first", Math.ceil(e.getBoundingClientRect().bottom), e.textContent);
}
const last = [...document.querySelectorAll("figure")].pop();
put("order", topOf(document.querySelector(".findings")), topOf(document.querySelector("div.table")),
    topOf(last), topOf(document.querySelector(".warnings")));
for (const d of document.querySelectorAll("details")) d.open = true;
for (const d of document.querySelectorAll("div.table")) {
  put("table", d.scrollWidth, d.clientWidth, d.querySelector("caption").textContent);
}
const pre = document.createElement("pre");
pre.id = "layout";
pre.textContent = out.join("\n");
document.body.append(pre);
}</script>"#;

/// The layout facts of `page` at 1280 × 800, each a line's tab-separated fields.
fn layout_at_1280(page: &Path) -> Vec<Vec<String>> {
    let html = std::fs::read_to_string(page).unwrap();
    let copy = page.with_extension("layout.html");
    std::fs::write(
        &copy,
        html.replace("</body>", &format!("{LAYOUT_SCRIPT}</body>")),
    )
    .unwrap();
    let dom = chromium_on(
        &copy,
        &[
            "--window-size=1280,800",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ],
    );
    let text = String::from_utf8_lossy(&dom.stdout);
    let Some(start) = text.find("<pre id=\"layout\">").map(|at| at + 17) else {
        let log = String::from_utf8_lossy(&dom.stderr);
        panic!("the layout script did not run: {log}");
    };
    let end = start + text[start..].find("</pre>").unwrap();
    (text[start..end].lines())
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

/// In a 1280 × 800 window the first screen (the viewport's height) holds the summary
/// line and every finding, which come before the tables, the tables before the last
/// chart and that before the folded warnings; and no table (folds opened) is wider than
/// its box.
fn check_the_first_screen_and_widths(page: &Path) {
    let facts = layout_at_1280(page);
    let of = |kind: &'static str| facts.iter().filter(move |f| f[0] == kind);
    let viewport = of("viewport").next().expect("the viewport");
    assert_eq!(viewport[1], "1280", "{facts:?}");
    let screen: f64 = viewport[2].parse().unwrap();
    let first: Vec<&Vec<String>> = of("first").collect();
    assert!(
        first[0][2].contains(" runs: ") && first[0][2].contains(" valid"),
        "{first:?}"
    );
    assert!(
        first.len() >= 3,
        "the summary and a finding per table: {first:?}"
    );
    let capacity = "Capacity (/hello, shared, ka, 2 connections): ";
    assert!(
        first
            .iter()
            .any(|f| f[2].starts_with(capacity) && f[2].contains("(ceiling)")),
        "{first:?}"
    );
    for f in &first {
        let bottom: f64 = f[1].parse().unwrap();
        assert!(
            bottom <= screen,
            "below the first screen ({screen} px): {f:?}"
        );
    }
    let order: Vec<i64> = of("order").next().unwrap()[1..]
        .iter()
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(
        order.windows(2).all(|w| 0 <= w[0] && w[0] < w[1]),
        "findings, tables, charts, folds: {order:?}"
    );
    let tables: Vec<&Vec<String>> = of("table").collect();
    assert!(
        tables.len() >= 5,
        "the results' and the folded runs': {tables:?}"
    );
    for t in tables {
        let (scroll, width): (u32, u32) = (t[1].parse().unwrap(), t[2].parse().unwrap());
        assert!(
            scroll <= width,
            "{} is {scroll} px wide in {width} px",
            t[3]
        );
    }
}

/// Every contestant's line or bar, in every chart, has the one colour of that contestant
/// (its dashes too are its own, as the page's one `Colours` gives both), and no two of
/// the test's few contestants share a colour.
fn check_one_colour_per_contestant(html: &str) {
    let mut styles: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut charts: BTreeMap<&str, usize> = BTreeMap::new();
    for svg in html.split("<svg ").skip(1) {
        let mut seen = BTreeSet::new();
        for tag in svg.split('<').filter(|t| t.contains("data-contestant=\"")) {
            let name = attribute(tag, "data-contestant").unwrap();
            let colour = attribute(tag, "stroke").or(attribute(tag, "fill")).unwrap();
            styles.entry(name).or_default().insert(colour);
            seen.insert(name);
        }
        for name in seen {
            *charts.entry(name).or_default() += 1;
        }
    }
    assert!(styles.len() >= 2, "{styles:?}");
    for (name, colours) in &styles {
        assert_eq!(colours.len(), 1, "{name} is drawn in {colours:?}");
        assert!(charts[name] >= 3, "{name} is in {} charts", charts[name]);
    }
    let distinct: BTreeSet<&&str> = styles.values().flatten().collect();
    assert_eq!(
        distinct.len(),
        styles.len(),
        "contestants share a colour: {styles:?}"
    );
}

/// The value of `name="..."` in an element's text.
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[start..].split('"').next()
}
