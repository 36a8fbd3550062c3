//! Flags that users of wrk and ab type by habit, accepted by `shootout load` with what
//! they mean here: both ask for what shootout does anyway.

use clap::Args;

/// wrk's `--latency` and ab's `-k`.
#[derive(Debug, Clone, Args)]
pub struct BorrowedFlags {
    /// Keep connections alive (ab -k). The default here: accepted so that ab's command
    /// lines run unchanged; --no-keepalive is ab without -k
    #[arg(short = 'k', long = "keepalive", conflicts_with = "no_keepalive")]
    keepalive: bool,
    /// Print the latency distribution (wrk --latency). The text summary here always
    /// prints it (50% to 99.9%), and --json has it too: accepted, changes nothing
    #[arg(long)]
    latency: bool,
}
