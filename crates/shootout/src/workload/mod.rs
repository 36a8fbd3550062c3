//! The data of the workload endpoints (docs/workloads.md): the `json` dataset and the
//! `static` corpus, and the folder the harness writes them to for contestants to read
//! (`{workloads}` in a manifest): `items.json`, and `static/NAME` with `NAME.gz` and
//! `NAME.br` beside each text file. The checks of `verify` read none of it: they make
//! the same data again in memory, so that a stale or edited folder cannot pass itself off.

pub mod corpus;
pub mod dataset;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file in the folder that says which data it holds.
const STAMP: &str = ".shootout-stamp";

/// Why the folder could not be written: the path and the error.
#[derive(Debug, thiserror::Error)]
#[error("workload data {}: {source}", path.display())]
pub struct WorkloadError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// The workloads' folder under the builds folder `builds` (beside every contestant's
/// build folder and the test certificates).
pub fn folder(builds: &Path) -> PathBuf {
    builds.join("workloads")
}

/// Writes the dataset and the corpus to `dir` unless it holds them already. Contestants
/// set up side by side may call it at once: each writes a folder of its own and renames
/// it into place, so that none reads a half-written one.
pub fn ensure(dir: &Path) -> Result<(), WorkloadError> {
    let files = corpus::files();
    let stamp = fingerprint(&files);
    if stamped(dir, &stamp) {
        return Ok(());
    }
    let making = dir.with_extension(format!("making-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&making);
    write_all(&making, &files, &stamp)?;
    if stamped(dir, &stamp) {
        // Another set-up wrote it meanwhile.
        let _ = std::fs::remove_dir_all(&making);
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&making, dir).or_else(|source| match stamped(dir, &stamp) {
        true => Ok(()),
        false => Err(WorkloadError {
            path: dir.to_path_buf(),
            source,
        }),
    })
}

/// The dataset, the corpus with its siblings, and last the stamp, in `dir`.
fn write_all(dir: &Path, files: &[corpus::File], stamp: &str) -> Result<(), WorkloadError> {
    let statics = dir.join("static");
    write(&statics, &[])?;
    std::fs::create_dir_all(&statics).map_err(|source| WorkloadError {
        path: statics.clone(),
        source,
    })?;
    write(&dir.join("items.json"), dataset::ITEMS_JSON.as_bytes())?;
    for f in files {
        let path = statics.join(f.declared.name);
        write(&path, &f.bytes)?;
        if f.declared.kind.compressible() {
            write(&sibling(&path, "gz"), &gzip(&f.bytes))?;
            write(&sibling(&path, "br"), &brotli(&f.bytes))?;
        }
    }
    write(&dir.join(STAMP), stamp.as_bytes())
}

/// Writes `bytes` to `path`, its folder made first; an empty `bytes` makes only the folder.
fn write(path: &Path, bytes: &[u8]) -> Result<(), WorkloadError> {
    let failed = |source| WorkloadError {
        path: path.to_path_buf(),
        source,
    };
    match bytes.is_empty() {
        true => std::fs::create_dir_all(path.parent().unwrap_or(path)).map_err(failed),
        false => std::fs::write(path, bytes).map_err(failed),
    }
}

/// `path` with `.ext` added: `app.js` → `app.js.gz`.
fn sibling(path: &Path, ext: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

/// `bytes` gzipped at the best level: made once, served many times.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).expect("writing to memory");
    e.finish().expect("writing to memory")
}

/// `bytes` in brotli at the best quality, a 4 MB window.
fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = brotli::CompressorWriter::new(&mut out, 64 * 1024, 11, 22);
    w.write_all(bytes).expect("writing to memory");
    drop(w);
    out
}

/// Whether `dir` holds the data whose fingerprint is `stamp`.
fn stamped(dir: &Path, stamp: &str) -> bool {
    std::fs::read_to_string(dir.join(STAMP)).is_ok_and(|s| s == stamp)
}

/// A digest of the dataset and the corpus: a folder written by another build of the
/// generator is written again.
fn fingerprint(files: &[corpus::File]) -> String {
    let mut h = DefaultHasher::new();
    dataset::ITEMS_JSON.hash(&mut h);
    for f in files {
        (f.declared.name, &f.bytes).hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn the_folder_holds_the_data_and_its_siblings_decode_to_the_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = folder(tmp.path());
        ensure(&dir).unwrap();
        let items = std::fs::read_to_string(dir.join("items.json")).unwrap();
        assert_eq!(items, dataset::ITEMS_JSON);
        for f in corpus::files() {
            let path = dir.join("static").join(f.declared.name);
            assert_eq!(std::fs::read(&path).unwrap(), f.bytes);
            if !f.declared.kind.compressible() {
                assert!(!sibling(&path, "gz").exists());
                continue;
            }
            let gz = std::fs::read(sibling(&path, "gz")).unwrap();
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut plain)
                .unwrap();
            assert_eq!(plain, f.bytes, "{}.gz", f.declared.name);
            let br = std::fs::read(sibling(&path, "br")).unwrap();
            let mut plain = Vec::new();
            brotli::Decompressor::new(&br[..], 4096)
                .read_to_end(&mut plain)
                .unwrap();
            assert_eq!(plain, f.bytes, "{}.br", f.declared.name);
        }
        // Written once: a second call finds it stamped and leaves it.
        let before = std::fs::metadata(dir.join(STAMP))
            .unwrap()
            .modified()
            .unwrap();
        ensure(&dir).unwrap();
        let after = std::fs::metadata(dir.join(STAMP))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(before, after);
    }
}
