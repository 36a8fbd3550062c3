//! PostgreSQL's programs as Debian installs them: `/usr/lib/postgresql/VERSION/bin/`, the
//! newest version when several are installed (none of them is on PATH but the client's
//! wrappers).

use super::DatabaseError;
use std::path::{Path, PathBuf};

/// Where Debian puts each major version's programs.
const ROOT: &str = "/usr/lib/postgresql";

/// The programs of one installed version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binaries {
    /// The major version (`15`).
    pub version: u32,
    pub bin: PathBuf,
}

impl Binaries {
    /// The newest version installed with a server, or `NotInstalled`.
    pub fn find() -> Result<Binaries, DatabaseError> {
        Binaries::find_in(Path::new(ROOT)).ok_or(DatabaseError::NotInstalled)
    }

    fn find_in(root: &Path) -> Option<Binaries> {
        let versions = std::fs::read_dir(root).ok()?.flatten().filter_map(|e| {
            let version: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            let complete = ["initdb", "postgres", "psql"]
                .iter()
                .all(|p| bin.join(p).exists());
            complete.then_some(Binaries { version, bin })
        });
        versions.max_by_key(|b| b.version)
    }

    pub fn initdb(&self) -> PathBuf {
        self.bin.join("initdb")
    }

    pub fn postgres(&self) -> PathBuf {
        self.bin.join("postgres")
    }

    pub fn psql(&self) -> PathBuf {
        self.bin.join("psql")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_complete_version_is_chosen() {
        let root = tempfile::tempdir().expect("a temporary folder");
        let make = |version: &str, programs: &[&str]| {
            let bin = root.path().join(version).join("bin");
            std::fs::create_dir_all(&bin).expect("bin folder");
            for p in programs {
                std::fs::write(bin.join(p), "").expect("a program");
            }
        };
        make("13", &["initdb", "postgres", "psql"]);
        make("15", &["initdb", "postgres", "psql"]);
        make("16", &["psql"]); // a client only
        make("common", &["initdb", "postgres", "psql"]);
        let found = Binaries::find_in(root.path()).expect("a version");
        assert_eq!(found.version, 15);
        assert!(Binaries::find_in(&root.path().join("none")).is_none());
    }
}
