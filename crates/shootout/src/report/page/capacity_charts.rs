//! The charts of capacity searches. Per capacity cell and contestant, latency (p50, p90,
//! p99) against the offered rate, with each latency objective's limit across it and the
//! capacity found (its interval shaded): where the knee is, and how close to it the
//! answer sits. And one cost curve per experiment: the server's CPU per response against
//! the offered rate, a line per contestant and capacity load, so that a reader sees
//! where each server's cost flattens. A rate judged several times (the boundary's
//! repeats, several searches) is drawn at its median; steps the generator missed say
//! nothing of the server and are left out (the axis says how many).

use crate::model::capacity::{Answer, Step, StepVerdict};
use crate::model::RunRecord;
use crate::report::experiment::capacity::{cells, Cell, Line};
use crate::report::page::colours::Colours;
use crate::report::page::figure::{slug, Figure};
use crate::report::page::svg::{Chart, Mark, Series};
use crate::stats::median;
use crate::threshold::{Metric, Threshold};
use crate::units::grouped;

/// The latency charts of every capacity cell of `runs`, then their cost curve.
pub fn figures(runs: &[RunRecord], colours: &Colours) -> Vec<Figure> {
    let cells = cells(runs);
    let latency =
        (cells.iter()).flat_map(|c| c.lines.iter().filter_map(move |l| latency(c, l, colours)));
    latency.chain(cost_curve(&cells, colours)).collect()
}

/// `/hello, split, keep-alive, 50 connections`.
fn place(c: &Cell) -> String {
    let k = &c.key;
    format!(
        "/{}, {}, {}, {}",
        k.endpoint,
        k.layout,
        k.load,
        k.connections_text()
    )
}

/// `/hello, split, keep-alive`: enough to tell a chart's cell from the others'.
fn short_place(c: &Cell) -> String {
    let k = &c.key;
    let streams = k
        .streams
        .map_or(String::new(), |n| format!(" × {n} streams"));
    format!("/{}, {}, {}{streams}", k.endpoint, k.layout, k.load)
}

/// The steps of a line's counted searches that judged the server, and how many the
/// generator missed.
fn judged<'a>(l: &Line<'a>) -> (Vec<&'a Step>, usize) {
    let all: Vec<&Step> = (l.searches.counted.iter())
        .flat_map(|s| s.steps.iter())
        .collect();
    let (missed, judged): (Vec<&Step>, Vec<&Step>) =
        (all.into_iter()).partition(|s| matches!(s.verdict, StepVerdict::GeneratorMissed { .. }));
    (judged, missed.len())
}

/// `pick` of `steps` at each rate they offered (the median where a rate was judged
/// more than once), lowest rate first; rates without a value are left out.
fn by_rate(steps: &[&Step], pick: impl Fn(&Step) -> Option<f64>) -> Vec<(f64, f64)> {
    let mut rates: Vec<f64> = steps.iter().map(|s| s.rate).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    (rates.into_iter())
        .filter_map(|rate| {
            let at: Vec<f64> = (steps.iter().filter(|s| s.rate == rate))
                .filter_map(|s| pick(s))
                .collect();
            (!at.is_empty()).then(|| (rate, median(&at)))
        })
        .collect()
}

/// What the rate axis says: its scale, and the steps left out.
fn rate_label(left_out: usize) -> String {
    match left_out {
        0 => "offered rate, requests/s (log scale)".into(),
        1 => "offered rate, requests/s (log scale; 1 step the generator missed left out)".into(),
        n => {
            format!("offered rate, requests/s (log scale; {n} steps the generator missed left out)")
        }
    }
}

/// How to read one latency from a step, ms.
type Pick = fn(&Step) -> f64;

/// The percentiles drawn, and how to read each.
const PERCENTILES: [(&str, Pick); 3] = [
    ("p50", |s| s.latency_us.p50 / 1000.0),
    ("p90", |s| s.latency_us.p90 / 1000.0),
    ("p99", |s| s.latency_us.p99 / 1000.0),
];

/// Latency against offered rate for one contestant of one cell; None without a step
/// that judged the server.
fn latency(c: &Cell, l: &Line, colours: &Colours) -> Option<Figure> {
    let (steps, left_out) = judged(l);
    if steps.is_empty() {
        return None;
    }
    let series = (PERCENTILES.iter())
        .map(|(name, pick)| Series {
            name: name.to_string(),
            points: by_rate(&steps, |s| Some(pick(s))),
            ..Series::default()
        })
        .collect();
    let name = l.searches.contestant;
    let mut marks = objective_levels(l);
    marks.extend(l.answer.as_ref().map(capacity_marks).unwrap_or_default());
    let svg = Chart {
        title: format!("{name}: latency against offered rate — {}", short_place(c)),
        x_label: rate_label(left_out),
        y_label: "latency, ms (log scale; medians)".into(),
        x_log: true,
        y_log: true,
        fine_log: true,
        series,
        marks,
        ..Chart::default()
    }
    .svg(colours);
    Some(Figure {
        id: slug(&format!("latency by rate {name} {}", place(c))),
        svg,
    })
}

/// A level at each latency objective's limit, ms (`objective p99<10ms`).
fn objective_levels(l: &Line) -> Vec<Mark> {
    let Some(search) = l.searches.counted.first() else {
        return Vec::new();
    };
    (search.objectives.iter())
        .filter_map(|text| text.parse::<Threshold>().ok())
        .filter(|t| matches!(t.metric, Metric::Latency(_)))
        .map(|t| Mark::Level {
            y: t.limit / 1000.0,
            label: format!("objective {}", t.text),
        })
        .collect()
}

/// The capacity found (`capacity 47,300/s`, `at least 64,000/s`) and its interval shaded;
/// nothing for a search below every rate, or one that found nothing.
fn capacity_marks(a: &Answer) -> Vec<Mark> {
    match a {
        Answer::Interval {
            estimate,
            low,
            high,
        } => vec![
            Mark::Span {
                from: *low,
                to: *high,
                label: format!("interval {} - {}/s", grouped(*low), grouped(*high)),
            },
            Mark::At {
                x: *estimate,
                label: format!("capacity {}/s", grouped(*estimate)),
            },
        ],
        Answer::AtLeast { rate, .. } if *rate == 0.0 => Vec::new(),
        Answer::AtLeast { rate, .. } => vec![Mark::At {
            x: *rate,
            label: format!("at least {}/s", grouped(*rate)),
        }],
        Answer::Below { .. } => Vec::new(),
    }
}

/// One contestant's lines for successive loads: solid, dashed, dotted.
const LOAD_DASHES: [&str; 3] = ["", "6 3", "2 3"];

/// The server's CPU per response against offered rate, a line per contestant and
/// capacity load; None when no search watched the server.
fn cost_curve(cells: &[Cell], colours: &Colours) -> Option<Figure> {
    let several = cells.len() > 1;
    let series: Vec<Series> = (cells.iter().enumerate())
        .flat_map(|(i, c)| {
            c.lines.iter().map(move |l| {
                let name = l.searches.contestant;
                Series {
                    name: match several {
                        true => format!("{name}, {}", c.key.load),
                        false => name.to_string(),
                    },
                    points: by_rate(&judged(l).0, |s| s.server_cpu_us_per_response),
                    contestant: Some(name.to_string()),
                    dash: Some(LOAD_DASHES[i % LOAD_DASHES.len()]),
                    ..Series::default()
                }
            })
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    if series.is_empty() {
        return None;
    }
    let svg = Chart {
        title: "Cost curve: server CPU per response against offered rate".into(),
        x_label: "offered rate, requests/s (log scale; steps the generator missed left out)".into(),
        y_label: "server CPU µs per response (log scale)".into(),
        x_log: true,
        y_log: true,
        fine_log: true,
        series,
        ..Chart::default()
    }
    .svg(colours);
    Some(Figure {
        id: "cost-curve".into(),
        svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::capacity_document;

    fn charts() -> Vec<Figure> {
        let d = capacity_document();
        figures(&d.runs, &Colours::of(std::slice::from_ref(&d)))
    }

    fn chart(id: &str) -> String {
        let all = charts();
        let found = all.into_iter().find(|f| f.id == id);
        found.unwrap_or_else(|| panic!("a chart {id}")).svg
    }

    /// The number of points of each series of `svg`, in order.
    fn points(svg: &str) -> Vec<usize> {
        (svg.split("data-points=\"").skip(1))
            .map(|rest| rest[..rest.find('"').unwrap()].parse().unwrap())
            .collect()
    }

    #[test]
    fn each_searched_contestant_has_its_latency_chart_and_the_experiment_one_cost_curve() {
        let ids: Vec<String> = charts().into_iter().map(|f| f.id).collect();
        assert_eq!(ids.len(), 7, "{ids:?}");
        assert_eq!(
            ids[0],
            "latency-by-rate-c-epoll-hello-split-keep-alive-50-connections"
        );
        assert!(
            !ids.iter().any(|id| id.contains("py-slow")),
            "no search, no chart"
        );
        assert_eq!(ids[6], "cost-curve");
    }

    #[test]
    fn latency_is_drawn_per_rate_with_the_objective_and_the_capacity_found() {
        let svg = chart("latency-by-rate-nginx-static-hello-split-keep-alive-50-connections");
        assert!(
            svg.contains("nginx-static: latency against offered rate — /hello, split, keep-alive")
        );
        // 13 steps at 9 rates: the boundary's repeats are drawn once, at their median.
        assert_eq!(points(&svg), [9, 9, 9]);
        assert!(svg.contains("<title>objective p99&lt;10ms</title>"));
        assert!(svg.contains("capacity 47,300/s"));
        assert!(svg.contains("<rect class=\"mark span\""));
        assert!(svg.contains("interval 47,300 - 49,400/s"));
        let bound = chart("latency-by-rate-c-epoll-hello-split-keep-alive-50-connections");
        assert!(bound.contains("at least 64,000/s") && !bound.contains("mark span"));
        assert!(bound.contains("1 step the generator missed left out"));
        assert_eq!(
            points(&bound),
            [5, 5, 5],
            "the step at 128,000/s is left out"
        );
    }

    #[test]
    fn the_cost_curve_has_a_line_per_contestant_and_load_in_the_contestant_s_colour() {
        let svg = chart("cost-curve");
        let colours = Colours::of(&[capacity_document()]);
        for name in ["c-epoll", "nginx-static", "go-nethttp"] {
            let colour = colours.style(name).colour;
            let lines: Vec<&str> = (svg.split("<path class=\"series\"").skip(1))
                .filter(|p| p.starts_with(&format!(" data-contestant=\"{name}\"")))
                .collect();
            assert_eq!(lines.len(), 2, "{name}: a line per load");
            assert!(lines.iter().all(|l| l.contains(colour)));
            assert!(
                lines[0].contains("stroke-dasharray=\"\""),
                "keep-alive solid"
            );
            assert!(
                lines[1].contains("stroke-dasharray=\"6 3\""),
                "new connection dashed"
            );
        }
        assert!(svg.contains("<title>nginx-static, new connection</title>"));
        assert_eq!(
            points(&svg)[0],
            5,
            "c-epoll keep-alive without the generator's miss"
        );
    }
}
