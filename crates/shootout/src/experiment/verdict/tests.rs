use super::*;

/// A layout on 2 cores: the server on core 1, the generator on core 0.
fn split() -> Layout {
    Layout {
        name: "split".into(),
        server: Some(vec![1]),
        generator: Some(vec![0]),
        database: None,
        database_beside: None,
    }
}

/// A series of 100 ms samples with both cores at the given busy shares, the server's
/// and the generator's CPU growing at `server` and `generator` cores, and all user
/// processes' at `machine` cores (the others': what neither side explains).
fn series(busy: [f32; 2], server: f64, generator: f64, machine: f64, steal: f32) -> Vec<Point> {
    (0..=20)
        .map(|i| {
            let t = i as f64 * 0.1;
            Point {
                t_ms: i * 100,
                cpu_s: server * t,
                generator_cpu_s: generator * t,
                others_cpu_s: (machine - server - generator) * t,
                cores: busy.to_vec(),
                steal: vec![steal; 2],
                ..Point::default()
            }
        })
        .collect()
}

fn verdict(points: &[Point], engine_bound: bool) -> Verdict {
    judge(
        points,
        Duration::from_millis(500),
        &split(),
        engine_bound,
        &Policy::default().limits(&LoadKind::Closed),
        None,
    )
}

#[test]
fn each_side_saturated_or_not_gives_its_bottleneck() {
    let cases = [
        ([0.99, 0.98], Bottleneck::Both, true),
        ([0.50, 0.97], Bottleneck::Server, true),
        ([0.97, 0.40], Bottleneck::Generator, false),
        ([0.30, 0.40], Bottleneck::Neither, true),
    ];
    for (busy, bottleneck, valid) in cases {
        let v = verdict(&series(busy, 0.4, 0.3, 0.7, 0.0), false);
        assert_eq!((v.bottleneck, v.valid), (bottleneck, valid), "{busy:?}");
        assert!((v.generator_busy - busy[0] as f64).abs() < 1e-6);
        assert!((v.server_busy - busy[1] as f64).abs() < 1e-6);
        assert_eq!(v.disturbed, None);
    }
}

#[test]
fn the_engines_own_account_saturates_the_generator() {
    let v = verdict(&series([0.6, 0.99], 0.9, 0.6, 1.5, 0.0), true);
    assert_eq!(v.bottleneck, Bottleneck::Both);
    let v = verdict(&series([0.6, 0.5], 0.5, 0.6, 1.1, 0.0), true);
    assert_eq!((v.bottleneck, v.valid), (Bottleneck::Generator, false));
}

#[test]
fn foreign_cpu_or_steal_past_the_threshold_disturbs_a_run() {
    // The machine ran 0.4 cores of tasks neither side explains: 20% of 2 cores.
    let v = verdict(&series([0.9, 0.9], 0.6, 0.4, 1.4, 0.0), false);
    assert!((v.foreign - 0.2).abs() < 1e-9, "{}", v.foreign);
    assert!(!v.valid);
    assert!(v
        .disturbed
        .as_deref()
        .unwrap()
        .starts_with("foreign CPU 20%"));
    // 4% foreign is within a closed loop's threshold (5%).
    let v = verdict(&series([0.9, 0.9], 0.6, 0.4, 1.08, 0.0), false);
    assert!(v.valid && v.disturbed.is_none(), "{v:?}");
    let v = verdict(&series([0.5, 0.5], 0.5, 0.5, 1.0, 0.08), false);
    assert!(!v.valid);
    assert!(v.disturbed.as_deref().unwrap().starts_with("steal 8%"));
}

#[test]
fn a_process_missed_by_one_walk_does_not_count_its_past_twice() {
    // Quiet, but one walk of /proc missed a process with 30 s of past CPU time: the sum
    // drops by 30 s, then grows back by 30 s, in 100 ms.
    let mut points = series([0.5, 0.5], 0.5, 0.5, 1.0, 0.0);
    for (i, p) in points.iter_mut().enumerate() {
        p.others_cpu_s += if i == 10 { 0.0 } else { 30.0 };
    }
    let v = verdict(&points, false);
    // At most the cores' whole time in that one interval (0.2 s of 3 s of core time).
    assert!(v.foreign <= 0.2 / 3.0 + 1e-9, "{}", v.foreign);
}

#[test]
fn only_the_measured_part_counts() {
    let mut points = series([0.2, 0.2], 0.2, 0.2, 0.4, 0.0);
    // A saturated warm-up, then a quiet measured part.
    for p in points.iter_mut().filter(|p| p.t_ms <= 500) {
        p.cores = vec![1.0, 1.0];
    }
    let v = verdict(&points, false);
    assert_eq!(v.bottleneck, Bottleneck::Neither);
    assert!((v.server_busy - 0.2).abs() < 1e-6);
    assert_eq!(verdict(&[], false).bottleneck, Bottleneck::Neither);
}

#[test]
fn an_experiment_may_draw_its_own_lines() {
    let points = series([0.85, 0.9], 0.6, 0.4, 1.4, 0.0);
    let loose = Limits {
        saturated: 0.8,
        foreign: 0.5,
        steal: 0.05,
    };
    let v = judge(
        &points,
        Duration::from_millis(500),
        &split(),
        false,
        &loose,
        None,
    );
    assert_eq!((v.bottleneck, v.valid), (Bottleneck::Both, true));
}

#[test]
fn an_unattributed_server_is_not_judged_for_foreign_cpu() {
    // The server's CPU is among the others' (no process known): 0.9 of 2 cores "foreign".
    let points = series([0.5, 0.95], 0.0, 0.5, 1.4, 0.0);
    let judged = verdict(&points, false);
    assert!(judged.disturbed.is_some(), "{judged:?}");
    let why = "no pid or process given".to_string();
    let limits = Policy::default().limits(&LoadKind::Closed);
    let layout = split();
    let v = judge(
        &points,
        Duration::from_millis(500),
        &layout,
        false,
        &limits,
        Some(why),
    );
    assert_eq!((v.disturbed.as_deref(), v.valid), (None, true));
    assert_eq!(v.unattributed.as_deref(), Some("no pid or process given"));
    let stolen = series([0.5, 0.95], 0.0, 0.5, 1.4, 0.2);
    let why = "x".to_string();
    let v = judge(
        &stolen,
        Duration::from_millis(500),
        &layout,
        false,
        &limits,
        Some(why),
    );
    assert!(v.disturbed.is_some_and(|d| d.starts_with("steal")));
}

#[test]
fn a_rate_run_tolerates_more_foreign_cpu_than_a_capacity_run() {
    // 8% of the cores taken by other work: requests/s lose it, CPU per response does not.
    let points = series([0.5, 0.5], 0.4, 0.4, 0.96, 0.0);
    let defaults = Policy::default();
    let rate = LoadKind::Rate {
        schedule: "5000".into(),
    };
    let judged = |kind: &LoadKind| {
        let limits = defaults.limits(kind);
        judge(
            &points,
            Duration::from_millis(500),
            &split(),
            false,
            &limits,
            None,
        )
    };
    let closed = judged(&LoadKind::Closed);
    assert!(
        closed.disturbed.as_deref() == Some("foreign CPU 8% of the cores (over 5%)"),
        "{closed:?}"
    );
    assert_eq!(judged(&rate).disturbed, None);
    assert_eq!(defaults.strictest().foreign, 0.05);
}

#[test]
fn steal_of_two_percent_disturbs_requests_per_second_but_not_cpu_per_response() {
    let points = series([0.5, 0.5], 0.5, 0.5, 1.0, 0.02);
    let defaults = Policy::default();
    let judged = |kind: &LoadKind| {
        let limits = defaults.limits(kind);
        judge(
            &points,
            Duration::from_millis(500),
            &split(),
            false,
            &limits,
            None,
        )
    };
    let closed = judged(&LoadKind::Closed);
    assert_eq!(
        closed.disturbed.as_deref(),
        Some("steal 2% of the cores (over 1%)")
    );
    let rate = LoadKind::Rate {
        schedule: "2000".into(),
    };
    assert_eq!(judged(&rate).disturbed, None);
}
