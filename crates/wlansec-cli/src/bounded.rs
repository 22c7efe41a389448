//! Reading a user's file or stream without trusting its size: every file the CLI reads whole
//! (configurations, key files, `synth --input`, its own state files) goes through [`read`],
//! [`read_to_string`] or [`read_from`], which read at most a limit plus one octet (`/dev/zero`
//! or a huge file is refused after the limit, never read whole); a stream of lines (`frame
//! -`'s standard input) through [`Lines`], each line bounded; and a passphrase through
//! [`first_line`], which reads one line byte by byte (a FIFO or a terminal is read up to its
//! first newline, not to its end). What is read may be a secret: buffers are zeroed when
//! dropped or outgrown.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use zeroize::{Zeroize, Zeroizing};

/// How much of a kind of file is read before it is refused, and what the kind is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub octets: u64,
    pub kind: &'static str,
}

/// hostapd.conf, wpa_supplicant.conf: real ones are a few KiB.
pub const CONFIG: Limit = Limit { octets: 1 << 20, kind: "configuration file" };
/// A Wireshark `80211_keys` file for `decrypt --key-file`.
pub const KEY_FILE: Limit = Limit { octets: 1 << 20, kind: "key file" };
/// `synth --input`: the capture is held in memory, and so is the capture `synth` builds.
pub const CAPTURE_INPUT: Limit = Limit { octets: 256 << 20, kind: "synth --input capture" };
/// The files `wlan up` writes under /run/wlansec: the configuration and process ids.
pub const STATE: Limit = Limit { octets: 1 << 20, kind: "wlansec state file" };
/// `wlansec frame ... -`: one frame as hex on a line of standard input (the longest MPDU,
/// 11,454 octets, written with a separator between octets takes 34,361).
pub const FRAME_LINE_OCTETS: usize = 64 << 10;
/// A passphrase line: a WPA passphrase has 8..63 characters, a PSK 64 hex digits.
pub const PASSPHRASE_OCTETS: usize = 64;

/// Why an input was refused. Messages name the input, never its contents.
#[derive(Debug)]
pub enum InputError {
    /// The file holds more than its kind's limit.
    TooLarge {
        what: String,
        limit: Limit,
    },
    /// The first line holds more than `max` octets (its line end not counted).
    LineTooLong {
        what: String,
        /// The line's number, from 1.
        line: usize,
        max: usize,
    },
    /// The file is not UTF-8 text.
    NotText {
        what: String,
    },
    Io {
        what: String,
        source: io::Error,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::TooLarge { what, limit } => {
                write!(f, "{what}: larger than {}, the limit for a {}", size(limit.octets), limit.kind)
            }
            InputError::LineTooLong { what, line: 1, max } => {
                write!(f, "{what}: the first line is longer than {max} octets")
            }
            InputError::LineTooLong { what, line, max } => write!(f, "{what}: line {line} is longer than {max} octets"),
            InputError::NotText { what } => write!(f, "{what}: not UTF-8 text"),
            InputError::Io { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn size(octets: u64) -> String {
    match octets {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} octets"),
    }
}

fn open(path: &Path) -> Result<File, InputError> {
    File::open(path).map_err(|source| InputError::Io { what: path.display().to_string(), source })
}

/// The whole of `path`, at most `limit.octets`: one octet more is [`InputError::TooLarge`].
pub fn read(path: &Path, limit: Limit) -> Result<Zeroizing<Vec<u8>>, InputError> {
    read_from(open(path)?, limit, &path.display().to_string())
}

/// The whole of `path` as text, at most `limit.octets`.
pub fn read_to_string(path: &Path, limit: Limit) -> Result<Zeroizing<String>, InputError> {
    let mut bytes = read(path, limit)?;
    match String::from_utf8(std::mem::take(&mut *bytes)) {
        Ok(text) => Ok(Zeroizing::new(text)),
        Err(e) => {
            e.into_bytes().zeroize();
            Err(InputError::NotText { what: path.display().to_string() })
        }
    }
}

/// Everything `reader` gives, through `take(limit + 1)`: never more than one octet past
/// the limit is read. A buffer the input outgrows is zeroed before it is freed.
pub fn read_from(reader: impl Read, limit: Limit, what: &str) -> Result<Zeroizing<Vec<u8>>, InputError> {
    let cap = usize::try_from(limit.octets.saturating_add(1)).unwrap_or(usize::MAX);
    let mut reader = reader.take(limit.octets.saturating_add(1));
    let mut out = Zeroizing::new(Vec::with_capacity(cap.min(8192)));
    let mut chunk = Zeroizing::new([0u8; 8192]);
    loop {
        let n = match reader.read(&mut chunk[..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => return Err(InputError::Io { what: what.into(), source }),
        };
        if out.len() + n > out.capacity() {
            let mut bigger = Zeroizing::new(Vec::with_capacity((out.len() + n).next_power_of_two().min(cap)));
            bigger.extend_from_slice(&out);
            out = bigger;
        }
        out.extend_from_slice(&chunk[..n]);
    }
    if out.len() as u64 > limit.octets {
        return Err(InputError::TooLarge { what: what.into(), limit });
    }
    Ok(out)
}

/// The lines of a stream, each at most `max` octets (its line end not counted): a longer one
/// is [`InputError::LineTooLong`] after `max + 2` octets, and ends the iteration.
pub struct Lines<R> {
    reader: io::BufReader<R>,
    max: usize,
    what: &'static str,
    number: usize,
    done: bool,
}

impl<R: Read> Lines<R> {
    pub fn new(reader: R, max: usize, what: &'static str) -> Self {
        Lines { reader: io::BufReader::new(reader), max, what, number: 0, done: false }
    }
}

impl<R: Read> Iterator for Lines<R> {
    type Item = Result<String, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.number += 1;
        let mut line = Vec::new();
        let limit = u64::try_from(self.max + 2).unwrap_or(u64::MAX);
        let item = match io::BufRead::read_until(&mut (&mut self.reader).take(limit), b'\n', &mut line) {
            Ok(0) => return None,
            Err(source) => Err(InputError::Io { what: format!("{}: line {}", self.what, self.number), source }),
            Ok(_) => {
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                if text.len() > self.max {
                    Err(InputError::LineTooLong { what: self.what.into(), line: self.number, max: self.max })
                } else {
                    String::from_utf8(text.to_vec())
                        .map_err(|_| InputError::NotText { what: format!("{}: line {}", self.what, self.number) })
                }
            }
        };
        self.done = item.is_err();
        Some(item)
    }
}

/// The first line of `reader`, at most `max` octets (a `\n` or `\r\n` line end is not part
/// of it): read one octet at a time, so that nothing after the line end is consumed and a
/// FIFO, pipe or terminal is not read past its first line (nor waited on for its end). A
/// longer line is refused after `max + 2` octets.
pub fn first_line(reader: &mut impl Read, max: usize, what: &str) -> Result<Zeroizing<String>, InputError> {
    let mut line = Zeroizing::new(Vec::with_capacity(max + 2));
    let mut byte = Zeroizing::new([0u8; 1]);
    loop {
        match reader.read(&mut byte[..]) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => return Err(InputError::Io { what: what.into(), source }),
        }
        if byte[0] == b'\n' {
            break;
        }
        // One octet more than `max` may be the `\r` of a `\r\n`.
        if line.len() > max {
            return Err(InputError::LineTooLong { what: what.into(), line: 1, max });
        }
        line.push(byte[0]);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.len() > max {
        return Err(InputError::LineTooLong { what: what.into(), line: 1, max });
    }
    match std::str::from_utf8(&line) {
        Ok(text) => Ok(Zeroizing::new(text.to_string())),
        Err(_) => Err(InputError::NotText { what: what.into() }),
    }
}

/// The last `max` octets of a log (lossily as text; empty when it cannot be read).
pub fn tail(path: &Path, max: u64) -> String {
    let Ok(mut file) = File::open(path) else { return String::new() };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > max && file.seek(SeekFrom::Start(len - max)).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    let _ = file.take(max).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    use super::*;

    const SMALL: Limit = Limit { octets: 16, kind: "test file" };

    #[test]
    fn dev_zero_is_refused_after_the_limit_not_read_whole() {
        // Unbounded, /dev/zero is read until memory runs out: this test would not end.
        let e = read(Path::new("/dev/zero"), CONFIG).unwrap_err();
        assert!(matches!(e, InputError::TooLarge { limit: CONFIG, .. }), "{e}");
        assert_eq!(e.to_string(), "/dev/zero: larger than 1 MiB, the limit for a configuration file");
    }

    #[test]
    fn a_stream_of_lines_is_read_a_line_at_a_time_each_bounded() {
        let lines: Vec<_> = Lines::new(&b"ab\r\ncdef\n\nlast"[..], 4, "in").collect::<Result<_, _>>().unwrap();
        assert_eq!(lines, ["ab", "cdef", "", "last"]);
        // A line of max + 1 octets ends the stream with an error; nothing after it is read.
        let mut lines = Lines::new(&b"abcd\nabcde\nab\n"[..], 4, "in");
        assert_eq!(lines.next().unwrap().unwrap(), "abcd");
        assert_eq!(lines.next().unwrap().unwrap_err().to_string(), "in: line 2 is longer than 4 octets");
        assert!(lines.next().is_none());
        // Unbounded, /dev/zero's one endless line is read until memory runs out.
        let e = Lines::new(File::open("/dev/zero").unwrap(), 4, "zero").next().unwrap().unwrap_err();
        assert_eq!(e.to_string(), "zero: the first line is longer than 4 octets");
    }

    #[test]
    fn a_file_at_the_limit_is_read_and_one_octet_more_is_refused() {
        assert_eq!(&read_from(&[7u8; 16][..], SMALL, "x").unwrap()[..], &[7u8; 16]);
        let e = read_from(&[7u8; 17][..], SMALL, "x").unwrap_err();
        assert!(matches!(e, InputError::TooLarge { .. }), "{e}");
        // Larger than one chunk, so the buffer grows.
        let big = vec![1u8; 20_000];
        let limit = Limit { octets: 20_000, kind: "test file" };
        assert_eq!(read_from(&big[..], limit, "x").unwrap().len(), 20_000);
    }

    #[test]
    fn text_that_is_not_utf8_is_refused() {
        let dir = std::env::temp_dir().join(format!("wlansec-bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("latin1");
        std::fs::write(&path, b"caf\xe9").unwrap();
        let e = read_to_string(&path, SMALL).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(e, InputError::NotText { .. }), "{e}");
    }

    #[test]
    fn tail_reads_only_the_last_octets_of_a_log() {
        let dir = std::env::temp_dir().join(format!("wlansec-tail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log");
        std::fs::write(&path, format!("{}last line\n", "x".repeat(100))).unwrap();
        let tail = tail(&path, 20);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(tail, "xxxxxxxxxxlast line\n");
        assert_eq!(super::tail(Path::new("/nonexistent/log"), 20), "");
    }

    #[test]
    fn first_line_reads_one_line_and_nothing_after_it() {
        let mut input = &b"correct horse\r\nsecond line\n"[..];
        assert_eq!(first_line(&mut input, 64, "x").unwrap().as_str(), "correct horse");
        assert_eq!(input, b"second line\n", "nothing past the first line end is consumed");
        assert_eq!(first_line(&mut &b"no line end"[..], 64, "x").unwrap().as_str(), "no line end");
        assert_eq!(first_line(&mut &b""[..], 64, "x").unwrap().as_str(), "");
    }

    #[test]
    fn first_line_of_64_octets_is_read_and_65_refused() {
        let psk = "a".repeat(64);
        assert_eq!(first_line(&mut format!("{psk}\n").as_bytes(), 64, "x").unwrap().as_str(), psk);
        assert_eq!(first_line(&mut format!("{psk}\r\n").as_bytes(), 64, "x").unwrap().as_str(), psk);
        let e = first_line(&mut format!("{psk}b\n").as_bytes(), 64, "pw").unwrap_err();
        assert_eq!(e.to_string(), "pw: the first line is longer than 64 octets");
    }

    #[test]
    fn first_line_of_dev_zero_reads_66_octets_and_stops() {
        let mut zero = File::open("/dev/zero").unwrap().take(1 << 20);
        let e = first_line(&mut zero, 64, "/dev/zero").unwrap_err();
        assert!(matches!(e, InputError::LineTooLong { max: 64, .. }), "{e}");
        assert_eq!(zero.limit(), (1 << 20) - 66);
    }

    #[test]
    fn first_line_of_a_pipe_whose_writer_stays_open_returns_without_waiting_for_its_end() {
        let (mut writer, mut reader) = UnixStream::pair().unwrap();
        writer.write_all(b"a passphrase\n").unwrap();
        // Waiting for the end would block until the timeout, and fail here.
        reader.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        assert_eq!(first_line(&mut reader, 64, "pipe").unwrap().as_str(), "a passphrase");
        drop(writer);
    }
}
