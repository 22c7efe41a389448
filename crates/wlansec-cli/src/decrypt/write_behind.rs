//! The decrypted capture's way out: a buffer that, once full, goes to a thread of its own
//! which writes it while the decryption fills the next. The kernel's share of writing a
//! file (allocating and filling its pages, a third of a run's CPU time on tmpfs) then runs
//! beside the decryption instead of between its windows. Without that thread the same
//! buffer is written in place, as a `BufWriter` would.

use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Octets handed to the output at a time: large writes cost the kernel least per octet.
const BUFFER_LEN: usize = 1 << 20;

/// Full buffers that may wait for the writing thread; with the one being written, the one
/// being handed over and the next being filled, memory stays within `BUFFER_LEN * (QUEUED + 3)`.
const QUEUED: usize = 2;

pub struct WriteBehind {
    buffer: Vec<u8>,
    out: Out,
}

enum Out {
    /// Written where it is filled (one thread).
    Inline(Box<dyn Write + Send>),
    /// Written by `thread`, which takes full buffers from `full` and gives them back
    /// emptied on `empty`, so no buffer is allocated (and its pages faulted in) twice.
    Behind { full: Option<SyncSender<Vec<u8>>>, empty: Receiver<Vec<u8>>, thread: Option<JoinHandle<io::Result<()>>> },
}

impl WriteBehind {
    /// Write into `sink` from this thread.
    pub fn inline(sink: Box<dyn Write + Send>) -> Self {
        WriteBehind { buffer: Vec::with_capacity(BUFFER_LEN), out: Out::Inline(sink) }
    }

    /// Write into `sink` from a thread of its own.
    pub fn spawn(sink: Box<dyn Write + Send>) -> io::Result<Self> {
        let (full, to_write) = sync_channel::<Vec<u8>>(QUEUED);
        let (give_back, empty) = sync_channel(QUEUED + 2);
        let thread = std::thread::Builder::new().name("decrypt-write".into()).spawn(move || {
            let mut sink = sink;
            for mut buffer in to_write {
                sink.write_all(&buffer)?;
                // Each buffer reaches the output as it is written: a reader downstream of a
                // pipe sees the frames of a live capture as they come.
                sink.flush()?;
                buffer.clear();
                let _ = give_back.try_send(buffer);
            }
            Ok(())
        })?;
        Ok(WriteBehind {
            buffer: Vec::with_capacity(BUFFER_LEN),
            out: Out::Behind { full: Some(full), empty, thread: Some(thread) },
        })
    }

    /// Write what is buffered, wait for the writing thread to finish, and flush the output.
    pub fn finish(mut self) -> io::Result<()> {
        self.hand_off()?;
        match &mut self.out {
            Out::Inline(sink) => sink.flush(),
            Out::Behind { .. } => self.out.join(),
        }
    }

    /// Give the buffer to the output and start a new one.
    fn hand_off(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        match &mut self.out {
            Out::Inline(sink) => {
                sink.write_all(&self.buffer)?;
                self.buffer.clear();
                Ok(())
            }
            Out::Behind { full, empty, .. } => {
                let next = empty.try_recv().unwrap_or_else(|_| Vec::with_capacity(BUFFER_LEN));
                let buffer = std::mem::replace(&mut self.buffer, next);
                // The thread ends early only on an error: that error is the one to report.
                if full.as_ref().is_none_or(|full| full.send(buffer).is_err()) {
                    return self.out.join().and(Err(io::Error::other("the output's writing thread stopped")));
                }
                Ok(())
            }
        }
    }
}

impl Out {
    /// Close the writing thread's queue and wait for it: what it wrote, or its error.
    fn join(&mut self) -> io::Result<()> {
        let Out::Behind { full, thread, .. } = self else { return Ok(()) };
        drop(full.take());
        match thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        }
    }
}

impl Drop for WriteBehind {
    /// An output abandoned on an error: the thread has written what it was given before the
    /// output file is removed.
    fn drop(&mut self) {
        let _ = self.out.join();
    }
}

impl Write for WriteBehind {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    /// Two calls a record (its header, its frame): without `write`'s loop around it.
    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        if self.buffer.len() + data.len() > BUFFER_LEN {
            self.hand_off()?;
        }
        self.buffer.extend_from_slice(data);
        Ok(())
    }

    /// Push what is buffered on to the output (a reader downstream sees it).
    fn flush(&mut self) -> io::Result<()> {
        self.hand_off()?;
        match &mut self.out {
            Out::Inline(sink) => sink.flush(),
            Out::Behind { .. } => Ok(()),
        }
    }
}
