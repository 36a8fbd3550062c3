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

/// `layout` (`split+db:server`, `split+db:generator`) with the server's, the database's
/// and the generator's CPU growing at their shares of a core, both cores at `busy`.
fn with_database(layout: &str, busy: [f32; 2], [server, database, generator]: [f64; 3]) -> Verdict {
    let points: Vec<Point> = series(busy, server, generator, server + database + generator, 0.0)
        .into_iter()
        .map(|p| Point {
            // The database's cumulative CPU: it ran before the window too.
            database_cpu_s: 5.0 + database * p.t_ms as f64 / 1000.0,
            others_cpu_s: 0.0,
            ..p
        })
        .collect();
    judge(
        &points,
        Duration::from_millis(500),
        &Layout::parse(layout).unwrap(),
        false,
        &Policy::default().limits(&LoadKind::Closed),
        None,
    )
}

#[test]
fn a_database_that_outworks_the_side_it_shares_a_core_with_is_the_bottleneck() {
    if engine::allowed_cpus() != 2 {
        return;
    }
    let v = with_database("split+db:server", [0.40, 0.98], [0.30, 0.65, 0.35]);
    assert_eq!((v.bottleneck, v.valid), (Bottleneck::Database, true));
    assert_eq!(
        v.bound_line().as_deref(),
        Some("database-bound: postgres 65% of its core")
    );
    let v = with_database("split+db:server", [0.40, 0.98], [0.65, 0.30, 0.35]);
    assert_eq!(
        v.bottleneck,
        Bottleneck::Server,
        "the server did most on its core"
    );
    let v = with_database("split+db:generator", [0.97, 0.50], [0.45, 0.60, 0.35]);
    assert_eq!((v.bottleneck, v.valid), (Bottleneck::Database, true));
    let v = with_database("split+db:generator", [0.97, 0.50], [0.45, 0.20, 0.75]);
    assert_eq!((v.bottleneck, v.valid), (Bottleneck::Generator, false));
    let v = with_database("split+db:generator", [0.50, 0.50], [0.45, 0.20, 0.25]);
    assert_eq!(v.bottleneck, Bottleneck::Neither);
    // Cores that foreign work keeps busy: a database at 5% of its core did not bind.
    let v = with_database("split+db:server", [0.99, 0.99], [0.03, 0.05, 0.04]);
    assert_ne!(v.bottleneck, Bottleneck::Database);
}

#[test]
fn the_split_counts_each_sides_cpu_over_the_window() {
    if engine::allowed_cpus() != 2 {
        return;
    }
    let v = with_database("split+db:server", [0.40, 0.98], [0.30, 0.65, 0.35]);
    let s = v.split.expect("a run with a database has a split");
    // The window runs from the warm-up's last sample (500 ms) to 2 s.
    assert!((s.wall_s - 1.5).abs() < 1e-9, "{s:?}");
    assert!((s.server_s - 0.45).abs() < 1e-9, "{s:?}");
    assert!((s.database_s - 0.975).abs() < 1e-9, "{s:?}");
    assert!((s.generator_s - 0.525).abs() < 1e-9, "{s:?}");
    assert!((s.cores_busy_s - 1.38 * 1.5).abs() < 1e-6, "{s:?}");
    assert_eq!(s.database_cores, 1);
    assert_eq!(v.database_busy, Some(0.98f32 as f64));
    let without = verdict(&series([0.5, 0.5], 0.4, 0.3, 0.7, 0.0), false);
    assert_eq!((without.split, without.database_busy), (None, None));
}
