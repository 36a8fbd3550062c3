//! One side of `shootout compare`: a stored experiment (its newest by name), one stored run
//! (`run:ID`), a saved load (its label, or `load:ID`), or a JSON file from `load --json`
//! or `--out`. Two experiments compare cell by cell; two single loads (saved loads,
//! files, runs) compare with each other as one cell, whatever their names.

pub mod reference;
pub mod single;

pub use reference::{Reference, ReferenceError};
pub use single::Single;

use crate::model::RunId;
use crate::report::document::{Document, DocumentError};
use crate::store::{Named, Store, StoreError};
use std::path::PathBuf;

/// Why a side names nothing that can be compared.
#[derive(Debug, thiserror::Error)]
pub enum SideError {
    #[error(transparent)]
    Reference(#[from] ReferenceError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Document(#[from] DocumentError),
    #[error("{}: {why}", path.display())]
    File { path: PathBuf, why: String },
    #[error("{id} measured nothing ({label}): there is no load to compare")]
    NothingMeasured { id: RunId, label: &'static str },
    #[error(
        "{text:?} is none of: an experiment (id or name), a saved load (label or load:ID), \
         a run (run:ID), a JSON file from load --json or --out{} (see shootout results)",
        no_such_file(*.looked_like_file)
    )]
    Nothing {
        text: String,
        looked_like_file: bool,
    },
}

/// Said after "a JSON file" when the word looked like one.
fn no_such_file(looked_like_file: bool) -> &'static str {
    match looked_like_file {
        true => " (no such file)",
        false => "",
    }
}

/// What one side names.
pub enum Side {
    /// A stored experiment, compared cell by cell.
    Experiment(Document),
    /// One stored run: a cell of its experiment against an experiment, a single load
    /// against another.
    Run {
        id: RunId,
        document: Document,
    },
    SavedLoad(Single),
    File(Single),
}

impl Side {
    /// The side `reference` names in `store` (or on disk).
    pub fn find(store: &Store, reference: Reference) -> Result<Side, SideError> {
        match reference {
            Reference::Run(id) => Ok(Side::Run {
                id,
                document: Document::of_run(store, id)?,
            }),
            Reference::SavedLoad(id) => Ok(Side::SavedLoad(Single::saved(store.saved_load(id)?))),
            Reference::File(path) => Ok(Side::File(Single::file(&path)?)),
            Reference::Word {
                text,
                looked_like_file,
            } => match store.named(&text)? {
                Some(Named::Experiment(e)) => Ok(Side::Experiment(Document::of(store, e)?)),
                Some(Named::SavedLoad(row)) => {
                    Ok(Side::SavedLoad(Single::saved(store.saved_load(row.id)?)))
                }
                None => Err(SideError::Nothing {
                    text,
                    looked_like_file,
                }),
            },
        }
    }

    /// `experiment`, `run`, `saved-load` or `file`.
    pub fn kind(&self) -> &'static str {
        match self {
            Side::Experiment(_) => "experiment",
            Side::Run { .. } => "run",
            Side::SavedLoad(_) => "saved-load",
            Side::File(_) => "file",
        }
    }

    /// One line: what the side is.
    pub fn title(&self) -> String {
        match self {
            Side::Experiment(d) => d.header().swap_remove(0),
            Side::Run { id, document } => match self.single() {
                Ok(Some(single)) => single.title,
                _ => format!("{id} of {}", document.header().swap_remove(0)),
            },
            Side::SavedLoad(s) | Side::File(s) => s.title.clone(),
        }
    }

    /// The stored runs to compare cell by cell: an experiment's, or one run's.
    pub fn document(&self) -> Option<&Document> {
        match self {
            Side::Experiment(d) | Side::Run { document: d, .. } => Some(d),
            Side::SavedLoad(_) | Side::File(_) => None,
        }
    }

    /// The side as one load: a saved load, a file, or a run (an error when the run
    /// measured nothing); None for an experiment.
    pub fn single(&self) -> Result<Option<Single>, SideError> {
        match self {
            Side::Experiment(_) => Ok(None),
            Side::Run { id, document } => match document.runs.first() {
                Some(run) => Single::run(*id, run, &document.experiment).map(Some),
                None => Ok(None),
            },
            Side::SavedLoad(s) | Side::File(s) => Ok(Some(s.clone())),
        }
    }
}
