//! One connection's database session: a synchronous PostgreSQL client (the `postgres`
//! crate: the server's threads block anyway) with its statements prepared once.

use postgres::{Client, NoTls, Statement};

/// The variable that names the database, as the harness gives it to a contestant.
const URL_ENV: &str = "DATABASE_URL";
/// World's ids run from 1 to this (TechEmpower's table).
const WORLD_ROWS: i32 = 10_000;

/// A World row: id and randomNumber.
pub(crate) type Row = (i32, i32);

pub(crate) struct Session {
    client: Client,
    select: Statement,
    update: Statement,
    rng: fastrand::Rng,
    /// Under `CachedDb`: the whole of World, read once.
    cache: Option<Vec<Row>>,
}

impl Session {
    /// Connects to `DATABASE_URL`.
    pub(crate) fn open() -> Result<Session, postgres::Error> {
        let url = std::env::var(URL_ENV).unwrap_or_default();
        let mut client = Client::connect(&url, NoTls)?;
        let select = client.prepare("SELECT id, randomnumber FROM world WHERE id = $1")?;
        let update = client.prepare("UPDATE world SET randomnumber = $2 WHERE id = $1")?;
        Ok(Session {
            client,
            select,
            update,
            rng: fastrand::Rng::new(),
            cache: None,
        })
    }

    fn id(&mut self) -> i32 {
        self.rng.i32(1..=WORLD_ROWS)
    }

    /// A random row, read.
    pub(crate) fn row(&mut self) -> Result<Row, postgres::Error> {
        let id = self.id();
        let r = self.client.query_one(&self.select, &[&id])?;
        Ok((r.get(0), r.get(1)))
    }

    /// `n` random rows, each read by its own SELECT.
    pub(crate) fn rows(&mut self, n: usize) -> Result<Vec<Row>, postgres::Error> {
        (0..n).map(|_| self.row()).collect()
    }

    /// A random row of World as first read on this connection: the cheat.
    pub(crate) fn cached_row(&mut self) -> Result<Row, postgres::Error> {
        if self.cache.is_none() {
            let all = self
                .client
                .query("SELECT id, randomnumber FROM world", &[])?;
            self.cache = Some(all.iter().map(|r| (r.get(0), r.get(1))).collect());
        }
        let cache = self.cache.as_deref().unwrap_or_default();
        let at = self.rng.usize(..cache.len().max(1));
        Ok(cache.get(at).copied().unwrap_or((1, 1)))
    }

    /// `n` random rows read, given new numbers, and the first `written` of them written
    /// back (all, honestly); the rows with their new numbers.
    pub(crate) fn updates(
        &mut self,
        n: usize,
        written: usize,
    ) -> Result<Vec<Row>, postgres::Error> {
        let mut rows = self.rows(n)?;
        for (i, (id, number)) in rows.iter_mut().enumerate() {
            *number = self.rng.i32(1..=WORLD_ROWS);
            if i < written {
                self.client.execute(&self.update, &[&*id, &*number])?;
            }
        }
        Ok(rows)
    }

    /// Every row of Fortune, as stored.
    pub(crate) fn fortunes(&mut self) -> Result<Vec<(i32, String)>, postgres::Error> {
        let all = self.client.query("SELECT id, message FROM fortune", &[])?;
        Ok(all.iter().map(|r| (r.get(0), r.get(1))).collect())
    }
}
