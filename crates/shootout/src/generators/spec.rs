//! `--generators` and an experiment's `generators` field, parsed once into a type.

use std::fmt;
use std::num::NonZeroUsize;
use std::str::FromStr;

/// Where a load's generators run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Generators {
    /// The harness's own process (one event loop per generator core).
    #[default]
    InProcess,
    /// `local:N`: N `shootout load` processes on this machine, each pinned to its share
    /// of the generator cores and each within the open-file limit.
    Local(NonZeroUsize),
    /// `ssh:user@host[:port],...`: one shard per host, through the system's OpenSSH
    /// client.
    Ssh(Vec<SshHost>),
    /// `k8s`: shards as a Kubernetes Indexed Job, which `shootout k8s job` prints; the
    /// harness cannot start it itself.
    K8s,
}

/// One SSH destination: `[user@]host[:port]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshHost {
    pub user: Option<String>,
    pub host: String,
    pub port: Option<u16>,
}

/// Why a generators text is not one.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GeneratorsError {
    #[error("{0:?} is not local:N, ssh:user@host[:port],... or k8s")]
    Unknown(String),
    #[error("local:{0}: N must be a whole number from 1")]
    LocalCount(String),
    #[error("ssh:{0}: {1}")]
    SshHost(String, &'static str),
}

impl FromStr for Generators {
    type Err = GeneratorsError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.split_once(':') {
            None if text == "k8s" => Ok(Generators::K8s),
            None if text == "process" => Ok(Generators::InProcess),
            Some(("local", n)) => n
                .parse()
                .map(Generators::Local)
                .map_err(|_| GeneratorsError::LocalCount(n.to_string())),
            Some(("ssh", hosts)) => hosts
                .split(',')
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map(Generators::Ssh),
            _ => Err(GeneratorsError::Unknown(text.to_string())),
        }
    }
}

impl FromStr for SshHost {
    type Err = GeneratorsError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = |why| GeneratorsError::SshHost(text.to_string(), why);
        let (user, rest) = match text.split_once('@') {
            Some(("", _)) => return Err(bad("the user before @ is empty")),
            Some((u, rest)) => (Some(u.to_string()), rest),
            None => (None, text),
        };
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) => (
                h,
                Some(p.parse().map_err(|_| bad("the port is not 1-65535"))?),
            ),
            None => (rest, None),
        };
        if host.is_empty() || port == Some(0) {
            return Err(bad(if host.is_empty() {
                "no host"
            } else {
                "the port is not 1-65535"
            }));
        }
        Ok(SshHost {
            user,
            host: host.to_string(),
            port,
        })
    }
}

impl fmt::Display for SshHost {
    /// As the user wrote it (`user@host:port`), for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(u) = &self.user {
            write!(f, "{u}@")?;
        }
        f.write_str(&self.host)?;
        match self.port {
            Some(p) => write!(f, ":{p}"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Generators {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Generators::InProcess => f.write_str("process"),
            Generators::Local(n) => write!(f, "local:{n}"),
            Generators::Ssh(hosts) => {
                let hosts: Vec<String> = hosts.iter().map(SshHost::to_string).collect();
                write!(f, "ssh:{}", hosts.join(","))
            }
            Generators::K8s => f.write_str("k8s"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_parses_and_prints_back() {
        for text in [
            "process",
            "local:3",
            "ssh:root@198.18.0.2:2222,198.18.0.3",
            "k8s",
        ] {
            let g: Generators = text.parse().unwrap();
            assert_eq!(g.to_string(), text);
        }
        let g: Generators = "ssh:me@a:22".parse().unwrap();
        let want = SshHost {
            user: Some("me".into()),
            host: "a".into(),
            port: Some(22),
        };
        assert_eq!(g, Generators::Ssh(vec![want]));
    }

    #[test]
    fn bad_texts_say_what_is_wrong() {
        let err = |t: &str| t.parse::<Generators>().unwrap_err().to_string();
        assert_eq!(err("local:0"), "local:0: N must be a whole number from 1");
        assert_eq!(err("local:x"), "local:x: N must be a whole number from 1");
        assert!(err("remote:1").contains("is not local:N"));
        assert_eq!(err("ssh:a,@b"), "ssh:@b: the user before @ is empty");
        assert_eq!(err("ssh:a:99999"), "ssh:a:99999: the port is not 1-65535");
        assert_eq!(err("ssh:"), "ssh:: no host");
    }
}
