//! The wait before a step for the server to drain what the step before it left, as kept
//! with the step.

/// How long a search waited before a step's warm-up for the server to drain, and what
/// said it was still busy. Only a step that had to wait has one.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DrainWait {
    /// Seconds from the end of the step before to this step's warm-up.
    pub waited_s: f64,
    /// What said the server was still busy: its first reading, or its last when the wait
    /// gave up (`a probe took 82.10ms, 5.20ms unloaded`).
    pub busy: String,
    /// The server was still busy at the wait's bound: the step ran anyway.
    pub gave_up: bool,
}

impl DrainWait {
    /// `waited 0.31s for the server to drain (a probe took 82.10ms, 5.20ms unloaded)`,
    /// or `the server had not drained after 10.0s (...): ran anyway`.
    pub fn text(&self) -> String {
        match self.gave_up {
            false => format!(
                "waited {:.2}s for the server to drain ({})",
                self.waited_s, self.busy
            ),
            true => format!(
                "the server had not drained after {:.1}s ({}): ran anyway",
                self.waited_s, self.busy
            ),
        }
    }
}
