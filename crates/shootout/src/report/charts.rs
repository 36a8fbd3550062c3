//! The charts of one experiment: requests/s by concurrency, latency percentiles, the
//! 2019 ramp graphs, and per-core CPU over a run (the 2012 article's screenshots).

use crate::harness::monitor::Point;
use crate::harness::run::{Label, Run};
use crate::report::chart::{self, Chart, Series};
use crate::report::document::Document;
use crate::report::summary::{self, median, CellKey, Row};

/// A chart with a file-name-safe id.
pub struct Figure {
    pub id: String,
    pub svg: String,
}

/// Every chart of `d`, in page order.
pub fn figures(d: &Document) -> Vec<Figure> {
    let (ramps, others) = d.split();
    let mut out = throughput(&others);
    out.extend(percentiles(&others));
    out.extend(ramp_graphs(&ramps));
    out.extend(cpu(&d.runs));
    out
}

fn slug(text: &str) -> String {
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

/// Requests/s by concurrency per contestant (a line each), or bars for a single level.
fn throughput(runs: &[Run]) -> Vec<Figure> {
    let cells = summary::cells(runs);
    let mut groups: Vec<(String, String, String, Option<String>)> = Vec::new();
    for (k, _) in &cells {
        let g = (
            k.endpoint.clone(),
            k.layout.clone(),
            k.load.clone(),
            k.rate.clone(),
        );
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    groups
        .into_iter()
        .map(|g| {
            let these: Vec<&(CellKey, Vec<Row>)> = cells
                .iter()
                .filter(|(k, _)| {
                    (&k.endpoint, &k.layout, &k.load, &k.rate) == (&g.0, &g.1, &g.2, &g.3)
                })
                .collect();
            let title = format!("Requests/s — /{}, {}, {}", g.0, g.1, g.2);
            Figure {
                id: slug(&format!("rps {} {} {}", g.0, g.1, g.2)),
                svg: by_level(&title, &these),
            }
        })
        .collect()
}

fn by_level(title: &str, cells: &[&(CellKey, Vec<Row>)]) -> String {
    let mut levels: Vec<usize> = cells.iter().map(|(k, _)| k.connections).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut names: Vec<&str> = cells
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|r| r.contestant))
        .collect();
    names.sort();
    names.dedup();
    let median_of = |name: &str, c: usize| -> Option<f64> {
        let row = cells
            .iter()
            .filter(|(k, _)| k.connections == c)
            .flat_map(|(_, r)| r.iter())
            .find(|r| r.contestant == name)?;
        let rps = row.rps();
        (!rps.is_empty()).then(|| median(&rps))
    };
    if levels.len() == 1 {
        let mut items: Vec<(String, f64)> = names
            .iter()
            .filter_map(|n| median_of(n, levels[0]).map(|v| (n.to_string(), v)))
            .collect();
        items.sort_by(|a, b| b.1.total_cmp(&a.1));
        return chart::bars(
            &format!("{title}, {} connections", levels[0]),
            "req/s",
            &items,
        );
    }
    let series = names
        .iter()
        .map(|n| Series {
            name: n.to_string(),
            points: levels
                .iter()
                .filter_map(|&c| median_of(n, c).map(|v| (c as f64, v)))
                .collect(),
            right: false,
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    Chart {
        title: title.into(),
        x_label: "concurrent connections".into(),
        y_label: "requests/s (median of ok runs)".into(),
        x_log: true,
        x_ticks: Some(
            levels
                .iter()
                .map(|&c| (c as f64, chart::short(c as f64)))
                .collect(),
        ),
        series,
        ..Chart::default()
    }
    .svg()
}

/// Latency percentile curves (p50 … p99.99) per contestant, from each one's median run.
fn percentiles(runs: &[Run]) -> Vec<Figure> {
    const NINES: [(&str, f64); 6] = [
        ("p50", 50.0),
        ("p75", 75.0),
        ("p90", 90.0),
        ("p99", 99.0),
        ("p99.9", 99.9),
        ("p99.99", 99.99),
    ];
    let x = |p: f64| -(1.0 - p / 100.0).log10();
    summary::cells(runs)
        .into_iter()
        .map(|(key, rows)| {
            let series = rows
                .iter()
                .filter_map(|r| {
                    let (_, m) = r.median_run()?;
                    let l = &m.latency_us;
                    let values = [l.p50, l.p75, l.p90, l.p99, l.p999, l.p9999];
                    let points = NINES
                        .iter()
                        .zip(values)
                        .map(|((_, p), v)| (x(*p), v / 1000.0))
                        .collect();
                    Some(Series {
                        name: r.contestant.to_string(),
                        points,
                        right: false,
                    })
                })
                .collect();
            let svg = Chart {
                title: format!("Latency percentiles — {}", key.title()),
                x_label: "percentile".into(),
                y_label: "latency, ms (log scale)".into(),
                y_log: true,
                x_ticks: Some(NINES.iter().map(|(n, p)| (x(*p), n.to_string())).collect()),
                series,
                ..Chart::default()
            }
            .svg();
            Figure {
                id: slug(&format!("latency {}", key.title())),
                svg,
            }
        })
        .collect()
}

/// The 2019 graphs: responses/s, p90 latency and timeouts/s against time, with the
/// device count on a second axis.
fn ramp_graphs(runs: &[Run]) -> Vec<Figure> {
    type Pick = fn(&engine::SecondSummary) -> f64;
    let graphs: [(&str, &str, Pick); 3] = [
        ("Responses/s", "responses/s", |s| s.requests as f64),
        ("p90 latency", "p90 latency, ms", |s| s.p90_us / 1000.0),
        ("Timeouts/s", "timeouts/s", |s| s.timeouts as f64),
    ];
    let with_result: Vec<&Run> = runs.iter().filter(|r| r.result.is_some()).collect();
    let Some(first) = with_result.first().and_then(|r| r.result.as_ref()) else {
        return Vec::new();
    };
    let devices = Series {
        name: "devices".into(),
        points: first
            .per_second
            .iter()
            .map(|s| (s.second as f64, s.devices as f64))
            .collect(),
        right: true,
    };
    graphs
        .iter()
        .map(|(title, unit, pick)| {
            let mut series: Vec<Series> = with_result
                .iter()
                .map(|r| Series {
                    name: r.contestant.clone(),
                    points: r
                        .result
                        .iter()
                        .flat_map(|x| x.per_second.iter().map(|s| (s.second as f64, pick(s))))
                        .collect(),
                    right: false,
                })
                .collect();
            series.push(devices.clone());
            let svg = Chart {
                title: format!("{title} as devices ramp up"),
                x_label: "time, s".into(),
                y_label: unit.to_string(),
                y2_label: Some("devices".into()),
                series,
                ..Chart::default()
            }
            .svg();
            Figure {
                id: slug(&format!("ramp {title}")),
                svg,
            }
        })
        .collect()
}

/// Per-core use, server CPU and generator CPU over one run of each contestant (its
/// first measured run).
fn cpu(runs: &[Run]) -> Vec<Figure> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for r in runs
        .iter()
        .filter(|r| r.series.len() > 2 && r.label != Label::Skipped)
    {
        if seen.contains(&r.contestant.as_str()) {
            continue;
        }
        seen.push(&r.contestant);
        out.push(Figure {
            id: slug(&format!("cpu {}", r.contestant)),
            svg: cpu_chart(r),
        });
    }
    out
}

/// Samples per plotted point: half a second, because /proc counts CPU in 10 ms ticks
/// and a 100 ms share jumps by ±10% from tick rounding alone.
const SMOOTH: usize = 5;

fn cpu_chart(r: &Run) -> String {
    let t = |p: &Point| p.t_ms as f64 / 1000.0;
    let chunks: Vec<&[Point]> = r.series.chunks(SMOOTH).filter(|c| c.len() > 1).collect();
    let rate = |f: fn(&Point) -> f64| -> Vec<(f64, f64)> {
        (1..chunks.len())
            .map(|i| {
                let (a, b) = (
                    &chunks[i - 1][chunks[i - 1].len() - 1],
                    &chunks[i][chunks[i].len() - 1],
                );
                let dt = (t(b) - t(a)).max(1e-3);
                (t(b), 100.0 * (f(b) - f(a)) / dt)
            })
            .collect()
    };
    let cores = r.series.iter().map(|p| p.cores.len()).max().unwrap_or(0);
    let mut series: Vec<Series> = (0..cores)
        .map(|c| Series {
            name: format!("core {c} busy"),
            points: chunks
                .iter()
                .skip(1)
                .map(|ch| {
                    let busy: f64 = ch
                        .iter()
                        .filter_map(|p| p.cores.get(c))
                        .map(|u| f64::from(*u))
                        .sum();
                    (t(&ch[ch.len() - 1]), 100.0 * busy / ch.len() as f64)
                })
                .collect(),
            right: false,
        })
        .collect();
    series.push(Series {
        name: "server CPU".into(),
        points: rate(|p| p.cpu_s),
        right: false,
    });
    series.push(Series {
        name: "generator CPU".into(),
        points: rate(|p| p.generator_cpu_s),
        right: false,
    });
    Chart {
        title: format!(
            "CPU during a run — {} ({}, {}, c={})",
            r.contestant, r.layout, r.load, r.connections
        ),
        x_label: "time, s (warm-up included; 0.5 s means)".into(),
        y_label: "% of one core".into(),
        series,
        ..Chart::default()
    }
    .svg()
}
