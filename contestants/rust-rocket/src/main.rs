//! rust-rocket: the shootout hello/app server on Rocket 0.5.
//!
//! GET /hello -> 200 "Hello World" (11 bytes)
//! GET /app   -> tokio sleep for 100 ms ±5% (uniform), then 200 with 1024 bytes
//!
//! Usage: server --listen 127.0.0.1:PORT --threads N
//! Address, port, workers and logging are set here through Rocket's figment; the tokio
//! runtime is built here with N worker threads (Rocket's own `#[launch]` would read
//! `workers` only from Rocket.toml / ROCKET_* variables).

use std::net::SocketAddr;
use std::time::Duration;

use rocket::config::LogLevel;
use rocket::shield::Shield;
use rocket::{get, routes};

const APP_BYTES: [u8; 1024] = [b'a'; 1024];
const APP: &str = match std::str::from_utf8(&APP_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("ascii"),
};

// &'static str responds 200, text/plain; charset=utf-8, with Content-Length.
#[get("/hello")]
fn hello() -> &'static str {
    "Hello World"
}

#[get("/app")]
async fn app() -> &'static str {
    // 95..=105 ms, uniform; a tokio timer, so the worker keeps serving others.
    let us = fastrand::u64(95_000..=105_000);
    rocket::tokio::time::sleep(Duration::from_micros(us)).await;
    APP
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let listen: SocketAddr = arg(&args, "--listen")
        .unwrap_or_else(|| "127.0.0.1:8000".into())
        .parse()
        .expect("--listen must be an address like 127.0.0.1:8000");
    let threads: usize = arg(&args, "--threads")
        .map(|t| t.parse().expect("--threads must be a positive integer"))
        .unwrap_or(1)
        .max(1);

    let figment = rocket::Config::figment()
        .merge(("address", listen.ip()))
        .merge(("port", listen.port()))
        .merge(("workers", threads))
        .merge(("log_level", LogLevel::Off))
        .merge(("cli_colors", false));

    // An empty Shield replaces the default one, so responses carry no extra security
    // headers (Rocket 0.3, which the 2017 article ran, had no Shield).
    let rocket = rocket::custom(figment)
        .attach(Shield::new())
        .mount("/", routes![hello, app]);

    rocket::tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name("rocket-worker")
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(async move {
            if let Err(e) = rocket.launch().await {
                eprintln!("rocket failed: {e}");
                std::process::exit(1);
            }
        });
}
