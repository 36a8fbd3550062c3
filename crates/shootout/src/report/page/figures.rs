//! The charts of one experiment: requests/s by concurrency, the server's CPU per response
//! at a fixed rate, latency percentiles, latency against offered rate and the cost curve
//! of capacity searches (`capacity_charts`), the 2019 ramp graphs, and per-core CPU over
//! a run (the 2012 article's screenshots).

use crate::model::{Label, Point, RunRecord};
use crate::report::document::Document;
use crate::report::experiment::efficiency;
use crate::report::experiment::kinds::Kinds;
use crate::report::experiment::marks::MARKED;
use crate::report::experiment::ranking::{self, RankedCell};
use crate::report::experiment::row::Row;
use crate::report::page::colours::Colours;
use crate::report::page::figure::slug;
pub use crate::report::page::figure::Figure;
use crate::report::page::svg::{self, Bar, Chart, Series};
use crate::report::page::{capacity_charts, declared_chart};
use crate::stats::{self, median};
use engine::LoadResult;
use engine::SecondSummary;

/// Every chart of `d`, in page order, each contestant in its style of `colours`.
pub fn figures(d: &Document, colours: &Colours) -> Vec<Figure> {
    let kinds = Kinds::of(&d.runs);
    let mut out = declared(d, colours);
    out.extend(throughput(&kinds.closed, colours));
    out.extend(efficiency(&kinds.rated, colours));
    out.extend(percentiles(&kinds.requests, colours));
    out.extend(capacity_charts::figures(&d.runs, colours));
    out.extend(ramp_graphs(&kinds.ramps, colours));
    out.extend(cpu(&d.runs, colours));
    out
}

/// The chart of each table the experiment declares.
fn declared(d: &Document, colours: &Colours) -> Vec<Figure> {
    let Some(plan) = d.experiment.plan.as_ref() else {
        return Vec::new();
    };
    (d.declared().iter())
        .flat_map(|t| declared_chart::charts(t, plan, &d.runs, colours))
        .collect()
}

/// Requests/s by concurrency per contestant (a line each), or bars for a single level.
fn throughput(runs: &[RunRecord], colours: &Colours) -> Vec<Figure> {
    let cells = ranking::cells(runs);
    let groups = ranking::group_by(&cells, |k| {
        (
            k.endpoint.clone(),
            k.layout.clone(),
            k.load.clone(),
            k.streams,
            k.rate.clone(),
        )
    });
    groups
        .into_iter()
        .map(|((endpoint, layout, load, streams, _), these)| {
            let streams = streams.map_or(String::new(), |n| format!(", {n} streams"));
            Figure {
                id: slug(&format!("rps {endpoint} {layout} {load}{streams}")),
                svg: by_level(
                    &format!("Requests/s — /{endpoint}, {layout}, {load}{streams}"),
                    &these,
                    colours,
                ),
            }
        })
        .collect()
}

fn by_level(title: &str, cells: &[&RankedCell], colours: &Colours) -> String {
    let levels = ranking::levels(cells);
    let mut names: Vec<&str> = cells
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|r| r.contestant))
        .collect();
    names.sort();
    names.dedup();
    // The median requests/s of contestant `name` at level `c`, when it measured there.
    let at = |name: &str, c: usize| -> Option<f64> {
        let row = ranking::find_row(cells, |k| k.connections == c, name)?;
        row.is_measured().then(|| median(&row.rps()))
    };
    if let [only] = levels[..] {
        let title = format!("{title}, {only} connections");
        return bars_at(&title, &names, |n| at(n, only), colours);
    }
    let series = names
        .iter()
        .map(|n| Series {
            name: n.to_string(),
            points: levels
                .iter()
                .filter_map(|&c| at(n, c).map(|v| (c as f64, v)))
                .collect(),
            right: false,
            contestant: Some(n.to_string()),
            dash: None,
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
                .map(|&c| (c as f64, svg::short(c as f64)))
                .collect(),
        ),
        series,
        ..Chart::default()
    }
    .svg(colours)
}

/// Bars of the contestants' medians at the one level, highest first.
fn bars_at(
    title: &str,
    names: &[&str],
    at: impl Fn(&str) -> Option<f64>,
    colours: &Colours,
) -> String {
    let mut items: Vec<(String, f64)> = names
        .iter()
        .filter_map(|n| at(n).map(|v| (n.to_string(), v)))
        .collect();
    items.sort_by(|a, b| b.1.total_cmp(&a.1));
    let bars: Vec<Bar> = (items.into_iter())
        .map(|(name, value)| Bar {
            contestant: name.clone(),
            name,
            value,
            interval: None,
        })
        .collect();
    svg::bars(title, "req/s", &bars, colours)
}

/// The server's CPU per response in each fixed-rate cell, cheapest first: the efficiency
/// table's medians with their intervals as whiskers.
fn efficiency(runs: &[RunRecord], colours: &Colours) -> Vec<Figure> {
    efficiency::costs(runs)
        .into_iter()
        .map(|(key, costs)| {
            let mut bars: Vec<Bar> = (costs.into_iter())
                .filter(|c| !c.us.is_empty())
                .map(|c| Bar {
                    name: match c.marked {
                        true => format!("{} {MARKED}", c.contestant),
                        false => c.contestant.clone(),
                    },
                    contestant: c.contestant,
                    value: median(&c.us),
                    interval: (c.us.len() > 1).then(|| stats::interval(&c.us)),
                })
                .collect();
            bars.sort_by(|a, b| a.value.total_cmp(&b.value));
            let cell = format!("/{}, {}, {}", key.endpoint, key.layout, key.load);
            let title = format!("Server CPU per response — {cell}");
            Figure {
                id: slug(&format!("cpu per response {cell}")),
                svg: svg::bars(&title, "µs", &bars, colours),
            }
        })
        .collect()
}

/// The percentiles of the latency charts, and where each sits on the x axis: the
/// number of nines, so that p99.99 is as far from p99.9 as p99.9 from p99.
const NINES: [(&str, f64); 6] = [
    ("p50", 50.0),
    ("p75", 75.0),
    ("p90", 90.0),
    ("p99", 99.0),
    ("p99.9", 99.9),
    ("p99.99", 99.99),
];

fn nines_x(p: f64) -> f64 {
    -(1.0 - p / 100.0).log10()
}

/// Latency percentile curves (p50 … p99.99) per contestant, from each one's median run.
fn percentiles(runs: &[RunRecord], colours: &Colours) -> Vec<Figure> {
    ranking::cells(runs)
        .into_iter()
        .map(|(key, rows)| {
            let svg = Chart {
                title: format!("Latency percentiles — {}", key.title()),
                x_label: "percentile".into(),
                y_label: "latency, ms (log scale)".into(),
                y_log: true,
                x_ticks: Some(
                    NINES
                        .iter()
                        .map(|(n, p)| (nines_x(*p), n.to_string()))
                        .collect(),
                ),
                series: rows.iter().filter_map(percentile_curve).collect(),
                ..Chart::default()
            }
            .svg(colours);
            Figure {
                id: slug(&format!("latency {}", key.title())),
                svg,
            }
        })
        .collect()
}

/// The latency percentiles of `row`'s median run, milliseconds.
fn percentile_curve(row: &Row) -> Option<Series> {
    let (_, m) = row.median_run()?;
    let l = &m.latency_us;
    let values = [l.p50, l.p75, l.p90, l.p99, l.p999, l.p9999];
    Some(Series {
        name: row.contestant.to_string(),
        points: NINES
            .iter()
            .zip(values)
            .map(|((_, p), v)| (nines_x(*p), v / 1000.0))
            .collect(),
        right: false,
        contestant: Some(row.contestant.to_string()),
        dash: None,
    })
}

/// What one of the 2019 graphs shows of each second.
type Pick = fn(&SecondSummary) -> f64;

/// The 2019 graphs: responses/s, p90 latency and timeouts/s against time, with the
/// device count on a second axis.
fn ramp_graphs(runs: &[RunRecord], colours: &Colours) -> Vec<Figure> {
    let graphs: [(&str, &str, Pick); 3] = [
        ("Responses/s", "responses/s", |s| s.requests as f64),
        ("p90 latency", "p90 latency, ms", |s| s.p90_us / 1000.0),
        ("Timeouts/s", "timeouts/s", |s| s.timeouts as f64),
    ];
    let with_result: Vec<&RunRecord> = runs.iter().filter(|r| r.result().is_some()).collect();
    let Some(first) = with_result.first().and_then(|r| r.result()) else {
        return Vec::new();
    };
    let devices = Series {
        name: "devices".into(),
        points: per_second(first, |s| s.devices as f64),
        right: true,
        contestant: None,
        dash: None,
    };
    graphs
        .iter()
        .map(|(title, unit, pick)| Figure {
            id: slug(&format!("ramp {title}")),
            svg: ramp_graph(title, unit, *pick, &with_result, &devices, colours),
        })
        .collect()
}

/// One 2019 graph: `pick` of each run's seconds, and the devices on the right axis.
fn ramp_graph(
    title: &str,
    unit: &str,
    pick: Pick,
    runs: &[&RunRecord],
    devices: &Series,
    colours: &Colours,
) -> String {
    let mut series: Vec<Series> = runs
        .iter()
        .map(|r| Series {
            name: r.coordinates.contestant.clone(),
            points: r.result().map_or(Vec::new(), |x| per_second(x, pick)),
            right: false,
            contestant: Some(r.coordinates.contestant.clone()),
            dash: None,
        })
        .collect();
    series.push(devices.clone());
    Chart {
        title: format!("{title} as devices ramp up"),
        x_label: "time, s".into(),
        y_label: unit.to_string(),
        y2_label: Some("devices".into()),
        series,
        ..Chart::default()
    }
    .svg(colours)
}

/// `pick` of each second of `x`, against the second.
fn per_second(x: &LoadResult, pick: Pick) -> Vec<(f64, f64)> {
    x.per_second
        .iter()
        .map(|s| (s.second as f64, pick(s)))
        .collect()
}

/// Per-core use, server CPU and generator CPU over one run of each contestant (its
/// first measured run).
fn cpu(runs: &[RunRecord], colours: &Colours) -> Vec<Figure> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for r in runs
        .iter()
        .filter(|r| r.series.len() > 2 && r.label() != Label::Skipped)
    {
        if seen.contains(&r.coordinates.contestant.as_str()) {
            continue;
        }
        seen.push(&r.coordinates.contestant);
        out.push(Figure {
            id: slug(&format!("cpu {}", r.coordinates.contestant)),
            svg: cpu_chart(r, colours),
        });
    }
    out
}

/// Samples per plotted point: half a second, because /proc counts CPU in 10 ms ticks
/// and a 100 ms share jumps by ±10% from tick rounding alone.
const SMOOTH: usize = 5;

/// Per-core, server and generator CPU: lines styled by position (none is a contestant's).
fn cpu_chart(r: &RunRecord, colours: &Colours) -> String {
    let chunks: Vec<&[Point]> = r.series.chunks(SMOOTH).filter(|c| c.len() > 1).collect();
    let cores = r.series.iter().map(|p| p.cores.len()).max().unwrap_or(0);
    let mut series: Vec<Series> = (0..cores).map(|c| core_busy(&chunks, c)).collect();
    series.push(Series {
        name: "server CPU".into(),
        points: cpu_rate(&chunks, |p| p.cpu_s),
        right: false,
        contestant: None,
        dash: None,
    });
    series.push(Series {
        name: "generator CPU".into(),
        points: cpu_rate(&chunks, |p| p.generator_cpu_s),
        right: false,
        contestant: None,
        dash: None,
    });
    Chart {
        title: format!(
            "CPU during a run — {} ({}, {}, c={}{})",
            r.coordinates.contestant,
            r.coordinates.layout,
            r.coordinates.load,
            r.coordinates.connections,
            r.coordinates.streams_text()
        ),
        x_label: "time, s (warm-up included; 0.5 s means)".into(),
        y_label: "% of one core".into(),
        series,
        ..Chart::default()
    }
    .svg(colours)
}

/// Seconds since the monitor started.
fn seconds(p: &Point) -> f64 {
    p.t_ms as f64 / 1000.0
}

/// Core `c`'s mean busy share per chunk (after the first), percent.
fn core_busy(chunks: &[&[Point]], c: usize) -> Series {
    let points = chunks
        .iter()
        .skip(1)
        .map(|ch| {
            let busy: f64 = ch
                .iter()
                .filter_map(|p| p.cores.get(c))
                .map(|u| f64::from(*u))
                .sum();
            (seconds(&ch[ch.len() - 1]), 100.0 * busy / ch.len() as f64)
        })
        .collect();
    Series {
        name: format!("core {c} busy"),
        points,
        right: false,
        contestant: None,
        dash: None,
    }
}

/// The rate of a cumulative CPU counter between the ends of consecutive chunks, in
/// percent of one core.
fn cpu_rate(chunks: &[&[Point]], cumulative: fn(&Point) -> f64) -> Vec<(f64, f64)> {
    chunks
        .windows(2)
        .map(|w| {
            let (a, b) = (&w[0][w[0].len() - 1], &w[1][w[1].len() - 1]);
            let dt = (seconds(b) - seconds(a)).max(1e-3);
            (seconds(b), 100.0 * (cumulative(b) - cumulative(a)) / dt)
        })
        .collect()
}
