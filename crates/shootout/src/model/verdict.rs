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
    /// The database's cores were saturated, by its own work more than by what shares
    /// them: the run measured what the database lets the server do.
    Database,
}

impl Bottleneck {
    /// Every bottleneck, in the order the report explains them.
    pub const ALL: [Bottleneck; 5] = [
        Bottleneck::Server,
        Bottleneck::Generator,
        Bottleneck::Both,
        Bottleneck::Neither,
        Bottleneck::Database,
    ];

    /// The word stored and shown.
    pub fn word(self) -> &'static str {
        match self {
            Bottleneck::Server => "server",
            Bottleneck::Generator => "generator",
            Bottleneck::Both => "both",
            Bottleneck::Neither => "neither",
            Bottleneck::Database => "database",
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
            Bottleneck::Database => {
                "the database's cores were saturated, by its own work: what the database lets the server do"
            }
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
    /// Busy share of the database's cores, when the run had a database.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database_busy: Option<f64>,
    /// Each side's CPU over the same window, when the run had a database (the three-sided
    /// split of its CPU per response).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<CpuSplit>,
}

/// The CPU seconds of each side of a run over its measured window, and the cores' busy
/// time over it: what each response cost the server, the database and the generator.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CpuSplit {
    /// The window's length, seconds.
    pub wall_s: f64,
    pub server_s: f64,
    pub database_s: f64,
    pub generator_s: f64,
    /// Every core's busy time over the window (task and interrupt work), seconds: the
    /// three sides and foreign work add up to it within the monitor's error.
    pub cores_busy_s: f64,
    /// How many cores the database may run on.
    pub database_cores: usize,
}

impl CpuSplit {
    /// The database's CPU as a share of its cores' time.
    pub fn database_share(&self) -> f64 {
        self.database_s / (self.wall_s * self.database_cores.max(1) as f64).max(1e-9)
    }
}

impl Verdict {
    /// What bound the run, in words (`database-bound: postgres 96% of its core`), for a
    /// run with a database; None without one.
    pub fn bound_line(&self) -> Option<String> {
        let split = self.split?;
        let cores = match split.database_cores {
            1 => "its core".to_string(),
            n => format!("its {n} cores"),
        };
        let postgres = format!("postgres {:.0}% of {cores}", split.database_share() * 100.0);
        Some(match self.bottleneck {
            Bottleneck::Database => format!("database-bound: {postgres}"),
            Bottleneck::Neither => format!("no side saturated; {postgres}"),
            b => format!("{}-bound; {postgres}", b.word()),
        })
    }
}
