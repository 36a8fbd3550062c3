//! Layouts: which CPUs the server and the generator run on.

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
    pub fn parse(text: &str) -> Result<Layout, String> {
        let cores = engine::allowed_cpus();
        let all: Vec<usize> = (0..cores).collect();
        let (server, generator) = match text {
            "shared" => (None, None),
            "split" if cores >= 2 => (Some(vec![cores - 1]), Some(all[..cores - 1].to_vec())),
            "split" => return Err("split needs at least 2 cores".into()),
            _ => {
                let n: usize = text
                    .strip_prefix("server:")
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n >= 1 && n <= cores)
                    .ok_or_else(|| {
                        format!("layout {text:?}: split, shared or server:N with 1 <= N <= {cores}")
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

/// Pins the calling process (and the threads it starts afterwards) to `cpus`;
/// returns the previous mask so it can be restored.
pub fn pin_self(cpus: &[usize]) -> Option<libc::cpu_set_t> {
    // SAFETY: sched_getaffinity/sched_setaffinity on this process with valid sets.
    unsafe {
        let mut old: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if libc::sched_getaffinity(0, size, &mut old) != 0 {
            return None;
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        (libc::sched_setaffinity(0, size, &set) == 0).then_some(old)
    }
}

/// Restores a mask saved by [`pin_self`].
pub fn restore(old: libc::cpu_set_t) {
    // SAFETY: as above.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &old) };
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
