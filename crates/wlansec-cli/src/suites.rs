//! The cipher suites the CLI can select, and the edition rules that go with them.

use clap::ValueEnum;
use wlansec_core::suite::{Ccmp128, Ccmp256, FrameSuite};
use wlansec_core::wire::Rules;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuiteName {
    Ccmp128,
    Ccmp256,
}

impl SuiteName {
    pub fn label(self) -> &'static str {
        match self {
            SuiteName::Ccmp128 => "ccmp128",
            SuiteName::Ccmp256 => "ccmp256",
        }
    }

    pub fn key_len(self) -> usize {
        match self {
            SuiteName::Ccmp128 => 16,
            SuiteName::Ccmp256 => 32,
        }
    }

    pub fn keyed(self, tk: &[u8], rules: Rules) -> wlansec_core::Result<Box<dyn FrameSuite>> {
        Ok(match self {
            SuiteName::Ccmp128 => Box::new(Ccmp128::new(tk)?.with_rules(rules)),
            SuiteName::Ccmp256 => Box::new(Ccmp256::new(tk)?.with_rules(rules)),
        })
    }
}

/// Which edition of the standard decides header shape and AAD masking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Edition {
    /// IEEE 802.11-2016 and later (Order bit in QoS data means +HTC and is masked).
    #[value(name = "2016")]
    Ieee2016,
    /// IEEE 802.11i-2004 (no HT Control; Order bit kept in the AAD).
    #[value(name = "2004")]
    Ieee2004,
}

#[derive(clap::Args, Clone, Copy, Debug)]
pub struct RuleArgs {
    /// Edition whose header and AAD rules apply.
    #[arg(long, value_enum, default_value = "2016")]
    pub rules: Edition,
    /// SPP A-MSDU negotiated: authenticate the A-MSDU Present bit.
    #[arg(long)]
    pub spp_amsdu: bool,
}

impl RuleArgs {
    pub fn rules(self) -> Rules {
        let base = match self.rules {
            Edition::Ieee2016 => Rules::IEEE80211_2016,
            Edition::Ieee2004 => Rules::IEEE80211I_2004,
        };
        Rules { spp_amsdu: self.spp_amsdu, ..base }
    }
}
