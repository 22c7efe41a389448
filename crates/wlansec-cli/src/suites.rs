//! The cipher suites the CLI can select (names for the core's registry), and the edition
//! rules that go with them.

use clap::ValueEnum;
use wlansec_core::engine::{Variant, Ways};
use wlansec_core::registry::SuiteId;
use wlansec_core::suite::FrameSuite;
use wlansec_core::wire::Rules;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuiteName {
    Ccmp128,
    Ccmp256,
    Gcmp128,
    Gcmp256,
    /// TKIP with a 32-octet TK (key, then the two Michael keys); the PN is the TSC.
    Tkip,
    /// WEP-40; the PN is the 24-bit IV.
    Wep40,
    /// WEP-104; the PN is the 24-bit IV.
    Wep104,
    /// Enhanced CCMP-N (docs/enhanced-ccmp.md): CCMP-128 with an N-way split CBC-MAC.
    #[value(name = "enhanced-2")]
    Enhanced2,
    #[value(name = "enhanced-4")]
    Enhanced4,
    #[value(name = "enhanced-8")]
    Enhanced8,
}

impl SuiteName {
    /// The core registry's suite this name stands for.
    pub fn id(self) -> SuiteId {
        match self {
            SuiteName::Ccmp128 => SuiteId::Ccmp128,
            SuiteName::Ccmp256 => SuiteId::Ccmp256,
            SuiteName::Gcmp128 => SuiteId::Gcmp128,
            SuiteName::Gcmp256 => SuiteId::Gcmp256,
            SuiteName::Tkip => SuiteId::Tkip,
            SuiteName::Wep40 => SuiteId::Wep40,
            SuiteName::Wep104 => SuiteId::Wep104,
            SuiteName::Enhanced2 => SuiteId::Enhanced(Ways::N2),
            SuiteName::Enhanced4 => SuiteId::Enhanced(Ways::N4),
            SuiteName::Enhanced8 => SuiteId::Enhanced(Ways::N8),
        }
    }

    pub fn label(self) -> &'static str {
        self.id().label()
    }

    /// The suite's label, with `-naive` appended for the naive Enhanced variant.
    pub fn label_with(self, variant: VariantName) -> String {
        match variant {
            VariantName::Default => self.label().to_string(),
            VariantName::Naive => format!("{}-naive", self.label()),
        }
    }

    pub fn key_len(self) -> usize {
        self.id().key_len()
    }

    pub fn keyed_variant(
        self,
        tk: &[u8],
        rules: Rules,
        variant: VariantName,
    ) -> wlansec_core::Result<Box<dyn FrameSuite>> {
        let variant = match variant {
            VariantName::Default => Variant::DomainSeparated,
            VariantName::Naive => Variant::Naive,
        };
        self.id().keyed_variant(tk, rules, variant)
    }
}

/// The Enhanced CCMP variant (`--variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum VariantName {
    /// Domain-separated sub-chains (the only variant ever negotiated).
    #[default]
    Default,
    /// Every sub-chain starts from the same B0: forgeable, for measurement only.
    Naive,
}

#[derive(clap::Args, Clone, Copy, Debug)]
pub struct VariantArgs {
    /// Enhanced CCMP variant (enhanced-N suites only).
    #[arg(long, value_enum, default_value = "default")]
    pub variant: VariantName,
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
