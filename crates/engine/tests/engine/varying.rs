//! Requests that vary: the server sees each request's values (distinct sequence numbers,
//! random values in their range, every list item, the shapes in their weights, the same
//! values for the same seed), on both drivers, in clear text and over TLS, in closed and
//! open loops and device loads, over HTTP/1.1 and HTTP/2, sharded; and an answer that is not the one the values
//! call for is counted wrong. Against the test server's `sum` (and its cheat,
//! `sum-cached`), each load bounded in requests.

use engine::{
    DeviceScript, IoChoice, LoadConfig, LoadResult, LoadSpec, Pace, RateSchedule, Resume, Shard,
    Stop, TlsClient, VarySpec,
};
use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use testserver::{Behavior, H2Behavior, Seen, TestPki, TestServer, Tls};

/// A GET with two random values in its query, and a POST with a list's item and the
/// sequence number in its body: the server sums them; both name them `a` and `b`.
const SHAPES: [&str; 2] = [
    "3*GET /sum?a={a=rand:1-1000}&b={b=rand:1-1000}",
    "POST /sum a={a=list:7,8,9}&b={b=seq}",
];

fn vary(seed: u64) -> VarySpec {
    VarySpec {
        seed: Some(seed),
        requests: SHAPES.iter().map(|s| s.parse().unwrap()).collect(),
        expect: Some("{sum:a,b}".parse().unwrap()),
    }
}

/// A load of `requests` varying as `v` says, from one loop of 4 connections, as `tweak`
/// shapes it; every request carries its sequence number in `X-Seq`.
fn load(
    server: &TestServer,
    v: VarySpec,
    requests: u64,
    tweak: impl Fn(&mut LoadConfig),
) -> LoadResult {
    let url = format!("http://{}/", server.addr());
    let mut spec = LoadSpec::new(url.parse().unwrap());
    spec.headers = vec!["X-Seq: {seq}".parse().unwrap()];
    spec.vary = Some(v);
    spec.connections = 4;
    spec.threads = Some(1);
    spec.stop = Some(Stop::Requests(requests));
    let mut c = spec.resolve().expect("the spec resolves");
    tweak(&mut c);
    engine::run(&c, &AtomicBool::new(false)).expect("the load runs")
}

fn over_tls(pki: &TestPki) -> impl Fn(&mut LoadConfig) + '_ {
    move |c: &mut LoadConfig| {
        c.tls = Some(TlsClient {
            config: pki.client_config().unwrap(),
            server_name: TestPki::server_name(),
            resume: Resume::Tickets,
            http2: false,
        })
    }
}

fn seqs(seen: &[Seen]) -> Vec<u64> {
    (seen.iter())
        .map(|s| {
            s.header("x-seq")
                .and_then(|v| v.parse().ok())
                .expect("X-Seq")
        })
        .collect()
}

/// What `what` sent: `requests` all answered right, each with its own sequence number,
/// GETs and POSTs 3 to 1, the GETs' values in range, every list item in the POSTs.
fn assert_varied(what: &str, r: &LoadResult, seen: &[Seen], requests: u64) {
    let q = &r.requests;
    assert_eq!(
        (q.ok, q.wrong, q.errors()),
        (requests, 0, 0),
        "{what}: {q:?}"
    );
    assert_eq!(seen.len() as u64, requests, "{what}: the server saw each");
    let distinct: HashSet<u64> = seqs(seen).into_iter().collect();
    assert_eq!(distinct.len() as u64, requests, "{what}: sequence numbers");
    let (gets, posts): (Vec<&Seen>, Vec<&Seen>) = seen.iter().partition(|s| s.method == "GET");
    assert_eq!(
        (gets.len() * 4, posts.len() * 4),
        (3 * seen.len(), seen.len()),
        "{what}"
    );
    for g in &gets {
        for name in ["a", "b"] {
            let v: u64 = g.query(name).and_then(|v| v.parse().ok()).expect(name);
            assert!(
                (1..=1000).contains(&v),
                "{what}: {name}={v} in {}",
                g.target
            );
        }
    }
    let items: BTreeSet<&[u8]> = posts.iter().map(|p| &p.body[2..3]).collect();
    assert_eq!(items, BTreeSet::from([&b"7"[..], b"8", b"9"]), "{what}");
}

#[test]
fn varied_values_reach_the_server_on_both_drivers_in_clear_and_over_tls() {
    let pki = TestPki::new().unwrap();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        for tls in [false, true] {
            let server = match tls {
                false => TestServer::start(Behavior::Sum),
                true => {
                    TestServer::start_tls(Behavior::Sum, Tls::new(pki.server_config().unwrap()))
                }
            }
            .unwrap();
            let r = load(&server, vary(7), 400, |c| {
                c.io = io;
                c.pipeline = 3;
                if tls {
                    over_tls(&pki)(c);
                }
            });
            assert_varied(&format!("{io:?}, tls {tls}"), &r, &server.seen(), 400);
        }
    }
}

#[test]
fn varied_values_reach_an_http2_server_on_both_drivers_in_clear_and_over_tls() {
    let pki = TestPki::new().unwrap();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        for tls in [false, true] {
            let server = match tls {
                false => TestServer::start_h2(H2Behavior::Sum),
                true => TestServer::start_h2_tls(
                    H2Behavior::Sum,
                    Tls::new(pki.server_config().unwrap()),
                ),
            }
            .unwrap();
            let r = load(&server, vary(7), 400, |c| {
                c.io = io;
                c.http2 = true;
                c.streams = 8;
                if tls {
                    over_tls(&pki)(c);
                    let tls = c.tls.as_mut().unwrap();
                    let mut client = (*tls.config).clone();
                    client.alpn_protocols = vec![b"h2".to_vec()];
                    tls.config = std::sync::Arc::new(client);
                    tls.http2 = true;
                }
            });
            assert_varied(&format!("{io:?}, h2, tls {tls}"), &r, &server.seen(), 400);
        }
    }
}

#[test]
fn an_open_loop_and_devices_vary_too() {
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start(Behavior::Sum).unwrap();
        let r = load(&server, vary(1), 200, |c| {
            c.io = io;
            c.pace = Pace::Open(RateSchedule::constant(2_000.0));
        });
        assert_varied(&format!("{io:?}, open loop"), &r, &server.seen(), 200);
        // A connection per request: each renders its one request as it opens.
        let server = TestServer::start(Behavior::Sum).unwrap();
        let r = load(&server, vary(2), 100, |c| {
            c.io = io;
            c.keepalive = false;
            c.pace = Pace::Open(RateSchedule::constant(1_000.0));
        });
        assert_varied(
            &format!("{io:?}, a connection per request"),
            &r,
            &server.seen(),
            100,
        );
        let server = TestServer::start(Behavior::Sum).unwrap();
        let count = RateSchedule::parse_device_count("4:1s").unwrap();
        let r = load(&server, vary(1), 40, |c| {
            c.io = io;
            c.pace = Pace::Devices(DeviceScript {
                count: count.clone(),
                requests: 5,
                think: Duration::from_millis(10),
                jitter: 0.05,
            });
        });
        let q = &r.requests;
        assert_eq!((q.wrong, q.errors()), (0, 0), "{io:?}, devices: {q:?}");
        let seen = server.seen();
        let distinct: HashSet<u64> = seqs(&seen).into_iter().collect();
        assert_eq!(
            distinct.len(),
            seen.len(),
            "{io:?}, devices: sequence numbers"
        );
        assert!(seen.len() >= 8, "{io:?}, devices: {} requests", seen.len());
    }
}

#[test]
fn the_same_seed_sends_the_same_values() {
    let targets = |seed: u64| {
        let server = TestServer::start(Behavior::Sum).unwrap();
        load(&server, vary(seed), 60, |c| c.connections = 1);
        let seen = server.seen();
        seen.into_iter()
            .map(|s| (s.target, s.body))
            .collect::<Vec<_>>()
    };
    let first = targets(11);
    assert_eq!(first.len(), 60);
    assert_eq!(first, targets(11), "seed 11 twice");
    assert_ne!(first, targets(12), "seeds 11 and 12");
}

#[test]
fn a_cached_answer_is_counted_wrong() {
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start(Behavior::SumCached).unwrap();
        let doubled = VarySpec {
            seed: Some(3),
            requests: vec!["GET /sum?a={a=seq}&b={b=seq}".parse().unwrap()],
            expect: Some("{sum:a,b}".parse().unwrap()),
        };
        // Each sum is twice the request's number: only the first answer is right.
        let r = load(&server, doubled, 100, |c| {
            c.io = io;
            c.connections = 1;
        });
        let q = &r.requests;
        assert_eq!((q.ok, q.wrong, q.total()), (1, 99, 100), "{io:?}: {q:?}");
    }
}

#[test]
fn shards_draw_their_own_values_and_merge_exactly() {
    let server = TestServer::start(Behavior::SumCached).unwrap();
    let shard = |index: u64| {
        let mut v = vary(5);
        v.requests = vec!["GET /sum?a={a=seq}&b={b=rand:1-1000000}".parse().unwrap()];
        load(&server, v, 100, |c| {
            c.shard = Shard { index, count: 2 };
            c.io = [IoChoice::Epoll, IoChoice::Uring][index as usize];
        })
    };
    let (a, b) = (shard(0), shard(1));
    let seen = server.seen();
    let distinct: HashSet<u64> = seqs(&seen).into_iter().collect();
    assert_eq!(distinct.len(), 100, "sequence numbers across the shards");
    let (mut even, mut odd) = (0, 0);
    for s in seqs(&seen) {
        *[&mut even, &mut odd][(s % 2) as usize] += 1;
    }
    // A shard sends its share of the 100 requests.
    assert_eq!((even, odd), (50, 50), "shard 1/2 numbers even, 2/2 odd");
    let randoms: HashSet<&str> = seen.iter().filter_map(|s| s.query("b")).collect();
    assert!(
        randoms.len() > 90,
        "each shard its own seed: {} distinct",
        randoms.len()
    );
    let m = engine::merge(&[a.clone(), b.clone()]).unwrap();
    // The load's seed is echoed, shards' and merged: the load can be sent again the same.
    let seeds = (a.config.vary_seed, b.config.vary_seed, m.config.vary_seed);
    assert_eq!(seeds, (Some(5), Some(5), Some(5)));
    assert_eq!(m.requests.wrong, a.requests.wrong + b.requests.wrong);
    assert_eq!(m.requests.ok, a.requests.ok + b.requests.ok);
    assert_eq!(
        (m.requests.total(), m.requests.ok + m.requests.wrong),
        (100, 100)
    );
    // The cheat's one cached sum is right for its first request, and by chance at most.
    assert!(m.requests.wrong >= 95, "{:?}", m.requests);
}
