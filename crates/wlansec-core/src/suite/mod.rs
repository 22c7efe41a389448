//! Data-confidentiality cipher suites behind one trait, and the per-key packet-number state
//! around them: a transmit PN that never repeats, and receive replay counters.

pub mod bip;
pub mod ccmp;
pub mod gcmp;
pub mod michael;
pub mod mpdu;
pub mod tkip;
pub mod wep;

pub use bip::{BipAlgorithm, BipReceiver, Igtk};
pub use ccmp::{Ccmp, Ccmp128, Ccmp256, Sealer};
pub use gcmp::{Gcmp, Gcmp128, Gcmp256};
pub use michael::{Countermeasure, MicFailureMonitor};
pub use mpdu::{Aad, Pn, PnHeader, ReplayClass};
pub use tkip::Tkip;
pub use wep::Wep;

use crate::error::{Error, Result};

/// What decapsulation learnt about a frame besides its plaintext.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Decapsulated {
    /// Length of the plaintext MPDU now at the front of the buffer.
    pub mpdu_len: usize,
    pub pn: Pn,
    pub key_id: u8,
    pub class: ReplayClass,
}

/// The security header a suite expects on a protected frame, read without decrypting.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Peeked {
    pub pn: Pn,
    pub key_id: u8,
    pub class: ReplayClass,
}

/// A per-MPDU data-confidentiality suite keyed with one temporal key.
///
/// Both directions work in place: `encapsulate` turns the plaintext MPDU in
/// `buf[..mpdu_len]` into the protected one (which is `overhead()` octets longer, so `buf`
/// must have that much room) and returns its length; `decapsulate` verifies and decrypts the
/// protected MPDU that is all of `buf`, leaving the plaintext MPDU at the front of `buf`.
pub trait FrameSuite {
    /// Octets the suite adds to an MPDU (security header plus MIC/ICV).
    fn overhead(&self) -> usize;
    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize>;
    fn peek(&self, buf: &[u8]) -> Result<Peeked>;
    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated>;
    /// Whether the suite's packet numbers are replay-checked (false only for WEP, whose IV
    /// is not a counter).
    fn replay_protected(&self) -> bool {
        true
    }
    /// What the suite appends to a whole MSDU before it is fragmented, given the MSDU's
    /// unfragmented, unprotected MPDU: TKIP's Michael MIC; nothing for per-MPDU suites.
    fn msdu_mic(&self, _mpdu: &[u8]) -> Result<Option<[u8; 8]>> {
        Ok(None)
    }
    /// Protect one fragment of an MSDU that already carries its `msdu_mic`; adds
    /// `fragment_overhead()` octets.
    fn encapsulate_fragment(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        self.encapsulate(buf, mpdu_len, pn, key_id)
    }
    /// Octets the suite adds to each fragment (without the per-MSDU MIC).
    fn fragment_overhead(&self) -> usize {
        self.overhead()
    }
}

/// The transmit packet number of one key: starts at 1, strictly increases, never wraps.
#[derive(Clone, Debug)]
pub struct PnCounter {
    next: u64,
}

impl Default for PnCounter {
    fn default() -> Self {
        PnCounter { next: 1 }
    }
}

impl PnCounter {
    /// A counter whose next PN is `next` (e.g. to resume, or to test exhaustion).
    pub fn starting_at(next: u64) -> Self {
        PnCounter { next }
    }

    /// The PN `next_pn` will give, without using it.
    pub fn peek(&self) -> u64 {
        self.next
    }

    pub fn next_pn(&mut self) -> Result<Pn> {
        if self.next > Pn::MAX {
            return Err(Error::PnExhausted);
        }
        let pn = Pn::new(self.next)?;
        self.next += 1;
        Ok(pn)
    }

    /// The last PN handed out (0 before the first): what a receiver that joins now must
    /// take as already seen, the Key RSC of a group key.
    pub fn last(&self) -> u64 {
        self.next.saturating_sub(1)
    }
}

/// Receive replay counters of one key, one per `ReplayClass`. Each holds the lowest PN it
/// still accepts, so a fresh key accepts PN 0: a transmitter may start its counter there
/// (IEEE 802.11-2020 12.5.3.3.2 only asks that PNs increase), and tshark opens such a
/// first frame too. Every later repeat is refused.
#[derive(Clone, Debug, Default)]
pub struct ReplayCounters {
    lowest_accepted: [u64; ReplayClass::COUNT],
}

impl ReplayCounters {
    /// Counters that refuse every PN up to `last` on every TID: a group key installed with
    /// the Key RSC its sender gave, so frames sent before the receiver joined are replays.
    pub fn starting_at(last: u64) -> Self {
        ReplayCounters { lowest_accepted: [last.saturating_add(1); ReplayClass::COUNT] }
    }

    pub fn check(&self, class: ReplayClass, pn: Pn) -> Result<()> {
        let lowest = self.lowest_accepted[class.index()];
        if pn.value() < lowest {
            // `lowest` is above 0 here: a PN was accepted (or taken as seen) before.
            return Err(Error::Replay { pn: pn.value(), last: lowest - 1 });
        }
        Ok(())
    }

    /// Record a PN whose MIC has verified.
    pub fn commit(&mut self, class: ReplayClass, pn: Pn) {
        let slot = &mut self.lowest_accepted[class.index()];
        *slot = (*slot).max(pn.value() + 1);
    }

    /// The replay-checked receive sequence: refuse a PN not above the last one accepted,
    /// then `decapsulate`, and record the PN only once the frame has verified.
    pub fn receive(
        &mut self,
        peeked: Peeked,
        decapsulate: impl FnOnce() -> Result<Decapsulated>,
    ) -> Result<Decapsulated> {
        self.check(peeked.class, peeked.pn)?;
        let done = decapsulate()?;
        self.commit(done.class, done.pn);
        Ok(done)
    }
}

/// The sending side of a key: suite, Key ID and PN counter.
pub struct Transmitter<S> {
    suite: S,
    key_id: u8,
    pn: PnCounter,
}

impl<S: FrameSuite> Transmitter<S> {
    pub fn new(suite: S, key_id: u8) -> Self {
        Transmitter { suite, key_id, pn: PnCounter::default() }
    }

    pub fn with_pn_counter(mut self, pn: PnCounter) -> Self {
        self.pn = pn;
        self
    }

    /// The last PN this key sent (0 before the first frame): the Key RSC to give a receiver.
    pub fn last_pn(&self) -> u64 {
        self.pn.last()
    }

    /// Protect the MPDU in `buf[..mpdu_len]` with the next PN; returns the protected length.
    pub fn protect(&mut self, buf: &mut [u8], mpdu_len: usize) -> Result<usize> {
        let needed = mpdu_len + self.suite.overhead();
        if buf.len() < needed {
            return Err(Error::BufferTooSmall { needed, got: buf.len() });
        }
        let pn = self.pn.next_pn()?;
        self.suite.encapsulate(buf, mpdu_len, pn, self.key_id)
    }

    /// Protect one fragment (its MSDU already carries the suite's `msdu_mic`) with the
    /// next PN, so the fragments of one MSDU get consecutive PNs.
    pub fn protect_fragment(&mut self, buf: &mut [u8], mpdu_len: usize) -> Result<usize> {
        let needed = mpdu_len + self.suite.fragment_overhead();
        if buf.len() < needed {
            return Err(Error::BufferTooSmall { needed, got: buf.len() });
        }
        let pn = self.pn.next_pn()?;
        self.suite.encapsulate_fragment(buf, mpdu_len, pn, self.key_id)
    }

    pub fn suite(&self) -> &S {
        &self.suite
    }

    /// The PN the next frame will carry (what an authenticator sends as the group RSC).
    pub fn next_pn(&self) -> u64 {
        self.pn.peek()
    }
}

/// The receiving side of a key: suite, the Key ID it is installed under, and replay
/// counters updated only after the MIC verifies.
pub struct Receiver<S> {
    suite: S,
    key_id: Option<u8>,
    replay: ReplayCounters,
}

impl<S: FrameSuite> Receiver<S> {
    /// A receiver that takes frames under any Key ID (e.g. a tool decoding one frame).
    pub fn new(suite: S) -> Self {
        Receiver { suite, key_id: None, replay: ReplayCounters::default() }
    }

    /// Accept only frames that name `key_id`, as a station with this key installed does.
    pub fn with_key_id(mut self, key_id: u8) -> Self {
        self.key_id = Some(key_id);
        self
    }

    /// Verify, replay-check and decrypt the protected MPDU that is all of `buf`.
    pub fn unprotect(&mut self, buf: &mut [u8]) -> Result<Decapsulated> {
        let peeked = self.suite.peek(buf)?;
        if let Some(expected) = self.key_id.filter(|&k| k != peeked.key_id) {
            return Err(Error::KeyId { expected, got: peeked.key_id });
        }
        if self.suite.replay_protected() {
            self.replay.receive(peeked, || self.suite.decapsulate(buf))
        } else {
            self.suite.decapsulate(buf)
        }
    }
}

impl<S: FrameSuite + ?Sized> FrameSuite for Box<S> {
    fn overhead(&self) -> usize {
        (**self).overhead()
    }
    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        (**self).encapsulate(buf, mpdu_len, pn, key_id)
    }
    fn peek(&self, buf: &[u8]) -> Result<Peeked> {
        (**self).peek(buf)
    }
    fn decapsulate(&self, buf: &mut [u8]) -> Result<Decapsulated> {
        (**self).decapsulate(buf)
    }
    fn replay_protected(&self) -> bool {
        (**self).replay_protected()
    }
    fn msdu_mic(&self, mpdu: &[u8]) -> Result<Option<[u8; 8]>> {
        (**self).msdu_mic(mpdu)
    }
    fn encapsulate_fragment(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> Result<usize> {
        (**self).encapsulate_fragment(buf, mpdu_len, pn, key_id)
    }
    fn fragment_overhead(&self) -> usize {
        (**self).fragment_overhead()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_key_accepts_pn_0_once_and_then_only_higher_pns() {
        let (class, pn) = (ReplayClass::NonQosData, |v| Pn::new(v).unwrap());
        let mut counters = ReplayCounters::default();
        assert_eq!(counters.check(class, pn(0)), Ok(()));
        counters.commit(class, pn(0));
        assert_eq!(counters.check(class, pn(0)), Err(Error::Replay { pn: 0, last: 0 }));
        assert_eq!(counters.check(class, pn(1)), Ok(()));
        counters.commit(class, pn(7));
        assert_eq!(counters.check(class, pn(7)), Err(Error::Replay { pn: 7, last: 7 }));
        let from_rsc = ReplayCounters::starting_at(5);
        assert_eq!(from_rsc.check(class, pn(5)), Err(Error::Replay { pn: 5, last: 5 }));
        assert_eq!(from_rsc.check(class, pn(6)), Ok(()));
        assert_eq!(ReplayCounters::starting_at(0).check(class, pn(0)), Err(Error::Replay { pn: 0, last: 0 }));
    }
}
