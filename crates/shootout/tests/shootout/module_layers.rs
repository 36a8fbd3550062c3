//! Arrows between modules point one way (docs/architecture.md): the top-level modules of
//! src/ are layers, each using only those above it in [`LAYERS`]; and there is no circle
//! between the files and folders of any one folder. Read from the source's `use` lines and
//! `crate::`/`super::` paths; test code (`#[cfg(test)]` modules) may reach anywhere and is
//! left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level modules of src/, in the order data flows: each may use only the ones
/// before it. Written once here; docs/architecture.md draws it.
const LAYERS: &[&str] = &[
    "units",
    "toml_file",
    "workload",
    "model",
    "stats",
    "threshold",
    "capacity",
    "contestant",
    "machine",
    "process",
    "database",
    "generators",
    "k8s",
    "experiment",
    "store",
    "report",
    "cli",
];

/// A module's path from the crate root: `["experiment", "run", "measure"]`.
type ModPath = Vec<String>;

/// Within one folder (its path), which child uses which, and a file that says so.
type Edges = BTreeMap<ModPath, BTreeMap<String, BTreeMap<String, String>>>;

#[test]
fn no_module_circles_in_src() {
    let circles = circles(&edges(&src_files()));
    assert!(
        circles.is_empty(),
        "module circles (folder: a -> b -> a, with a file that makes each arrow):\n{}",
        circles.join("\n")
    );
}

#[test]
fn a_circle_between_two_files_is_named_with_its_arrows() {
    let files = vec![
        (path("a"), "mod x; mod y;".to_string()),
        (path("a/x"), "use super::y::Thing;".to_string()),
        (path("a/y"), "fn f() { crate::a::x::g() }".to_string()),
        (path("b"), "use crate::a::x;".to_string()),
    ];
    let found = circles(&edges(&files));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("a: x -> y -> x"), "{}", found[0]);
    assert!(found[0].contains("x -> y (a/x)") && found[0].contains("y -> x (a/y)"));
}

#[test]
fn top_level_modules_use_only_the_layers_above_them() {
    let files = src_files();
    let unlisted: Vec<&str> = (files.iter())
        .filter(|(m, _)| m.len() == 1 && !LAYERS.contains(&m[0].as_str()))
        .map(|(m, _)| m[0].as_str())
        .collect();
    assert!(
        unlisted.is_empty(),
        "top-level modules missing from LAYERS (tests/module_layers.rs): {unlisted:?}"
    );
    let upward = upward_arrows(&edges(&files), LAYERS);
    assert!(
        upward.is_empty(),
        "imports of a later layer (a module may use only those before it in LAYERS):\n{}",
        upward.join("\n")
    );
}

#[test]
fn an_import_of_a_later_layer_is_named_with_its_file() {
    let files = vec![
        (path("low"), "use crate::high::Thing;".to_string()),
        (path("high"), "use crate::low::Other;".to_string()),
        (path("high/part"), "fn f() { crate::low::g() }".to_string()),
    ];
    let found = upward_arrows(&edges(&files), &["low", "high"]);
    assert_eq!(found, ["low -> high (low): high is a later layer than low"]);
    assert!(upward_arrows(&edges(&files[1..]), &["low", "high"]).is_empty());
}

/// Every `.rs` file of this crate's src/.
fn src_files() -> Vec<(ModPath, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_tree(&src, &src, &mut files);
    assert!(files.len() > 50, "read only {} files of src/", files.len());
    files
}

/// The arrows between top-level modules that point to a later layer, one line each with
/// the file that makes it. A module not in `layers` counts as the last.
fn upward_arrows(edges: &Edges, layers: &[&str]) -> Vec<String> {
    let rank = |m: &str| layers.iter().position(|l| *l == m).unwrap_or(layers.len());
    let mut out = Vec::new();
    for (a, uses) in edges.get(&ModPath::new()).into_iter().flatten() {
        for (b, file) in uses.iter().filter(|(b, _)| rank(a) < rank(b)) {
            out.push(format!(
                "{a} -> {b} ({file}): {b} is a later layer than {a}"
            ));
        }
    }
    out
}

fn path(text: &str) -> ModPath {
    text.split('/').map(str::to_string).collect()
}

/// Every `.rs` file under `dir` as its module path and text (`mod.rs` is its folder).
fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(ModPath, String)>) {
    let entries = std::fs::read_dir(dir).expect("src/ is readable");
    for entry in entries.map(|e| e.expect("a directory entry")) {
        let p = entry.path();
        if p.is_dir() {
            read_tree(root, &p, out);
            continue;
        }
        if p.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = p.strip_prefix(root).expect("under src/").with_extension("");
        let mut m: ModPath = rel
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            m.pop();
        }
        out.push((m, std::fs::read_to_string(&p).expect("a source file")));
    }
}

/// The arrows of `files`: one from child `a` to child `b` of a folder when a module in
/// `a` names a path into `b`.
fn edges(files: &[(ModPath, String)]) -> Edges {
    let modules: BTreeSet<&ModPath> = files.iter().map(|(m, _)| m).collect();
    let tests = test_modules(files);
    let in_tests = |m: &[String]| (1..=m.len()).any(|n| tests.contains(&m[..n]));
    let mut edges = Edges::new();
    for (m, text) in files.iter().filter(|(m, _)| !in_tests(m)) {
        for target in paths(text).iter().filter_map(|p| resolve(m, p)) {
            let k = m.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if k >= m.len() || k >= target.len() {
                continue; // into itself, or its own folder's mod.rs
            }
            let folder = m[..k].to_vec();
            let (a, b) = (&m[k], &target[k]);
            let child = |c: &String| [folder.clone(), vec![c.clone()]].concat();
            if !modules.contains(&child(b)) || in_tests(&child(a)) || in_tests(&child(b)) {
                continue;
            }
            (edges.entry(folder.clone()).or_default())
                .entry(a.clone())
                .or_default()
                .entry(b.clone())
                .or_insert_with(|| m.join("/"));
        }
    }
    edges
}

/// Modules declared `#[cfg(test)] mod NAME;`.
fn test_modules(files: &[(ModPath, String)]) -> BTreeSet<ModPath> {
    let mut out = BTreeSet::new();
    for (m, text) in files {
        for part in text.split("#[cfg(test)]").skip(1) {
            let decl = part.trim_start();
            let decl = decl
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(name) = decl.strip_prefix("mod ").and_then(|d| d.split_once(';')) {
                if !name.0.contains('{') {
                    out.insert([m.clone(), vec![name.0.trim().to_string()]].concat());
                }
            }
        }
    }
    out
}

/// The module paths `text` names outside its test code: `use` trees expanded, and
/// `crate::`/`super::` paths in code.
fn paths(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or("");
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for (i, _) in code.match_indices("use ") {
        let line_start = code[..i].rfind('\n').map_or(0, |n| n + 1);
        let before = code[line_start..i].trim();
        if !(before.is_empty() || before.starts_with("pub")) {
            continue; // a word in a string
        }
        let tree = code[i + 4..].split(';').next().unwrap_or("");
        out.extend(expand(tree.trim()));
    }
    for (i, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        let rest = &code[i..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        out.push(rest[..end].trim_end_matches(':').to_string());
    }
    out
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let close = tree.rfind('}').filter(|c| *c > open).unwrap_or(tree.len());
    let (prefix, body) = (&tree[..open], &tree[open + 1..close]);
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    (parts.into_iter().map(str::trim).filter(|p| !p.is_empty()))
        .flat_map(|p| expand(&format!("{prefix}{p}")))
        .collect()
}

/// `path` as seen from module `m`, from the crate root; None for another crate's.
fn resolve(m: &[String], path: &str) -> Option<ModPath> {
    let mut segments = path
        .split("::")
        .map(|s| s.split(" as ").next().unwrap_or(s).trim());
    let mut base: ModPath = match segments.next()? {
        "crate" => Vec::new(),
        "super" => m[..m.len().saturating_sub(1)].to_vec(),
        "self" => m.to_vec(),
        _ => return None,
    };
    for s in segments {
        match s {
            "super" => {
                base.pop();
            }
            "self" | "*" | "" => {}
            s => base.push(s.to_string()),
        }
    }
    Some(base)
}

/// Every circle, one line each: `folder: a -> b -> a` and the arrows with their files.
fn circles(edges: &Edges) -> Vec<String> {
    let mut out = Vec::new();
    for (folder, graph) in edges {
        for cycle in strongly_connected(graph)
            .into_iter()
            .filter(|c| c.len() > 1)
        {
            let arrows: Vec<String> = cycle
                .iter()
                .flat_map(|a| graph[a].iter().map(move |(b, file)| (a, b, file)))
                .filter(|(_, b, _)| cycle.contains(b))
                .map(|(a, b, file)| format!("{a} -> {b} ({file})"))
                .collect();
            let name = if folder.is_empty() {
                "src".to_string()
            } else {
                folder.join("/")
            };
            let ring = [cycle.clone(), vec![cycle[0].clone()]]
                .concat()
                .join(" -> ");
            out.push(format!("{name}: {ring}: {}", arrows.join(", ")));
        }
    }
    out
}

/// The strongly connected sets of `graph` (Tarjan), each sorted.
fn strongly_connected(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(w: &mut Walk<'g>, v: &'g str) {
        let i = w.index.len();
        w.index.insert(v, i);
        w.low.insert(v, i);
        w.stack.push(v);
        for next in w.graph.get(v).into_iter().flat_map(|n| n.keys()) {
            if !w.index.contains_key(next.as_str()) {
                visit(w, next);
                let low = w.low[v].min(w.low[next.as_str()]);
                w.low.insert(v, low);
            } else if w.stack.contains(&next.as_str()) {
                let low = w.low[v].min(w.index[next.as_str()]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let at = w.stack.iter().rposition(|s| *s == v).unwrap_or(0);
            let mut set: Vec<String> = w.stack.drain(at..).map(str::to_string).collect();
            set.sort();
            w.found.push(set);
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.found
}
