//! The open-file limit: raised to the hard limit, and checked against the load before it starts.

use nix::sys::resource::{getrlimit, setrlimit, Resource};

/// File descriptors a loop needs besides its connections (epoll or ring, spare).
const FDS_PER_LOOP: u64 = 4;
/// File descriptors the process needs besides the loops (stdio, runtime, slack).
const FDS_BASE: u64 = 32;

/// Raises the soft open-file limit to the hard limit; returns the limit now in force.
pub fn raise_nofile() -> std::io::Result<u64> {
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE)?;
    if soft >= hard {
        return Ok(soft);
    }
    setrlimit(Resource::RLIMIT_NOFILE, hard, hard)?;
    Ok(hard)
}

/// The most connections that fit in `limit` open files with `threads` loops.
pub fn connections_that_fit(limit: u64, threads: usize) -> u64 {
    limit.saturating_sub(FDS_BASE + FDS_PER_LOOP * threads as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raising_keeps_a_limit_at_least_as_high() {
        let limit = raise_nofile().unwrap();
        assert!(limit >= 64);
        assert!(connections_that_fit(limit, 2) < limit);
        assert_eq!(connections_that_fit(10, 2), 0);
    }
}
