//! The security modes of the emulated WLAN and the keys they install: which RSN element the
//! access point advertises, which suite protects a link, and how the 4-way handshake's
//! parameters follow from the mode.

use std::fmt;
use std::str::FromStr;

use wlansec_core::engine::enhanced::enhanced_selector;
use wlansec_core::engine::Ways;
use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::element::owe::{EXTENSION_ID, OWE_DH_PARAMETER_EXT_ID};
use wlansec_core::rsn::element::{rsn_capabilities, ElementKind, MfpPolicy};
use wlansec_core::rsn::sae::{Group, PweMethod};
use wlansec_core::rsn::{Akm, CipherSuite, Params, RsnElementRepr};
use wlansec_core::rx::RxKey;
use wlansec_core::suite::tkip::Role;
use wlansec_core::suite::{FrameSuite, Tkip, Transmitter};
use wlansec_core::wire::mgmt::Elements;
use wlansec_core::wire::{MacAddr, Rules};

use crate::{Error, Result};

/// How a station proves it holds the network's secret before its 4-way handshake.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum KeyManagement {
    /// The PSK (AKM 2): the passphrase's PBKDF2 is every station's PMK.
    #[default]
    Psk,
    /// SAE (AKM 8, WPA3-Personal; AKM 24, SAE-EXT-KEY, when its settings say so): a
    /// password-authenticated key exchange in Authentication frames gives each station its
    /// own PMK; management frame protection is required.
    Sae(SaeSettings),
    /// OWE (AKM 18, RFC 8110): an unauthenticated Diffie-Hellman exchange in the
    /// association gives each station its own PMK on an open network; management frame
    /// protection is required, as on SAE.
    Owe(OweSettings),
}

impl KeyManagement {
    pub fn akm(&self) -> Akm {
        match self {
            KeyManagement::Psk => Akm::Psk,
            KeyManagement::Sae(SaeSettings { ext_key: true, .. }) => Akm::SaeExtKey,
            KeyManagement::Sae(_) => Akm::Sae,
            KeyManagement::Owe(_) => Akm::Owe,
        }
    }

    pub fn sae(&self) -> Option<&SaeSettings> {
        match self {
            KeyManagement::Sae(sae) => Some(sae),
            _ => None,
        }
    }

    pub fn owe(&self) -> Option<&OweSettings> {
        match self {
            KeyManagement::Owe(owe) => Some(owe),
            _ => None,
        }
    }

    /// Whether the key management requires management frame protection (WPA3's SAE and
    /// OWE do).
    pub fn requires_pmf(&self) -> bool {
        !matches!(self, KeyManagement::Psk)
    }
}

/// The groups an OWE access point accepts, or a station tries, in order of preference.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OweSettings {
    pub groups: Vec<Group>,
}

impl Default for OweSettings {
    /// Group 19, the one every OWE implementation has.
    fn default() -> Self {
        OweSettings { groups: vec![Group::P256] }
    }
}

/// What an SAE network offers: how the password element is derived, the groups in order
/// of preference, and whether it is SAE-EXT-KEY (AKM 24: the KDF's hash and the PMK's
/// length follow the group) rather than SAE (AKM 8).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SaeSettings {
    pub pwe: SaePwe,
    pub groups: Vec<Group>,
    pub ext_key: bool,
}

impl Default for SaeSettings {
    /// SAE by hash-to-element on group 19, as WPA3 certification asks.
    fn default() -> Self {
        SaeSettings { pwe: SaePwe::HashToElement, groups: vec![Group::P256], ext_key: false }
    }
}

/// hostapd's `sae_pwe`: the password element by hunting-and-pecking (0), by hash-to-element
/// (1), or either (2: an access point takes both; a station uses hash-to-element where the
/// access point's RSNXE offers it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SaePwe {
    HuntingAndPecking,
    HashToElement,
    Both,
}

impl SaePwe {
    /// hostapd.conf's and wpa_supplicant.conf's `sae_pwe` value.
    pub fn from_conf(value: &str) -> Result<SaePwe> {
        match value {
            "0" => Ok(SaePwe::HuntingAndPecking),
            "1" => Ok(SaePwe::HashToElement),
            "2" => Ok(SaePwe::Both),
            other => Err(Error::UnknownSaePwe(other.into())),
        }
    }

    /// The methods an access point accepts.
    pub fn accepts(self, method: PweMethod) -> bool {
        match self {
            SaePwe::HuntingAndPecking => method == PweMethod::HuntingAndPecking,
            SaePwe::HashToElement => method == PweMethod::HashToElement,
            SaePwe::Both => true,
        }
    }

    /// Whether the RSNXE advertises hash-to-element.
    pub fn offers_h2e(self) -> bool {
        self != SaePwe::HuntingAndPecking
    }
}

impl FromStr for SaePwe {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "hnp" => Ok(SaePwe::HuntingAndPecking),
            "h2e" => Ok(SaePwe::HashToElement),
            "both" => Ok(SaePwe::Both),
            other => Err(Error::UnknownSaePwe(other.into())),
        }
    }
}

impl fmt::Display for SaePwe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SaePwe::HuntingAndPecking => "hnp",
            SaePwe::HashToElement => "h2e",
            SaePwe::Both => "both",
        })
    }
}

/// What `--security` names: how frames are protected and whether stations authenticate by
/// SAE (`sae`) or OWE (`owe`), both CCMP-128 with management frame protection required, or
/// by SAE-EXT-KEY (`sae-ext`, AKM 24), GCMP-256 with management frame protection required.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Security {
    pub mode: SecurityMode,
    pub sae: bool,
    pub owe: bool,
    /// SAE-EXT-KEY rather than SAE (with `sae`).
    pub ext_key: bool,
}

impl Security {
    /// The key management of this security with SAE's `pwe` and `groups` (none: group 19;
    /// SAE-EXT-KEY: 19, then 20, as hostapd offers them); OWE's groups are `groups` too.
    /// SAE-EXT-KEY by hunting-and-pecking alone is refused: hostapd advertises
    /// hash-to-element with it and wpa_supplicant uses it.
    pub fn key_management(self, pwe: SaePwe, groups: &[u16]) -> Result<KeyManagement> {
        if !self.sae && !self.owe {
            return Ok(KeyManagement::Psk);
        }
        let unsupported = |id| if self.owe { Error::OweGroup(id) } else { Error::SaeGroup(id) };
        let groups = match groups {
            [] if self.ext_key => vec![Group::P256, Group::P384],
            [] => vec![Group::P256],
            ids => ids.iter().map(|&id| Group::from_id(id).ok_or_else(|| unsupported(id))).collect::<Result<_>>()?,
        };
        if self.owe {
            return Ok(KeyManagement::Owe(OweSettings { groups }));
        }
        if self.ext_key && pwe == SaePwe::HuntingAndPecking {
            return Err(Error::SaeExtKeyWithoutH2e);
        }
        Ok(KeyManagement::Sae(SaeSettings { pwe, groups, ext_key: self.ext_key }))
    }

    /// Whether this security requires management frame protection (SAE and OWE).
    pub fn requires_pmf(self) -> bool {
        self.sae || self.owe
    }

    /// Whether an access point of this security protects its beacons unless told otherwise:
    /// on SAE and SAE-EXT-KEY networks (WPA3, as hostapd's beacon_prot=1), off elsewhere.
    pub fn protects_beacons_by_default(self) -> bool {
        self.sae
    }
}

impl From<SecurityMode> for Security {
    fn from(mode: SecurityMode) -> Self {
        Security { mode, sae: false, owe: false, ext_key: false }
    }
}

impl FromStr for Security {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "sae" => Ok(Security { sae: true, ..SecurityMode::Ccmp.into() }),
            "owe" => Ok(Security { owe: true, ..SecurityMode::Ccmp.into() }),
            "sae-ext" => Ok(Security { sae: true, ext_key: true, ..SecurityMode::Gcmp256.into() }),
            other => Ok(other.parse::<SecurityMode>()?.into()),
        }
    }
}

impl fmt::Display for Security {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.sae, self.owe) {
            (true, _) if self.ext_key => f.write_str("sae-ext"),
            (true, _) => f.write_str("sae"),
            (_, true) => f.write_str("owe"),
            _ => self.mode.fmt(f),
        }
    }
}

/// The whole OWE Diffie-Hellman Parameter element (extension ID 32) among `elements`.
pub fn owe_dh_element<'a>(elements: &Elements<'a>) -> Option<&'a [u8]> {
    elements
        .iter()
        .map_while(core::result::Result::ok)
        .find(|e| e.id() == EXTENSION_ID && e.data().first() == Some(&OWE_DH_PARAMETER_EXT_ID))
        .map(|e| e.as_bytes())
}

/// The RSN Extension element's ID (IEEE 802.11-2020 9.4.2.241).
pub const RSNXE_ID: u8 = 244;
/// The RSNXE saying "SAE hash-to-element": bit 5 of its one octet (whose low four bits
/// give the field's length less one).
pub const RSNXE_SAE_H2E: [u8; 3] = [RSNXE_ID, 1, 1 << 5];

/// Whether an RSNXE body (after ID and length) offers SAE hash-to-element.
pub fn rsnxe_offers_h2e(data: &[u8]) -> bool {
    data.first().is_some_and(|b| b & (1 << 5) != 0)
}

/// How data frames are protected.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SecurityMode {
    Open,
    /// Static WEP-40/104 key (the passphrase's 5 or 13 characters).
    Wep,
    /// WPA (TKIP pairwise and group).
    Tkip,
    /// WPA2 (CCMP-128), protected by the card.
    Ccmp,
    /// GCMP-256 pairwise and group (32-octet temporal keys, a 16-octet MIC), protected by the card; its
    /// management frames, where protected, by BIP-GMAC-256.
    Gcmp256,
    /// CCMP-128 (`Ways::N1`) or Enhanced CCMP-N, protected by the host engine before the card.
    Enhanced(Ways),
}

impl SecurityMode {
    /// Whether keys come from a 4-way handshake (as opposed to none, or a static WEP key).
    pub fn uses_handshake(self) -> bool {
        matches!(self, SecurityMode::Tkip | SecurityMode::Ccmp | SecurityMode::Gcmp256 | SecurityMode::Enhanced(_))
    }

    /// Whether the host engine (not the card) protects frames.
    pub fn host_protected(self) -> bool {
        matches!(self, SecurityMode::Enhanced(_))
    }

    /// The cipher suite whose key hierarchy the mode uses (Enhanced derives a CCMP-128 PTK).
    pub fn cipher(self, wep_key_len: usize) -> Option<CipherSuite> {
        match self {
            SecurityMode::Open => None,
            SecurityMode::Wep if wep_key_len == 5 => Some(CipherSuite::Wep40),
            SecurityMode::Wep => Some(CipherSuite::Wep104),
            SecurityMode::Tkip => Some(CipherSuite::Tkip),
            SecurityMode::Ccmp | SecurityMode::Enhanced(_) => Some(CipherSuite::Ccmp128),
            SecurityMode::Gcmp256 => Some(CipherSuite::Gcmp256),
        }
    }

    /// The group cipher: TKIP under WPA, GCMP-256 with GCMP-256 (as hostapd picks the group
    /// cipher from the pairwise ones), CCMP-128 otherwise (Enhanced CCMP-N is pairwise only).
    fn group_cipher(self) -> CipherSuite {
        match self {
            SecurityMode::Tkip => CipherSuite::Tkip,
            SecurityMode::Gcmp256 => CipherSuite::Gcmp256,
            _ => CipherSuite::Ccmp128,
        }
    }

    /// Octets of the GTK.
    pub fn gtk_len(self) -> usize {
        self.group_cipher().tk_len().unwrap_or(16)
    }

    /// The group management cipher (BIP under the IGTK and BIGTK, [`crate::pmf`]): BIP-GMAC-256
    /// beside GCMP-256, as the 192-bit modes and Wi-Fi 7's WPA3 pair them; BIP-CMAC-128
    /// otherwise, the default one, so not written in the RSN element (as hostapd does).
    pub fn group_mgmt_cipher(self) -> CipherSuite {
        match self {
            SecurityMode::Gcmp256 => CipherSuite::BipGmac256,
            _ => CipherSuite::BipCmac128,
        }
    }

    /// Octets the mode adds to each MPDU (security header plus MIC/ICV).
    pub fn overhead(self) -> usize {
        match self {
            SecurityMode::Open => 0,
            SecurityMode::Wep => 8,
            SecurityMode::Tkip => 20,
            SecurityMode::Ccmp | SecurityMode::Enhanced(_) => 16,
            // The 8-octet GCMP header and a 16-octet MIC.
            SecurityMode::Gcmp256 => 24,
        }
    }

    /// The pairwise suite as advertised in the RSN element.
    fn pairwise_selector(self) -> Option<CipherSuite> {
        match self {
            SecurityMode::Enhanced(ways) => Some(match enhanced_selector(ways) {
                Some(s) => CipherSuite::Other { oui: [s[0], s[1], s[2]], suite_type: s[3] },
                None => CipherSuite::Ccmp128,
            }),
            SecurityMode::Tkip => Some(CipherSuite::Tkip),
            SecurityMode::Ccmp => Some(CipherSuite::Ccmp128),
            SecurityMode::Gcmp256 => Some(CipherSuite::Gcmp256),
            _ => None,
        }
    }

    /// Whether the mode can protect management frames (802.11w needs CCMP or GCMP; TKIP,
    /// WEP and open cannot).
    pub fn supports_pmf(self) -> bool {
        matches!(self, SecurityMode::Ccmp | SecurityMode::Gcmp256 | SecurityMode::Enhanced(_))
    }

    /// The RSN element a node of this mode sends, the access point in its beacon and a
    /// station in its association request: one pairwise suite, the group cipher, `akm`, the
    /// management frame protection policy `mfp` with the group management cipher, and, with
    /// `spp_amsdu`, SPP A-MSDU capability (neither where the mode cannot: only CCMP and GCMP
    /// protect management frames or authenticate the A-MSDU Present bit).
    pub fn rsn_element(self, akm: Akm, mfp: MfpPolicy, spp_amsdu: bool) -> Result<Option<Vec<u8>>> {
        let Some(pairwise) = self.pairwise_selector() else { return Ok(None) };
        let ccmp = self.supports_pmf();
        let mfp = if ccmp { mfp } else { MfpPolicy::Disabled };
        let mut repr =
            RsnElementRepr::personal(self.group_cipher(), pairwise, akm).with_mfp(mfp, self.group_mgmt_cipher());
        if ccmp && spp_amsdu {
            repr.capabilities |= rsn_capabilities::SPP_AMSDU_CAPABLE;
        }
        Ok(Some(repr.to_bytes(ElementKind::Rsn)?))
    }

    /// The rules of a link between two nodes whose RSN elements are these: SPP A-MSDU (the
    /// A-MSDU Present bit authenticated) when both are capable (IEEE 802.11-2016 12.5.3.3.3).
    pub fn link_rules(ap_rsne: &[u8], sta_rsne: &[u8]) -> Rules {
        let spp = |rsne: &[u8]| {
            RsnElementRepr::parse(rsne).is_ok_and(|(_, r)| r.capabilities & rsn_capabilities::SPP_AMSDU_CAPABLE != 0)
        };
        Rules { spp_amsdu: spp(ap_rsne) && spp(sta_rsne), ..Rules::default() }
    }

    /// Handshake parameters of `akm` between authenticator `aa` and supplicant `spa`, whose
    /// RSN elements are `ap_rsne` (beacon) and `sta_rsne` (association request).
    pub fn handshake_params(
        self,
        akm: Akm,
        aa: MacAddr,
        spa: MacAddr,
        ap_rsne: Vec<u8>,
        sta_rsne: Vec<u8>,
    ) -> Result<Params> {
        let cipher = self.cipher(0).ok_or(Error::ModeLacks { mode: self.to_string(), what: "cipher" })?;
        Ok(Params { akm, pairwise: cipher, group: cipher, aa, spa, ap_rsne, sta_rsne })
    }

    /// The suite that protects the mode's unicast frames: the host engine's Enhanced CCMP-N
    /// for Enhanced, what a card implements otherwise (CCMP-128 runs on the fast engine
    /// either way; the card model decides where its time is spent).
    pub fn suite_id(self, key_len: usize) -> Result<SuiteId> {
        match self {
            SecurityMode::Enhanced(ways) => Ok(SuiteId::Enhanced(ways)),
            SecurityMode::Open => Err(Error::ModeLacks { mode: self.to_string(), what: "frame suite" }),
            _ => {
                let cipher = self.cipher(key_len).ok_or(Error::ModeLacks { mode: self.to_string(), what: "cipher" })?;
                Ok(SuiteId::from_cipher(cipher)?)
            }
        }
    }

    /// The suite of group frames: the GTK is always used with the standard suite (Enhanced
    /// CCMP-N is pairwise only).
    pub fn group_suite_id(self, key_len: usize) -> Result<SuiteId> {
        match self {
            SecurityMode::Enhanced(_) => Ok(SuiteId::Ccmp128),
            _ => self.suite_id(key_len),
        }
    }

    /// The frame suite for a temporal key.
    pub fn suite(self, tk: &[u8]) -> Result<Box<dyn FrameSuite>> {
        Ok(self.suite_id(tk.len())?.keyed(tk, Rules::default())?)
    }

    /// The group-frame suite for a GTK.
    pub fn group_suite(self, gtk: &[u8]) -> Result<Box<dyn FrameSuite>> {
        Ok(self.group_suite_id(gtk.len())?.keyed(gtk, Rules::default())?)
    }

    /// The receive state of a temporal key.
    pub fn rx_key(self, tk: &[u8]) -> Result<RxKey> {
        Ok(RxKey::new(self.suite_id(tk.len())?, tk, Rules::default())?)
    }

    /// The receive state of a GTK.
    pub fn group_rx_key(self, gtk: &[u8]) -> Result<RxKey> {
        Ok(RxKey::new(self.group_suite_id(gtk.len())?, gtk, Rules::default())?)
    }
}

impl FromStr for SecurityMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "open" => SecurityMode::Open,
            "wep" => SecurityMode::Wep,
            "tkip" => SecurityMode::Tkip,
            "ccmp" => SecurityMode::Ccmp,
            "gcmp256" => SecurityMode::Gcmp256,
            "enhanced" => SecurityMode::Enhanced(Ways::N1),
            other => {
                let n = other
                    .strip_prefix("enhanced:")
                    .and_then(|n| n.parse::<usize>().ok())
                    .ok_or_else(|| Error::UnknownSecurityMode(s.into()))?;
                SecurityMode::Enhanced(Ways::new(n).map_err(|_| Error::EnhancedWays(n))?)
            }
        })
    }
}

impl fmt::Display for SecurityMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecurityMode::Open => f.write_str("open"),
            SecurityMode::Wep => f.write_str("wep"),
            SecurityMode::Tkip => f.write_str("tkip"),
            SecurityMode::Ccmp => f.write_str("ccmp"),
            SecurityMode::Gcmp256 => f.write_str("gcmp256"),
            SecurityMode::Enhanced(w) => write!(f, "enhanced:{}", w.count()),
        }
    }
}

/// The keys of one direction pair of a link: what we send with and what we accept.
pub struct LinkKeys {
    pub tx: Transmitter<Box<dyn FrameSuite>>,
    pub rx: RxKey,
}

impl LinkKeys {
    /// Pairwise keys (Key ID 0) of `mode` for `tk`.
    pub fn pairwise(mode: SecurityMode, tk: &[u8]) -> Result<Self> {
        Self::pairwise_under(mode, tk, Rules::default())
    }

    /// Pairwise keys of a link with its own `rules` (SPP A-MSDU negotiated or not).
    pub fn pairwise_under(mode: SecurityMode, tk: &[u8], rules: Rules) -> Result<Self> {
        let suite = mode.suite_id(tk.len())?;
        Ok(LinkKeys {
            tx: Transmitter::new(suite.keyed(tk, rules)?, 0),
            rx: RxKey::new(suite, tk, rules)?.with_key_id(0),
        })
    }

    /// Pairwise keys of a link whose direction the frames do not show (IBSS: To DS = From
    /// DS = 0), for the side that was the handshake's authenticator or not: TKIP picks its
    /// Michael keys by that role.
    pub fn pairwise_in_role(mode: SecurityMode, tk: &[u8], authenticator: bool) -> Result<Self> {
        if mode != SecurityMode::Tkip {
            return Self::pairwise(mode, tk);
        }
        let role = if authenticator { Role::Authenticator } else { Role::Supplicant };
        Ok(LinkKeys {
            tx: Transmitter::new(Box::new(Tkip::new(tk)?.with_role(role)), 0),
            rx: mode.rx_key(tk)?.with_receiver_role(role).with_key_id(0),
        })
    }
}

/// The WEP key a passphrase stands for: its 5 or 13 characters, as WEP-40/104 ASCII keys are,
/// or 10 or 26 hex digits (the key's octets, as hostapd's unquoted `wep_key0` gives them).
pub fn wep_key(passphrase: &str) -> Result<Vec<u8>> {
    match passphrase.len() {
        5 | 13 => Ok(passphrase.as_bytes().to_vec()),
        got => hex_octets(passphrase).filter(|k| k.len() == 5 || k.len() == 13).ok_or(Error::WepKeyLength { got }),
    }
}

/// The octets `text` spells in hex digits (either case), or None when it is not all hex.
pub(crate) fn hex_octets(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    text.as_bytes().chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wep_key_is_5_or_13_characters_or_10_or_26_hex_digits() {
        assert_eq!(wep_key("abcde").unwrap(), b"abcde");
        assert_eq!(wep_key("0123456789").unwrap(), [0x01, 0x23, 0x45, 0x67, 0x89]);
        assert_eq!(wep_key(&"aB".repeat(13)).unwrap(), [0xab; 13]);
        for bad in ["abcdef", "012345678g", &"ab".repeat(16), ""] {
            assert!(matches!(wep_key(bad), Err(Error::WepKeyLength { .. })), "{bad}");
        }
    }

    #[test]
    fn modes_parse_and_print() {
        for s in ["open", "wep", "tkip", "ccmp", "gcmp256", "enhanced:1", "enhanced:4", "enhanced:8"] {
            assert_eq!(s.parse::<SecurityMode>().unwrap().to_string(), s);
        }
        assert_eq!("enhanced".parse::<SecurityMode>().unwrap(), SecurityMode::Enhanced(Ways::N1));
        assert!("enhanced:3".parse::<SecurityMode>().is_err());
        assert!("wpa3".parse::<SecurityMode>().is_err());
    }

    #[test]
    fn sae_is_ccmp_with_sae_and_its_settings_parse() {
        let sae: Security = "sae".parse().unwrap();
        assert_eq!((sae.mode, sae.sae, sae.to_string()), (SecurityMode::Ccmp, true, "sae".into()));
        assert_eq!("tkip".parse::<Security>().unwrap().to_string(), "tkip");
        let km = sae.key_management(SaePwe::Both, &[20, 19]).unwrap();
        assert_eq!(km.sae().unwrap().groups, vec![Group::P384, Group::P256]);
        assert!(matches!(sae.key_management(SaePwe::Both, &[14]), Err(Error::SaeGroup(14))));
        for (conf, arg) in [("0", "hnp"), ("1", "h2e"), ("2", "both")] {
            assert_eq!(SaePwe::from_conf(conf).unwrap(), arg.parse().unwrap());
            assert_eq!(arg.parse::<SaePwe>().unwrap().to_string(), arg);
        }
        assert!(SaePwe::from_conf("3").is_err() && "sometimes".parse::<SaePwe>().is_err());
    }

    #[test]
    fn owe_is_ccmp_with_owe_on_group_19_by_default() {
        let owe: Security = "owe".parse().unwrap();
        assert_eq!((owe.mode, owe.sae, owe.owe, owe.to_string()), (SecurityMode::Ccmp, false, true, "owe".into()));
        let km = owe.key_management(SaePwe::Both, &[]).unwrap();
        assert_eq!((km.akm(), km.owe().unwrap().groups.clone()), (Akm::Owe, vec![Group::P256]));
        assert!(km.requires_pmf() && owe.requires_pmf());
        assert!(matches!(owe.key_management(SaePwe::Both, &[14]), Err(Error::OweGroup(14))));
    }

    #[test]
    fn overhead_matches_the_suites() {
        for (mode, tk) in [
            (SecurityMode::Wep, &b"abcdefghijklm"[..]),
            (SecurityMode::Tkip, &[7u8; 32][..]),
            (SecurityMode::Ccmp, &[7u8; 16][..]),
            (SecurityMode::Gcmp256, &[7u8; 32][..]),
            (SecurityMode::Enhanced(Ways::N4), &[7u8; 16][..]),
        ] {
            assert_eq!(mode.suite(tk).unwrap().overhead(), mode.overhead(), "{mode}");
        }
    }

    #[test]
    fn enhanced_n_advertises_its_vendor_selector() {
        let rsne = SecurityMode::Enhanced(Ways::N4).rsn_element(Akm::Psk, MfpPolicy::Disabled, false).unwrap().unwrap();
        let (_, repr) = RsnElementRepr::parse(&rsne).unwrap();
        assert_eq!(repr.pairwise_ciphers[0].selector(), enhanced_selector(Ways::N4).unwrap());
        let plain =
            SecurityMode::Enhanced(Ways::N1).rsn_element(Akm::Psk, MfpPolicy::Disabled, false).unwrap().unwrap();
        assert_eq!(plain, SecurityMode::Ccmp.rsn_element(Akm::Psk, MfpPolicy::Disabled, false).unwrap().unwrap());
    }
}
