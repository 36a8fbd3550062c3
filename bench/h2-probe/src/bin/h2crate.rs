//! The `h2` crate (0.4) as a load client, as cheaply as reasonably written: a tokio
//! current_thread runtime, `-c` connections, each with `-m` tasks in a closed loop on a
//! cloned `SendRequest`, one `Request<()>` built once and cloned per request (its URI is
//! `'static`, so the clone copies no string), the response body drained and its capacity
//! released; a stream counts when its body ends and its status is 2xx.
//!
//! usage: h2crate --addr 127.0.0.1:18480 --path /hello -c 50 -m 10 -D 5 [--count-allocs]

use h2probe::alloc_count::{self, Counting};
use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

#[global_allocator]
static A: Counting = Counting;

thread_local! {
    static OK: Cell<u64> = const { Cell::new(0) };
    static BAD: Cell<u64> = const { Cell::new(0) };
    static ERR: Cell<u64> = const { Cell::new(0) };
}

const WINDOW: u32 = (1 << 30) - 1; // h2load's defaults: -w 30 -W 30

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().ok().expect("a value"))
        .unwrap_or(default)
}

async fn stream_loop(mut send: h2::client::SendRequest<bytes::Bytes>, req: http::Request<()>) {
    loop {
        send = match send.ready().await {
            Ok(s) => s,
            Err(_) => {
                ERR.with(|c| c.set(c.get() + 1));
                return;
            }
        };
        let (resp, _) = match send.send_request(req.clone(), true) {
            Ok(r) => r,
            Err(_) => {
                ERR.with(|c| c.set(c.get() + 1));
                return;
            }
        };
        let resp = match resp.await {
            Ok(r) => r,
            Err(_) => {
                ERR.with(|c| c.set(c.get() + 1));
                continue;
            }
        };
        let good = resp.status().is_success();
        let mut body = resp.into_body();
        let mut failed = false;
        while let Some(chunk) = body.data().await {
            match chunk {
                Ok(b) => {
                    let _ = body.flow_control().release_capacity(b.len());
                }
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            ERR.with(|c| c.set(c.get() + 1));
        } else if good {
            OK.with(|c| c.set(c.get() + 1));
        } else {
            BAD.with(|c| c.set(c.get() + 1));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr: String = arg(&args, "--addr", "127.0.0.1:18480".to_string());
    let path: String = arg(&args, "--path", "/hello".to_string());
    let nconns: usize = arg(&args, "-c", 50);
    let m: usize = arg(&args, "-m", 10);
    let secs: f64 = arg(&args, "-D", 5.0);
    alloc_count::ON.store(args.iter().any(|a| a == "--count-allocs"), Relaxed);

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async move {
        let uri: &'static str = Box::leak(format!("http://{addr}{path}").into_boxed_str());
        let req = http::Request::builder()
            .uri(http::Uri::from_static(uri))
            .header("user-agent", http::HeaderValue::from_static("h2probe"))
            .body(())
            .unwrap();
        for _ in 0..nconns {
            let tcp = tokio::net::TcpStream::connect(&addr).await.expect("connect");
            tcp.set_nodelay(true).unwrap();
            let (send, conn) = h2::client::Builder::new()
                .initial_window_size(WINDOW)
                .initial_connection_window_size(WINDOW)
                .enable_push(false)
                .handshake::<_, bytes::Bytes>(tcp)
                .await
                .expect("handshake");
            tokio::task::spawn_local(async move {
                let _ = conn.await;
            });
            for _ in 0..m {
                tokio::task::spawn_local(stream_loop(send.clone(), req.clone()));
            }
        }
        let steady_at = secs.min(1.0);
        tokio::time::sleep(Duration::from_secs_f64(steady_at)).await;
        let (a0, ok0) = (alloc_count::allocs(), OK.with(|c| c.get()));
        tokio::time::sleep(Duration::from_secs_f64(secs - steady_at)).await;
        let (a1, ok1) = (alloc_count::allocs(), OK.with(|c| c.get()));
        println!(
            "ok={} non2xx={} errors={} secs={:.3} allocs_total={} steady_allocs={} steady_ok={} allocs_per_req_steady={:.4}",
            ok1,
            BAD.with(|c| c.get()),
            ERR.with(|c| c.get()),
            secs,
            a1,
            a1 - a0,
            ok1 - ok0,
            if ok1 > ok0 { (a1 - a0) as f64 / (ok1 - ok0) as f64 } else { 0.0 }
        );
        // Leave at once: the load is over; dropping 500 tasks would be counted otherwise.
        use std::io::Write;
        let _ = std::io::stdout().flush();
        std::process::exit(0);
    });
}
