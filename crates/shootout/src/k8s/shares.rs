//! Every pod must get a part of the load: checked here, where the flags are, rather
//! than found in the last of forty pods.

use engine::{LoadConfig, Pace, Shard, Stop};
use std::num::NonZeroU32;

/// A load too small for its shards.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShareError {
    #[error("{shards} shards of {total} connections: shard {shards}/{shards} would get none (use more -c or fewer --shards)")]
    Connections { shards: u32, total: u64 },
    #[error("{shards} shards of {total} devices at the peak: shard {shards}/{shards} would get none (use fewer --shards)")]
    Devices { shards: u32, total: u64 },
    #[error("{shards} shards of {total} requests: shard {shards}/{shards} would get none (use more -n or fewer --shards)")]
    Requests { shards: u32, total: u64 },
}

/// Checks that the last shard, which gets the smallest part, gets some connections (or
/// devices) and, for a request count, some requests.
pub fn check_shares(load: &LoadConfig, shards: NonZeroU32) -> Result<(), ShareError> {
    let count = shards.get();
    let last = Shard {
        index: u64::from(count) - 1,
        count: u64::from(count),
    };
    let total = match &load.pace {
        Pace::Devices(script) => script.count.peak().floor() as u64,
        _ => load.connections as u64,
    };
    if last.share(total) == 0 {
        return Err(match load.pace {
            Pace::Devices(_) => ShareError::Devices {
                shards: count,
                total,
            },
            _ => ShareError::Connections {
                shards: count,
                total,
            },
        });
    }
    match load.stop {
        Stop::Requests(n) if last.share(n) == 0 => Err(ShareError::Requests {
            shards: count,
            total: n,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Target;

    #[test]
    fn the_last_shard_needs_a_connection_and_a_request() {
        let mut load = LoadConfig::new(Target::parse_unresolved("http://a:80/").unwrap());
        let n = |k| NonZeroU32::new(k).unwrap();
        load.connections = 3;
        assert_eq!(check_shares(&load, n(3)), Ok(()));
        let e = check_shares(&load, n(4)).unwrap_err().to_string();
        assert!(e.starts_with("4 shards of 3 connections: shard 4/4"), "{e}");
        load.stop = Stop::Requests(2);
        let e = check_shares(&load, n(3)).unwrap_err();
        assert_eq!(
            e,
            ShareError::Requests {
                shards: 3,
                total: 2
            }
        );
    }
}
