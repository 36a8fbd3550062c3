//! From where a load's generators run to what starts them.

use super::{Generators, Launcher, LocalLauncher};

/// Generators this process cannot start itself.
#[derive(Debug, thiserror::Error)]
pub enum ChooseError {
    #[error("k8s: a Kubernetes Indexed Job is started by kubectl, not here: `shootout k8s job` prints it")]
    K8s,
    #[error("{0}: SSH generators are not in this build of shootout")]
    Ssh(Generators),
    #[error("local: {0}")]
    Local(std::io::Error),
}

/// What starts the shards of `generators`, or None for the in-process generator.
/// `cpus` are the generator's cores (local shards share them; None: all allowed).
pub fn launcher(
    generators: &Generators,
    cpus: Option<&[usize]>,
) -> Result<Option<Box<dyn Launcher>>, ChooseError> {
    match generators {
        Generators::InProcess => Ok(None),
        Generators::Local(n) => LocalLauncher::new(n.get(), cpus)
            .map(|l| Some(Box::new(l) as Box<dyn Launcher>))
            .map_err(ChooseError::Local),
        Generators::Ssh(_) => Err(ChooseError::Ssh(generators.clone())),
        Generators::K8s => Err(ChooseError::K8s),
    }
}
