//! The settings a benchmark's cluster starts with, each with why; docs/database.md lists
//! them. Given on postgres's command line, so the cluster's own files stay initdb's.

use std::path::Path;

/// One setting: `-c name=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub name: &'static str,
    pub value: String,
    pub why: &'static str,
}

/// Where the cluster listens and how many connections it takes.
#[derive(Debug, Clone, Copy)]
pub struct Listening<'a> {
    pub port: u16,
    pub sockets: &'a Path,
    pub max_connections: u32,
}

/// Every setting shootout gives a cluster.
pub fn settings(at: Listening) -> Vec<Setting> {
    let set = |name, value: String, why| Setting { name, value, why };
    vec![
        set("listen_addresses", "127.0.0.1".into(), "loopback only: the cluster trusts whoever connects"),
        set("port", at.port.to_string(), "a free port, so that clusters never meet"),
        set(
            "unix_socket_directories",
            at.sockets.display().to_string(),
            "the cluster's own folder, not /var/run/postgresql",
        ),
        set(
            "max_connections",
            at.max_connections.to_string(),
            "every contestant's pool, with room for the harness's checks",
        ),
        set("shared_buffers", "256MB".into(), "the tables and their indexes stay in memory (TechEmpower's value)"),
        set(
            "synchronous_commit",
            "off".into(),
            "an update's commit does not wait for its WAL to reach the disk: the updates \
             test measures servers and the database's work, not this VM's disk (TechEmpower's value)",
        ),
        set(
            "shared_preload_libraries",
            "pg_stat_statements".into(),
            "counts the statements each run executed, so a server that answers from a cache is caught",
        ),
        set("pg_stat_statements.track", "all".into(), "statements inside functions count too"),
        set("jit", "off".into(), "one-row queries: compiling them would cost more than running them"),
        set("max_wal_size", "4GB".into(), "no checkpoint forced by WAL volume during a run"),
        set("log_min_messages", "warning".into(), "the log holds what went wrong, not every start-up line"),
    ]
}

/// `settings` as postgres's arguments.
pub fn arguments(settings: &[Setting]) -> Vec<String> {
    let each = settings
        .iter()
        .map(|s| ["-c".to_string(), format!("{}={}", s.name, s.value)]);
    each.flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cluster_listens_on_loopback_at_its_port_and_counts_statements() {
        let sockets = Path::new("/tmp/s");
        let all = settings(Listening {
            port: 5599,
            sockets,
            max_connections: 300,
        });
        let args = arguments(&all);
        for want in [
            "listen_addresses=127.0.0.1",
            "port=5599",
            "unix_socket_directories=/tmp/s",
            "max_connections=300",
            "shared_preload_libraries=pg_stat_statements",
        ] {
            let at = args
                .iter()
                .position(|a| a == want)
                .unwrap_or_else(|| panic!("{want} in {args:?}"));
            assert_eq!(args[at - 1], "-c");
        }
        assert!(
            all.iter().all(|s| !s.why.is_empty()),
            "each setting says why"
        );
    }
}
