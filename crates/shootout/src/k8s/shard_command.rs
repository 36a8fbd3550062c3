//! What each pod runs: `shootout load --spec env:SHOOTOUT_SPEC --shard I/N --start-at T
//! --json`, the load's spec in the pod's environment and I from its completion index. The index is 0-based and shards are numbered
//! from 1, so a shell adds one: the image has `/bin/sh` (deploy/Containerfile).

use std::num::NonZeroU32;

/// The variable that holds the pod's completion index (0 to N-1). The Job controller
/// sets it; the manifest also sets it from the pod's annotation, as Kubernetes documents,
/// so that the pod's command reads as a whole in the manifest.
pub const INDEX_VAR: &str = "JOB_COMPLETION_INDEX";

/// The variable that holds the load's spec, as JSON (`engine::LoadSpec`): the Job's own
/// manifest carries it, so that the load travels whole, a binary body included.
pub const SPEC_VAR: &str = "SHOOTOUT_SPEC";

/// The shell that turns the index into `--shard`.
pub const SHELL: &str = "/bin/sh";

/// Where the kubelet reads a container's termination message. shootout's stderr goes
/// there so that the pod's log (stdout) is exactly the JSON result `shootout merge` reads,
/// while an error still shows in the pod's status (the kubelet keeps its first 4 KiB).
pub const STDERR_PATH: &str = "/dev/termination-log";

/// The script `/bin/sh -c` runs: exec, so that shootout is the container's process (it
/// gets the kubelet's SIGTERM and reports what it measured) and its exit status the pod's.
pub fn shard_script(shards: NonZeroU32, start_at_unix_ms: u64) -> String {
    format!(
        "exec shootout load --spec env:{SPEC_VAR} --shard \"$(({INDEX_VAR} + 1))/{shards}\" \
         --start-at {start_at_unix_ms} --json 2>{STDERR_PATH}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_numbers_shards_from_one() {
        let s = shard_script(NonZeroU32::new(3).unwrap(), 1_900_000_000_000);
        assert!(
            s.contains("--shard \"$((JOB_COMPLETION_INDEX + 1))/3\""),
            "{s}"
        );
        assert!(s.contains("--start-at 1900000000000 --json"), "{s}");
        assert!(
            s.starts_with("exec shootout load --spec env:SHOOTOUT_SPEC "),
            "{s}"
        );
    }
}
