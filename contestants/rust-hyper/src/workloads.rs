//! The workload endpoints (shootout's docs/workloads.md): /baseline sums the query's and
//! the form body's numbers, /json/N prices the dataset's first N items by serde_json,
//! /upload counts the body's bytes frame by frame (never holding it whole), /static/NAME
//! is tower-http's ServeDir over the corpus, serving the `.br` or `.gz` sibling a client
//! accepts.

use std::path::PathBuf;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode, Uri};
use serde::{Deserialize, Serialize};
use tower_http::services::ServeDir;

use crate::{full, Body};

/// One item of `items.json`.
#[derive(Deserialize)]
struct Item {
    id: u32,
    name: String,
    price: f64,
    quantity: u32,
}

/// An item as /json answers it: priced by `m`.
#[derive(Serialize)]
struct Priced<'a> {
    id: u32,
    name: &'a str,
    price: f64,
    quantity: u32,
    total: f64,
}

#[derive(Serialize)]
struct Page<'a> {
    count: usize,
    items: Vec<Priced<'a>>,
}

/// The data of the workloads, read at start from the folder `--workloads` names.
pub struct Workloads {
    items: Vec<Item>,
    files: Option<ServeDir>,
}

impl Workloads {
    /// The dataset and the corpus of `dir`; none without one (the endpoints then 404).
    pub fn load(dir: Option<PathBuf>) -> Workloads {
        let Some(dir) = dir else {
            return Workloads {
                items: Vec::new(),
                files: None,
            };
        };
        let path = dir.join("items.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("--workloads: {}: {e}", path.display()));
        let items = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("--workloads: {}: {e}", path.display()));
        let files = ServeDir::new(dir.join("static"))
            .precompressed_br()
            .precompressed_gzip();
        Workloads {
            items,
            files: Some(files),
        }
    }

    /// `GET /json/{count}?m=M`: the first `count` items, each with `total = price *
    /// quantity * m`.
    pub fn json(&self, req: &Request<Incoming>) -> Response<Body> {
        let count = req.uri().path()["/json/".len()..].parse::<usize>();
        let Ok(count) = count else {
            return full(StatusCode::NOT_FOUND, "text/plain", "Not Found");
        };
        let m = param(req.uri().query().unwrap_or(""), "m")
            .and_then(|m| m.parse::<f64>().ok())
            .unwrap_or(1.0);
        let items = (self.items.iter().take(count))
            .map(|i| Priced {
                id: i.id,
                name: &i.name,
                price: i.price,
                quantity: i.quantity,
                total: i.price * f64::from(i.quantity) * m,
            })
            .collect::<Vec<_>>();
        let page = Page {
            count: items.len(),
            items,
        };
        match serde_json::to_vec(&page) {
            Ok(body) => full(StatusCode::OK, "application/json", body),
            Err(e) => full(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                e.to_string(),
            ),
        }
    }

    /// `GET /static/NAME` by ServeDir, the prefix taken off the path.
    pub async fn file(&self, req: Request<Incoming>) -> Response<Body> {
        let Some(files) = &self.files else {
            return full(StatusCode::NOT_FOUND, "text/plain", "Not Found");
        };
        let (mut parts, body) = req.into_parts();
        let rest = &parts.uri.path()["/static".len()..];
        let Ok(uri) = Uri::try_from(rest) else {
            return full(StatusCode::NOT_FOUND, "text/plain", "Not Found");
        };
        parts.uri = uri;
        match files
            .clone()
            .try_call(Request::from_parts(parts, body))
            .await
        {
            Ok(res) => res.map(|b| b.boxed_unsync()),
            Err(e) => full(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                e.to_string(),
            ),
        }
    }
}

/// `GET /baseline?a=A&b=B` or `POST /baseline` with the form in its body: the sum.
pub async fn baseline(req: Request<Incoming>) -> Response<Body> {
    let mut total = sum(req.uri().query().unwrap_or(""));
    match req.into_body().collect().await {
        Ok(body) => total += sum(&String::from_utf8_lossy(&body.to_bytes())),
        Err(e) => return full(StatusCode::BAD_REQUEST, "text/plain", e.to_string()),
    }
    full(StatusCode::OK, "text/plain", total.to_string())
}

/// `POST /upload`: the number of body bytes read.
pub async fn upload(req: Request<Incoming>) -> Response<Body> {
    let mut body = req.into_body();
    let mut read: u64 = 0;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => read += frame.data_ref().map_or(0, Bytes::len) as u64,
            Err(e) => return full(StatusCode::BAD_REQUEST, "text/plain", e.to_string()),
        }
    }
    full(StatusCode::OK, "text/plain", read.to_string())
}

/// The sum of a form's values that are whole numbers.
fn sum(form: &str) -> i64 {
    (form.split('&'))
        .filter_map(|pair| pair.split_once('=')?.1.trim().parse::<i64>().ok())
        .fold(0, i64::saturating_add)
}

/// The value of `name` in the query `query`.
pub fn param<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    (query.split('&')).find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}
