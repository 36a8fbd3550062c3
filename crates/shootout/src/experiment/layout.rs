//! Layouts: which CPUs the server, the generator and the database the harness owns run on.

/// A layout that does not fit this machine.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    #[error("split needs at least 2 cores")]
    SplitNeedsTwoCores,
    #[error("layout {name:?}: split, shared or server:N with 1 <= N <= {cores}, then +db:server or +db:generator to place the database")]
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
    /// CPUs the database is pinned to (None: not pinned, or no database).
    pub database: Option<Vec<usize>>,
    /// Whose CPUs the database shares, when the layout places it (`+db:server`).
    pub database_beside: Option<Beside>,
}

/// The side whose CPUs the database shares: on a machine of two cores it cannot have one
/// of its own without taking the server's or the generator's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beside {
    Server,
    Generator,
}

impl Beside {
    /// The word of the layout's name and the tables.
    pub fn word(self) -> &'static str {
        match self {
            Beside::Server => "server",
            Beside::Generator => "generator",
        }
    }
}

impl Layout {
    /// `split` (server on the last core, generator on the others), `server:N` (the server
    /// gets N cores, the generator the rest, or shares them when none are left), `shared`;
    /// with `+db:server` or `+db:generator`, the database shares that side's CPUs.
    pub fn parse(text: &str) -> Result<Layout, LayoutError> {
        let (base, beside) = match text.split_once("+db:") {
            None => (text, None),
            Some((base, "server")) => (base, Some(Beside::Server)),
            Some((base, "generator")) => (base, Some(Beside::Generator)),
            Some(_) => return Err(unknown(text)),
        };
        let (server, generator) = sides(base).map_err(|e| match e {
            LayoutError::Unknown { .. } => unknown(text),
            e => e,
        })?;
        let database = match beside {
            Some(Beside::Server) => server.clone(),
            Some(Beside::Generator) => generator.clone(),
            None => None,
        };
        Ok(Layout {
            name: text.to_string(),
            server,
            generator,
            database,
            database_beside: beside,
        })
    }

    /// The server's parallelism: its cores, or all cores when unpinned.
    pub fn server_threads(&self) -> usize {
        self.server
            .as_ref()
            .map_or(engine::allowed_cpus(), Vec::len)
    }
}

/// The server's and the generator's CPUs of a layout without its database part.
type Sides = (Option<Vec<usize>>, Option<Vec<usize>>);

fn sides(text: &str) -> Result<Sides, LayoutError> {
    let cores = engine::allowed_cpus();
    let all: Vec<usize> = (0..cores).collect();
    match text {
        "shared" => Ok((None, None)),
        "split" if cores >= 2 => Ok((Some(vec![cores - 1]), Some(all[..cores - 1].to_vec()))),
        "split" => Err(LayoutError::SplitNeedsTwoCores),
        _ => {
            let n: usize = text
                .strip_prefix("server:")
                .and_then(|n| n.parse().ok())
                .filter(|&n| n >= 1 && n <= cores)
                .ok_or_else(|| unknown(text))?;
            let server = all[cores - n..].to_vec();
            let generator = (n < cores).then(|| all[..cores - n].to_vec());
            Ok((Some(server), generator))
        }
    }
}

fn unknown(text: &str) -> LayoutError {
    LayoutError::Unknown {
        name: text.to_string(),
        cores: engine::allowed_cpus(),
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
            assert_eq!(split.database, None);
        }
    }

    #[test]
    fn the_database_shares_the_side_the_layout_names() {
        if engine::allowed_cpus() < 2 {
            return;
        }
        let with_server = Layout::parse("split+db:server").unwrap();
        assert_eq!(with_server.database, with_server.server);
        assert_eq!(with_server.database_beside, Some(Beside::Server));
        let with_generator = Layout::parse("split+db:generator").unwrap();
        assert_eq!(with_generator.database, with_generator.generator);
        assert_eq!(with_generator.name, "split+db:generator");
        let wrong = Layout::parse("split+db:elsewhere").unwrap_err().to_string();
        assert!(wrong.contains("+db:server or +db:generator"), "{wrong}");
        assert!(Layout::parse("bogus+db:server").is_err());
    }
}
