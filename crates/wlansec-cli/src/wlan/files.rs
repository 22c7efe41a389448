//! The WLAN's files under /run/wlansec: its state directory (the configuration, the control
//! socket, the processes' IDs) and the supervisor's log beside it.

use std::fs;
use std::path::PathBuf;

use anyhow::{Context, Result};
use wlansec_wlan::emulator::{state_dir, Config};

use crate::bounded;

pub(super) fn config_path(name: &str) -> PathBuf {
    state_dir(name).join("config.json")
}

pub(super) fn log_path(name: &str) -> PathBuf {
    PathBuf::from("/run/wlansec").join(format!("{name}.log"))
}

pub(super) fn read_config(name: &str) -> Result<Config> {
    let path = config_path(name);
    let text = bounded::read_to_string(&path, bounded::STATE)
        .with_context(|| format!("no WLAN `{name}` is up ({})", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}", path.display()))
}

/// The WLAN's state directory (/run/wlansec/NAME), readable by root only: it holds the
/// configuration with the passphrase and the control socket.
pub(super) fn create_state_dir(name: &str) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = state_dir(name);
    fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).with_context(|| dir.display().to_string())?;
    // An existing directory keeps its mode through `create`: set it.
    fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    Ok(())
}

/// A new file readable and writable by its owner only (it may hold a secret, or a log that
/// names one's host).
pub(super) fn private_file(path: &std::path::Path) -> Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = fs::remove_file(path);
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| path.display().to_string())
}

pub(super) fn write_private(path: &std::path::Path, contents: &[u8]) -> Result<()> {
    use std::io::Write;
    private_file(path)?.write_all(contents).with_context(|| path.display().to_string())
}
