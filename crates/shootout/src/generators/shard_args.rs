//! A load, written back as the `shootout load` flags that reproduce it: what every shard
//! runs. The shard itself (`--shard`, `--start-at`, `-t`) is added by the fleet.

use engine::{IoChoice, LoadConfig, Pace, Stop};
use std::time::Duration;

/// A load that flags cannot carry.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardArgsError {
    #[error("the request body is not UTF-8 text, which --body cannot carry to a shard")]
    BinaryBody,
    #[error("the load is already shard {0}: a fleet splits a whole load")]
    AlreadySharded(String),
}

/// `load URL ...`: the flags of `shootout load` that give `config` again (threads aside:
/// each shard gets its own), duration and stop always explicit.
pub fn shard_args(config: &LoadConfig) -> Result<Vec<String>, ShardArgsError> {
    if config.shard.count > 1 {
        let shard = format!("{}/{}", config.shard.index + 1, config.shard.count);
        return Err(ShardArgsError::AlreadySharded(shard));
    }
    let mut args = vec!["load".to_string(), url(config)];
    let mut flag = |name: &str, value: String| args.extend([name.to_string(), value]);
    flag("--method", config.method.clone());
    for (name, value) in &config.headers {
        flag("--header", format!("{name}: {value}"));
    }
    if !config.body.is_empty() {
        let body =
            String::from_utf8(config.body.clone()).map_err(|_| ShardArgsError::BinaryBody)?;
        flag("--body", body);
    }
    flag("--connections", config.connections.to_string());
    match config.stop {
        Stop::After(d) => flag("--duration", duration(d)),
        Stop::Requests(n) => flag("--requests", n.to_string()),
    }
    flag("--warmup", duration(config.warmup));
    flag("--timeout", duration(config.timeout));
    flag("--pipeline", config.pipeline.to_string());
    pace(&config.pace, &mut flag);
    match config.io {
        IoChoice::Auto => {}
        IoChoice::Uring => flag("--io", "uring".into()),
        IoChoice::Epoll => flag("--io", "epoll".into()),
    }
    if !config.keepalive {
        args.push("--no-keepalive".into());
    }
    if config.http10 {
        args.push("--http1.0".into());
    }
    Ok(args)
}

/// The URL as given, or rebuilt from the Host header when a caller changed it (a server
/// already running, loaded by its address under its own name): the shard resolves it.
fn url(config: &LoadConfig) -> String {
    let t = &config.target;
    let given = t.url.split_once("://").map_or("", |(_, rest)| rest);
    let authority = given.split(['/', '?']).next().unwrap_or("");
    match authority == t.host_header {
        true => t.url.clone(),
        false => format!("http://{}{}", t.host_header, t.path),
    }
}

fn pace(pace: &Pace, flag: &mut impl FnMut(&str, String)) {
    match pace {
        Pace::Closed => {}
        Pace::Open(schedule) => flag("--rate", schedule.to_string()),
        Pace::Devices(d) => {
            flag("--devices", d.count.to_string());
            flag("--device-requests", d.requests.to_string());
            flag("--think", duration(d.think));
            flag("--jitter", d.jitter.to_string());
        }
    }
}

/// Exact to the microsecond, the finest `parse_duration` reads.
fn duration(d: Duration) -> String {
    match d.subsec_nanos() % 1_000_000 {
        0 => format!("{}ms", d.as_millis()),
        _ => format!("{}us", d.as_micros()),
    }
}
