//! The cipher suites the CLI can select, and the edition rules that go with them.

use clap::ValueEnum;
use wlansec_core::engine::{EnhancedCcmp, Variant, Ways};
use wlansec_core::suite::{Ccmp128, Ccmp256, FrameSuite, Gcmp128, Gcmp256, Tkip, Wep};
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
    pub fn label(self) -> &'static str {
        match self {
            SuiteName::Ccmp128 => "ccmp128",
            SuiteName::Ccmp256 => "ccmp256",
            SuiteName::Gcmp128 => "gcmp128",
            SuiteName::Gcmp256 => "gcmp256",
            SuiteName::Tkip => "tkip",
            SuiteName::Wep40 => "wep40",
            SuiteName::Wep104 => "wep104",
            SuiteName::Enhanced2 => "enhanced-2",
            SuiteName::Enhanced4 => "enhanced-4",
            SuiteName::Enhanced8 => "enhanced-8",
        }
    }

    /// The suite's label, with `-naive` appended for the naive Enhanced variant.
    pub fn label_with(self, variant: VariantName) -> String {
        match variant {
            VariantName::Default => self.label().to_string(),
            VariantName::Naive => format!("{}-naive", self.label()),
        }
    }

    pub fn key_len(self) -> usize {
        match self {
            SuiteName::Ccmp128 => 16,
            SuiteName::Ccmp256 | SuiteName::Gcmp256 | SuiteName::Tkip => 32,
            SuiteName::Gcmp128 => 16,
            SuiteName::Wep40 => 5,
            SuiteName::Wep104 => 13,
            SuiteName::Enhanced2 | SuiteName::Enhanced4 | SuiteName::Enhanced8 => 16,
        }
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
        let enhanced = |ways| -> wlansec_core::Result<Box<dyn FrameSuite>> {
            Ok(Box::new(EnhancedCcmp::keyed(tk, ways, variant)?.with_rules(rules)))
        };
        if variant != Variant::DomainSeparated
            && !matches!(self, SuiteName::Enhanced2 | SuiteName::Enhanced4 | SuiteName::Enhanced8)
        {
            return Err(wlansec_core::Error::Unsupported("--variant applies only to enhanced-N suites"));
        }
        match self {
            SuiteName::Ccmp128 => Ok(Box::new(Ccmp128::new(tk)?.with_rules(rules))),
            SuiteName::Ccmp256 => Ok(Box::new(Ccmp256::new(tk)?.with_rules(rules))),
            SuiteName::Gcmp128 => Ok(Box::new(Gcmp128::new(tk)?.with_rules(rules))),
            SuiteName::Gcmp256 => Ok(Box::new(Gcmp256::new(tk)?.with_rules(rules))),
            SuiteName::Tkip => Ok(Box::new(Tkip::new(tk)?.with_rules(rules))),
            SuiteName::Wep40 | SuiteName::Wep104 if tk.len() != self.key_len() => {
                Err(wlansec_core::Error::KeyLength { expected: self.key_len(), got: tk.len() })
            }
            SuiteName::Wep40 | SuiteName::Wep104 => Ok(Box::new(Wep::new(tk)?.with_rules(rules))),
            SuiteName::Enhanced2 => enhanced(Ways::N2),
            SuiteName::Enhanced4 => enhanced(Ways::N4),
            SuiteName::Enhanced8 => enhanced(Ways::N8),
        }
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
