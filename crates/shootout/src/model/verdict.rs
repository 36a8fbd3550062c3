//! The verdict on a run, from both sides' CPU: what bound it, and whether it says
//! anything about the server.

/// What limited a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bottleneck {
    /// The server's cores were saturated: the run measured its capacity.
    Server,
    /// The generator was saturated while the server had headroom: nothing about the server.
    Generator,
    /// Both sides saturated: a lower bound of the server's capacity.
    Both,
    /// Neither saturated: bound by concurrency or latency, valid for that load.
    Neither,
}

impl Bottleneck {
    /// Every bottleneck, in the order the report explains them.
    pub const ALL: [Bottleneck; 4] = [
        Bottleneck::Server,
        Bottleneck::Generator,
        Bottleneck::Both,
        Bottleneck::Neither,
    ];

    /// The word stored and shown.
    pub fn word(self) -> &'static str {
        match self {
            Bottleneck::Server => "server",
            Bottleneck::Generator => "generator",
            Bottleneck::Both => "both",
            Bottleneck::Neither => "neither",
        }
    }

    /// The bottleneck a stored word names.
    pub fn from_word(word: &str) -> Option<Bottleneck> {
        Bottleneck::ALL.into_iter().find(|b| b.word() == word)
    }

    /// What the word means, in one line (for the report page).
    pub fn meaning(self) -> &'static str {
        match self {
            Bottleneck::Server => "the server's cores were saturated: its capacity",
            Bottleneck::Generator => {
                "the generator was saturated while the server had headroom: says nothing about the server"
            }
            Bottleneck::Both => "both sides saturated: a lower bound of the server's capacity",
            Bottleneck::Neither => "neither side saturated: bound by concurrency or latency",
        }
    }
}

/// The judgement of one measured run, with the numbers behind it (shares of the
/// measured window, 0..1).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Verdict {
    pub bottleneck: Bottleneck,
    /// Says something about the server: not generator-bound, not disturbed.
    pub valid: bool,
    /// Why not valid, when disturbed: foreign CPU or steal past its threshold.
    pub disturbed: Option<String>,
    /// Busy share (task and interrupt work) of the server's cores.
    pub server_busy: f64,
    /// Busy share of the generator's cores.
    pub generator_busy: f64,
    /// Core time neither side's processes explain, over all cores.
    pub foreign: f64,
    /// Core time stolen by the hypervisor, over all cores.
    pub steal: f64,
    /// Why the server's CPU and memory could not be told apart from the machine's other
    /// work (a running server given without its process, or whose process exited): its
    /// CPU columns are unknown and foreign CPU was not judged. None when they were known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unattributed: Option<String>,
}
