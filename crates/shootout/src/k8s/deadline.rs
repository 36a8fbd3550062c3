//! How long the Job may live: until every shard's load has surely ended, so that a pod
//! that hangs (a target that never answers, a node lost) does not hold its node forever.

use engine::{LoadConfig, Stop};
use std::time::Duration;

/// Time for what follows a load's end: the last requests' timeout is added apart;
/// this covers writing the result and a slow node.
const AFTER_THE_LOAD: Duration = Duration::from_secs(120);

/// From when the Job is created to when its pods must have ended: the wait for the
/// start, the warm-up, the measured time, one request timeout and a margin. A load of
/// a request count (`-n`) has no known end: no deadline.
pub fn deadline(load: &LoadConfig, start_in: Duration) -> Option<Duration> {
    match load.stop {
        Stop::After(measured) => {
            Some(start_in + load.warmup + measured + load.timeout + AFTER_THE_LOAD)
        }
        Stop::Requests(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Target;

    #[test]
    fn a_timed_load_ends_by_its_deadline_and_a_counted_one_has_none() {
        let mut load = LoadConfig::new(Target::parse_unresolved("http://a:80/").unwrap());
        load.stop = Stop::After(Duration::from_secs(30));
        load.warmup = Duration::from_secs(5);
        let d = deadline(&load, Duration::from_secs(60)).unwrap();
        assert_eq!(d, Duration::from_secs(60 + 5 + 30 + 5 + 120));
        load.stop = Stop::Requests(1000);
        assert_eq!(deadline(&load, Duration::from_secs(60)), None);
    }
}
