//! Output files that never damage a user's data: written to a temporary file beside the
//! target and renamed over it only when complete (an interrupted run leaves the old file,
//! or none), and refused outright when the target is one of the command's inputs. They are
//! created readable by their owner only (0600): a decrypted capture holds plaintext traffic.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use tempfile::NamedTempFile;
use wlansec_core::capture::Format;

/// A file being written; it appears at its path on [`AtomicFile::commit`], and not at all
/// if the command fails first.
pub struct AtomicFile {
    temp: NamedTempFile,
    path: PathBuf,
}

impl AtomicFile {
    /// Start writing `path`, refusing it when it is the same file as one of `inputs`.
    pub fn create(path: &Path, inputs: &[&Path]) -> Result<Self> {
        for input in inputs {
            if same_file(path, input)? {
                bail!("{}: the output is the input {}; give another output path", path.display(), input.display());
            }
        }
        if path.is_dir() {
            bail!("{}: is a directory; give a file path", path.display());
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{}.", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()))
            .suffix(".partial")
            .tempfile_in(dir)
            .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
        Ok(AtomicFile { temp, path: path.to_path_buf() })
    }

    /// A handle on the temporary file (for a buffered writer that owns its file).
    pub fn handle(&self) -> Result<File> {
        Ok(self.temp.reopen()?)
    }

    /// Move the complete file into place.
    pub fn commit(self) -> Result<()> {
        let path = self.path;
        self.temp.persist(&path).map_err(|e| e.error).with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

/// Whether two paths name one file (same device and inode), following links.
fn same_file(a: &Path, b: &Path) -> Result<bool> {
    let meta = |p: &Path| match fs::metadata(p) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| p.display().to_string()),
    };
    Ok(match (meta(a)?, meta(b)?) {
        (Some(x), Some(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    })
}

/// The capture file format to write (core's [`Format`], as a command-line value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FileFormat {
    Pcap,
    Pcapng,
}

impl From<FileFormat> for Format {
    fn from(format: FileFormat) -> Self {
        match format {
            FileFormat::Pcap => Format::Pcap,
            FileFormat::Pcapng => Format::Pcapng,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn output_appears_only_on_commit_and_the_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.pcap");
        fs::write(&input, b"capture").unwrap();
        let linked = dir.path().join("link.pcap");
        std::os::unix::fs::symlink(&input, &linked).unwrap();
        for same in [&input, &linked, &dir.path().join("./in.pcap")] {
            assert!(AtomicFile::create(same, &[&input]).is_err(), "{}", same.display());
        }
        assert_eq!(fs::read(&input).unwrap(), b"capture");

        let out = dir.path().join("out.pcap");
        let file = AtomicFile::create(&out, &[&input]).unwrap();
        file.handle().unwrap().write_all(b"decrypted").unwrap();
        assert!(!out.exists());
        file.commit().unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"decrypted");

        let abandoned = AtomicFile::create(&dir.path().join("never.pcap"), &[]).unwrap();
        drop(abandoned);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
