//! A small made-up experiment with every kind of run the report meets (ok, generator-bound,
//! failed, skipped; two layouts, an open-loop rate, a device ramp; a ceiling that is only
//! generator-bound at one level), and a test that every output drawn from it stays the
//! same: an insta snapshot, tests/snapshots/report_fixture.snap (`cargo insta review`, or
//! `INSTA_UPDATE=always`, accepts a deliberate change).

use crate::experiment::{Repeats, UntilSure};
use crate::model::{
    Bottleneck, Cell, Label, LoadKind, Machine, Outcome, Point, RunRecord, Verdict, VerifyLevel,
};
use crate::report::document::Document;
use crate::store::ExperimentRow;
use engine::LoadResult;

/// What a made-up run measured: the numbers the report reads.
#[derive(Clone, Copy)]
pub struct Measured {
    pub rps: f64,
    pub p99_ms: f64,
    pub server_cpu_s: f64,
    pub errors: u64,
}

/// A result of `m.rps` responses/s over 4 s, its latencies drawn from `m.p99_ms`.
pub fn result(m: Measured) -> LoadResult {
    let served = (m.rps * 4.0).round() as u64;
    let p99_us = m.p99_ms * 1000.0;
    let percentiles = serde_json::json!({
        "mean": p99_us / 3.0, "stdev": p99_us / 7.0, "min": p99_us / 20.0, "max": p99_us * 2.0,
        "p50": p99_us / 3.5, "p75": p99_us / 2.5, "p90": p99_us / 1.5, "p99": p99_us,
        "p999": p99_us * 1.4, "p9999": p99_us * 1.9,
    });
    let json = serde_json::json!({
        "schema": "shootout.load/1", "url": "http://127.0.0.1:9000/hello",
        "config": {
            "method": "GET", "connections": 50, "threads": 1, "duration_s": 4.0,
            "requests": null, "warmup_s": 1.0, "timeout_s": 5.0, "pipeline": 1,
            "keepalive": true, "http_version": "1.1",
        },
        "duration_s": 4.0,
        "requests": {
            "ok": served, "status": 0, "timeout": m.errors, "connect": 0, "read": 0,
            "write": 0, "parse": 0, "in_flight": 0,
        },
        "rps": m.rps,
        "bytes": {"read": served * 120, "written": served * 40},
        "transfer_per_s": m.rps * 120.0,
        "latency_us": percentiles, "latency_raw_us": percentiles, "rate": null,
        "connect_us": percentiles,
        "thread_rps": {"mean": m.rps / 2.0, "stdev": m.rps / 50.0, "max": m.rps / 1.8, "samples": 8},
        "status_codes": {"200": served},
        "connections": {"opened": 50, "closed_by_server": 0},
        "per_second": [],
        "generator": {
            "cpu_seconds": 3.1, "user_seconds": 1.0, "sys_seconds": 2.1, "cpu_percent": 77.5,
            "bound": false, "io": "epoll", "threads": 1,
        },
        "interrupted": false, "warnings": [],
        "histograms": {"latency": "", "latency_raw": "", "connect": ""},
    });
    serde_json::from_value(json).expect("the fixture's result reads")
}

/// Where a made-up run ran.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub endpoint: &'a str,
    pub layout: &'a str,
    pub load: &'a str,
    pub connections: usize,
    pub rate: Option<&'a str>,
    /// The stages of a device ramp.
    pub devices: Option<&'a str>,
}

/// Hello, split, keep-alive, `connections`.
pub fn hello(connections: usize) -> At<'static> {
    At {
        endpoint: "hello",
        layout: "split",
        load: "keep-alive",
        connections,
        rate: None,
        devices: None,
    }
}

/// A run of `contestant` at `at`, repeat `repeat`, labelled `label`, measuring `m` (no
/// result when `m` is None).
pub fn run(
    contestant: &str,
    at: At,
    repeat: usize,
    label: Label,
    m: Option<Measured>,
) -> RunRecord {
    let reason = match label {
        Label::Ok => String::new(),
        Label::GeneratorBound => "generator at 99% of its core, server at 60%".into(),
        l => format!("{} because the fixture says so | and more", l.word()),
    };
    let kind = match (at.rate, at.devices) {
        (Some(schedule), _) => LoadKind::Rate {
            schedule: schedule.into(),
        },
        (None, Some(stages)) => LoadKind::Devices {
            stages: stages.into(),
        },
        (None, None) => LoadKind::Closed,
    };
    RunRecord {
        cell: Cell {
            contestant: contestant.into(),
            endpoint: at.endpoint.into(),
            layout: at.layout.into(),
            load: at.load.into(),
            connections: at.connections,
            repeat,
        },
        kind,
        toolchain: format!("{contestant} 1.{}", contestant.len()),
        verify: VerifyLevel::Strict,
        outcome: match m {
            Some(m) => Outcome::Measured {
                label,
                reason,
                result: Box::new(result(m)),
                verdict: None,
            },
            None => Outcome::NotRun { label, reason },
        },
        server_cpu_s: m.map_or(0.0, |m| m.server_cpu_s),
        peak_rss_kb: 10_240 + 512 * contestant.len() as u64 + 100 * repeat as u64,
        series: Vec::new(),
        wall_s: 6.5 + repeat as f64 * 0.25,
        load_s: 5.0,
        make_up: false,
    }
}

/// A run of `contestant` at /hello, split, keep-alive, 50 connections, labelled `label`,
/// at `rps` with `server_cpu_s` (over 4 s: CPU ms per response = cpu × 250 / rps).
pub fn hello_run(contestant: &str, label: Label, rps: f64, server_cpu_s: f64) -> RunRecord {
    run(contestant, hello(50), 0, label, ok(rps, 1.0, server_cpu_s))
}

/// The run's result, to change it.
pub fn result_mut(r: &mut RunRecord) -> Option<&mut LoadResult> {
    match &mut r.outcome {
        Outcome::Measured { result, .. } => Some(result),
        Outcome::NotRun { .. } => None,
    }
}

/// Labels a measured run `disturbed` by `steal` (a share of all cores' time), with the
/// verdict that said so.
pub fn disturb(r: &mut RunRecord, steal: f64) {
    if let Outcome::Measured {
        label,
        reason,
        verdict,
        ..
    } = &mut r.outcome
    {
        *label = Label::Disturbed;
        *reason = format!("steal {:.0}% of the cores' time", steal * 100.0);
        *verdict = Some(Verdict {
            bottleneck: Bottleneck::Neither,
            valid: false,
            disturbed: Some(reason.clone()),
            server_busy: 0.5,
            generator_busy: 0.5,
            foreign: 0.01,
            steal,
            unattributed: None,
        });
    }
}

fn ok(rps: f64, p99_ms: f64, server_cpu_s: f64) -> Option<Measured> {
    Some(Measured {
        rps,
        p99_ms,
        server_cpu_s,
        errors: 0,
    })
}

/// Runs of `contestant` at `at`, one per measurement, all labelled `label`.
fn repeats(contestant: &str, at: At, label: Label, ms: &[Option<Measured>]) -> Vec<RunRecord> {
    ms.iter()
        .enumerate()
        .map(|(i, m)| run(contestant, at, i, label, *m))
        .collect()
}

/// CPU samples every 100 ms over 3 s: the server busy on core 1, the generator on 0.
fn series(busy: f32) -> Vec<Point> {
    (0..=30u64)
        .map(|i| Point {
            t_ms: i * 100,
            cpu_s: i as f64 * 0.1 * f64::from(busy),
            user_s: i as f64 * 0.03,
            sys_s: i as f64 * 0.07,
            rss_kb: 20_000 + i * 10,
            generator_cpu_s: i as f64 * 0.09,
            cores: vec![0.9, busy + (i % 3) as f32 * 0.01],
            ..Point::default()
        })
        .collect()
}

/// A device ramp's result: devices grow by 10 a second, responses follow up to `top`,
/// timeouts start when devices pass `choke`.
fn ramp_result(top: u64, choke: u64) -> LoadResult {
    let mut x = result(Measured {
        rps: top as f64 * 0.7,
        p99_ms: 120.0,
        server_cpu_s: 0.0,
        errors: 3,
    });
    x.per_second = (1..=8u64)
        .map(|s| {
            let devices = s * 10;
            let timeouts = devices.saturating_sub(choke);
            let requests = (devices * 2).min(top);
            serde_json::from_value(serde_json::json!({
                "second": s, "requests": requests, "errors": 0, "timeouts": timeouts,
                "sent": requests + timeouts, "connects": 10, "devices": devices,
                "p50_us": 101_000.0, "p90_us": 104_000.0 + 2_000.0 * s as f64,
                "p99_us": 110_000.0 + 5_000.0 * s as f64,
            }))
            .expect("the fixture's second reads")
        })
        .collect();
    x
}

/// Every run of the made-up experiment, in the order a harness would store them.
pub fn runs() -> Vec<RunRecord> {
    let mut out = Vec::new();
    let c50 = hello(50);
    out.extend(repeats(
        "c-epoll",
        c50,
        Label::Ok,
        &[
            ok(30_000.0, 1.2, 3.0),
            ok(31_000.0, 1.1, 3.1),
            ok(29_500.0, 1.3, 3.0),
        ],
    ));
    out.extend(repeats(
        "go-nethttp",
        c50,
        Label::Ok,
        &[
            ok(25_000.0, 2.1, 4.0),
            ok(25_809.4, 2.0, 4.1),
            ok(26_500.0, 2.2, 4.2),
            ok(25_400.0, 2.4, 4.0),
            ok(26_100.0, 2.0, 4.3),
            ok(25_200.0, 2.3, 4.1),
            ok(26_300.0, 2.1, 4.2),
        ],
    ));
    out.extend(repeats(
        "node-http",
        c50,
        Label::Ok,
        &[ok(12_000.0, 8.5, 6.0), ok(11_000.0, 9.5, 6.2)],
    ));
    let mut warned = run(
        "node-http",
        c50,
        2,
        Label::GeneratorBound,
        ok(14_000.0, 7.0, 6.1),
    );
    if let Some(x) = result_mut(&mut warned) {
        x.warnings
            .push("the generator's core was busy 99% of the run".into());
    }
    out.push(warned);
    out.extend(repeats(
        "py-slow",
        c50,
        Label::ServerFailed,
        &[None, None, None],
    ));
    out.extend(at_200_and_one_core());
    out.extend(open_and_ramp());
    out
}

/// The level where the ceiling is generator-bound, and a second layout.
fn at_200_and_one_core() -> Vec<RunRecord> {
    let mut out = Vec::new();
    let c200 = hello(200);
    out.extend(repeats(
        "c-epoll",
        c200,
        Label::GeneratorBound,
        &[ok(40_000.0, 5.0, 3.5), ok(41_000.0, 5.5, 3.6)],
    ));
    out.extend(repeats(
        "go-nethttp",
        c200,
        Label::Ok,
        &[ok(24_000.0, 11.0, 4.5), ok(24_500.0, 12.5, 4.4)],
    ));
    out.extend(repeats(
        "node-http",
        c200,
        Label::GeneratorBound,
        &[ok(15_000.0, 20.0, 7.0), ok(15_500.0, 21.0, 7.2)],
    ));
    out.extend(repeats("py-slow", c200, Label::Skipped, &[None, None]));
    let one_core = At {
        layout: "server:1",
        ..hello(50)
    };
    out.extend(repeats(
        "go-nethttp",
        one_core,
        Label::Ok,
        &[ok(18_000.0, 3.0, 4.0), ok(18_200.0, 3.1, 4.0)],
    ));
    out.extend(repeats(
        "node-http",
        one_core,
        Label::Ok,
        &[ok(9_000.0, 9.0, 4.0)],
    ));
    out
}

/// An open-loop rate and a device ramp.
fn open_and_ramp() -> Vec<RunRecord> {
    let mut out = Vec::new();
    let c50 = hello(50);
    let open = At {
        load: "open",
        rate: Some("5000"),
        ..c50
    };
    out.extend(repeats(
        "c-epoll",
        open,
        Label::Ok,
        &[ok(5_000.0, 0.4, 0.5), ok(4_999.0, 0.5, 0.6)],
    ));
    let mut go_open = repeats(
        "go-nethttp",
        open,
        Label::Ok,
        &[ok(5_000.0, 0.9, 0.8), ok(4_998.0, 1.0, 0.9)],
    );
    go_open[0].series = series(0.45);
    out.extend(go_open);
    let ramp = At {
        endpoint: "app",
        load: "device ramp",
        connections: 80,
        devices: Some("0,80:8s"),
        ..c50
    };
    let mut go = run("go-nethttp", ramp, 0, Label::Ok, ok(100.0, 120.0, 2.0));
    if let Some(x) = result_mut(&mut go) {
        *x = ramp_result(160, 1_000);
    }
    go.series = series(0.3);
    let mut node = run("node-http", ramp, 0, Label::Ok, ok(100.0, 120.0, 2.5));
    if let Some(x) = result_mut(&mut node) {
        *x = ramp_result(120, 50);
    }
    let refused = run("py-slow", ramp, 0, Label::LoadRefused, None);
    out.extend([go, node, refused]);
    out
}

/// The made-up experiment's file as stored: it repeats until ±3%, which some cells miss.
const DEFINITION: &str = "name = \"fixture\"\n# <every kind of run> & more\n\
    contestants = [\"c-epoll\", \"go-nethttp\", \"node-http\", \"py-slow\"]\n\
    repeats = { min = 2, max = 7, target = \"3%\" }\n\
    [[loads]]\nname = \"keep-alive\"\nconnections = [50, 200]\n";

/// The made-up experiment as the store gives it back.
pub fn document() -> Document {
    Document {
        experiment: ExperimentRow {
            id: crate::model::ExperimentId(7),
            name: "fixture".into(),
            started_unix_ms: 1_795_321_405_936,
            seed: 42,
            definition: DEFINITION.into(),
            machine: Machine {
                cpu: "Test CPU".into(),
                cores: 2,
                kernel: "6.1.0".into(),
                shootout: "0.1.0".into(),
                commit: "abc1234".into(),
                idle: Some(crate::model::HostNoise {
                    cores: 2,
                    seconds: 3.0,
                    steal: 0.03,
                    peak_steal: 0.12,
                    busy: 0.01,
                }),
            },
            runs: 0,
            plan: None,
        },
        runs: runs(),
        repeats: Some(Repeats::UntilSure(UntilSure {
            min: 2,
            max: 7,
            target_percent: 3.0,
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::comparison;
    use crate::report::experiment::cells;
    use crate::report::page::{figures as charts, html};

    /// Every output the report draws from the fixture, one after another.
    fn everything() -> String {
        let d = document();
        let mut out = d.header().join("\n") + "\n";
        for (name, v) in d.versions() {
            out += &format!("{name}: {v}\n");
        }
        for t in d.tables() {
            out += &format!("\n{}\n{}", t.text(), t.markdown());
        }
        out += "\n== shootout run's tables\n";
        for t in cells::tables(&d.runs) {
            out += &format!("\n{}", t.text());
        }
        out += "\n== comparison\n";
        let after: Vec<RunRecord> = d.runs.iter().cloned().map(slower).collect();
        let rows = comparison::compare(&d.runs, &after);
        out += &comparison::table(&rows).text();
        for c in &rows {
            let worse = [&c.rps, &c.p99, &c.cpu].map(|x| x.regressed(5.0));
            out += &format!("{} {}: {worse:?}\n", c.contestant, c.cell);
        }
        out += "\n== figures\n";
        let colours = crate::report::page::colours::Colours::of(std::slice::from_ref(&d));
        for f in charts::figures(&d, &colours) {
            out += &format!("{}\n{}", f.id, html::standalone(&f.svg));
        }
        out + "\n== page\n" + &html::page(&[d])
    }

    /// go-nethttp 20% slower and 10% more CPU per request, the rest as it was.
    fn slower(mut r: RunRecord) -> RunRecord {
        if r.cell.contestant == "go-nethttp" {
            if let Some(x) = result_mut(&mut r) {
                x.rps *= 0.8;
            }
            r.server_cpu_s *= 1.1;
        }
        r
    }

    #[test]
    fn every_output_of_the_fixture_stays_the_same() {
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!("report_fixture", everything());
        });
    }
}
