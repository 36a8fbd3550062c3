//! What a word names in the store: an experiment (by id, or by name: its newest) or a
//! saved load (by label: its newest). Both may share a word; then it names neither.

use super::{ExperimentRow, SavedLoadRow, Store, StoreError};

/// A stored thing a word names.
#[derive(Debug, Clone)]
pub enum Named {
    Experiment(ExperimentRow),
    SavedLoad(SavedLoadRow),
}

impl Store {
    /// What `word` names, None when nothing; an error when it names both an experiment
    /// and a saved load.
    pub fn named(&self, word: &str) -> Result<Option<Named>, StoreError> {
        let experiment = match self.find(word) {
            Ok(e) => Some(e),
            Err(StoreError::NoExperiment(_)) => None,
            Err(e) => return Err(e),
        };
        match (experiment, self.newest_saved_load(word)?) {
            (Some(e), Some(l)) => Err(StoreError::Ambiguous {
                word: word.to_string(),
                experiment: e.id,
                load: l.id,
            }),
            (Some(e), None) => Ok(Some(Named::Experiment(e))),
            (None, Some(l)) => Ok(Some(Named::SavedLoad(l))),
            (None, None) => Ok(None),
        }
    }
}
