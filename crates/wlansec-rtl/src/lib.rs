//! The access point's CCMP-128 in its own Verilog: `ccmp_axi` (encapsulation) and
//! `ccmp_decap_axi` (decapsulation) from hdl/rtl, verilated by build.rs, driven the way a
//! device driver drives them: TK, Key ID, 802.11n rules and PN through the AXI4-Lite
//! registers (hdl/README.md's map), each MPDU in and out on the AXI4-Stream ports, one clock
//! cycle at a time. [`Card`] is the driver and counts the cycles every frame took (the crypto
//! time on the air is that count at the card's clock); [`VerilogCcmp`] puts it behind the
//! engine's `FrameSuite`, so a `Transmitter` seals and an `RxKey` opens through the RTL.
//!
//! Without verilator at build time the crate still builds; [`Card::new`] then fails with
//! [`Error::NotBuilt`].

mod model;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;

use wlansec_core::suite::{Ccmp128, Decapsulated, FrameSuite, Peeked, Pn};
use wlansec_core::wire::{Frame, Rules};

pub use model::{Design, Peripheral, Transfer};

/// Why the RTL could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The crate was built without verilator: no models.
    NotBuilt,
    /// A register access answered SLVERR (or another response than OKAY).
    Bus { addr: u8, resp: u8 },
    /// The peripheral did not answer within its cycle budget.
    Hung(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotBuilt => f.write_str("the RTL models are not built (verilator was not installed at build time)"),
            Error::Bus { addr, resp } => write!(f, "the RTL answered the register access at 0x{addr:02x} with {resp}"),
            Error::Hung(what) => write!(f, "the RTL did not finish {what}"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

impl From<Error> for wlansec_core::Error {
    fn from(e: Error) -> Self {
        wlansec_core::Error::Unsupported(match e {
            Error::NotBuilt => "the RTL models are not built (no verilator at build time)",
            Error::Bus { .. } => "the RTL refused a register access",
            Error::Hung(_) => "the RTL did not answer",
        })
    }
}

/// ccmp_axi_regs' register map (hdl/README.md), byte addresses.
mod reg {
    pub const CTRL: u8 = 0x00;
    pub const STATUS: u8 = 0x04;
    pub const FRAMES_DROPPED: u8 = 0x0C;
    pub const KEY0: u8 = 0x10;
    pub const PN_LO: u8 = 0x20;
    pub const PN_HI: u8 = 0x24;
    /// CTRL: frames may start; 802.11n header rules; Key ID in bits 3:2.
    pub const ENABLE: u32 = 1;
    pub const HT_CONTROL: u32 = 2;
    /// STATUS: PN 2^48-1 used, no frame starts until a PN is written.
    pub const PN_EXHAUSTED: u32 = 2;
}

/// The longest body the peripherals take (their MAX_BODY).
pub const MAX_BODY: usize = 2304;
/// CCMP-128's header and MIC.
const OVERHEAD: usize = 16;
/// Sealed frames remembered for [`Card::seal_cycles`] (a frame the caller never asks about
/// leaves the log as newer ones come).
const SEAL_LOG: usize = 256;

/// A frame's cycle budget: the core's 10 cycles a block and the streams' one beat a cycle,
/// with ample margin (a frame that takes longer is a hung design).
fn budget(len: usize) -> u64 {
    2_000 + 20 * len as u64
}

/// What a driver remembers of the registers it wrote, so it writes only what changes.
struct Driven {
    p: Peripheral,
    design: Design,
    tk: Option<[u8; 16]>,
    ctrl: Option<u32>,
    /// FRAMES_DROPPED when last read (read only when a frame did not come out).
    dropped: u32,
}

impl Driven {
    fn new(design: Design) -> Result<Self> {
        Ok(Driven { p: Peripheral::new(design)?, design, tk: None, ctrl: None, dropped: 0 })
    }

    /// TK and CTRL as a frame needs them.
    fn configure(&mut self, tk: &[u8; 16], ctrl: u32) -> Result<()> {
        if self.tk.as_ref() != Some(tk) {
            for (k, word) in tk.chunks_exact(4).enumerate() {
                self.p.write(reg::KEY0 + 4 * k as u8, u32::from_le_bytes(word.try_into().expect("4 octets")))?;
            }
            self.tk = Some(*tk);
        }
        if self.ctrl != Some(ctrl) {
            self.p.write(reg::CTRL, ctrl)?;
            self.ctrl = Some(ctrl);
        }
        Ok(())
    }

    /// Whether the frame that did not come out was dropped (FRAMES_DROPPED moved).
    fn dropped(&mut self) -> Result<bool> {
        let now = self.p.read(reg::FRAMES_DROPPED)?;
        let moved = now != self.dropped;
        self.dropped = now;
        Ok(moved)
    }

    /// A fresh model after a hang (the frame half in cannot be taken back).
    fn restart(&mut self) -> Result<()> {
        *self = Driven::new(self.design)?;
        Ok(())
    }
}

/// What became of a frame the card was given.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The frame that came out and the clock cycles it took, register writes included.
    Done { refused: bool, cycles: u64 },
    /// The peripheral dropped the frame (FRAMES_DROPPED): malformed, or a body over
    /// [`MAX_BODY`] octets.
    Dropped,
    /// The PN register is exhausted (PN 2^48-1 used): no frame starts until a PN is written.
    PnExhausted,
}

/// The access point's crypto card: one encapsulation and one decapsulation peripheral and
/// their driver.
pub struct Card {
    seal: Driven,
    open: Driven,
    /// The PN register of `seal` as the driver knows it (it steps once per frame).
    next_pn: u64,
    sealed: VecDeque<(Vec<u8>, u64)>,
    open_cycles: u64,
}

/// A card shared by the keys that use it (one per station and the group key).
pub type SharedCard = Rc<RefCell<Card>>;

impl Card {
    /// The two peripherals out of reset.
    pub fn new() -> Result<Self> {
        Card::with_encapsulation(Design::Encap)
    }

    /// A card whose encapsulation is `design` (the mutant, to see a test fail).
    pub fn with_encapsulation(design: Design) -> Result<Self> {
        Ok(Card {
            seal: Driven::new(design)?,
            open: Driven::new(Design::Decap)?,
            next_pn: 1,
            sealed: VecDeque::new(),
            open_cycles: 0,
        })
    }

    pub fn shared(self) -> SharedCard {
        Rc::new(RefCell::new(self))
    }

    /// Protect the plaintext MPDU `plain` under `tk` and `key_id` with PN `pn` (None: the PN
    /// register's, which steps per frame) into `out`. The PN is written only when it is not
    /// the register's already.
    pub fn seal(
        &mut self,
        plain: &[u8],
        tk: &[u8; 16],
        key_id: u8,
        pn: Option<u64>,
        rules: Rules,
        out: &mut Vec<u8>,
    ) -> Result<Outcome> {
        let start = self.seal.p.cycles();
        let ctrl = (u32::from(key_id & 3) << 2) | if rules.ht_control { reg::HT_CONTROL } else { 0 } | reg::ENABLE;
        self.seal.configure(tk, ctrl)?;
        if let Some(pn) = pn.filter(|pn| *pn != self.next_pn) {
            self.seal.p.write(reg::PN_LO, pn as u32)?;
            self.seal.p.write(reg::PN_HI, (pn >> 32) as u32)?;
            self.next_pn = pn;
        }
        out.clear();
        if self.seal.p.transfer(plain, out, budget(plain.len())).is_none() {
            if self.seal.p.read(reg::STATUS)? & reg::PN_EXHAUSTED != 0 {
                return Ok(Outcome::PnExhausted);
            }
            if self.seal.dropped()? {
                return Ok(Outcome::Dropped);
            }
            self.seal.restart()?;
            self.next_pn = 1;
            return Err(Error::Hung("a frame"));
        }
        self.next_pn += 1;
        let cycles = self.seal.p.cycles() - start;
        if self.sealed.len() == SEAL_LOG {
            self.sealed.pop_front();
        }
        self.sealed.push_back((out.clone(), cycles));
        Ok(Outcome::Done { refused: false, cycles })
    }

    /// Open the protected MPDU `protected` under `tk` into `out` (the plaintext MPDU, its
    /// Protected bit clear); `refused` is the RTL's verdict (MIC mismatch, Protected or Ext IV
    /// clear). Key ID and replay are the caller's.
    pub fn open(&mut self, protected: &[u8], tk: &[u8; 16], rules: Rules, out: &mut Vec<u8>) -> Result<Outcome> {
        let start = self.open.p.cycles();
        let ctrl = if rules.ht_control { reg::HT_CONTROL } else { 0 } | reg::ENABLE;
        self.open.configure(tk, ctrl)?;
        out.clear();
        let Some(transfer) = self.open.p.transfer(protected, out, budget(protected.len())) else {
            if self.open.dropped()? {
                return Ok(Outcome::Dropped);
            }
            self.open.restart()?;
            return Err(Error::Hung("a frame"));
        };
        let cycles = self.open.p.cycles() - start;
        self.open_cycles += cycles;
        Ok(Outcome::Done { refused: transfer.tuser, cycles })
    }

    /// The cycles the card took to seal `mpdu`, one of the last frames it sealed (each
    /// answered once).
    pub fn seal_cycles(&mut self, mpdu: &[u8]) -> Option<u64> {
        let at = self.sealed.iter().position(|(sealed, _)| sealed == mpdu)?;
        self.sealed.remove(at).map(|(_, cycles)| cycles)
    }

    /// Cycles spent opening frames so far.
    pub fn open_cycles(&self) -> u64 {
        self.open_cycles
    }
}

/// CCMP-128 keyed with one TK, on a [`Card`]: the engine's `FrameSuite`, so every frame it
/// seals or opens is the RTL's work. The PN comes from the caller's `Transmitter` and goes
/// to the PN register; the RTL's verdict is the engine's `MicFailure`.
pub struct VerilogCcmp {
    card: SharedCard,
    tk: [u8; 16],
    rules: Rules,
    /// Reads a frame's layout (CCMP header, lengths) as the host suite does; its key is
    /// never used.
    layout: Ccmp128,
}

impl VerilogCcmp {
    pub fn new(card: SharedCard, tk: &[u8], rules: Rules) -> wlansec_core::Result<Self> {
        let tk: [u8; 16] = tk.try_into().map_err(|_| wlansec_core::Error::KeyLength { expected: 16, got: tk.len() })?;
        Ok(VerilogCcmp { card, tk, rules, layout: Ccmp128::new(&[0; 16])?.with_rules(rules) })
    }

    /// Frames the RTL authenticates differently from the standard: with SPP A-MSDU the
    /// A-MSDU Present bit is in the AAD, which ccmp_format always masks.
    fn check_rules<T: AsRef<[u8]>>(&self, frame: &Frame<T>) -> wlansec_core::Result<()> {
        let amsdu = frame.qos_control().is_some_and(|qc| qc.amsdu_present());
        if self.rules.spp_amsdu && amsdu {
            return Err(wlansec_core::Error::Unsupported("SPP A-MSDU: the RTL masks the A-MSDU Present bit"));
        }
        Ok(())
    }
}

impl Drop for VerilogCcmp {
    fn drop(&mut self) {
        self.tk.fill(0);
    }
}

impl FrameSuite for VerilogCcmp {
    fn overhead(&self) -> usize {
        OVERHEAD
    }

    fn encapsulate(&self, buf: &mut [u8], mpdu_len: usize, pn: Pn, key_id: u8) -> wlansec_core::Result<usize> {
        let plain =
            buf.get(..mpdu_len).ok_or(wlansec_core::Error::BufferTooSmall { needed: mpdu_len, got: buf.len() })?;
        let frame = Frame::new_checked(plain, self.rules)?;
        wlansec_core::suite::mpdu::check_protectable(&frame)?;
        self.check_rules(&frame)?;
        if frame.body().len() > MAX_BODY {
            return Err(wlansec_core::Error::Unsupported("a body over the RTL's 2304 octets"));
        }
        let mut out = Vec::with_capacity(mpdu_len + OVERHEAD);
        match self.card.borrow_mut().seal(plain, &self.tk, key_id, Some(pn.value()), self.rules, &mut out)? {
            Outcome::Done { .. } => {}
            Outcome::PnExhausted => return Err(wlansec_core::Error::PnExhausted),
            Outcome::Dropped => return Err(wlansec_core::Error::Unsupported("a frame the RTL drops")),
        }
        let dst =
            buf.get_mut(..out.len()).ok_or(wlansec_core::Error::BufferTooSmall { needed: out.len(), got: mpdu_len })?;
        dst.copy_from_slice(&out);
        Ok(out.len())
    }

    fn peek(&self, buf: &[u8]) -> wlansec_core::Result<Peeked> {
        self.layout.peek(buf)
    }

    fn decapsulate(&self, buf: &mut [u8]) -> wlansec_core::Result<Decapsulated> {
        let peeked = self.peek(buf)?;
        let frame = Frame::new_checked(&*buf, self.rules)?;
        self.check_rules(&frame)?;
        if frame.body().len() > MAX_BODY + OVERHEAD {
            return Err(wlansec_core::Error::Unsupported("a body over the RTL's 2304 octets"));
        }
        let mut out = Vec::with_capacity(buf.len());
        match self.card.borrow_mut().open(buf, &self.tk, self.rules, &mut out)? {
            Outcome::Done { refused: false, .. } => {}
            Outcome::Done { refused: true, .. } => return Err(wlansec_core::Error::MicFailure),
            Outcome::Dropped | Outcome::PnExhausted => {
                return Err(wlansec_core::Error::Unsupported("a frame the RTL drops"))
            }
        }
        buf[..out.len()].copy_from_slice(&out);
        Ok(Decapsulated { mpdu_len: out.len(), pn: peeked.pn, key_id: peeked.key_id, class: peeked.class })
    }
}
