//! From where a load's generators run to what starts them.

use super::ssh::{SshClient, SshError, SshLauncher, SshSettings};
use super::{Generators, Launcher, LocalLauncher};

/// Generators this process cannot start, or hosts that failed their checks.
#[derive(Debug, thiserror::Error)]
pub enum ChooseError {
    #[error("k8s: a Kubernetes Indexed Job is started by kubectl, not here: `shootout k8s job` prints it")]
    K8s,
    #[error("local: {0}")]
    Local(std::io::Error),
    #[error(transparent)]
    Ssh(#[from] SshError),
    #[error("--push: this binary's path: {0}")]
    ThisBinary(std::io::Error),
}

/// What starts the shards of `generators`, or None for the in-process generator.
/// `cpus` are the generator's cores (local shards share them; None: all allowed);
/// `push` copies this binary to SSH hosts before their checks.
pub fn launcher(
    generators: &Generators,
    cpus: Option<&[usize]>,
    push: bool,
) -> Result<Option<Box<dyn Launcher>>, ChooseError> {
    let boxed = |l: Box<dyn Launcher>| Some(l);
    match generators {
        Generators::InProcess => Ok(None),
        Generators::Local(n) => LocalLauncher::new(n.get(), cpus)
            .map(|l| boxed(Box::new(l)))
            .map_err(ChooseError::Local),
        Generators::Ssh(hosts) => {
            let push = match push {
                true => Some(std::env::current_exe().map_err(ChooseError::ThisBinary)?),
                false => None,
            };
            let settings = SshSettings {
                client: SshClient::from_env()?,
                push,
            };
            Ok(boxed(Box::new(SshLauncher::connect(hosts, &settings)?)))
        }
        Generators::K8s => Err(ChooseError::K8s),
    }
}
