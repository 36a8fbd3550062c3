//! Two shards of one load, merged, equal one load: counts are the shards' sums and
//! percentiles are those of the union of samples, not an average of percentiles.

use engine::{IoChoice, LoadConfig, LoadResult, Pace, RateSchedule, Shard, Stop, Target};
use hdrhistogram::Histogram;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use testserver::{Behavior, TestServer};

fn shard(server: &TestServer, index: u64, start_at: u64) -> LoadResult {
    let mut c = LoadConfig::new(Target::parse(&server.url("/hello")).unwrap());
    c.connections = 6;
    c.threads = 1;
    c.io = if index == 0 {
        IoChoice::Epoll
    } else {
        IoChoice::Uring
    };
    c.pace = Pace::Open(RateSchedule::constant(1000.0));
    c.stop = Stop::After(Duration::from_millis(1500));
    c.shard = Shard { index, count: 2 };
    c.start_at = Some(start_at);
    let r = engine::run(&c, &AtomicBool::new(false)).expect("shard runs");
    // Through JSON and back, as `shootout merge` reads shard files.
    let text = serde_json::to_string(&r).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn merged_shards_add_up_and_keep_exact_percentiles() {
    let server = TestServer::start(Behavior::Delay(Duration::from_millis(2))).unwrap();
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let start_at = now_ms + 300;
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| shard(&server, 0, start_at));
        let b = s.spawn(|| shard(&server, 1, start_at));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a.config.connections, 3);
    assert_eq!(a.config.shard, "1/2");
    let m = engine::merge(&[a.clone(), b.clone()]).unwrap();

    assert_eq!(m.requests.total(), a.requests.total() + b.requests.total());
    assert_eq!(m.requests.ok, a.requests.ok + b.requests.ok);
    assert_eq!(m.config.connections, 6);
    let rate = m.rate.as_ref().unwrap();
    assert!((rate.target_rps - 1000.0).abs() < 20.0, "{rate:?}");

    let union = |pick: fn(&LoadResult) -> &Histogram<u64>| {
        let mut h = pick(&a).clone();
        h.add(pick(&b)).unwrap();
        h
    };
    let h = union(|r| &r.histograms.latency);
    assert_eq!(h.len(), m.requests.ok + m.requests.status);
    for (q, got) in [
        (0.5, m.latency_us.p50),
        (0.9, m.latency_us.p90),
        (0.99, m.latency_us.p99),
    ] {
        assert_eq!(got, h.value_at_quantile(q) as f64 / 1000.0, "p{q}");
    }
    let raw = union(|r| &r.histograms.latency_raw);
    assert_eq!(m.latency_raw_us.max, raw.max() as f64 / 1000.0);

    // Each shard's own figures stay in the merged result, in shard order.
    let shards: Vec<(&str, u64, Option<u64>)> = m
        .shards
        .iter()
        .map(|s| (s.shard.as_str(), s.requests.total(), s.start_at))
        .collect();
    assert_eq!(
        shards,
        [
            ("1/2", a.requests.total(), Some(start_at)),
            ("2/2", b.requests.total(), Some(start_at)),
        ]
    );
    assert_eq!(m.shards[1].generator.cpu_seconds, b.generator.cpu_seconds);
    // Merging a merged result again keeps the shards, not one figure for the merge.
    let again = engine::merge(std::slice::from_ref(&m)).unwrap();
    assert_eq!(again.shards.len(), 2);

    let per_second: u64 = m.per_second.iter().map(|s| s.requests).sum();
    assert_eq!(per_second, m.requests.ok + m.requests.status);
    assert_eq!(
        m.per_second[0].requests,
        a.per_second[0].requests + b.per_second[0].requests
    );
}

/// Two HTTP/2 shards of one load (10 streams per connection) against a server that sends
/// GOAWAY every 25 streams: merged, they count every stream once, as the server does, and
/// their HTTP/2 books (retries, GOAWAYs by code, the server's SETTINGS) add up.
#[test]
fn http2_shards_merge_exactly() {
    let server = TestServer::start_h2(testserver::H2Behavior::GoawayAfter(25)).unwrap();
    let run = |index: u64| {
        let mut c = LoadConfig::new(Target::parse(&server.url("/hello")).unwrap());
        (c.http2, c.streams, c.connections, c.threads) = (true, 10, 4, 1);
        c.stop = Stop::Requests(400);
        c.shard = Shard { index, count: 2 };
        let r = engine::run(&c, &AtomicBool::new(false)).expect("shard runs");
        let text = serde_json::to_string(&r).unwrap();
        serde_json::from_str::<LoadResult>(&text).unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| run(0));
        let b = s.spawn(|| run(1));
        (a.join().unwrap(), b.join().unwrap())
    });
    let m = engine::merge(&[a.clone(), b.clone()]).unwrap();
    assert_eq!((m.requests.total(), m.requests.ok), (400, 400));
    assert_eq!(
        (m.config.http_version.as_str(), m.config.streams),
        ("2", Some(10))
    );
    let books = |r: &LoadResult| r.h2.clone().expect("h2 books");
    let (ha, hb, hm) = (books(&a), books(&b), books(&m));
    assert_eq!(hm.retried, ha.retried + hb.retried);
    assert!(
        hm.retried > 0,
        "GOAWAY every 25 streams leaves some to retry"
    );
    let goaways = |h: &engine::H2Summary| h.goaways.get("NO_ERROR").copied().unwrap_or(0);
    assert_eq!(goaways(&hm), goaways(&ha) + goaways(&hb));
    assert!(hm.settings.is_some());
    // The server counts a response once its write returns: poll for its last ones.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while server.responses() < 400 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(server.responses(), 400, "each stream answered once");
}
