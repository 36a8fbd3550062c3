//! How an experiment ended: recorded by `shootout run` when it finishes, or, when nothing
//! was recorded, derived from whether a harness is still running it.

/// An end `shootout run` records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every run of the matrix ran.
    Complete,
    /// Stopped by Ctrl-C (or TERM, HUP): what ran is kept.
    Interrupted,
}

impl Ending {
    /// The word in the store (and in `shootout results` and exports).
    pub fn word(self) -> &'static str {
        match self {
            Ending::Complete => "complete",
            Ending::Interrupted => "interrupted",
        }
    }
}

/// What the store knows of an experiment's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// None recorded: it is still running, or its harness died.
    Open,
    /// Recorded when it finished.
    Recorded {
        ending: Ending,
        finished_unix_ms: i64,
    },
    /// Stored by a shootout that did not record ends yet.
    Unrecorded,
}

/// An experiment's status, as `shootout results` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Running,
    Complete,
    Interrupted,
    /// Its harness was killed before it finished: no end, and no harness runs it.
    Died,
    /// Stored before ends were recorded.
    Unknown,
}

impl End {
    /// The status, given whether a live harness is running the experiment now.
    pub fn status(self, running: bool) -> Status {
        match self {
            End::Open if running => Status::Running,
            End::Open => Status::Died,
            End::Recorded {
                ending: Ending::Complete,
                ..
            } => Status::Complete,
            End::Recorded {
                ending: Ending::Interrupted,
                ..
            } => Status::Interrupted,
            End::Unrecorded => Status::Unknown,
        }
    }

    /// When it finished, if that was recorded.
    pub fn finished_unix_ms(self) -> Option<i64> {
        match self {
            End::Recorded {
                finished_unix_ms, ..
            } => Some(finished_unix_ms),
            _ => None,
        }
    }

    /// Decodes the store's `status` column (`unknown` marks rows older than it).
    pub(super) fn decode(status: Option<&str>, finished_unix_ms: Option<i64>) -> Option<End> {
        let ending = match status {
            None => return Some(End::Open),
            Some("unknown") => return Some(End::Unrecorded),
            Some("complete") => Ending::Complete,
            Some("interrupted") => Ending::Interrupted,
            Some(_) => return None,
        };
        Some(End::Recorded {
            ending,
            finished_unix_ms: finished_unix_ms.unwrap_or(0),
        })
    }
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Complete => "complete",
            Status::Interrupted => "interrupted",
            Status::Died => "died",
            Status::Unknown => "unknown",
        }
    }
}
