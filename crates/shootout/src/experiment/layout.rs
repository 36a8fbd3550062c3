//! Layouts: which CPUs the server and the generator run on.

/// A layout that does not fit this machine.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    #[error("split needs at least 2 cores")]
    SplitNeedsTwoCores,
    #[error("layout {name:?}: split, shared or server:N with 1 <= N <= {cores}")]
    Unknown { name: String, cores: usize },
}

/// Where the processes of a run go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub name: String,
    /// CPUs the server is pinned to (None: not pinned).
    pub server: Option<Vec<usize>>,
    /// CPUs the generator is pinned to (None: not pinned).
    pub generator: Option<Vec<usize>>,
}

impl Layout {
    /// `split` (server on the last core, generator on the others), `server:N` (the server
    /// gets N cores, the generator the rest, or shares them when none are left), `shared`.
    pub fn parse(text: &str) -> Result<Layout, LayoutError> {
        let cores = engine::allowed_cpus();
        let all: Vec<usize> = (0..cores).collect();
        let (server, generator) = match text {
            "shared" => (None, None),
            "split" if cores >= 2 => (Some(vec![cores - 1]), Some(all[..cores - 1].to_vec())),
            "split" => return Err(LayoutError::SplitNeedsTwoCores),
            _ => {
                let n: usize = text
                    .strip_prefix("server:")
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n >= 1 && n <= cores)
                    .ok_or_else(|| LayoutError::Unknown {
                        name: text.to_string(),
                        cores,
                    })?;
                let server = all[cores - n..].to_vec();
                let generator = (n < cores).then(|| all[..cores - n].to_vec());
                (Some(server), generator)
            }
        };
        Ok(Layout {
            name: text.to_string(),
            server,
            generator,
        })
    }

    /// The server's parallelism: its cores, or all cores when unpinned.
    pub fn server_threads(&self) -> usize {
        self.server
            .as_ref()
            .map_or(engine::allowed_cpus(), Vec::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_split_the_cores() {
        let cores = engine::allowed_cpus();
        assert_eq!(Layout::parse("shared").unwrap().server, None);
        let s = Layout::parse(&format!("server:{cores}")).unwrap();
        assert_eq!(s.server_threads(), cores);
        assert!(Layout::parse("server:0").is_err());
        assert!(Layout::parse("bogus").is_err());
        if cores >= 2 {
            let split = Layout::parse("split").unwrap();
            assert_eq!(split.server, Some(vec![cores - 1]));
            assert_eq!(split.generator.unwrap().len(), cores - 1);
        }
    }
}
