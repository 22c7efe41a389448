//! The suite registry: every data-confidentiality suite wlansec implements, by name, and the
//! one place a temporal key becomes a [`FrameSuite`]. The CLI, the emulated WLAN, the capture
//! generator and the receive pipeline all key their suites here, so CCMP-128 always runs on
//! the fast engine (byte-identical to the golden `suite::Ccmp128`).
//!
//! It sits above `suite` and `engine` (it picks between them), so neither imports it.

use core::fmt;
use core::str::FromStr;

use crate::engine::enhanced::{enhanced_selector, enhanced_ways};
use crate::engine::{Engine, FastCcmp, Mode, Variant, Ways};
use crate::error::{Error, Result};
use crate::rsn::CipherSuite;
use crate::suite::{Ccmp256, FrameSuite, Gcmp128, Gcmp256, Tkip, Wep};
use crate::wire::Rules;

/// A data-confidentiality suite.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum SuiteId {
    Ccmp128,
    Ccmp256,
    Gcmp128,
    Gcmp256,
    /// TKIP with a 32-octet TK (key, then the two Michael keys); the PN is the TSC.
    Tkip,
    /// WEP-40; the PN is the 24-bit IV.
    Wep40,
    /// WEP-104.
    Wep104,
    /// Enhanced CCMP-N (docs/enhanced-ccmp.md); `Ways::N1` is CCMP-128 itself.
    Enhanced(Ways),
}

impl SuiteId {
    /// Every suite, in the order tables list them.
    pub const ALL: [SuiteId; 10] = [
        SuiteId::Ccmp128,
        SuiteId::Ccmp256,
        SuiteId::Gcmp128,
        SuiteId::Gcmp256,
        SuiteId::Tkip,
        SuiteId::Wep40,
        SuiteId::Wep104,
        SuiteId::Enhanced(Ways::N2),
        SuiteId::Enhanced(Ways::N4),
        SuiteId::Enhanced(Ways::N8),
    ];

    pub fn label(self) -> &'static str {
        match self {
            SuiteId::Ccmp128 | SuiteId::Enhanced(Ways::N1) => "ccmp128",
            SuiteId::Ccmp256 => "ccmp256",
            SuiteId::Gcmp128 => "gcmp128",
            SuiteId::Gcmp256 => "gcmp256",
            SuiteId::Tkip => "tkip",
            SuiteId::Wep40 => "wep40",
            SuiteId::Wep104 => "wep104",
            SuiteId::Enhanced(Ways::N2) => "enhanced-2",
            SuiteId::Enhanced(Ways::N4) => "enhanced-4",
            SuiteId::Enhanced(Ways::N8) => "enhanced-8",
        }
    }

    /// Octets of the temporal key.
    pub fn key_len(self) -> usize {
        match self {
            SuiteId::Ccmp128 | SuiteId::Gcmp128 | SuiteId::Enhanced(_) => 16,
            SuiteId::Ccmp256 | SuiteId::Gcmp256 | SuiteId::Tkip => 32,
            SuiteId::Wep40 => 5,
            SuiteId::Wep104 => 13,
        }
    }

    /// Whether the suite's packet numbers are replay-checked (WEP's IV is not a counter).
    pub fn replay_protected(self) -> bool {
        !matches!(self, SuiteId::Wep40 | SuiteId::Wep104)
    }

    /// The suite an RSN cipher selector names (Enhanced CCMP-N by its vendor selector).
    pub fn from_cipher(cipher: CipherSuite) -> Result<Self> {
        Ok(match cipher {
            CipherSuite::Ccmp128 => SuiteId::Ccmp128,
            CipherSuite::Ccmp256 => SuiteId::Ccmp256,
            CipherSuite::Gcmp128 => SuiteId::Gcmp128,
            CipherSuite::Gcmp256 => SuiteId::Gcmp256,
            CipherSuite::Tkip => SuiteId::Tkip,
            CipherSuite::Wep40 => SuiteId::Wep40,
            CipherSuite::Wep104 => SuiteId::Wep104,
            other => match enhanced_ways(&other.selector()) {
                Some(ways) => SuiteId::Enhanced(ways),
                None => return Err(Error::Unsupported("cipher suite without a data-frame implementation")),
            },
        })
    }

    /// The RSN cipher selector of the suite.
    pub fn cipher(self) -> CipherSuite {
        match self {
            SuiteId::Ccmp128 => CipherSuite::Ccmp128,
            SuiteId::Ccmp256 => CipherSuite::Ccmp256,
            SuiteId::Gcmp128 => CipherSuite::Gcmp128,
            SuiteId::Gcmp256 => CipherSuite::Gcmp256,
            SuiteId::Tkip => CipherSuite::Tkip,
            SuiteId::Wep40 => CipherSuite::Wep40,
            SuiteId::Wep104 => CipherSuite::Wep104,
            SuiteId::Enhanced(ways) => match enhanced_selector(ways) {
                Some(s) => CipherSuite::Other { oui: [s[0], s[1], s[2]], suite_type: s[3] },
                None => CipherSuite::Ccmp128,
            },
        }
    }

    /// WEP-40 or WEP-104 by key length.
    pub fn wep(key_len: usize) -> Result<Self> {
        match key_len {
            5 => Ok(SuiteId::Wep40),
            13 => Ok(SuiteId::Wep104),
            got => Err(Error::KeyLength { expected: 13, got }),
        }
    }

    /// The engine mode of the CCMP-128 family (CCMP-128 and Enhanced CCMP-N), which the fast
    /// engine runs; `None` for every other suite.
    pub fn engine_mode(self) -> Option<Mode> {
        match self {
            SuiteId::Ccmp128 => Some(Mode::CCMP128),
            SuiteId::Enhanced(ways) => Some(Mode::enhanced(ways)),
            _ => None,
        }
    }

    /// The suite keyed with `tk`, following `rules`.
    pub fn keyed(self, tk: &[u8], rules: Rules) -> Result<Box<dyn FrameSuite>> {
        self.keyed_variant(tk, rules, Variant::DomainSeparated)
    }

    /// As [`SuiteId::keyed`], with an Enhanced CCMP-N variant (the naive one is forgeable
    /// and exists for measurement only).
    pub fn keyed_variant(self, tk: &[u8], rules: Rules, variant: Variant) -> Result<Box<dyn FrameSuite>> {
        if tk.len() != self.key_len() {
            return Err(Error::KeyLength { expected: self.key_len(), got: tk.len() });
        }
        if variant != Variant::DomainSeparated && !matches!(self, SuiteId::Enhanced(w) if w != Ways::N1) {
            return Err(Error::Unsupported("the variant applies only to Enhanced CCMP-N suites"));
        }
        Ok(match self {
            SuiteId::Ccmp128 | SuiteId::Enhanced(_) => {
                let mode = Mode { variant, ..self.engine_mode().unwrap_or(Mode::CCMP128) };
                Box::new(FastCcmp::keyed(Engine::new(), tk, mode)?.with_rules(rules))
            }
            SuiteId::Ccmp256 => Box::new(Ccmp256::new(tk)?.with_rules(rules)),
            SuiteId::Gcmp128 => Box::new(Gcmp128::new(tk)?.with_rules(rules)),
            SuiteId::Gcmp256 => Box::new(Gcmp256::new(tk)?.with_rules(rules)),
            SuiteId::Tkip => Box::new(Tkip::new(tk)?.with_rules(rules)),
            SuiteId::Wep40 | SuiteId::Wep104 => Box::new(Wep::new(tk)?.with_rules(rules)),
        })
    }
}

impl fmt::Display for SuiteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl FromStr for SuiteId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        SuiteId::ALL.into_iter().find(|id| id.label() == s).ok_or(Error::Unsupported("unknown suite name"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_selectors_and_keys_round_trip() {
        for id in SuiteId::ALL {
            assert_eq!(id.label().parse::<SuiteId>().unwrap(), id);
            assert_eq!(SuiteId::from_cipher(id.cipher()).unwrap(), id);
            let tk = vec![7u8; id.key_len()];
            assert!(id.keyed(&tk, Rules::default()).is_ok(), "{id}");
            assert!(matches!(id.keyed(&tk[1..], Rules::default()), Err(Error::KeyLength { .. })), "{id}");
        }
        assert_eq!(SuiteId::from_cipher(CipherSuite::Ccmp128).unwrap(), SuiteId::Ccmp128);
        assert!(SuiteId::from_cipher(CipherSuite::BipCmac128).is_err());
    }

    #[test]
    fn only_enhanced_suites_take_the_naive_variant() {
        let tk = [1u8; 16];
        assert!(SuiteId::Enhanced(Ways::N4).keyed_variant(&tk, Rules::default(), Variant::Naive).is_ok());
        assert!(SuiteId::Ccmp128.keyed_variant(&tk, Rules::default(), Variant::Naive).is_err());
    }
}
