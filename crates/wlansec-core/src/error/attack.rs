//! Frames refused because they are what a published attack sends: each names the attack and
//! its CVE, so a counter or a log line says which defence held.

use core::fmt;

/// A published 802.11 attack whose frames a receive path refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Attack {
    /// Fragments of one MSDU under different keys (FragAttacks mixed key, CVE-2020-24587).
    MixedKeyFragments,
    /// Fragments of one MSDU with non-consecutive packet numbers (CVE-2020-26146).
    NonConsecutiveFragmentPns,
    /// Plaintext and protected fragments in one MSDU (CVE-2020-26147).
    MixedPlaintextFragments,
    /// A fragment of a group-addressed frame (CVE-2020-26145).
    GroupFragment,
    /// An A-MSDU whose first subframe starts like an LLC/SNAP header: a normal MSDU whose
    /// unauthenticated A-MSDU Present bit was flipped (FragAttacks aggregation, CVE-2020-24588).
    AmsduInjection,
    /// Plaintext data on a protected link other than one whole EAPOL frame of the
    /// handshake: plain, fragmented or aggregated (CVE-2020-26140, -26143, -26144).
    PlaintextData,
    /// An EAPOL frame the access point was to forward to another station, or a plaintext one
    /// not addressed to it (CVE-2020-26139).
    EapolForwarding,
}

impl Attack {
    /// The CVE(s) of the attack.
    pub fn cve(self) -> &'static str {
        match self {
            Attack::MixedKeyFragments => "CVE-2020-24587",
            Attack::NonConsecutiveFragmentPns => "CVE-2020-26146",
            Attack::MixedPlaintextFragments => "CVE-2020-26147",
            Attack::GroupFragment => "CVE-2020-26145",
            Attack::AmsduInjection => "CVE-2020-24588",
            Attack::PlaintextData => "CVE-2020-26140/26143/26144",
            Attack::EapolForwarding => "CVE-2020-26139",
        }
    }
}

impl fmt::Display for Attack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            Attack::MixedKeyFragments => "fragments of one MSDU under different keys",
            Attack::NonConsecutiveFragmentPns => "fragments of one MSDU with non-consecutive packet numbers",
            Attack::MixedPlaintextFragments => "plaintext and protected fragments in one MSDU",
            Attack::GroupFragment => "fragment of a group-addressed frame",
            Attack::AmsduInjection => "A-MSDU whose first subframe starts like an LLC/SNAP header",
            Attack::PlaintextData => "plaintext data on a protected link",
            Attack::EapolForwarding => "EAPOL frame not addressed to this access point",
        };
        write!(f, "{what} ({})", self.cve())
    }
}
