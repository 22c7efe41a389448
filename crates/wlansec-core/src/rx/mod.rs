//! The receive pipeline, shared by the emulated access point, stations and IBSS peers and by
//! the capture decryptor, so every defence and decoder exists once.
//!
//! ```text
//! MPDU ─► classify ─► (owner picks the key) ─► decapsulate + replay check ─► defragment
//!      ─► Delivered ─► msdus() (A-MSDU subframes) ─► LLC/SNAP → Ethernet
//! ```
//!
//! * [`classify`](mod@classify): what a received MPDU is (management, data and its protection, other).
//! * [`key`]: [`RxKey`], one installed key: suite, Key ID, replay counters per TID.
//! * [`defrag`]: the fragment cache, bound to the key and PN of each fragment.
//! * [`msdu`]: A-MSDU subframes and the Ethernet form.
//! * [`port`]: the 802.1X controlled port: what of a delivered frame an AP, station or IBSS
//!   peer takes (the decryptor, an observer, takes everything).
//! * [`batch`]: many CCMP-128 frames opened at once across the engine's lanes.
//!
//! The owner holds its keys (a station its AP's, an AP each station's, the decryptor every
//! link's it learnt) and its policy (which frames it accepts unprotected); the pipeline
//! holds the fragment caches and one work buffer.

pub mod batch;
pub mod classify;
pub mod defrag;
pub mod key;
pub mod msdu;
pub mod port;

pub use classify::{classify, Class, DataFrame, Security};
pub use defrag::{Defragmenter, Protection, Reassembly};

#[cfg(test)]
mod attacks;
pub use key::{is_fragment, KeyTag, RxKey};
pub use msdu::{Delivered, Msdu, Msdus};

use crate::error::{Attack, Error, Result};
use crate::wire::{Frame, HeaderRepr, MacAddr, Rules};

/// The FragAttacks defences (Vanhoef, USENIX Security 2021) the pipeline applies, each
/// named by the CVE it closes. All are on by default; switching one off exists only to show
/// in a test or a measurement that the attack then succeeds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Defences {
    /// CVE-2020-24587: fragments join one MSDU only under one installed key.
    pub fragments_under_one_key: bool,
    /// CVE-2020-26146: ... and with consecutive packet numbers.
    pub consecutive_fragment_pns: bool,
    /// CVE-2020-26147: plaintext and protected fragments never join one MSDU.
    pub no_mixed_plaintext_fragments: bool,
    /// CVE-2020-26145: a group-addressed frame is never a fragment (IEEE 802.11 fragments
    /// only individually addressed MSDUs), so a broadcast fragment is refused.
    pub no_group_fragments: bool,
    /// CVE-2020-24588: an A-MSDU whose first subframe starts like an RFC 1042 LLC/SNAP
    /// header (`AA AA 03 00 00 00` as its DA) is a normal MSDU an attacker turned into an
    /// A-MSDU by flipping the unauthenticated A-MSDU Present bit; it is refused.
    pub amsdu_first_subframe_check: bool,
    /// CVE-2020-26140/26143/26144, applied by [`port::admit`]: on a protected network an
    /// unprotected frame passes only as one whole EAPOL frame (not fragmented, not in an
    /// A-MSDU).
    pub plaintext_only_eapol: bool,
    /// CVE-2020-26139, applied by [`port::admit`]: an EAPOL frame is taken only by the
    /// receiver's own handshake when addressed to it, never forwarded.
    pub eapol_only_to_its_receiver: bool,
}

impl Defences {
    pub const ALL: Defences = Defences {
        fragments_under_one_key: true,
        consecutive_fragment_pns: true,
        no_mixed_plaintext_fragments: true,
        no_group_fragments: true,
        amsdu_first_subframe_check: true,
        plaintext_only_eapol: true,
        eapol_only_to_its_receiver: true,
    };
}

impl Default for Defences {
    fn default() -> Self {
        Defences::ALL
    }
}

/// The first six octets of an RFC 1042 LLC/SNAP header.
const RFC1042_PREFIX: [u8; 6] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00];

/// The receive pipeline of one node.
pub struct Pipeline {
    rules: Rules,
    defences: Defences,
    fragments: Defragmenter,
    work: Vec<u8>,
}

impl Pipeline {
    pub fn new(rules: Rules) -> Self {
        Self::with_defences(rules, Defences::ALL)
    }

    pub fn with_defences(rules: Rules, defences: Defences) -> Self {
        Pipeline { rules, defences, fragments: Defragmenter::new(defences), work: Vec::with_capacity(4096) }
    }

    pub fn rules(&self) -> Rules {
        self.rules
    }

    pub fn defences(&self) -> Defences {
        self.defences
    }

    /// Hold at most `max` MSDUs in reassembly (default [`defrag::MAX_PARTIALS`]).
    pub fn with_fragment_limit(mut self, max: usize) -> Self {
        self.fragments = Defragmenter::new(self.defences).with_max(max);
        self
    }

    /// MSDUs in reassembly now.
    pub fn fragments_held(&self) -> usize {
        self.fragments.len()
    }

    /// MSDUs in reassembly dropped so far, by the cache's bound or their fragments' lifetime.
    pub fn fragments_dropped(&self) -> u64 {
        self.fragments.evicted() + self.fragments.expired()
    }

    /// Take one received data MPDU through decapsulation under `key` (when it is protected),
    /// the replay check and reassembly. Returns the whole MSDU, or `None` while fragments
    /// are still missing. A protected frame without a key is refused with [`Error::NoKey`].
    pub fn receive(&mut self, mpdu: &[u8], key: Option<&mut RxKey>) -> Result<Option<Delivered<'_>>> {
        self.work.clear();
        self.work.extend_from_slice(mpdu);
        let frame = Frame::new_checked(&self.work[..], self.rules)?;
        let (protected, group) = (frame.frame_control().protected(), frame.addr1().is_group());
        let (protection, key) = match (protected, key) {
            (false, _) => (None, None),
            (true, None) => return Err(Error::NoKey { group }),
            (true, Some(key)) => {
                let done = key.open(&mut self.work)?;
                self.work.truncate(done.mpdu_len);
                let pn = key.suite().replay_protected().then_some(done.pn.value());
                (Some(Protection { key: key.tag(), pn }), Some(&*key))
            }
        };
        self.complete(protected, protection, key)
    }

    /// Take the plaintext MPDU in `plaintext`, opened elsewhere under `key` (a batch), on
    /// through reassembly; the buffers are swapped, so no octet is copied. `header` is its
    /// MAC header as the owner parsed it on arrival: a whole MSDU is delivered without
    /// parsing the header again.
    pub(crate) fn receive_opened(
        &mut self,
        plaintext: &mut Vec<u8>,
        header: HeaderRepr,
        key: &RxKey,
        pn: u64,
    ) -> Result<Option<Delivered<'_>>> {
        std::mem::swap(&mut self.work, plaintext);
        let fragment = header.frame_control.more_fragments() || header.sequence_control.fragment_number() != 0;
        let header_len = header.header_len();
        if fragment || self.work.len() < header_len {
            let protection = Protection { key: key.tag(), pn: Some(pn) };
            return self.complete(true, Some(protection), Some(key));
        }
        self.fragments.forget(header.addr2);
        // The plaintext MPDU's header is the received one with Protected cleared.
        let frame_control = header.frame_control.with_flag(crate::wire::FrameControl::PROTECTED, false);
        self.deliver(HeaderRepr { frame_control, ..header }, header_len, true, false)
    }

    fn complete(
        &mut self,
        protected: bool,
        protection: Option<Protection>,
        key: Option<&RxKey>,
    ) -> Result<Option<Delivered<'_>>> {
        let rules = self.rules;
        let frame = Frame::new_checked(&self.work[..], rules)?;
        let header = HeaderRepr::parse(&frame)?;
        if !is_fragment(&frame) {
            // The common case, parsed once: a whole MSDU ends any MSDU in progress.
            let header_len = frame.header_len();
            self.fragments.forget(header.addr2);
            return self.deliver(header, header_len, protected, false);
        }
        if header.addr1.is_group() && self.defences.no_group_fragments {
            return Err(Attack::GroupFragment.into());
        }
        if self.fragments.push(header.addr2, &mut self.work, rules, protection)? == Reassembly::Pending {
            return Ok(None);
        }
        let (header, header_len) = defrag::header_of(&self.work, rules)?;
        if let Some(key) = key {
            let msdu_len = key.verify_reassembled(&Frame::new_checked(&self.work[..], rules)?)?;
            self.work.truncate(header_len + msdu_len);
        }
        self.deliver(header, header_len, protected, true)
    }

    fn deliver(
        &mut self,
        header: HeaderRepr,
        header_len: usize,
        protected: bool,
        reassembled: bool,
    ) -> Result<Option<Delivered<'_>>> {
        let amsdu = header.qos_control.is_some_and(|q| q.amsdu_present());
        if amsdu && self.defences.amsdu_first_subframe_check && self.work[header_len..].starts_with(&RFC1042_PREFIX) {
            return Err(Attack::AmsduInjection.into());
        }
        Ok(Some(Delivered { header, header_len, protected, reassembled, mpdu: &mut self.work }))
    }

    /// Forget every MSDU in progress: call on a key installation or a (re)association.
    pub fn clear_fragments(&mut self) {
        self.fragments.clear();
    }

    /// Forget the MSDU in progress from one transmitter (it left, or reassociated).
    pub fn forget(&mut self, ta: MacAddr) {
        self.fragments.forget(ta);
    }
}
