//! The receive state of one installed key: its suite, the Key ID it is installed under and
//! its replay counters (one per TID), updated only after a frame verifies.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::enhanced::MIC_LEN;
use crate::engine::{Engine, Key};
use crate::error::{Error, Result};
use crate::registry::SuiteId;
use crate::suite::tkip::Role;
use crate::suite::{ccmp, Decapsulated, FrameSuite, ReplayCounters, Tkip};
use crate::wire::{Frame, Rules};

/// Names one installed key for as long as the process runs: a key installed again (a rekey,
/// a reassociation) gets a new tag, so state bound to the old key (a fragment cache) can
/// tell it apart even when the key octets repeat.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct KeyTag(u64);

impl KeyTag {
    pub(crate) fn fresh() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        KeyTag(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// How the key opens frames.
enum Opener {
    /// The CCMP-128 family on the fast engine, which can also open many frames at once.
    Fast(Box<Key>),
    /// TKIP: fragments are opened one by one and Michael is checked on the whole MSDU.
    Tkip(Tkip),
    Suite(Box<dyn FrameSuite>),
}

/// One key as a receiver holds it.
pub struct RxKey {
    tag: KeyTag,
    suite: SuiteId,
    key_id: Option<u8>,
    opener: Opener,
    replay: ReplayCounters,
    rules: Rules,
}

impl RxKey {
    /// `suite` keyed with `tk`; frames under any Key ID until [`RxKey::with_key_id`].
    pub fn new(suite: SuiteId, tk: &[u8], rules: Rules) -> Result<Self> {
        let opener = match (suite, suite.engine_mode()) {
            (_, Some(mode)) => Opener::Fast(Box::new(Key::new(tk, mode)?)),
            (SuiteId::Tkip, None) => Opener::Tkip(Tkip::new(tk)?.with_rules(rules)),
            _ => Opener::Suite(suite.keyed(tk, rules)?),
        };
        Ok(RxKey { tag: KeyTag::fresh(), suite, key_id: None, opener, replay: ReplayCounters::default(), rules })
    }

    /// `suite`'s key whose frames `opener` opens (the same algorithm elsewhere, e.g. on a
    /// hardware model): Key ID and replay are checked here as for every key.
    pub fn with_opener(suite: SuiteId, opener: Box<dyn FrameSuite>, rules: Rules) -> Self {
        let opener = Opener::Suite(opener);
        RxKey { tag: KeyTag::fresh(), suite, key_id: None, opener, replay: ReplayCounters::default(), rules }
    }

    /// Accept only frames that name `key_id`, as a station with this key installed does.
    pub fn with_key_id(mut self, key_id: u8) -> Self {
        self.key_id = Some(key_id);
        self
    }

    /// Take every PN up to `rsc` as already received (on every TID): the Key RSC a group
    /// key is installed with, so its sender's earlier frames are refused as replays.
    pub fn with_rsc(mut self, rsc: u64) -> Self {
        self.replay = ReplayCounters::starting_at(rsc);
        self
    }

    /// The handshake side that receives under this TKIP key, which picks its Michael key
    /// (frame direction cannot tell in an IBSS). No effect on other suites.
    pub fn with_receiver_role(mut self, role: Role) -> Self {
        if let Opener::Tkip(tkip) = self.opener {
            self.opener = Opener::Tkip(tkip.with_role(role));
        }
        self
    }

    pub fn tag(&self) -> KeyTag {
        self.tag
    }

    pub fn suite(&self) -> SuiteId {
        self.suite
    }

    /// The engine key, when this key runs on the fast engine (batched opening).
    pub(crate) fn engine_key(&self) -> Option<&Key> {
        match &self.opener {
            Opener::Fast(key) => Some(key),
            _ => None,
        }
    }

    pub(crate) fn replay(&mut self) -> &mut ReplayCounters {
        &mut self.replay
    }

    fn check_key_id(&self, got: u8) -> Result<()> {
        match self.key_id {
            Some(expected) if expected != got => Err(Error::KeyId { expected, got }),
            _ => Ok(()),
        }
    }

    /// Verify, replay-check and decrypt the protected MPDU that is all of `buf`, leaving the
    /// plaintext MPDU at its front. A TKIP fragment is opened without its Michael check,
    /// which waits for the whole MSDU ([`RxKey::verify_reassembled`]).
    pub fn open(&mut self, buf: &mut [u8]) -> Result<Decapsulated> {
        let rules = self.rules;
        match &self.opener {
            Opener::Fast(key) => {
                let (prepared, peeked) = ccmp::prepare_decapsulate::<MIC_LEN>(buf, rules)?;
                self.check_key_id(peeked.key_id)?;
                self.replay.receive(peeked, || {
                    ccmp::open_prepared::<MIC_LEN>(buf, prepared, peeked, |nonce, aad, data, mic| {
                        Engine::new().open(key, nonce, aad, data, mic)
                    })
                })
            }
            Opener::Tkip(tkip) => {
                let peeked = tkip.peek(buf)?;
                self.check_key_id(peeked.key_id)?;
                let fragment = is_fragment(&Frame::new_checked(&*buf, rules)?);
                self.replay
                    .receive(peeked, || if fragment { tkip.decapsulate_mpdu(buf) } else { tkip.decapsulate(buf) })
            }
            Opener::Suite(suite) => {
                let peeked = suite.peek(buf)?;
                self.check_key_id(peeked.key_id)?;
                if suite.replay_protected() {
                    self.replay.receive(peeked, || suite.decapsulate(buf))
                } else {
                    suite.decapsulate(buf)
                }
            }
        }
    }

    /// Check what the suite checks on a whole MSDU reassembled from fragments (TKIP's
    /// Michael MIC) given its first fragment's header in `frame`; returns the MSDU length
    /// without what the check consumed.
    pub fn verify_reassembled<T: AsRef<[u8]>>(&self, frame: &Frame<T>) -> Result<usize> {
        match &self.opener {
            Opener::Tkip(tkip) => tkip.verify_msdu(frame, frame.body()),
            _ => Ok(frame.body().len()),
        }
    }
}

/// Whether a frame is one fragment of a larger MSDU.
pub fn is_fragment<T: AsRef<[u8]>>(frame: &Frame<T>) -> bool {
    frame.frame_control().more_fragments() || frame.sequence_control().is_some_and(|sc| sc.fragment_number() != 0)
}
