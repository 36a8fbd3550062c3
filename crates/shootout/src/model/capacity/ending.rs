//! Why a capacity search stopped.

/// Why a search stopped.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "ending", rename_all = "kebab-case")]
pub enum Ending {
    /// It narrowed and confirmed the boundary.
    Found,
    /// The generator missed the schedule at `rate` (the step's reason).
    Generator { rate: f64, reason: String },
    /// Every step met, up to the plan's highest rate.
    Ceiling { rate: f64 },
    /// Every step missed, down to the plan's lowest rate.
    Floor { rate: f64 },
    /// The plan's step budget ran out first.
    OutOfSteps { steps: usize },
    /// Stopped by Ctrl-C (or a step that could not run) before it could say more.
    Interrupted,
}
