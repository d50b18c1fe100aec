//! Output files are written whole or not at all: each is written to a temporary file in its
//! own folder, then renamed over the name it should have. An interruption (Ctrl-C, SIGTERM,
//! a full disk, a crash) leaves the previous file or the complete new one, never half a file;
//! a read-only file in a writable folder is replaced. [`check_writable`] checks a folder
//! before a long simulation, so that a bad `--out` does not waste it.
//!
//! Test hook: with the environment variable `ARCSIM_TEST_KILL_WRITE` set to a file name, the
//! write of a file of that name stops the process half-way (abort, as a kill would), which
//! the tests use to check that nothing truncated is left behind.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` atomically (temporary file in the same folder, then rename).
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    with_temp(path, |tmp| {
        let mut f = std::fs::File::create(tmp)?;
        if kill_requested(path) {
            // Half the file, on disk, then the process dies as a kill would leave it.
            f.write_all(&bytes[..bytes.len() / 2])?;
            f.sync_all()?;
            std::process::abort();
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        Ok(())
    })
}

/// A CSV file, built in memory by `fill` and written atomically.
pub fn write_csv(
    path: &Path,
    fill: impl FnOnce(&mut csv::Writer<Vec<u8>>) -> Result<()>,
) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    fill(&mut w).with_context(|| format!("writing {}", path.display()))?;
    let bytes = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("{}", e.error()))
        .with_context(|| format!("writing {}", path.display()))?;
    write(path, &bytes)
}

/// A CSV file written atomically by [`CsvFile::finish`]: until then its rows are kept in
/// memory. Use it as a `csv::Writer`.
pub struct CsvFile {
    path: std::path::PathBuf,
    writer: Option<csv::Writer<Vec<u8>>>,
}

/// A [`CsvFile`] to be written at `path`.
pub fn csv_file(path: impl Into<std::path::PathBuf>) -> CsvFile {
    CsvFile {
        path: path.into(),
        writer: Some(csv::Writer::from_writer(Vec::new())),
    }
}

impl CsvFile {
    /// Write the file (whole, atomically).
    pub fn finish(mut self) -> Result<()> {
        let w = self.writer.take().expect("finished once");
        let bytes = w
            .into_inner()
            .map_err(|e| anyhow::anyhow!("{}", e.error()))
            .with_context(|| format!("writing {}", self.path.display()))?;
        write(&self.path, &bytes)
    }
}

impl std::ops::Deref for CsvFile {
    type Target = csv::Writer<Vec<u8>>;
    fn deref(&self) -> &Self::Target {
        self.writer.as_ref().expect("not finished")
    }
}

impl std::ops::DerefMut for CsvFile {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.writer.as_mut().expect("not finished")
    }
}

/// Let `make` write a temporary file (same folder, same extension: a backend that picks its
/// format by the extension still sees it) and rename it to `path` once `make` succeeded. The
/// temporary file is removed when `make` or the rename fails.
pub fn with_temp(path: &Path, make: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(&format!(".tmp{ext}"))
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "writing {} (creating a temporary file in {})",
                path.display(),
                dir.display()
            )
        })?;
    make(tmp.path()).with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Create `dir` if needed and check that a file can be written in it: before a simulation,
/// so that its results are not lost to a folder that cannot take them.
pub fn check_writable(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("output folder {}: cannot create it", dir.display()))?;
    tempfile::Builder::new()
        .prefix(".arcsim-write-check.")
        .tempfile_in(dir)
        .map(drop)
        .with_context(|| {
            format!(
                "output folder {} is not writable: choose another with --out, or make it writable",
                dir.display()
            )
        })
}

fn kill_requested(path: &Path) -> bool {
    std::env::var_os("ARCSIM_TEST_KILL_WRITE")
        .is_some_and(|name| path.file_name() == Some(name.as_os_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("result.json");
        write(&p, b"old").unwrap();
        write(&p, b"new contents").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new contents");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("plot.png");
        write(&p, b"old").unwrap();
        let err = with_temp(&p, |tmp| {
            assert!(tmp.to_string_lossy().ends_with(".png"), "{}", tmp.display());
            std::fs::write(tmp, b"half")?;
            anyhow::bail!("the disk is full")
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("the disk is full"));
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_read_only_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sweep.csv");
        write(&p, b"old").unwrap();
        let mut perm = std::fs::metadata(&p).unwrap().permissions();
        perm.set_readonly(true);
        std::fs::set_permissions(&p, perm).unwrap();
        write(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
    }

    #[test]
    fn a_folder_under_a_file_is_not_writable() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let err = check_writable(&file.join("out")).unwrap_err();
        assert!(format!("{err:#}").contains("cannot create it"), "{err:#}");
        check_writable(&dir.path().join("new")).unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path().join("new")).unwrap().count(),
            0
        );
    }
}
