//! The one word that says what a run tells about the server.

/// What a run says about the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Label {
    Ok,
    /// The generator was saturated while the server had headroom: the numbers describe
    /// the generator, not the server.
    GeneratorBound,
    /// Foreign CPU or the hypervisor's steal passed its threshold during the run.
    Disturbed,
    ServerFailed,
    VerifyFailed,
    Timeout,
    Interrupted,
    /// The generator could not run the load here (open-file limit, configuration): the
    /// server is not to blame.
    LoadRefused,
    /// A shard of the load (`local:N`, `ssh:...` generators) failed, started late or
    /// returned nothing: the reason names the shard and where it ran; nothing was merged.
    GeneratorFailed,
    /// Not run: the contestant is blocked or not set up, or lacks the endpoint.
    Skipped,
}

impl Label {
    /// Every label, in the order tables explain them.
    pub const ALL: [Label; 10] = [
        Label::Ok,
        Label::GeneratorBound,
        Label::Disturbed,
        Label::ServerFailed,
        Label::VerifyFailed,
        Label::Timeout,
        Label::Interrupted,
        Label::LoadRefused,
        Label::GeneratorFailed,
        Label::Skipped,
    ];

    /// The word stored and shown: `ok`, `generator-bound`...
    pub fn word(self) -> &'static str {
        match self {
            Label::Ok => "ok",
            Label::GeneratorBound => "generator-bound",
            Label::Disturbed => "disturbed",
            Label::ServerFailed => "server-failed",
            Label::VerifyFailed => "verify-failed",
            Label::Timeout => "timeout",
            Label::Interrupted => "interrupted",
            Label::LoadRefused => "load-refused",
            Label::GeneratorFailed => "generator-failed",
            Label::Skipped => "skipped",
        }
    }

    /// What the word means, in one line (for the report page).
    pub fn meaning(self) -> &'static str {
        match self {
            Label::Ok => "the run measured the server",
            Label::GeneratorBound => {
                "the generator was saturated while the server had headroom: the numbers describe the generator"
            }
            Label::Disturbed => {
                "foreign CPU or the hypervisor's steal passed its threshold: not valid"
            }
            Label::ServerFailed => "the server did not start, or exited during the load",
            Label::VerifyFailed => "the server failed an HTTP check before its load",
            Label::Timeout => "the server did not listen within the start timeout",
            Label::Interrupted => "stopped by Ctrl-C (or a signal) before or during its load",
            Label::LoadRefused => "the generator could not run this load here (e.g. open files)",
            Label::GeneratorFailed => {
                "a generator shard failed, started late or returned nothing: not merged"
            }
            Label::Skipped => {
                "not run: blocked, not set up, or without the endpoint (or TLS, for a load over TLS)"
            }
        }
    }

    /// The label a stored word names.
    pub fn from_word(word: &str) -> Option<Label> {
        Label::ALL.into_iter().find(|l| l.word() == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_match_serde() {
        for l in Label::ALL {
            assert_eq!(Label::from_word(l.word()), Some(l));
            let json = serde_json::to_string(&l).unwrap();
            assert_eq!(json, format!("\"{}\"", l.word()));
        }
        assert_eq!(Label::from_word("fine"), None);
    }
}
