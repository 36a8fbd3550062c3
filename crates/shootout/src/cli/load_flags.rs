//! The flags of `shootout load` that describe the load itself, turned into a
//! [`LoadSpec`] once: the spec's defaults, then a `--scenario` file over them, then the
//! flags over both. `shootout k8s job` reads the same flags after its `--`.

use super::scenario::{self, set};
use super::tls_flags::{Source, TlsFlags};
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use engine::{parse_duration, IoChoice, LoadSpec, Pace, RateSchedule, Stop, VarySpec};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to load and how; every setting unset here keeps the scenario's or the spec's
/// default (engine::defaults; `[default: ...]` below says it, a test checks it). No
/// flattened struct here: clap's group of these flags (which `--spec` conflicts with)
/// stays empty when the struct flattens another.
#[derive(Debug, Clone, Args)]
pub struct LoadFlags {
    /// Target URL, e.g. http://127.0.0.1:8080/hello or https://localhost:8443/ (TLS
    /// settings below), or ws://127.0.0.1:8080/echo (wss://) for a WebSocket echo load
    pub url: Option<String>,
    /// Read the load from a TOML scenario (flags given here win over it)
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Connections to keep open [default: 10]
    #[arg(short = 'c', long)]
    pub connections: Option<usize>,
    /// Event-loop threads [default: the cores this process may run on]
    #[arg(short = 't', long)]
    pub threads: Option<usize>,
    /// How long to measure (10s, 500ms, 2m) [default: 10s]
    #[arg(short = 'd', long, value_parser = parse_duration, conflicts_with = "requests")]
    duration: Option<Duration>,
    /// Number of requests to measure instead of a duration (as ab -n)
    #[arg(short = 'n', long)]
    requests: Option<u64>,
    /// A request unanswered for this long counts as a timeout [default: 5s]
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Extra request header, "Name: value" (repeatable)
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    headers: Vec<String>,
    /// Request method [default: GET]
    #[arg(short = 'm', long)]
    method: Option<String>,
    /// Request body
    #[arg(long, conflicts_with = "body_file")]
    body: Option<String>,
    /// Read the request body from a file (any bytes)
    #[arg(long)]
    body_file: Option<PathBuf>,
    /// Requests written ahead on each connection (HTTP/1.1 pipelining) [default: 1]
    #[arg(long)]
    pipeline: Option<usize>,
    /// Load sent before measuring, not recorded (e.g. 2s) [default: 0s]
    #[arg(long, value_parser = parse_duration)]
    warmup: Option<Duration>,
    /// A new connection for every request (as ab without -k)
    #[arg(long)]
    no_keepalive: bool,
    /// Send HTTP/1.0 requests (as ab and webbench do)
    #[arg(long = "http1.0")]
    http10: bool,
    /// HTTP/2 in clear text with prior knowledge, for an http:// URL (as h2load and
    /// curl --http2-prior-knowledge)
    #[arg(long, conflicts_with = "http2")]
    h2c: bool,
    /// HTTP/2 over TLS, chosen by ALPN, for an https:// URL
    #[arg(long)]
    http2: bool,
    /// HTTP/2: requests in flight per connection, each on its own stream (h2load's -m;
    /// here -m is the method) [default: 1]
    #[arg(long, visible_alias = "max-concurrent-streams", value_name = "N")]
    streams: Option<usize>,
    /// WebSocket (ws://, wss://): octets of each message [default: 32]
    #[arg(long, value_name = "N")]
    message_size: Option<usize>,
    /// WebSocket: binary messages (else text)
    #[arg(long)]
    binary: bool,
    /// WebSocket: messages in flight per connection, each awaiting its echo [default: 1]
    #[arg(long, value_name = "N")]
    in_flight: Option<usize>,
    /// WebSocket: messages each connection carries before it closes (the close
    /// handshake) and a new one upgrades (handshake churn) [default: the whole load]
    #[arg(long, value_name = "N")]
    messages_per_connection: Option<u32>,
    /// Open loop: requests/s in total, or stages "1000:10s,5000:30s" (linear ramps);
    /// latency counts from each request's intended send time
    #[arg(long, value_name = "RATE")]
    rate: Option<String>,
    /// Device load (Stressgrid): device counts over time as stages, e.g.
    /// "0,15000:60s,15000:60s,0:30s"; each device keeps one connection
    #[arg(long, value_name = "STAGES", conflicts_with = "rate")]
    devices: Option<String>,
    /// Requests each device sends before it leaves (and is replaced while wanted)
    /// [default: 100]
    #[arg(long, value_name = "N")]
    device_requests: Option<u32>,
    /// Mean time between a device's response and its next request [default: 900ms]
    #[arg(long, value_parser = parse_duration)]
    think: Option<Duration>,
    /// Uniform jitter of the think time, as a fraction (0.05 = ±5%) [default: 0.05]
    #[arg(long)]
    jitter: Option<f64>,
    /// I/O interface of the event loops [default: uring if the kernel has it]
    #[arg(long, value_enum)]
    io: Option<IoArg>,
    /// Requests vary: the URL's path and query, the -H values and the --body are
    /// templates, their {seq}, {rand:LO-HI}, {list:A,B} drawn per request
    /// (docs/varying-requests.md)
    #[arg(long)]
    vary: bool,
    /// A request shape, "[WEIGHT*]METHOD /PATH [BODY]" with templates, e.g.
    /// "3*GET /sum?a={a=rand:1-9}" (repeatable: a weighted rotation; implies --vary,
    /// and the URL gives only the host)
    #[arg(long = "request", value_name = "LINE")]
    shapes: Vec<String>,
    /// The exact body of a right answer, from the request's named values, e.g.
    /// "{sum:a,b}"; other answers count as wrong (implies --vary)
    #[arg(long, value_name = "TEMPLATE")]
    expect: Option<String>,
    /// Seed of the random values (--vary) [default: a new one each run]
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum IoArg {
    Uring,
    Epoll,
}

impl LoadFlags {
    /// The load these flags, `tls` among them, (and their scenario) describe, every text
    /// checked and every file read.
    pub fn spec(&self, tls: &TlsFlags) -> anyhow::Result<LoadSpec> {
        let file = match &self.scenario {
            Some(path) => Some(scenario::read(path)?),
            None => None,
        };
        let from_file = file.as_ref().and_then(|f| f.url.as_deref());
        let Some(url) = self.url.as_deref().or(from_file) else {
            bail!("no URL: give one, or a --scenario with url = \"...\"");
        };
        let mut spec = LoadSpec::new(engine::parse_url(url)?);
        if let (Some(file), Some(path)) = (file, &self.scenario) {
            let dir = path.parent().unwrap_or(Path::new("."));
            file.apply(&mut spec, dir)?;
        }
        self.apply(&mut spec)?;
        tls.apply(&mut spec.tls, Source::Flags)?;
        Ok(spec)
    }

    /// Every flag given, over what `spec` already says.
    fn apply(&self, spec: &mut LoadSpec) -> anyhow::Result<()> {
        if let Some(m) = &self.method {
            spec.method = engine::parse_method(m)?;
        }
        for h in &self.headers {
            spec.headers.push(h.parse()?);
        }
        if let Some(b) = &self.body {
            spec.body = b.clone().into_bytes();
        }
        if let Some(path) = &self.body_file {
            spec.body = std::fs::read(path)
                .with_context(|| format!("reading --body-file {}", path.display()))?;
        }
        self.apply_vary(spec)?;
        set(&mut spec.connections, self.connections);
        spec.threads = self.threads.or(spec.threads);
        spec.stop = match (self.requests, self.duration) {
            (Some(n), _) => Some(Stop::Requests(n)),
            (None, Some(d)) => Some(Stop::After(d)),
            (None, None) => spec.stop,
        };
        set(&mut spec.timeout, self.timeout);
        set(&mut spec.warmup, self.warmup);
        set(&mut spec.pipeline, self.pipeline);
        spec.keepalive &= !self.no_keepalive;
        spec.http10 |= self.http10;
        self.apply_http2(spec)?;
        self.apply_websocket(spec)?;
        if let Some(io) = self.io {
            spec.io = match io {
                IoArg::Uring => IoChoice::Uring,
                IoArg::Epoll => IoChoice::Epoll,
            };
        }
        self.apply_pace(spec)
    }

    /// `--h2c` (http://) or `--http2` (https://), and `--streams`.
    /// --vary, --request, --expect and --seed, over a spec's `vary`.
    fn apply_vary(&self, spec: &mut LoadSpec) -> anyhow::Result<()> {
        let wanted = self.vary || !self.shapes.is_empty() || self.expect.is_some();
        if !wanted && self.seed.is_none() {
            return Ok(());
        }
        if !wanted && spec.vary.is_none() {
            bail!("--seed is for requests that vary: give --vary, --request or --expect too");
        }
        let vary = spec.vary.get_or_insert_with(VarySpec::default);
        for line in &self.shapes {
            vary.requests.push(line.parse().context("--request")?);
        }
        if let Some(expect) = &self.expect {
            vary.expect = Some(expect.parse().context("--expect")?);
        }
        vary.seed = self.seed.or(vary.seed);
        Ok(())
    }

    fn apply_http2(&self, spec: &mut LoadSpec) -> anyhow::Result<()> {
        let https = spec.url.scheme() == "https";
        match (self.h2c, self.http2, https) {
            (true, _, true) => bail!("--h2c is HTTP/2 in clear text: for https:// use --http2"),
            (_, true, false) => bail!("--http2 is HTTP/2 over TLS: for http:// use --h2c"),
            _ => spec.http2 |= self.h2c || self.http2,
        }
        set(&mut spec.streams, self.streams);
        if spec.streams != 1 && !spec.http2 {
            bail!("--streams is for HTTP/2: add --h2c (http://) or --http2 (https://)");
        }
        Ok(())
    }

    /// `--message-size`, `--binary`, `--in-flight` and `--messages-per-connection`, for a
    /// ws:// or wss:// URL.
    fn apply_websocket(&self, spec: &mut LoadSpec) -> anyhow::Result<()> {
        let given = self.message_size.is_some()
            || self.binary
            || self.in_flight.is_some()
            || self.messages_per_connection.is_some();
        if given && !spec.is_websocket() {
            bail!("--message-size, --binary, --in-flight and --messages-per-connection are for WebSocket: give a ws:// or wss:// URL");
        }
        let ws = &mut spec.websocket;
        set(&mut ws.message_size, self.message_size);
        set(&mut ws.in_flight, self.in_flight);
        ws.binary |= self.binary;
        ws.messages_per_connection = self.messages_per_connection.or(ws.messages_per_connection);
        Ok(())
    }

    /// `--rate` or `--devices` and the device script's flags, over the scenario's pace.
    fn apply_pace(&self, spec: &mut LoadSpec) -> anyhow::Result<()> {
        if let Some(rate) = &self.rate {
            if matches!(spec.pace, Pace::Devices(_)) {
                bail!("a device load sets its own pace: drop --rate");
            }
            spec.pace = Pace::Open(RateSchedule::parse(rate).context("--rate")?);
        }
        if let Some(stages) = &self.devices {
            let count = RateSchedule::parse_device_count(stages).context("--devices")?;
            match &mut spec.pace {
                Pace::Devices(script) => script.count = count,
                pace => *pace = Pace::Devices(engine::default_devices(count)),
            }
        }
        if let Pace::Devices(script) = &mut spec.pace {
            set(&mut script.requests, self.device_requests);
            set(&mut script.think, self.think);
            set(&mut script.jitter, self.jitter);
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// `load`'s flags as the command has them (tls_flags' tests use them too).
    #[derive(Parser)]
    pub(crate) struct Flags {
        #[command(flatten)]
        load: LoadFlags,
        #[command(flatten)]
        tls: TlsFlags,
    }

    /// The spec `shootout load ARGS` makes.
    pub(crate) fn spec(args: &[&str]) -> anyhow::Result<LoadSpec> {
        let argv = std::iter::once("load").chain(args.iter().copied());
        let flags = Flags::try_parse_from(argv)?;
        flags.load.spec(&flags.tls)
    }

    #[test]
    fn flags_fill_a_spec_and_the_rest_keeps_its_defaults() {
        let s = spec(&[
            "http://127.0.0.1:1/x",
            "-c",
            "7",
            "-H",
            "X-A:  b c ",
            "-n",
            "9",
        ])
        .unwrap();
        let mut want = LoadSpec::new(engine::parse_url("http://127.0.0.1:1/x").unwrap());
        want.connections = 7;
        want.headers = vec!["X-A: b c".parse().unwrap()];
        want.stop = Some(Stop::Requests(9));
        assert_eq!(s, want);
        let d = spec(&["http://a/", "--devices", "0,10:1s", "--think", "1s"]).unwrap();
        let script = d.pace.devices().unwrap();
        assert_eq!(
            (script.requests, script.think),
            (100, Duration::from_secs(1))
        );
    }

    #[test]
    fn vary_flags_make_the_specs_vary() {
        let s = spec(&[
            "http://a/sum?a={a=rand:1-9}",
            "--vary",
            "--expect",
            "{sum:a}",
            "--seed",
            "4",
        ])
        .unwrap();
        let v = s.vary.as_ref().unwrap();
        assert_eq!((v.seed, v.requests.len()), (Some(4), 0));
        assert_eq!(v.expect.as_ref().unwrap().text(), "{sum:a}");
        let s = spec(&[
            "http://a/",
            "--request",
            "3*GET /x?n={seq}",
            "--request",
            "POST /y {seq}",
        ]);
        let v = s.unwrap().vary.unwrap();
        let lines: Vec<String> = v.requests.iter().map(|r| r.to_string()).collect();
        assert_eq!(lines, ["3*GET /x?n={seq}", "POST /y {seq}"]);
        let e = |args: &[&str]| format!("{:#}", spec(args).unwrap_err());
        assert!(e(&["http://a/", "--seed", "1"]).starts_with("--seed is for"));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("vary.toml");
        let text = "url = \"http://a/\"\n[vary]\nrequests = [\"GET /x?n={seq}\"]\nseed = 2\n";
        std::fs::write(&file, text).unwrap();
        let s = spec(&["--scenario", file.to_str().unwrap(), "--seed", "5"]).unwrap();
        let v = s.vary.unwrap();
        assert_eq!(
            (v.seed, v.requests.len()),
            (Some(5), 1),
            "the flag over the file"
        );
        let bad = e(&["http://a/", "--request", "GET /x?n={nope:1}"]);
        assert!(
            bad.starts_with("--request: ") && bad.contains("nope:1"),
            "{bad}"
        );
    }

    #[test]
    fn http2_flags_match_the_scheme_and_streams_need_them() {
        let h2c = spec(&["http://a/", "--h2c", "--streams", "10"]).unwrap();
        assert!(h2c.http2);
        assert_eq!(h2c.streams, 10);
        assert!(spec(&["https://a/", "--http2"]).unwrap().http2);
        let e = |args: &[&str]| spec(args).unwrap_err().to_string();
        assert!(e(&["https://a/", "--h2c"]).starts_with("--h2c is HTTP/2 in clear text"));
        assert!(e(&["http://a/", "--http2"]).starts_with("--http2 is HTTP/2 over TLS"));
        assert!(e(&["http://a/", "--streams", "4"]).starts_with("--streams is for HTTP/2"));
    }

    #[test]
    fn websocket_flags_fill_the_spec_of_a_ws_url_only() {
        let s = spec(&[
            "ws://a/echo",
            "--message-size",
            "100",
            "--binary",
            "--in-flight",
            "8",
            "--messages-per-connection",
            "50",
        ]);
        let ws = s.unwrap().websocket;
        assert_eq!((ws.message_size, ws.binary, ws.in_flight), (100, true, 8));
        assert_eq!(ws.messages_per_connection, Some(50));
        assert!(spec(&["wss://a/echo"]).unwrap().over_tls());
        let e = spec(&["http://a/", "--in-flight", "2"])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(
            "--message-size, --binary, --in-flight and --messages-per-connection are for WebSocket"
        ));
        let e = spec(&["http://a/", "--messages-per-connection", "2"]).unwrap_err();
        assert!(e.to_string().contains("are for WebSocket"), "{e}");
    }

    #[test]
    fn bad_request_parts_are_named() {
        let e = |args: &[&str]| spec(args).unwrap_err().to_string();
        assert_eq!(
            e(&["http://a/", "-H", "nocolon"]),
            "header \"nocolon\" has no ':' (expected \"Name: value\")"
        );
        assert!(e(&["http://a/", "-m", "G T"]).starts_with("method \"G T\""));
        assert!(e(&["ftp://a/"]).starts_with("URL \"ftp://a/\": scheme"));
    }

    /// The defaults `--help` states are the spec's own.
    #[test]
    fn the_defaults_in_the_help_are_the_specs() {
        let d = LoadSpec::new(engine::parse_url("http://a/").unwrap());
        let script = engine::default_devices(RateSchedule::parse("1").unwrap());
        let help = Flags::command().render_long_help().to_string();
        let said = |flag: &str, value: String| {
            let at = help
                .find(flag)
                .unwrap_or_else(|| panic!("{flag} in the help"));
            let rest = &help[at + flag.len()..];
            let text = &rest[..rest.find("\n\n").unwrap_or(rest.len())];
            assert!(
                text.contains(&format!("[default: {value}]")),
                "{flag}: {text}"
            );
        };
        said("--connections", d.connections.to_string());
        said("--timeout", engine::format_duration(d.timeout));
        said("--method", d.method.to_string());
        said("--pipeline", d.pipeline.to_string());
        said("--streams", d.streams.to_string());
        said("--message-size", d.websocket.message_size.to_string());
        said("--in-flight", d.websocket.in_flight.to_string());
        said("--warmup", engine::format_duration(d.warmup));
        said("--device-requests", script.requests.to_string());
        said("--think", engine::format_duration(script.think));
        said("--jitter", script.jitter.to_string());
        let ten_seconds = engine::format_duration(engine::defaults::duration());
        said("--duration", ten_seconds);
    }
}
