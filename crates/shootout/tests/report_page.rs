//! `shootout report` from a real stored experiment: the tables in the articles' layouts,
//! and the web page opened in a real headless Chromium, whose screenshot must show the
//! charts and whose console must stay silent. Loads go to 127.0.0.1 only.

#[allow(dead_code)] // each test file uses part of it
mod checkout;

use checkout::shootout;
use std::path::{Path, PathBuf};
use std::process::Command;

const SERVER: &str = r#"
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else headers and body wait on a delayed ACK: 44 req/s
    def do_GET(self):
        body = b"Hello World"
        self.send_response(200 if self.path == "/hello" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"#;

/// A checkout with two small contestants and an experiment at two levels, twice, run.
/// The second is named as the ceiling (contestants/c-epoll), so tables compare to it.
fn measured_checkout() -> PathBuf {
    let root = std::env::temp_dir().join(format!("shootout-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for name in ["py-one", "c-epoll"] {
        let dir = root.join("contestants").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("server.py"), SERVER).unwrap();
        let manifest = format!(
            "name = \"{name}\"\nlanguage = \"Python\"\nframework = \"http.server\"\nversion = \"stdlib\"\n\
             toolchain = \"python3 --version\"\nendpoints = [\"hello\"]\n[requires]\ncommands = [\"python3\"]\n\
             [start]\ncommand = \"exec python3 server.py {{port}}\"\n"
        );
        std::fs::write(dir.join("contestant.toml"), manifest).unwrap();
        assert!(shootout(&root, &["setup", name]).status.success());
    }
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::write(
        root.join("experiments/two.toml"),
        "name = \"two\"\ncontestants = [\"py-one\", \"c-epoll\"]\nlayouts = [\"shared\"]\nrepeats = 2\n\
         warmup = \"0.2s\"\nduration = \"1s\"\nseed = 3\n[[loads]]\nname = \"ka\"\nconnections = [2, 8]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
    )
    .unwrap();
    let out = shootout(&root, &["run", "two"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    root
}

#[test]
fn report_tables_and_a_page_that_renders_in_chromium() {
    let root = measured_checkout();
    let out = shootout(&root, &["report", "two", "--format", "markdown"]);
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
    let missing = shootout(&root, &["report", "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    let page = root.join("page.html");
    let out = shootout(&root, &["report", "two", "--html", page.to_str().unwrap()]);
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
    let same = shootout(&root, &["compare", "1", "two", "--fail-above", "5"]);
    let text = String::from_utf8_lossy(&same.stdout);
    assert_eq!(same.status.code(), Some(0), "{text}");
    assert!(text.contains("+0.0% (p=1.000)"), "{text}");
    assert!(
        text.contains("no significant regression beyond 5%"),
        "{text}"
    );
    assert_eq!(
        shootout(&root, &["compare", "1", "9"]).status.code(),
        Some(2)
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Opens the page in headless Chromium: the rendered DOM has charts with data, the
/// console says nothing, and the screenshot is not blank.
fn check_in_chromium(page: &Path) {
    let chromium = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("chromium is installed by scripts/install-test-deps");
    let url = format!("file://{}", page.display());
    let base = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
    ];
    let dom = Command::new("timeout")
        .arg("60")
        .arg(chromium)
        .args(base)
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom", &url])
        .output()
        .unwrap();
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
    let out = Command::new("timeout")
        .arg("60")
        .arg(chromium)
        .args(base)
        .args([
            "--window-size=1000,2400",
            &format!("--screenshot={}", shot.display()),
            &url,
        ])
        .output()
        .unwrap();
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
