//! Many protected CCMP-128 frames opened at once across the engine's lanes, for a receiver
//! that has them at hand (the capture decryptor). Opening verifies the MIC only; the replay
//! check and its commit then run frame by frame in arrival order, as [`RxKey::open`] does.
//! Each frame is parsed from the received octets and copied in without its PN header, so
//! the plaintext ends up in place behind the MAC header with no data moved.

use crate::engine::enhanced::MIC_LEN;
use crate::engine::framing::{self, Prepared};
use crate::engine::{Engine, Job};
use crate::error::{Error, Result};
use crate::suite::mpdu::PN_HEADER_LEN;
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
    /// How the received frame parsed, until it is opened.
    parsed: Option<Result<(Prepared, Peeked)>>,
    opened: Option<Result<(Prepared, Peeked)>>,
}

impl<S> Item<S> {
    /// What opening found: `Err(MicFailure)` for a frame that did not verify, another error for one that could not be opened.
    pub fn verified(&self) -> Result<()> {
        match &self.opened {
            Some(Ok(_)) => Ok(()),
            Some(Err(e)) => Err(e.clone()),
            None => Err(Error::Unsupported("frame of a batch that was not opened")),
        }
    }

    /// Replay-check the opened frame under `key` (the key it was opened with), record its PN
    /// and leave the plaintext MPDU in the item.
    pub fn finish(&mut self, key: &mut RxKey) -> Result<Decapsulated> {
        let (prepared, peeked) = match self.opened.take() {
            Some(Ok(opened)) => opened,
            Some(Err(e)) => return Err(e),
            None => return Err(Error::Unsupported("frame of a batch that was not opened")),
        };
        let buf = &mut self.buf;
        let done =
            key.replay().receive(peeked, || framing::finish_decapsulate(buf, &prepared, peeked, framing::Gap::None))?;
        self.buf.truncate(done.mpdu_len);
        Ok(done)
    }

    /// The item's buffer, to hand the plaintext on without a copy.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }
}

/// Frames waiting for one engine batch, in arrival order.
pub struct Batch<S> {
    items: Vec<Item<S>>,
    spare: Vec<Vec<u8>>,
}

impl<S> Default for Batch<S> {
    fn default() -> Self {
        Batch { items: Vec::new(), spare: Vec::new() }
    }
}

impl<S: Copy> Batch<S> {
    pub fn push(&mut self, index: usize, slot: S, mpdu: &[u8], rules: Rules) {
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        let parsed = framing::prepare_decapsulate(mpdu, rules);
        if let Ok((prepared, _)) = &parsed {
            buf.extend_from_slice(&mpdu[..prepared.data.start - PN_HEADER_LEN]);
            buf.extend_from_slice(&mpdu[prepared.data.start..]);
        }
        self.items.push(Item { index, slot, buf, parsed: Some(parsed), opened: None });
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Verify and decrypt every frame at once, each under the key `key_of` finds for its
    /// slot (a key that is not on the fast engine fails the frame).
    pub fn open<'k>(&mut self, key_of: impl Fn(S) -> Option<&'k RxKey>) {
        let mut jobs = Vec::with_capacity(self.items.len());
        let mut opened = Vec::with_capacity(self.items.len());
        for item in self.items.iter_mut() {
            let key = key_of(item.slot).and_then(RxKey::engine_key);
            let parsed = item.parsed.take().unwrap_or(Err(Error::Unsupported("frame of a batch opened twice")));
            let prepared =
                key.ok_or(Error::Unsupported("key not on the fast engine")).and_then(|key| Ok((key, parsed?)));
            match prepared {
                Ok((key, (prepared, peeked))) => {
                    let data_start = prepared.data.start - PN_HEADER_LEN;
                    let (data, mic) = item.buf[data_start..].split_at_mut(prepared.data.len());
                    let mut job = Job::with_counter_block(key, prepared.nonce, &[], data);
                    job.mic.copy_from_slice(&mic[..MIC_LEN]);
                    jobs.push(job);
                    opened.push(Ok((prepared, peeked)));
                }
                Err(e) => opened.push(Err(e)),
            }
        }
        let aads: Vec<_> = opened.iter().flatten().map(|(p, _)| p.aad).collect();
        for (job, aad) in jobs.iter_mut().zip(&aads) {
            job.aad = aad.as_slice();
        }
        let verified: Vec<bool> = match Engine::new().open_batch(&mut jobs) {
            Ok(()) => jobs.iter().map(|j| j.verified).collect(),
            Err(_) => vec![false; jobs.len()],
        };
        drop(jobs);
        let mut verified = verified.into_iter();
        for (item, result) in self.items.iter_mut().zip(opened) {
            // Only frames that became jobs have a verdict.
            item.opened = Some(result.and_then(|ok| match verified.next() {
                Some(true) => Ok(ok),
                _ => Err(Error::MicFailure),
            }));
        }
    }

    /// The frames in arrival order; hand each back with [`Batch::recycle`] and the emptied
    /// list with [`Batch::give_back`], so the next batch allocates nothing.
    pub fn take(&mut self) -> Vec<Item<S>> {
        std::mem::take(&mut self.items)
    }

    pub fn give_back(&mut self, mut emptied: Vec<Item<S>>) {
        if self.items.is_empty() {
            emptied.clear();
            self.items = emptied;
        }
    }

    /// Keep an item's buffer for the next batch.
    pub fn recycle(&mut self, item: Item<S>) {
        self.spare.push(item.buf);
    }
}
