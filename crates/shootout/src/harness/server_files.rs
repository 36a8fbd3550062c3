//! Whether a server can hold a load's connections at all: each connection is an open
//! file on the server's side too, so a load beyond the open-file limits of all the
//! server's processes measures the limit, not the server. Sharded generators lift the
//! generator's side of that limit; this is what is left.

use procfs::process::LimitValue;

/// The open files a process group's processes may hold in all: the sum of their hard
/// limits (a server may raise its soft limit to the hard one, as Go and nginx do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileRoom {
    pub processes: usize,
    pub files: u64,
}

impl FileRoom {
    /// The room of process group `pgid`; None when no process of it could be read or
    /// one has no limit.
    pub fn of_group(pgid: u32) -> Option<FileRoom> {
        let mut room = FileRoom {
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
                LimitValue::Value(n) => room.files += n,
                LimitValue::Unlimited => return None,
            }
            room.processes += 1;
        }
        (room.processes > 0).then_some(room)
    }

    /// Why `connections` cannot all be open at the server, or None when they fit.
    pub fn refusal(self, connections: usize) -> Option<String> {
        (connections as u64 > self.files).then(|| {
            format!(
                "the server cannot hold {connections} connections: its {} process(es) may \
                 open {} files in all (their hard open-file limits); raise the limit it \
                 starts with (ulimit -n, LimitNOFILE)",
                self.processes, self.files
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_group_has_room_and_a_bigger_load_is_refused_with_the_number() {
        let pgid = nix::unistd::getpgrp().as_raw() as u32;
        let room = FileRoom::of_group(pgid).expect("this group is readable");
        assert!(room.processes >= 1 && room.files >= 64, "{room:?}");
        assert_eq!(room.refusal(room.files as usize), None);
        let why = room.refusal(room.files as usize + 1).unwrap();
        assert!(
            why.contains(&format!("may open {} files in all", room.files)),
            "{why}"
        );
    }
}
