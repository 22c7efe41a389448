//! The control socket of a running emulator (`status`, `down`, `inject`): where it is, and
//! its client. The emulator's side is the event loop's.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use super::config::state_dir;
use crate::{Error, Result};

/// The control socket of WLAN `name`.
pub fn control_socket(name: &str) -> PathBuf {
    state_dir(name).join("control.sock")
}

/// Send one control command to a running emulator and return its one-line JSON answer.
pub fn control(name: &str, command: &str) -> Result<String> {
    let socket = control_socket(name);
    let mut stream = match UnixStream::connect(&socket) {
        Ok(stream) => stream,
        Err(source) => return Err(Error::NotRunning { name: name.into(), socket, source }),
    };
    let mut line = String::new();
    (|| {
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
        stream.write_all(command.as_bytes())?;
        stream.write_all(b"\n")?;
        BufReader::new(&stream).read_line(&mut line)
    })()
    .map_err(Error::io(format!("control socket {}: `{}`", socket.display(), command.escape_default())))?;
    Ok(line.trim_end().to_string())
}
