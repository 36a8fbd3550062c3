//! The endpoints built in, by name: `hello` and `app`, which every catalog contestant
//! serves, and the workloads a contestant names in its manifest (`baseline`, `json`,
//! `upload`, `static`: docs/workloads.md), and TechEmpower's database tests, served with
//! the database the harness starts (`db`, `queries`, `fortunes`, `updates`:
//! docs/database.md), and a contestant's WebSocket echo (`websocket`: its manifest's
//! `[websocket]`, loaded by WebSocket loads: docs/websocket.md). What each sends and
//! expects is builtin_endpoint.rs.

/// The built-in endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `GET /hello`: 200 with the 11 bytes `Hello World`.
    Hello,
    /// `GET /app`: 200 with 1,024 bytes after about 100 ms.
    App,
    /// `GET /baseline?a=A&b=B`, or `POST /baseline` with `a=A&b=B` as its body: the sum.
    Baseline,
    /// `GET /json/{count}?m=M`: the dataset's first `count` items, each with its total.
    Json,
    /// `POST /upload`: the number of body bytes read.
    Upload,
    /// `GET /static/NAME`: a file of the corpus, precompressed as the client accepts.
    Static,
    /// `GET /db`: one random World row as JSON.
    Db,
    /// `GET /queries?q=N`: N random World rows.
    Queries,
    /// `GET /fortunes`: the Fortune table and one added row as an HTML table.
    Fortunes,
    /// `GET /updates?q=N`: N random World rows, read and written back with new numbers.
    Updates,
    /// The WebSocket echo at the contestant's `[websocket]` path: each message sent comes
    /// back the same.
    WebSocket,
}

impl Builtin {
    pub const ALL: [Builtin; 11] = [
        Builtin::Hello,
        Builtin::App,
        Builtin::Baseline,
        Builtin::Json,
        Builtin::Upload,
        Builtin::Static,
        Builtin::Db,
        Builtin::Queries,
        Builtin::Fortunes,
        Builtin::Updates,
        Builtin::WebSocket,
    ];

    /// Its name, in manifests, experiments and verify's lines.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Hello => "hello",
            Builtin::App => "app",
            Builtin::Baseline => "baseline",
            Builtin::Json => "json",
            Builtin::Upload => "upload",
            Builtin::Static => "static",
            Builtin::Db => "db",
            Builtin::Queries => "queries",
            Builtin::Fortunes => "fortunes",
            Builtin::Updates => "updates",
            Builtin::WebSocket => "websocket",
        }
    }

    /// The built-in endpoint called `name`.
    pub fn named(name: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.name() == name)
    }

    /// A workload (issue 34): checked by its own strict check in verify.
    pub fn is_workload(self) -> bool {
        !matches!(self, Builtin::Hello | Builtin::App | Builtin::WebSocket)
            && !self.needs_database()
    }

    /// An endpoint that asks for a number of rows (`queries:N`, `updates:N`).
    pub fn takes_rows(self) -> bool {
        matches!(self, Builtin::Queries | Builtin::Updates)
    }

    /// A database endpoint (issue 35): its answers come from the database the harness
    /// owns, and verify checks them against it.
    pub fn needs_database(self) -> bool {
        matches!(
            self,
            Builtin::Db | Builtin::Queries | Builtin::Fortunes | Builtin::Updates
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_found_by_its_name() {
        for b in Builtin::ALL {
            assert_eq!(Builtin::named(b.name()), Some(b));
        }
        assert_eq!(Builtin::named("greet"), None);
    }
}
