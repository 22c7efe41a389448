//! The cipher suites the CLI can select (the core registry's, by its names), and the
//! edition rules that go with them.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::ValueEnum;
use wlansec_core::engine::{Variant, Ways};
use wlansec_core::registry::SuiteId;
use wlansec_core::wire::Rules;

/// `--suite`: any suite of the registry, by its label ([`SuiteId::ALL`] is the one list of
/// names, so a suite added there is a value here).
pub fn any_suite() -> impl TypedValueParser<Value = SuiteId> {
    suites(SuiteId::ALL.into_iter())
}

/// `--suite` of a network that negotiates it in an RSN element with stations of today: the
/// registry's suites without Enhanced CCMP-N.
pub fn standard_suite() -> impl TypedValueParser<Value = SuiteId> {
    suites(SuiteId::ALL.into_iter().filter(|id| !matches!(id, SuiteId::Enhanced(_))))
}

fn suites(ids: impl Iterator<Item = SuiteId>) -> impl TypedValueParser<Value = SuiteId> {
    let values = ids.map(|id| PossibleValue::new(id.label()).help(help(id)));
    PossibleValuesParser::new(values).map(|label| label.parse::<SuiteId>().expect("a label of the registry"))
}

/// What `--help` says of a suite beside its name.
fn help(id: SuiteId) -> Option<&'static str> {
    match id {
        SuiteId::Tkip => Some("TKIP with a 32-octet TK (key, then the two Michael keys); the PN is the TSC"),
        SuiteId::Wep40 => Some("WEP-40; the PN is the 24-bit IV"),
        SuiteId::Wep104 => Some("WEP-104; the PN is the 24-bit IV"),
        SuiteId::Enhanced(Ways::N2) => {
            Some("Enhanced CCMP-N (docs/enhanced-ccmp.md): CCMP-128 with an N-way split CBC-MAC")
        }
        _ => None,
    }
}

/// The suite's label, with `-naive` appended for the naive Enhanced variant.
pub fn label_with(id: SuiteId, variant: VariantName) -> String {
    match variant {
        VariantName::Default => id.label().to_string(),
        VariantName::Naive => format!("{}-naive", id.label()),
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

impl VariantName {
    /// The core's variant this name stands for.
    fn variant(self) -> Variant {
        match self {
            VariantName::Default => Variant::DomainSeparated,
            VariantName::Naive => Variant::Naive,
        }
    }
}

#[derive(clap::Args, Clone, Copy, Debug)]
pub struct VariantArgs {
    /// Enhanced CCMP variant (enhanced-N suites only).
    #[arg(long, value_enum, default_value = "default")]
    pub variant: VariantName,
}

impl VariantArgs {
    /// The core's variant `--variant` names.
    pub fn variant(self) -> Variant {
        self.variant.variant()
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
