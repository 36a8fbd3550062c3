use super::answer::Answer;
use super::*;
use crate::spec::Header;
use http::Method;

fn vary(lines: &[&str], headers: &[&str], expect: Option<&str>, seed: u64) -> Vary {
    let lines: Vec<RequestLine> = lines.iter().map(|l| l.parse().unwrap()).collect();
    let headers: Vec<Header> = headers.iter().map(|h| h.parse().unwrap()).collect();
    let expect: Option<Template> = expect.map(|e| e.parse().unwrap());
    let written: Vec<Written> = lines.iter().map(Written::from).collect();
    let cx = Context {
        host: "h:1",
        http10: false,
        keepalive: true,
        https: false,
        headers: &headers,
        expect: expect.as_ref(),
    };
    Vary::compile(&written, cx, seed).unwrap()
}

fn one_loop() -> Place {
    Place {
        shard: 0,
        shards: 1,
        loop_index: 0,
        loops: 1,
    }
}

fn render(v: &Vary, drawn: &Drawn) -> String {
    let mut out = vec![0; v.max_request_len()];
    let n = v.render_h1(drawn, &mut out);
    String::from_utf8(out[..n].to_vec()).unwrap()
}

#[test]
fn a_request_renders_its_values_everywhere_they_are_named() {
    let v = vary(
        &["POST /s?a={a=rand:5-5}&n={seq:100} x={a}&y={list:q}"],
        &["X-Id: id-{seq}"],
        None,
        1,
    );
    let mut d = Drawer::new(&v, one_loop());
    let first = render(&v, &d.draw(&v));
    assert_eq!(
        first,
        "POST /s?a=5&n=100 HTTP/1.1\r\nHost: h:1\r\nX-Id: id-0\r\nContent-Length: 7\r\n\r\nx=5&y=q"
    );
    assert!(render(&v, &d.draw(&v)).starts_with("POST /s?a=5&n=101 "));
}

#[test]
fn the_longest_request_is_an_upper_bound() {
    let v = vary(&["GET /{seq}/{rand:0-18446744073709551615}"], &[], None, 3);
    let mut d = Drawer::new(&v, one_loop());
    for _ in 0..1000 {
        assert!(render(&v, &d.draw(&v)).len() <= v.max_request_len());
    }
}

#[test]
fn weights_are_honoured_exactly_each_round() {
    let v = vary(&["3*GET /a", "GET /b", "2*POST /c x"], &[], None, 0);
    let mut d = Drawer::new(&v, one_loop());
    let mut counts = [0; 3];
    for _ in 0..600 {
        counts[d.draw(&v).shape as usize] += 1;
    }
    assert_eq!(counts, [300, 100, 200]);
}

#[test]
fn same_seed_same_values_other_loops_and_shards_other_values() {
    let v = vary(&["GET /?r={rand:0-1000000}&s={seq}"], &[], None, 42);
    let take = |v: &Vary, place: Place| {
        let mut d = Drawer::new(v, place);
        (0..100).map(|_| d.draw(v).values).collect::<Vec<_>>()
    };
    assert_eq!(take(&v, one_loop()), take(&v, one_loop()));
    let other_shard = Place {
        shard: 1,
        shards: 2,
        ..one_loop()
    };
    let this_shard = Place {
        shards: 2,
        ..one_loop()
    };
    let (a, b) = (take(&v, this_shard), take(&v, other_shard));
    assert_ne!(
        a.iter().map(|x| x[0]).collect::<Vec<_>>(),
        b.iter().map(|x| x[0]).collect::<Vec<_>>()
    );
    // Sequence numbers interleave: shard 1/2 even, 2/2 odd.
    assert!(a.iter().all(|x| x[1] % 2 == 0) && b.iter().all(|x| x[1] % 2 == 1));
    let other_seed = vary(&["GET /?r={rand:0-1000000}&s={seq}"], &[], None, 43);
    assert_ne!(take(&v, one_loop()), take(&other_seed, one_loop()));
}

#[test]
fn an_answer_is_checked_in_pieces() {
    let v = vary(
        &["GET /?a={a=rand:13-13}&b={b=rand:42-42}"],
        &[],
        Some("{sum:a,b}"),
        0,
    );
    let drawn = Drawer::new(&v, one_loop()).draw(&v);
    let check = |pieces: &[&[u8]]| {
        let mut a = Answer::default();
        pieces.iter().for_each(|p| a.feed(&v, &drawn, p));
        a.right(&v, &drawn)
    };
    assert!(check(&[&b"5"[..], &b"5"[..]]));
    assert!(!check(&[&b"5"[..]]), "short");
    assert!(!check(&[&b"55"[..], &b"0"[..]]), "long");
    assert!(!check(&[&b"56"[..]]));
}

#[test]
fn names_are_checked_when_compiled() {
    let lines: Vec<RequestLine> = vec!["GET /?a={a=seq}&b={a=seq}".parse().unwrap()];
    let w = Written {
        weight: 1,
        method: &lines[0].method,
        target: &lines[0].target,
        body: &lines[0].body,
    };
    let cx = Context {
        host: "h",
        http10: false,
        keepalive: true,
        https: false,
        headers: &[],
        expect: None,
    };
    let e = Vary::compile(&[w], cx, 0).unwrap_err().to_string();
    assert!(e.contains("drawn twice"), "{e}");
    let unknown: Template = "{sum:a,c}".parse().unwrap();
    let cx = Context {
        expect: Some(&unknown),
        ..cx
    };
    let t: Template = "/?a={a=seq}".parse().unwrap();
    let w = Written { target: &t, ..w };
    let e = Vary::compile(&[w], cx, 0).unwrap_err().to_string();
    assert!(e.contains("no value is named \"c\""), "{e}");
    let head = Written {
        method: &Method::HEAD,
        ..w
    };
    assert!(Vary::compile(&[head], Context { expect: None, ..cx }, 0).is_err());
}
