//! The decryptor's engine batch: runs of whole CCMP-128 frames with known keys opened
//! together across the engine's lanes, then replay-checked, counted and written in capture
//! order; a frame a handshake earlier in the run re-keyed goes the ordinary way.

use crate::error::Error;
use crate::rx::{classify, Class, KeyTag, RxKey, Security};
use crate::wire::HeaderRepr;

use super::tracker::KeySlot;
use super::{deliver, link_of_header, Decryptor, Rejected};

/// A frame waiting in the engine batch: where its key is, the key it is opened with, and
/// its MAC header as parsed on arrival (its link, for the counts, and its delivery without
/// parsing it again).
#[derive(Clone, Copy)]
pub(super) struct Batched {
    key: KeySlot,
    /// The key in `key` when the frame joined the batch: a handshake finished earlier in
    /// the batch may have put another there, whose replay counters are not this frame's.
    tag: KeyTag,
    header: HeaderRepr,
}

impl Decryptor {
    /// Feed MPDUs in capture order, like [`Decryptor::process`] one by one; `emit(i, frame)`
    /// receives each decrypted frame with the index of the MPDU that completed it. Runs of
    /// whole CCMP-128 frames with known keys are opened together across the engine's lanes;
    /// their replay checks and output keep capture order. Per-frame errors are counted in
    /// [`Stats`](super::Stats); an error from `emit` stops the batch.
    pub fn process_batch<E>(
        &mut self,
        mpdus: &[&[u8]],
        mut emit: impl FnMut(usize, &[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        for (i, mpdu) in mpdus.iter().enumerate() {
            if let Some(batched) = self.batch_slot(mpdu) {
                self.batch.push(i, batched, mpdu, self.rules);
                continue;
            }
            self.open_batch(mpdus, &mut emit)?;
            match self.process(mpdu, |frame| emit(i, frame)) {
                Err(Rejected::Output(e)) => return Err(e),
                Ok(()) | Err(Rejected::Frame(_)) => {}
            }
        }
        self.open_batch(mpdus, &mut emit)?;
        self.evict();
        Ok(())
    }

    /// The key and link of a protected, unfragmented data frame that the engine can open in
    /// a batch.
    pub(super) fn batch_slot(&mut self, mpdu: &[u8]) -> Option<Batched> {
        let Ok(Class::Data(data)) = classify(mpdu, self.rules) else { return None };
        let unfragmented =
            !data.header.frame_control.more_fragments() && data.header.sequence_control.fragment_number() == 0;
        if !unfragmented || !matches!(data.security, Security::ExtIv { .. }) || !self.wanted(&data) {
            return None;
        }
        let slot = self.tracker.slot_of(&data, mpdu).ok()?;
        let key = self.tracker.key(slot)?;
        let batched = Batched { key: slot, tag: key.tag(), header: data.header };
        key.engine_key().is_some().then_some(batched)
    }

    /// Open the frames waiting in the batch at once, then replay-check, count and emit them
    /// in order (`mpdus`: the frames as received, for those the ordinary path retries).
    pub(super) fn open_batch<E>(
        &mut self,
        mpdus: &[&[u8]],
        emit: &mut impl FnMut(usize, &[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let tracker = &self.tracker;
        self.batch.open(|batched| tracker.key(batched.key));
        let keys_at_start = self.stats.installed_keys();
        let mut result = Ok(());
        let mut items = self.batch.take();
        for item in items.iter_mut() {
            let received = mpdus[item.index];
            self.links.enter(Some(link_of_header(&item.slot.header)), &mut self.stats);
            result = self.finish_item(item, received, keys_at_start, emit);
            if result.is_err() {
                break;
            }
        }
        self.batch.give_back(items);
        result
    }

    pub(super) fn finish_item<E>(
        &mut self,
        item: &mut crate::rx::batch::Item<Batched>,
        received: &[u8],
        keys_at_start: (u64, u64),
        emit: &mut impl FnMut(usize, &[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        let i = item.index;
        let slot = item.slot.key;
        let keys_changed = keys_at_start != self.stats.installed_keys();
        // Another key in its slot now (a handshake earlier in the batch): its replay
        // counters are not this frame's, so the frame goes the ordinary way (the new key,
        // else the one it replaced).
        let key_replaced = keys_changed && self.tracker.key(slot).map(RxKey::tag) != Some(item.slot.tag);
        // A frame that failed its MIC may fit another key: asked only then, as nearly every
        // frame opens.
        let retry = || keys_changed || self.tracker.has_other_given_key(slot) || self.tracker.has_previous_key(slot);
        if key_replaced || (item.verified() == Err(Error::MicFailure) && retry()) {
            return self.reprocess(received, |frame| emit(i, frame));
        }
        self.stats.packets_read += 1;
        self.stats.wpa_data += 1;
        let Some(key) = self.tracker.key_mut(slot) else {
            self.stats.count(false, &Err(Error::NoKey { group: false }));
            return Ok(());
        };
        let finished = item.finish(key);
        self.stats.count(false, &finished.as_ref().map(|_| ()).map_err(Clone::clone));
        let Ok(done) = finished else { return Ok(()) };
        let header = item.slot.header;
        match self.pipeline.receive_opened(item.buffer(), header, key, done.pn.value()) {
            Ok(Some(delivered)) => {
                deliver(delivered, self.form, &mut self.tracker, &mut self.stats, &mut |f| emit(i, f))
            }
            Ok(None) => {
                self.stats.not_written.fragments_held += 1;
                Ok(())
            }
            Err(_) => {
                self.stats.not_written.refused_after_decryption += 1;
                Ok(())
            }
        }
    }

    /// A batched frame that did not open under its key while a handshake earlier in the
    /// batch changed keys, or another given key may fit: the ordinary path tries them and
    /// counts the frame.
    pub(super) fn reprocess<E>(
        &mut self,
        mpdu: &[u8],
        emit: impl FnMut(&[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        match self.process_frame(mpdu, emit) {
            Err(Rejected::Output(e)) => Err(e),
            Ok(()) | Err(Rejected::Frame(_)) => Ok(()),
        }
    }
}
