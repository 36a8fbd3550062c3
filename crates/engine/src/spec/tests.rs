use super::*;
use crate::{DeviceScript, RateSchedule};

fn url(text: &str) -> Url {
    parse_url(text).unwrap()
}

/// A spec with every setting away from its default, a binary body among them.
fn everything() -> LoadSpec {
    let mut s = LoadSpec::new(url("http://127.0.0.1:8080/p?q=1"));
    s.method = parse_method("M-SEARCH").unwrap();
    s.headers = vec!["X-A: b: c".parse().unwrap(), "Accept: */*".parse().unwrap()];
    s.body = (0..=255).collect();
    s.connections = 30_000;
    s.threads = Some(3);
    s.stop = Some(Stop::Requests(12_345));
    s.warmup = Duration::from_micros(1_500_250);
    s.timeout = Duration::from_millis(2_500);
    s.pipeline = 4;
    s.http10 = true;
    s.io = IoChoice::Epoll;
    s.pace = Pace::Open(RateSchedule::parse("1000:10s,5000.5:1500ms").unwrap());
    s.shard = Shard::parse("2/3").unwrap();
    s.start_at = Some(1_900_000_000_000);
    s.vary = Some(crate::VarySpec {
        seed: Some(7),
        requests: vec!["3*GET /s?a={a=rand:1-9}&b={b=seq}".parse().unwrap()],
        expect: Some("{sum:a,b}".parse().unwrap()),
    });
    s
}

#[test]
fn varying_requests_read_from_json_and_resolve() {
    let text = r#"{"url": "http://127.0.0.1:1/x?n={seq}", "vary": {"seed": 3}}"#;
    let s: LoadSpec = serde_json::from_str(text).unwrap();
    let c = s.resolve().unwrap();
    let vary = c.vary.expect("the URL's own request varies");
    assert_eq!((vary.seed, vary.shapes.len()), (3, 1));
    let bad = r#"{"url": "http://a/", "vary": {"requests": ["GET /{rand:9}"]}}"#;
    let e = serde_json::from_str::<LoadSpec>(bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("rand:9") && e.contains("LO-HI"), "{e}");
}

#[test]
fn a_spec_reads_back_from_json_as_the_same_load() {
    let mut s = everything();
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        json.contains(r#""body":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBka"#),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<LoadSpec>(&json).unwrap(), s);
    s.keepalive = false;
    s.pipeline = 1;
    s.stop = Some(Stop::After(Duration::from_millis(2_001)));
    s.pace = Pace::Devices(DeviceScript {
        count: RateSchedule::parse_device_count("0,150:3s,150:2s,0:1s").unwrap(),
        requests: 7,
        think: Duration::from_millis(900),
        jitter: 0.05,
    });
    let json = serde_json::to_string_pretty(&s).unwrap();
    assert_eq!(serde_json::from_str::<LoadSpec>(&json).unwrap(), s);
}

#[test]
fn a_spec_reads_from_toml_too() {
    let text = "url = \"http://127.0.0.1:1/\"\nconnections = 5\nstop = { after = \"2s\" }\n\
                [pace.devices]\nstages = \"0,10:1s\"\n";
    let s: LoadSpec = toml::from_str(text).unwrap();
    assert_eq!(s.connections, 5);
    assert_eq!(s.stop, Some(Stop::After(Duration::from_secs(2))));
    let script = s.pace.devices().unwrap();
    assert_eq!(
        (script.requests, script.think),
        (100, Duration::from_millis(900))
    );
    assert_eq!(
        toml::from_str::<LoadSpec>(&toml::to_string(&s).unwrap()).unwrap(),
        s
    );
}

/// The defaults live in `defaults`: a spec that names only its URL, `LoadSpec::new`, and
/// the engine's own `LoadConfig::new` all read them.
#[test]
fn defaults_are_one_set() {
    let given: LoadSpec = serde_json::from_str(r#"{"url": "http://127.0.0.1:1/"}"#).unwrap();
    let new = LoadSpec::new(url("http://127.0.0.1:1/"));
    assert_eq!(given, new);
    assert_eq!(new.connections, 10);
    assert_eq!(new.timeout, Duration::from_secs(5));
    let mut resolved = new.resolve().unwrap();
    resolved.threads = 1;
    let engine = crate::LoadConfig::new(crate::Target::parse("http://127.0.0.1:1/").unwrap());
    assert_eq!(format!("{resolved:?}"), format!("{engine:?}"));
}

#[test]
fn a_staged_load_lasts_its_stages_less_the_warmup() {
    let mut s = LoadSpec::new(url("http://127.0.0.1:1/"));
    s.pace = Pace::Open(RateSchedule::parse("10:3s,10:2s").unwrap());
    s.warmup = Duration::from_secs(1);
    assert_eq!(s.ends().unwrap(), Stop::After(Duration::from_secs(4)));
    s.warmup = Duration::from_secs(5);
    let e = s.ends().unwrap_err().to_string();
    assert_eq!(
        e,
        "the warm-up is as long as the stages: nothing would be measured"
    );
}

#[test]
fn bad_methods_headers_and_urls_are_named() {
    let e = |r: Result<(), SpecError>| r.unwrap_err().to_string();
    assert_eq!(
        e(parse_method("GE T").map(drop)),
        r#"method "GE T" is not a valid HTTP method token"#
    );
    assert_eq!(
        e("X Y: v".parse::<Header>().map(drop)),
        r#"header "X Y: v" is not a valid HTTP header: the name is not a token"#
    );
    assert_eq!(
        e("X: a\r\nY: b".parse::<Header>().map(drop)),
        "header \"X: a\\r\\nY: b\" is not a valid HTTP header: the value has a line break or a \
         control character"
    );
    assert_eq!(
        e("nocolon".parse::<Header>().map(drop)),
        r#"header "nocolon" has no ':' (expected "Name: value")"#
    );
    assert_eq!(
        e(parse_url("ftp://a/").map(drop)),
        r#"URL "ftp://a/": scheme "ftp" is not supported (only http, https, ws and wss)"#
    );
    assert_eq!(
        e(parse_url("127.0.0.1:80").map(drop)),
        r#"URL "127.0.0.1:80": missing scheme (expected http[s]://host[:port]/path)"#
    );
    assert!(e(parse_url("http://a:99999/").map(drop)).starts_with(r#"URL "http://a:99999/": "#));
    // In a spec, the same errors, with serde's place.
    let bad = serde_json::from_str::<LoadSpec>(r#"{"url": "http://a/", "method": "G T"}"#);
    let bad = bad.unwrap_err().to_string();
    assert!(
        bad.starts_with(r#"method "G T" is not a valid HTTP method token at line 1"#),
        "{bad}"
    );
    let unknown = serde_json::from_str::<LoadSpec>(r#"{"url": "http://a/", "conections": 1}"#);
    assert!(unknown
        .unwrap_err()
        .to_string()
        .contains("unknown field `conections`"));
}

/// The one check of a request's method and headers (a `LoadConfig` holds the types, so
/// nothing downstream checks them again): any token is a method (RFC 9110), digits too;
/// a header cannot break its line and smuggle another.
#[test]
fn methods_are_tokens_and_headers_keep_to_their_line() {
    for good in ["GET", "PATCH", "M-SEARCH", "G1"] {
        assert_eq!(parse_method(good).unwrap().as_str(), good);
    }
    for bad in ["", "GE T", "GET /x HTTP/1.1\r\nX:", "G(1)"] {
        let e = parse_method(bad).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("method {bad:?} is not a valid HTTP method token")
        );
    }
    for good in ["X-A: b c", "Accept: */*"] {
        assert!(good.parse::<Header>().is_ok(), "{good}");
    }
    for bad in ["X: a\r\nY: b", "X: a\n", ": v", "X Y: v"] {
        let e = bad.parse::<Header>().unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("header {bad:?} is not a valid HTTP header: ")),
            "{e}"
        );
    }
}

#[test]
fn headers_keep_their_value_and_print_back() {
    let h: Header = "X-Run:  a b ".parse().unwrap();
    assert_eq!(h.to_string(), "X-Run: a b");
    assert_eq!(h.to_string().parse::<Header>().unwrap(), h);
    // Compared by name in any case; HTTP/2 and lookups use the lowercase one.
    assert!(h.is("x-run") && h.is("X-RUN"));
    assert_eq!((h.name.as_str(), h.spelling()), ("x-run", "X-Run"));
}

/// A spec's headers travel (to shards, to the store) with their names' case, and a spec
/// saved before that (its names lowercase) reads as it was.
#[test]
fn a_specs_header_names_keep_their_case_through_json() {
    let mut s = LoadSpec::new(url("http://127.0.0.1:8080/"));
    s.headers = vec![
        "X-My-Header: v".parse().unwrap(),
        "ACCEPT: */*".parse().unwrap(),
    ];
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        json.contains(r#""headers":["X-My-Header: v","ACCEPT: */*"]"#),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<LoadSpec>(&json).unwrap(), s);
    let older = r#"{"url": "http://127.0.0.1:8080/", "headers": ["x-my-header: v"]}"#;
    let read: LoadSpec = serde_json::from_str(older).unwrap();
    assert_eq!(read.headers[0].to_string(), "x-my-header: v");
    assert!(read.headers[0].is("X-My-Header"));
}

#[test]
fn a_target_at_an_address_keeps_the_urls_host() {
    let s = LoadSpec::new(url("http://svc.example:8080/x"));
    let c = s.resolve_at("127.0.0.1:9".parse().unwrap()).unwrap();
    assert_eq!(c.target.host_header, "svc.example:8080");
    assert_eq!(c.target.addr, "127.0.0.1:9".parse().unwrap());
    let pod = s.resolve_elsewhere().unwrap();
    assert_eq!(pod.target.addr, "0.0.0.0:8080".parse().unwrap());
}
