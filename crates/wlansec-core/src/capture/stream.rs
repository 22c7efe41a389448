//! A capture read from a byte stream (a pipe, standard input) in bounded memory: the octets
//! arrive in a buffer, the [`Reader`] reads the complete records in it, and the buffer keeps
//! only the record still arriving. Memory stays the buffer's size (1 MiB, or twice the
//! largest record when that is more) however long the stream runs.

use std::io::{self, Read};

use super::{fcs::FcsDetector, Format, Reader, Suspended};
use crate::error::Error;

/// The buffer's starting size: more than a pipe holds (64 KiB on Linux), so one read
/// usually takes all that is waiting.
const BUFFER_LEN: usize = 1 << 20;

/// A capture arriving on `R`, read a run of records at a time.
pub struct Stream<R> {
    source: R,
    /// `buffer[..filled]`: the stream's octets from offset `base` on, from a record boundary.
    buffer: Vec<u8>,
    filled: usize,
    base: usize,
    /// What the headers read so far said (format, byte order, interfaces).
    state: Suspended,
    /// What the frames read so far said of an FCS at their end.
    fcs: FcsDetector,
    ended: bool,
}

impl<R: Read> Stream<R> {
    /// Read from `source` until its capture file header is in, and check it.
    pub fn open<E: From<Error> + From<io::Error>>(source: R) -> Result<Self, E> {
        let mut buffer = vec![0; BUFFER_LEN];
        let mut filled = 0;
        let mut source = source;
        loop {
            let ended = read(&mut source, &mut buffer, &mut filled)?;
            match Reader::new(&buffer[..filled]) {
                Ok(reader) => {
                    let (state, fcs, consumed) =
                        reader.suspend().expect("a reader that has read nothing has not failed");
                    let mut stream = Stream { source, buffer, filled, base: 0, state, fcs, ended };
                    stream.consume(consumed);
                    return Ok(stream);
                }
                Err(Error::Capture(e)) if e.is_truncation() && !ended => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    pub fn format(&self) -> Format {
        match self.state {
            Suspended::Pcap(_) => Format::Pcap,
            Suspended::Pcapng(_) => Format::Pcapng,
        }
    }

    /// Octets read from the source so far.
    pub fn octets_read(&self) -> usize {
        self.base + self.filled
    }

    /// Hand `run` a reader over the records buffered, then read the source again (waiting
    /// until something arrives), until it ends: each run reads what one read of the source
    /// completed, so a caller that writes out after each run keeps up with a live capture.
    /// A record cut by the end of the stream ends the last run with its typed error, as the
    /// end of a file would; offsets in errors count from the start of the stream.
    pub fn for_each_run<E: From<io::Error>>(
        &mut self,
        mut run: impl FnMut(&mut Reader<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        loop {
            let buffered = &self.buffer[..self.filled];
            let mut reader = Reader::resume(buffered, self.state.clone(), self.fcs, self.base, !self.ended);
            run(&mut reader)?;
            let Some((state, fcs, consumed)) = reader.suspend() else {
                return Ok(()); // a damaged record: the capture cannot be followed past it
            };
            self.state = state;
            self.fcs = fcs;
            self.consume(consumed);
            if self.ended {
                return Ok(());
            }
            self.ended = read(&mut self.source, &mut self.buffer, &mut self.filled)?;
        }
    }

    /// Drop the first `octets` of the buffer (records read).
    fn consume(&mut self, octets: usize) {
        self.buffer.copy_within(octets..self.filled, 0);
        self.filled -= octets;
        self.base += octets;
    }
}

/// One read of `source` into `buffer[*filled..]` (grown when a record fills it); true at the
/// end of the stream.
fn read(source: &mut impl Read, buffer: &mut Vec<u8>, filled: &mut usize) -> io::Result<bool> {
    if *filled == buffer.len() {
        buffer.resize(buffer.len() * 2, 0);
    }
    loop {
        match source.read(&mut buffer[*filled..]) {
            Ok(0) => return Ok(true),
            Ok(n) => {
                *filled += n;
                return Ok(false);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
