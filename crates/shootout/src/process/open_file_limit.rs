//! Whether a server can hold a load's connections at all: each connection is an open
//! file on the server's side too, so a load beyond the open-file limits of all the
//! server's processes measures the limit, not the server. Sharded generators lift the
//! generator's side of that limit; this is what is left.

use procfs::process::LimitValue;

/// The open files a process group's processes may hold in all: the sum of their hard
/// limits (a server may raise its soft limit to the hard one, as Go and nginx do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFileLimit {
    pub processes: usize,
    pub files: u64,
}

impl OpenFileLimit {
    /// The limit of process group `pgid`; None when no process of it could be read or
    /// one has no limit.
    pub fn of_group(pgid: u32) -> Option<OpenFileLimit> {
        let mut limit = OpenFileLimit {
            processes: 0,
            files: 0,
        };
        let all = procfs::process::all_processes().ok()?;
        for p in all.flatten() {
            let in_group = p.stat().is_ok_and(|s| u32::try_from(s.pgrp) == Ok(pgid));
            if !in_group {
                continue;
            }
            match p.limits().ok()?.max_open_files.hard_limit {
                LimitValue::Value(n) => limit.files += n,
                LimitValue::Unlimited => return None,
            }
            limit.processes += 1;
        }
        (limit.processes > 0).then_some(limit)
    }

    /// Why `connections` cannot all be open at the server, or None when they fit.
    pub fn refusal(self, connections: usize) -> Option<TooManyConnections> {
        (connections as u64 > self.files).then_some(TooManyConnections {
            connections,
            limit: self,
        })
    }
}

/// A load with more connections than the server's processes may open files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the server cannot hold {connections} connections: its {} process(es) may open {} files \
     in all (their hard open-file limits); raise the limit it starts with (ulimit -n, \
     LimitNOFILE)",
    limit.processes,
    limit.files
)]
pub struct TooManyConnections {
    pub connections: usize,
    pub limit: OpenFileLimit,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_group_has_room_and_a_bigger_load_is_refused_with_the_number() {
        let pgid = nix::unistd::getpgrp().as_raw() as u32;
        let limit = OpenFileLimit::of_group(pgid).expect("this group is readable");
        assert!(limit.processes >= 1 && limit.files >= 64, "{limit:?}");
        assert_eq!(limit.refusal(limit.files as usize), None);
        let why = limit.refusal(limit.files as usize + 1).unwrap().to_string();
        assert!(
            why.contains(&format!("may open {} files in all", limit.files)),
            "{why}"
        );
    }
}
