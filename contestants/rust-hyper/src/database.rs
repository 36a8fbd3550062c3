//! TechEmpower's database endpoints (shootout's docs/database.md) on tokio-postgres, through
//! a deadpool-postgres pool of DATABASE_POOL connections: /db, /queries?q=N (the N reads
//! pipelined on one connection), /fortunes, /updates?q=N (the N reads pipelined, then one
//! UPDATE of every row by arrays).

use std::fmt::Write;
use std::str::FromStr;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures_util::future::try_join_all;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use serde::Serialize;
use tokio_postgres::NoTls;

use crate::workloads::param;
use crate::{full, Body};

const READ_ROW: &str = "SELECT randomnumber FROM world WHERE id = $1";
const WRITE_ROWS: &str = "UPDATE world SET randomnumber = new.rn \
     FROM unnest($1::int[], $2::int[]) AS new(id, rn) WHERE world.id = new.id";
const FORTUNES: &str = "SELECT id, message FROM fortune";

/// The rows of World, and the most that `q` asks for.
const ROWS: i32 = 10_000;
const MOST_ASKED: i64 = 500;

#[derive(Serialize)]
struct World {
    id: i32,
    #[serde(rename = "randomNumber")]
    random_number: i32,
}

pub struct Database {
    pool: Pool,
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

impl Database {
    /// The pool to DATABASE_URL, of DATABASE_POOL connections (16 without it); None
    /// without DATABASE_URL. Connections are opened as requests need them.
    pub async fn from_env() -> Option<Database> {
        let url = std::env::var("DATABASE_URL").ok()?;
        let config = tokio_postgres::Config::from_str(&url)
            .unwrap_or_else(|e| panic!("DATABASE_URL {url}: {e}"));
        let size = std::env::var("DATABASE_POOL")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(16);
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(size)
            .build()
            .expect("a pool of DATABASE_POOL connections");
        Some(Database { pool })
    }

    /// The answer to one of the database endpoints; a 500 that says why when the database
    /// failed.
    pub async fn answer(&self, req: &Request<Incoming>) -> Response<Body> {
        let asked = rows_asked(req.uri().query().unwrap_or(""));
        let answer = match req.uri().path() {
            "/db" => self.db().await,
            "/queries" => self.queries(asked).await,
            "/updates" => self.updates(asked).await,
            _ => self.fortunes().await,
        };
        answer.unwrap_or_else(|e| {
            full(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                e.to_string(),
            )
        })
    }

    async fn db(&self) -> Result<Response<Body>, Failure> {
        let client = self.pool.get().await?;
        let read = client.prepare_cached(READ_ROW).await?;
        let id = random_id();
        let row = client.query_one(&read, &[&id]).await?;
        let world = World {
            id,
            random_number: row.get(0),
        };
        json(&world)
    }

    async fn queries(&self, n: usize) -> Result<Response<Body>, Failure> {
        json(&self.read(n).await?)
    }

    async fn updates(&self, n: usize) -> Result<Response<Body>, Failure> {
        let mut worlds = self.read(n).await?;
        for w in &mut worlds {
            w.random_number = random_id();
        }
        // In id order, so that two updates lock their common rows in one order.
        worlds.sort_by_key(|w| w.id);
        let ids: Vec<i32> = worlds.iter().map(|w| w.id).collect();
        let numbers: Vec<i32> = worlds.iter().map(|w| w.random_number).collect();
        let client = self.pool.get().await?;
        let write = client.prepare_cached(WRITE_ROWS).await?;
        client.execute(&write, &[&ids, &numbers]).await?;
        json(&worlds)
    }

    /// `n` random rows, one SELECT each, sent together on one connection (tokio-postgres
    /// pipelines the queries of one client).
    async fn read(&self, n: usize) -> Result<Vec<World>, Failure> {
        let client = self.pool.get().await?;
        let read = client.prepare_cached(READ_ROW).await?;
        let reads = (0..n).map(|_| {
            let (client, read) = (&client, &read);
            async move {
                let id = random_id();
                let row = client.query_one(read, &[&id]).await?;
                Ok::<_, tokio_postgres::Error>(World {
                    id,
                    random_number: row.get(0),
                })
            }
        });
        Ok(try_join_all(reads).await?)
    }

    async fn fortunes(&self) -> Result<Response<Body>, Failure> {
        let client = self.pool.get().await?;
        let statement = client.prepare_cached(FORTUNES).await?;
        let mut fortunes: Vec<(i32, String)> = (client.query(&statement, &[]).await?)
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        fortunes.push((0, "Additional fortune added at request time.".to_string()));
        fortunes.sort_by(|a, b| a.1.cmp(&b.1));
        let mut page = String::from(
            "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>\
             <tr><th>id</th><th>message</th></tr>",
        );
        for (id, message) in &fortunes {
            let message = html_escape::encode_text(message);
            write!(page, "<tr><td>{id}</td><td>{message}</td></tr>")?;
        }
        page.push_str("</table></body></html>");
        Ok(full(StatusCode::OK, "text/html; charset=utf-8", page))
    }
}

fn json<T: Serialize>(value: &T) -> Result<Response<Body>, Failure> {
    Ok(full(
        StatusCode::OK,
        "application/json",
        serde_json::to_vec(value)?,
    ))
}

fn random_id() -> i32 {
    fastrand::i32(1..=ROWS)
}

/// `q` by TechEmpower's rule: missing, not a number or below 1 is 1; above 500 is 500.
fn rows_asked(query: &str) -> usize {
    let q = param(query, "q").and_then(|q| q.parse::<i64>().ok());
    q.unwrap_or(1).clamp(1, MOST_ASKED) as usize
}
