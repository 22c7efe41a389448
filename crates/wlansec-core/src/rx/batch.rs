//! Many protected CCMP-128 frames opened at once across the engine's lanes, for a receiver
//! that has them at hand (the capture decryptor). Opening verifies the MIC only; the replay
//! check and its commit then run frame by frame in arrival order, as [`RxKey::open`] does.
//! Each frame is parsed from the received octets and copied in without its PN header, so
//! the plaintext ends up in place behind the MAC header with no data moved.

use crate::engine::enhanced::MIC_LEN;
use crate::engine::{Engine, Job};
use crate::error::{Error, Result};
use crate::suite::ccmp::{self, Prepared};
use crate::suite::mpdu::{finish_decapsulate, Gap, PN_HEADER_LEN};
use crate::suite::{Decapsulated, Peeked};
use crate::wire::Rules;

use super::key::RxKey;

/// One frame of a batch: where the owner keeps its key, and its octets.
pub struct Item<S> {
    /// The owner's index of the frame (its position in the capture, say).
    pub index: usize,
    pub slot: S,
    /// The MAC header, data and MIC (the PN header left out); the plaintext MPDU once
    /// finished.
    buf: Vec<u8>,
    /// How the received frame parsed.
    parsed: Result<(Prepared, Peeked)>,
    /// What opening found; `None` before (and after finishing).
    opened: Option<Result<()>>,
}

impl<S> Item<S> {
    /// What opening found: `Err(MicFailure)` for a frame that did not verify, another error for one that could not be opened.
    pub fn verified(&self) -> Result<()> {
        self.opened.clone().unwrap_or(Err(Error::Unsupported("frame of a batch that was not opened")))
    }

    /// Replay-check the opened frame under `key` (the key it was opened with), record its PN
    /// and leave the plaintext MPDU in the item.
    pub fn finish(&mut self, key: &mut RxKey) -> Result<Decapsulated> {
        self.opened.take().unwrap_or(Err(Error::Unsupported("frame of a batch that was not opened")))?;
        let (prepared, peeked) = self.parsed.as_ref().map_err(Clone::clone)?;
        let (buf, peeked) = (&mut self.buf, *peeked);
        let done =
            key.replay().receive(peeked, || finish_decapsulate(buf, prepared.data.clone(), peeked, Gap::None))?;
        self.buf.truncate(done.mpdu_len);
        Ok(done)
    }

    /// The item's buffer, to hand the plaintext on without a copy.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }
}

/// Frames waiting for one engine batch, in arrival order: the first `len` items. The items
/// after them stay, buffers and all, for the frames of the next batches, so a batch neither
/// allocates nor moves an item.
pub struct Batch<S> {
    items: Vec<Item<S>>,
    len: usize,
}

impl<S> Default for Batch<S> {
    fn default() -> Self {
        Batch { items: Vec::new(), len: 0 }
    }
}

/// The frames of a batch, taken out to be finished one by one (see [`Batch::take`]).
pub struct Taken<S> {
    items: Vec<Item<S>>,
    len: usize,
}

impl<S> core::ops::Deref for Taken<S> {
    type Target = [Item<S>];
    fn deref(&self) -> &[Item<S>] {
        &self.items[..self.len]
    }
}

impl<S> core::ops::DerefMut for Taken<S> {
    fn deref_mut(&mut self) -> &mut [Item<S>] {
        &mut self.items[..self.len]
    }
}

impl<S: Copy> Batch<S> {
    pub fn push(&mut self, index: usize, slot: S, mpdu: &[u8], rules: Rules) {
        if self.len == self.items.len() {
            let parsed = Err(Error::Unsupported("frame of a batch not parsed"));
            self.items.push(Item { index, slot, buf: Vec::new(), parsed, opened: None });
        }
        let item = &mut self.items[self.len];
        self.len += 1;
        item.index = index;
        item.slot = slot;
        item.opened = None;
        item.parsed = ccmp::prepare_decapsulate::<MIC_LEN>(mpdu, rules);
        item.buf.clear();
        if let Ok((prepared, _)) = &item.parsed {
            item.buf.extend_from_slice(&mpdu[..prepared.data.start - PN_HEADER_LEN]);
            item.buf.extend_from_slice(&mpdu[prepared.data.start..]);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Verify and decrypt every frame at once, each under the key `key_of` finds for its
    /// slot (a key that is not on the fast engine fails the frame).
    pub fn open<'k>(&mut self, key_of: impl Fn(S) -> Option<&'k RxKey>) {
        let items = &mut self.items[..self.len];
        let mut jobs = Vec::with_capacity(items.len());
        for item in items.iter_mut() {
            match (key_of(item.slot).and_then(RxKey::engine_key), &item.parsed) {
                (None, _) => item.opened = Some(Err(Error::Unsupported("key not on the fast engine"))),
                (Some(_), Err(e)) => item.opened = Some(Err(e.clone())),
                (Some(key), Ok((prepared, _))) => {
                    let data_start = prepared.data.start - PN_HEADER_LEN;
                    let (data, mic) = item.buf[data_start..].split_at_mut(prepared.data.len());
                    let mut job = Job::with_counter_block(key, prepared.nonce, prepared.aad.as_slice(), data);
                    job.mic.copy_from_slice(&mic[..MIC_LEN]);
                    jobs.push(job);
                }
            }
        }
        let verified: Vec<bool> = match Engine::new().open_batch(&mut jobs) {
            Ok(()) => jobs.iter().map(|j| j.verified).collect(),
            Err(_) => vec![false; jobs.len()],
        };
        drop(jobs);
        // The frames that became jobs, in order, are the ones without a verdict yet.
        let mut verified = verified.into_iter();
        for item in self.items[..self.len].iter_mut().filter(|item| item.opened.is_none()) {
            item.opened = Some(if verified.next() == Some(true) { Ok(()) } else { Err(Error::MicFailure) });
        }
    }

    /// The frames in arrival order, to finish one by one; the batch is empty until they
    /// are handed back with [`Batch::give_back`] (so the next batch reuses them).
    pub fn take(&mut self) -> Taken<S> {
        let len = std::mem::take(&mut self.len);
        Taken { items: std::mem::take(&mut self.items), len }
    }

    pub fn give_back(&mut self, taken: Taken<S>) {
        if self.items.is_empty() {
            self.items = taken.items;
        }
    }
}
