//! What kind of load a run was, so that nobody has to guess it from the numbers.

/// The load's kind, with the schedule as the experiment wrote it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LoadKind {
    /// A fixed number of connections, each sending as soon as it may (wrk, ab).
    Closed,
    /// An open loop at a rate schedule (wrk2), e.g. `0,20000:60s`.
    Rate { schedule: String },
    /// Devices arriving along stages (the 2019 Stressgrid shape), e.g. `0,15000:60s`.
    Devices { stages: String },
    /// A search of open-loop steps for the highest rate that meets every objective, e.g.
    /// `p99<20ms, errors<0.1%` (the record's `capacity` holds the steps and the answer).
    Capacity { objectives: String },
}

impl LoadKind {
    /// The kind of a load the engine runs, its schedule written as the flags take it.
    pub fn of(pace: &engine::Pace) -> LoadKind {
        match pace {
            engine::Pace::Closed => LoadKind::Closed,
            engine::Pace::Open(schedule) => LoadKind::Rate {
                schedule: schedule.to_string(),
            },
            engine::Pace::Devices(script) => LoadKind::Devices {
                stages: script.count.to_string(),
            },
        }
    }

    /// The word stored in the `load_kind` column.
    pub fn word(&self) -> &'static str {
        match self {
            LoadKind::Closed => "closed",
            LoadKind::Rate { .. } => "rate",
            LoadKind::Devices { .. } => "devices",
            LoadKind::Capacity { .. } => "capacity",
        }
    }

    /// The kind a stored word and schedule name; None for an unknown word.
    pub fn from_stored(word: &str, schedule: Option<String>) -> Option<LoadKind> {
        let schedule = schedule.unwrap_or_default();
        match word {
            "closed" => Some(LoadKind::Closed),
            "rate" => Some(LoadKind::Rate { schedule }),
            "devices" => Some(LoadKind::Devices { stages: schedule }),
            "capacity" => Some(LoadKind::Capacity {
                objectives: schedule,
            }),
            _ => None,
        }
    }

    /// The schedule, stages or objectives, as stored beside the word.
    pub fn schedule(&self) -> Option<&str> {
        match self {
            LoadKind::Closed => None,
            LoadKind::Rate { schedule } => Some(schedule),
            LoadKind::Devices { stages } => Some(stages),
            LoadKind::Capacity { objectives } => Some(objectives),
        }
    }
}
