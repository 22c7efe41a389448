//! Where a node's CCMP-128 keys run: the host engine, or the access point's Verilog card
//! (`--ap-crypto verilog:MHZ`, the cargo feature `verilog`): the RTL of hdl/rtl verilated
//! and driven through its registers and streams (`wlansec-rtl`), so every frame the access
//! point seals or opens under a CCMP key is the RTL's work, and the card counts the cycles
//! each took.

use wlansec_core::suite::Transmitter;
use wlansec_core::wire::Rules;

use crate::node::AnyTransmitter;
use crate::security::{LinkKeys, SecurityMode};
use crate::{Error, Result};

#[cfg(feature = "verilog")]
mod card {
    use wlansec_core::registry::SuiteId;
    use wlansec_core::rx::RxKey;
    use wlansec_rtl::VerilogCcmp;

    use super::*;

    /// The verilated card, shared by every key the access point holds.
    pub type Card = wlansec_rtl::SharedCard;

    pub fn open() -> Result<Card> {
        Ok(wlansec_rtl::Card::new().map_err(|e| Error::Verilog(e.to_string()))?.shared())
    }

    pub fn pairwise(card: &Card, tk: &[u8], rules: Rules) -> Result<LinkKeys> {
        Ok(LinkKeys {
            tx: Transmitter::new(Box::new(VerilogCcmp::new(card.clone(), tk, rules)?), 0),
            rx: RxKey::with_opener(SuiteId::Ccmp128, Box::new(VerilogCcmp::new(card.clone(), tk, rules)?), rules)
                .with_key_id(0),
        })
    }

    pub fn group_tx(card: &Card, gtk: &[u8], key_id: u8) -> Result<AnyTransmitter> {
        Ok(Transmitter::new(Box::new(VerilogCcmp::new(card.clone(), gtk, Rules::default())?), key_id))
    }

    pub fn seal_cycles(card: &Card, mpdu: &[u8]) -> Option<u64> {
        card.borrow_mut().seal_cycles(mpdu)
    }

    pub fn open_cycles(card: &Card) -> u64 {
        card.borrow().open_cycles()
    }
}

/// Without the feature no card can be opened: [`open`] says why, and the rest is never
/// reached.
#[cfg(not(feature = "verilog"))]
mod card {
    use super::*;

    #[derive(Clone)]
    pub struct Card(());

    fn not_built() -> Error {
        Error::Verilog("this wlansec was built without the `verilog` feature".into())
    }

    pub fn open() -> Result<Card> {
        Err(not_built())
    }

    pub fn pairwise(_: &Card, _: &[u8], _: Rules) -> Result<LinkKeys> {
        Err(not_built())
    }

    pub fn group_tx(_: &Card, _: &[u8], _: u8) -> Result<AnyTransmitter> {
        Err(not_built())
    }

    pub fn seal_cycles(_: &Card, _: &[u8]) -> Option<u64> {
        None
    }

    pub fn open_cycles(_: &Card) -> u64 {
        0
    }
}

pub use card::Card;

/// Whether this build has the Verilog card.
pub const BUILT: bool = cfg!(feature = "verilog");

/// The access point's Verilog card out of reset.
pub fn open_card() -> Result<Card> {
    card::open()
}

/// The cycles the card took to seal `mpdu` (one of the last frames it sealed), if it did.
pub(crate) fn seal_cycles(card: &Card, mpdu: &[u8]) -> Option<u64> {
    card::seal_cycles(card, mpdu)
}

/// The cycles the card has spent opening frames.
pub(crate) fn open_cycles(card: &Card) -> u64 {
    card::open_cycles(card)
}

/// Where a node's CCMP-128 keys run.
#[derive(Clone, Default)]
pub enum CcmpOn {
    /// The host engine (every node but an access point with a Verilog card).
    #[default]
    Host,
    Card(Card),
}

impl CcmpOn {
    /// The pairwise keys of a link of `mode` under `tk` with the link's `rules`.
    pub(crate) fn pairwise(&self, mode: SecurityMode, tk: &[u8], rules: Rules) -> Result<LinkKeys> {
        match self {
            CcmpOn::Card(card) if mode == SecurityMode::Ccmp => card::pairwise(card, tk, rules),
            _ => LinkKeys::pairwise_under(mode, tk, rules),
        }
    }

    /// The group transmitter of `mode` under `gtk` and `key_id`.
    pub(crate) fn group_tx(&self, mode: SecurityMode, gtk: &[u8], key_id: u8) -> Result<AnyTransmitter> {
        match self {
            CcmpOn::Card(card) if mode == SecurityMode::Ccmp => card::group_tx(card, gtk, key_id),
            _ => Ok(Transmitter::new(mode.group_suite(gtk)?, key_id)),
        }
    }
}
